//! Results: measured rows, the ratios the project tracks (with their targets),
//! and rendering to a Markdown table and a JSON document.

use crate::measure::median;
use crate::tools::HostInfo;
use crate::workloads::{Arch, Workload};
use std::fmt::Write as _;

/// Who executes the guest program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// The binary runs directly on the host CPU (host architecture only).
    Native,
    /// Under endgate.
    Endgate,
    /// Under qemu-user for the guest's architecture.
    Qemu,
}

impl Runner {
    /// The label used in tables (`native`, `endgate`, `qemu-aarch64`, ...).
    pub fn label(self, arch: Arch) -> &'static str {
        match self {
            Runner::Native => "native",
            Runner::Endgate => "endgate",
            Runner::Qemu => arch.qemu(),
        }
    }
}

/// How a measurement went.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Every run succeeded (and, for sha256sum, printed the right hash).
    Measured {
        /// Wall times in seconds of the runs at full size.
        full: Vec<f64>,
        /// Wall times in seconds of the 0-iteration runs (loop workloads).
        baseline: Option<Vec<f64>>,
        /// What was verified about the output, if anything.
        check: Option<String>,
    },
    /// Not run because something it needs is missing ("n/a" in the table).
    Skipped(String),
    /// endgate refused the guest as an architecture it does not emulate yet
    /// (exit status 126 naming an unsupported architecture).  Not a failure:
    /// the row says "unsupported" and the run's exit status is unaffected.
    Unsupported(String),
    /// A run crashed, timed out, exited non-zero or produced a wrong answer.
    Failed(String),
}

/// One (workload, guest architecture, runner) measurement.
#[derive(Clone, Debug)]
pub struct Row {
    /// The workload.
    pub workload: Workload,
    /// The guest architecture (the binary's).
    pub arch: Arch,
    /// Who runs it.
    pub runner: Runner,
    /// Iterations (loop workloads) or bytes hashed (sha256sum).
    pub size: u64,
    /// The full-size command line, when there was one.
    pub command: Option<String>,
    /// The result.
    pub outcome: Outcome,
}

impl Row {
    /// Median wall time of the full-size runs, in seconds.
    pub fn median(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Measured { full, .. } => Some(median(full)),
            _ => None,
        }
    }

    /// (max - min) / median of the full-size runs: how noisy the row is.
    pub fn spread(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Measured { full, .. } if !full.is_empty() => {
                let max = full.iter().copied().fold(f64::MIN, f64::max);
                let min = full.iter().copied().fold(f64::MAX, f64::min);
                Some((max - min) / median(full))
            }
            _ => None,
        }
    }

    /// Median wall time of the 0-iteration runs, in seconds.
    pub fn baseline_median(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Measured { baseline: Some(b), .. } => Some(median(b)),
            _ => None,
        }
    }

    /// Loop workloads: (median full - median baseline) / iterations, in ns.
    pub fn per_op_ns(&self) -> Option<f64> {
        let (full, base) = (self.median()?, self.baseline_median()?);
        (self.size > 0).then(|| (full - base) / self.size as f64 * 1e9)
    }

    /// The quantity ratios compare: ns per iteration for loop workloads,
    /// whole-process wall seconds for sha256sum.
    pub fn metric(&self) -> Option<f64> {
        match self.workload {
            Workload::Getppid | Workload::Store => self.per_op_ns().filter(|v| *v > 0.0),
            Workload::Sha256 => self.median(),
        }
    }

    /// The guest's name in tables: Debian arch for busybox, else the CPU name.
    pub fn guest(&self) -> &'static str {
        match self.workload {
            Workload::Sha256 => self.arch.debarch(),
            _ => self.arch.name(),
        }
    }

    /// "ok", "n/a: why" or "FAILED: why".
    pub fn status(&self) -> String {
        match &self.outcome {
            Outcome::Measured { check: Some(c), .. } => format!("ok ({c})"),
            Outcome::Measured { check: None, .. } => "ok".into(),
            Outcome::Skipped(why) => format!("n/a: {why}"),
            Outcome::Unsupported(why) => format!("unsupported: {why}"),
            Outcome::Failed(why) => format!("FAILED: {why}"),
        }
    }
}

/// The targets of one guest architecture's tracked ratios (`None`: shown as
/// `info`, no target).  x86_64 and aarch64 keep their original targets; the
/// later guests have the targets their issue set: getppid endgate/qemu below
/// 1.0x and sha256sum endgate/qemu within 1.5x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Targets {
    /// getppid: endgate / native x86_64, ns per syscall.
    pub getppid_native: Option<f64>,
    /// getppid: endgate / qemu-user, ns per syscall.
    pub getppid_qemu: Option<f64>,
    /// store loop: endgate / qemu-user, ns per iteration.
    pub store_qemu: Option<f64>,
    /// busybox sha256sum: endgate / qemu-user, whole-process wall time.
    pub sha256_qemu: Option<f64>,
}

impl Targets {
    /// The targets for guests of `arch`.
    pub fn of(arch: Arch) -> Targets {
        match arch {
            Arch::X86_64 | Arch::Aarch64 => Targets {
                getppid_native: Some(2.0),
                getppid_qemu: Some(0.6),
                store_qemu: Some(2.0),
                sha256_qemu: Some(1.5),
            },
            Arch::Riscv64 | Arch::Arm | Arch::I386 | Arch::S390x | Arch::Mips64el => {
                Targets { getppid_native: None, getppid_qemu: Some(1.0), store_qemu: None, sha256_qemu: Some(1.5) }
            }
        }
    }
}

/// A tracked ratio endgate / reference, with its target if it has one.
#[derive(Clone, Debug)]
pub struct Ratio {
    /// What is compared, e.g. `getppid aarch64: endgate / qemu-aarch64`.
    pub label: String,
    /// The unit the ratio is taken over (`ns/syscall`, `wall time`, ...).
    pub basis: &'static str,
    /// endgate's value over the reference's, if both were measured.
    pub value: Option<f64>,
    /// The project's goal: the ratio must be at most this.
    pub target: Option<f64>,
    /// Why the value is missing.
    pub missing: Option<String>,
}

impl Ratio {
    /// `PASS`, `MISS`, `n/a` (no value) or `info` (no target).
    pub fn verdict(&self) -> &'static str {
        match (self.value, self.target) {
            (None, _) => "n/a",
            (Some(_), None) => "info",
            (Some(v), Some(t)) if v <= t => "PASS",
            _ => "MISS",
        }
    }
}

fn find(rows: &[Row], w: Workload, a: Arch, r: Runner) -> Option<&Row> {
    rows.iter().find(|x| x.workload == w && x.arch == a && x.runner == r)
}

/// Compute the tracked ratios from the measured rows.  `host` is the
/// architecture whose native run is the reference for "endgate / native".
pub fn ratios(rows: &[Row], host: Option<Arch>) -> Vec<Ratio> {
    use Runner::*;
    use Workload::*;
    // (workload, guest arch, reference runner, reference arch, target)
    let mut specs: Vec<(Workload, Arch, Runner, Arch, Option<f64>)> = Vec::new();
    for a in Arch::ALL {
        if let Some(h) = host {
            specs.push((Getppid, a, Native, h, Targets::of(a).getppid_native));
        }
        specs.push((Getppid, a, Qemu, a, Targets::of(a).getppid_qemu));
    }
    for a in Arch::ALL {
        specs.push((Store, a, Qemu, a, Targets::of(a).store_qemu));
        if let Some(h) = host.filter(|h| *h == a) {
            specs.push((Store, a, Native, h, None));
        }
    }
    for a in Arch::ALL {
        specs.push((Sha256, a, Qemu, a, Targets::of(a).sha256_qemu));
        if let Some(h) = host.filter(|h| *h == a) {
            specs.push((Sha256, a, Native, h, None));
        }
    }
    specs
        .into_iter()
        .filter(|(w, a, ..)| find(rows, *w, *a, Endgate).is_some())
        .map(|(w, a, rr, ra, target)| {
            let guest = match w {
                Sha256 => a.debarch(),
                _ => a.name(),
            };
            let reference =
                if rr == Native && ra != a { format!("native {}", ra.name()) } else { rr.label(ra).to_string() };
            let basis = match w {
                Getppid => "ns/syscall",
                Store => "ns/iter",
                Sha256 => "wall time",
            };
            let label = format!("{} {guest}: endgate / {reference}", w.name());
            let num = find(rows, w, a, Endgate);
            let den = find(rows, w, ra, rr);
            let describe = |side: &str, r: Option<&Row>| match r {
                None => format!("{side} not run"),
                Some(r) => match &r.outcome {
                    Outcome::Skipped(why) if w == Sha256 && why.starts_with("no ") && why.contains("busybox") => {
                        format!("no {guest} busybox")
                    }
                    Outcome::Skipped(_) => format!("{side} n/a"),
                    Outcome::Unsupported(_) => format!("{side} does not run {} guests yet", a.name()),
                    Outcome::Failed(_) => format!("{side} failed"),
                    Outcome::Measured { .. } => format!("{side} too noisy (per-op time <= 0)"),
                },
            };
            let (value, missing) = match (num.and_then(Row::metric), den.and_then(Row::metric)) {
                (Some(n), Some(d)) => (Some(n / d), None),
                (None, _) => (None, Some(describe("endgate", num))),
                (_, None) => (None, Some(describe(&reference, den))),
            };
            Ratio { label, basis, value, target, missing }
        })
        .collect()
}

/// Everything that goes into results.md / results.json.
#[derive(Clone, Debug)]
pub struct Report {
    /// Machine and checkout description.
    pub host: HostInfo,
    /// Settings shown in the header: (name, value).
    pub settings: Vec<(String, String)>,
    /// Tool versions: (tool, version line or "not found").
    pub tools: Vec<(String, String)>,
    /// All measurements, in table order.
    pub rows: Vec<Row>,
    /// The tracked ratios.
    pub ratios: Vec<Ratio>,
    /// Warnings and remarks gathered during the run.
    pub notes: Vec<String>,
}

/// Format seconds as ms below 10 s, else as s.
fn fmt_secs(s: f64) -> String {
    if s < 10.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn fmt_size(w: Workload, n: u64) -> String {
    match w {
        Workload::Sha256 => format!("{} MiB", n >> 20),
        _ => {
            let exp = (n as f64).log10();
            if n >= 1000 && exp.fract() == 0.0 {
                format!("10^{} iter", exp as u32)
            } else {
                format!("{n} iter")
            }
        }
    }
}

fn per_op_cell(r: &Row) -> String {
    match r.workload {
        Workload::Getppid | Workload::Store => match r.per_op_ns() {
            Some(ns) => format!("{ns:.2} ns/{}", r.workload.unit()),
            None => "-".into(),
        },
        Workload::Sha256 => match r.median() {
            Some(s) => format!("{:.0} MiB/s", r.size as f64 / (1u64 << 20) as f64 / s),
            None => "-".into(),
        },
    }
}

/// Escape `|` so a cell cannot break a Markdown table row.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

impl Report {
    /// Render as Markdown: header, tracked ratios, all measurements, notes.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let h = &self.host;
        let _ = writeln!(s, "# endgate benchmark results\n");
        let _ = writeln!(s, "- Date: {}", h.date);
        let _ = writeln!(s, "- CPU: {} ({} logical CPUs)", h.cpu, h.cpus);
        let _ = writeln!(s, "- Kernel: {}", h.kernel);
        let _ = writeln!(s, "- Workspace commit: {}", h.commit);
        for (k, v) in &self.settings {
            let _ = writeln!(s, "- {k}: {v}");
        }
        for (k, v) in &self.tools {
            let _ = writeln!(s, "- `{k}`: {v}");
        }
        let _ = writeln!(s, "\n## Tracked ratios\n");
        let _ = writeln!(s, "| Ratio | Basis | Value | Target | Verdict |");
        let _ = writeln!(s, "|---|---|---:|---:|---|");
        for r in &self.ratios {
            let value = match (r.value, &r.missing) {
                (Some(v), _) => format!("{v:.2}x"),
                (None, Some(m)) => format!("n/a ({m})"),
                (None, None) => "n/a".into(),
            };
            let target = r.target.map(|t| format!("<= {t}x")).unwrap_or_else(|| "-".into());
            let _ = writeln!(s, "| {} | {} | {} | {} | {} |", r.label, r.basis, cell(&value), target, r.verdict());
        }
        let _ = writeln!(s, "\n## Measurements (median wall time of the whole process)\n");
        let _ = writeln!(
            s,
            "| Workload | Guest | Runner | Size | Median | Spread | 0-iter baseline | Per op / throughput | Status |"
        );
        let _ = writeln!(s, "|---|---|---|---|---:|---:|---:|---:|---|");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.workload.name(),
                r.guest(),
                r.runner.label(r.arch),
                fmt_size(r.workload, r.size),
                r.median().map(fmt_secs).unwrap_or_else(|| "n/a".into()),
                r.spread().map(|x| format!("{:.0}%", x * 100.0)).unwrap_or_else(|| "-".into()),
                r.baseline_median().map(fmt_secs).unwrap_or_else(|| "-".into()),
                per_op_cell(r),
                cell(&r.status()),
            );
        }
        let failures: Vec<&Row> = self.rows.iter().filter(|r| matches!(r.outcome, Outcome::Failed(_))).collect();
        if !failures.is_empty() {
            let _ = writeln!(s, "\n## Failures\n");
            for r in failures {
                let _ = writeln!(
                    s,
                    "- {} {} under {}: {}\n  - command: `{}`",
                    r.workload.name(),
                    r.guest(),
                    r.runner.label(r.arch),
                    r.status(),
                    r.command.as_deref().unwrap_or("-")
                );
            }
        }
        let unsupported: Vec<String> = self
            .rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Unsupported(_)))
            .map(|r| format!("{} {}", r.workload.name(), r.guest()))
            .collect();
        if !unsupported.is_empty() {
            let _ = writeln!(
                s,
                "\n## Not yet supported by endgate\n\nendgate refused these guests (exit status 126, \
                 unsupported architecture); their endgate cells and ratios are n/a: {}.",
                unsupported.join(", ")
            );
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s, "\n## Notes\n");
            for n in &self.notes {
                let _ = writeln!(s, "- {n}");
            }
        }
        let _ = writeln!(
            s,
            "\nPer-op times are (median full run - median 0-iteration run) / iterations; \
             sha256sum ratios compare whole-process median wall times. Spread is (max - min) / median \
             of the full-size runs. See benches/README.md."
        );
        s
    }

    /// Render as a JSON document (same content, raw samples included).
    pub fn to_json(&self) -> String {
        let h = &self.host;
        let opt = |v: Option<f64>| v.map(Json::Num).unwrap_or(Json::Null);
        let rows = self
            .rows
            .iter()
            .map(|r| {
                let (status, detail, full, baseline) = match &r.outcome {
                    Outcome::Measured { full, baseline, check } => (
                        "ok",
                        check.clone(),
                        Json::nums(full),
                        baseline.as_ref().map(|b| Json::nums(b)).unwrap_or(Json::Null),
                    ),
                    Outcome::Skipped(w) => ("skipped", Some(w.clone()), Json::Null, Json::Null),
                    Outcome::Unsupported(w) => ("unsupported", Some(w.clone()), Json::Null, Json::Null),
                    Outcome::Failed(w) => ("failed", Some(w.clone()), Json::Null, Json::Null),
                };
                Json::Obj(vec![
                    ("workload".into(), Json::str(r.workload.name())),
                    ("arch".into(), Json::str(r.arch.name())),
                    ("runner".into(), Json::str(r.runner.label(r.arch))),
                    ("size".into(), Json::Num(r.size as f64)),
                    (
                        "size_unit".into(),
                        Json::str(if r.workload == Workload::Sha256 { "bytes" } else { "iterations" }),
                    ),
                    ("command".into(), r.command.as_deref().map(Json::str).unwrap_or(Json::Null)),
                    ("status".into(), Json::str(status)),
                    ("detail".into(), detail.map(Json::Str).unwrap_or(Json::Null)),
                    ("median_s".into(), opt(r.median())),
                    ("baseline_median_s".into(), opt(r.baseline_median())),
                    ("spread".into(), opt(r.spread())),
                    ("per_op_ns".into(), opt(r.per_op_ns())),
                    ("samples_s".into(), full),
                    ("baseline_samples_s".into(), baseline),
                ])
            })
            .collect();
        let ratios = self
            .ratios
            .iter()
            .map(|r| {
                Json::Obj(vec![
                    ("label".into(), Json::str(&r.label)),
                    ("basis".into(), Json::str(r.basis)),
                    ("value".into(), opt(r.value)),
                    ("target_max".into(), opt(r.target)),
                    ("verdict".into(), Json::str(r.verdict())),
                    ("missing".into(), r.missing.as_deref().map(Json::str).unwrap_or(Json::Null)),
                ])
            })
            .collect();
        let pairs = |v: &[(String, String)]| Json::Obj(v.iter().map(|(k, v)| (k.clone(), Json::str(v))).collect());
        let doc = Json::Obj(vec![
            ("date".into(), Json::str(&h.date)),
            ("cpu".into(), Json::str(&h.cpu)),
            ("logical_cpus".into(), Json::Num(h.cpus as f64)),
            ("kernel".into(), Json::str(&h.kernel)),
            ("commit".into(), Json::str(&h.commit)),
            ("settings".into(), pairs(&self.settings)),
            ("tools".into(), pairs(&self.tools)),
            ("ratios".into(), Json::Arr(ratios)),
            ("measurements".into(), Json::Arr(rows)),
            ("notes".into(), Json::Arr(self.notes.iter().map(|n| Json::str(n)).collect())),
        ]);
        let mut out = String::new();
        doc.write(&mut out, 0);
        out.push('\n');
        out
    }
}

/// A minimal JSON value, enough to write results.json without dependencies.
#[derive(Clone, Debug)]
pub enum Json {
    /// `null`
    Null,
    /// A number (non-finite values are written as `null`).
    Num(f64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, keys in insertion order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// A string value.
    pub fn str(s: &str) -> Json {
        Json::Str(s.to_string())
    }

    /// An array of numbers.
    pub fn nums(v: &[f64]) -> Json {
        Json::Arr(v.iter().map(|x| Json::Num(*x)).collect())
    }

    fn write_str(out: &mut String, s: &str) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    /// Append this value, pretty-printed with two-space indentation.
    pub fn write(&self, out: &mut String, indent: usize) {
        let pad = |out: &mut String, n: usize| out.push_str(&" ".repeat(n));
        match self {
            Json::Null => out.push_str("null"),
            Json::Num(x) if x.is_finite() => {
                if x.fract() == 0.0 && x.abs() < 1e15 {
                    let _ = write!(out, "{}", *x as i64);
                } else {
                    let _ = write!(out, "{x}");
                }
            }
            Json::Num(_) => out.push_str("null"),
            Json::Str(s) => Self::write_str(out, s),
            Json::Arr(v) if v.iter().all(|x| matches!(x, Json::Num(_) | Json::Null)) => {
                out.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    x.write(out, indent);
                }
                out.push(']');
            }
            Json::Arr(v) => {
                out.push_str("[\n");
                for (i, x) in v.iter().enumerate() {
                    pad(out, indent + 2);
                    x.write(out, indent + 2);
                    out.push_str(if i + 1 < v.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push(']');
            }
            Json::Obj(v) => {
                out.push_str("{\n");
                for (i, (k, x)) in v.iter().enumerate() {
                    pad(out, indent + 2);
                    Self::write_str(out, k);
                    out.push_str(": ");
                    x.write(out, indent + 2);
                    out.push_str(if i + 1 < v.len() { ",\n" } else { "\n" });
                }
                pad(out, indent);
                out.push('}');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes() {
        let mut s = String::new();
        Json::Obj(vec![("a\"b".into(), Json::Arr(vec![Json::Num(1.5), Json::Num(2.0), Json::Null]))]).write(&mut s, 0);
        assert_eq!(s, "{\n  \"a\\\"b\": [1.5, 2, null]\n}");
    }

    fn row(w: Workload, a: Arch, r: Runner, full: f64, base: f64) -> Row {
        Row {
            workload: w,
            arch: a,
            runner: r,
            size: 1000,
            command: None,
            outcome: Outcome::Measured { full: vec![full], baseline: Some(vec![base]), check: None },
        }
    }

    #[test]
    fn unsupported_endgate_gives_na_ratio() {
        let rows = vec![
            row(Workload::Getppid, Arch::S390x, Runner::Qemu, 0.0012, 0.001),
            Row {
                workload: Workload::Getppid,
                arch: Arch::S390x,
                runner: Runner::Endgate,
                size: 1000,
                command: None,
                outcome: Outcome::Unsupported("exit status 126".into()),
            },
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let q = r.iter().find(|r| r.label == "getppid s390x: endgate / qemu-s390x").unwrap();
        assert_eq!(q.verdict(), "n/a");
        assert_eq!(q.target, Some(1.0));
        assert!(q.missing.as_deref().unwrap().contains("does not run s390x"));
    }

    #[test]
    fn new_arch_targets() {
        let rows = vec![
            row(Workload::Sha256, Arch::Arm, Runner::Endgate, 1.4, 0.0),
            row(Workload::Sha256, Arch::Arm, Runner::Qemu, 1.0, 0.0),
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let sha = r.iter().find(|r| r.label == "sha256sum armhf: endgate / qemu-arm").unwrap();
        assert!((sha.value.unwrap() - 1.4).abs() < 1e-9);
        assert_eq!(sha.verdict(), "PASS");
        assert_eq!(Targets::of(Arch::Mips64el).getppid_qemu, Some(1.0));
        assert_eq!(Targets::of(Arch::Aarch64).getppid_qemu, Some(0.6));
    }

    #[test]
    fn ratio_verdicts() {
        let rows = vec![
            row(Workload::Getppid, Arch::X86_64, Runner::Native, 0.0011, 0.001),
            row(Workload::Getppid, Arch::X86_64, Runner::Endgate, 0.0012, 0.001),
            Row {
                workload: Workload::Getppid,
                arch: Arch::X86_64,
                runner: Runner::Qemu,
                size: 1000,
                command: None,
                outcome: Outcome::Skipped("no qemu".into()),
            },
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let native = r.iter().find(|r| r.label == "getppid x86_64: endgate / native").unwrap();
        assert!((native.value.unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(native.verdict(), "PASS");
        let qemu = r.iter().find(|r| r.label == "getppid x86_64: endgate / qemu-x86_64").unwrap();
        assert_eq!(qemu.verdict(), "n/a");
    }
}
