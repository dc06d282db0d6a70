//! Results: measured rows, the ratios the project tracks (with their targets),
//! and rendering to a Markdown table and a JSON document.

use crate::measure::{median, minimum};
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
    /// Under another endgate build given with `--baseline` (e.g. built from an older
    /// commit), for the A/B comparison "endgate against the baseline".
    Baseline,
    /// Under qemu-user 10.0.2 for the guest's architecture: the reference, the one the
    /// targets are stated against.
    Qemu,
    /// Under Debian 12's qemu-user 7.2 (`--qemu72`): info ratios only.
    Qemu72,
}

impl Runner {
    /// The label used in tables (`native`, `endgate`, `qemu-aarch64 10.0.2`,
    /// `qemu-aarch64 7.2`, ...).
    pub fn label(self, arch: Arch) -> String {
        match self {
            Runner::Native => "native".into(),
            Runner::Endgate => "endgate".into(),
            Runner::Baseline => "endgate-baseline".into(),
            Runner::Qemu => format!("{} {}", arch.qemu(), guest_tests::arch::QEMU.version),
            Runner::Qemu72 => format!("{} {}", arch.qemu(), guest_tests::arch::QEMU72.version),
        }
    }
}

/// How a measurement went.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Every run succeeded (and passed its output check).
    Measured {
        /// Wall times in seconds of the runs at full size.
        full: Vec<f64>,
        /// Wall times in seconds of the 0-iteration runs (loop workloads).
        baseline: Option<Vec<f64>>,
        /// What was verified about the output, if anything.
        check: Option<String>,
        /// Peak RSS of each full-size run in KiB (`ru_maxrss`); empty if not recorded.
        rss_kib: Vec<f64>,
        /// CPU time (user + system, `wait4`'s rusage) in seconds of each full-size run;
        /// empty if not recorded.
        cpu: Vec<f64>,
        /// CPU time in seconds of each 0-iteration run (loop workloads).
        baseline_cpu: Option<Vec<f64>>,
        /// The values the guest reported itself, one per run (gatebench: ns per call).
        reported: Option<Vec<f64>>,
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

#[cfg(test)]
impl Outcome {
    /// A measurement from wall times alone (no RSS, nothing reported).
    pub fn walls(full: Vec<f64>, baseline: Option<Vec<f64>>, check: Option<String>) -> Outcome {
        Outcome::Measured {
            full,
            baseline,
            check,
            rss_kib: Vec::new(),
            cpu: Vec::new(),
            baseline_cpu: None,
            reported: None,
        }
    }
}

/// Which time a statistic is taken over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// Wall time (gatebench: the ns per call the guest timed itself).
    Wall,
    /// CPU time of the process, user + system (not defined for gatebench's values).
    Cpu,
}

/// How the runs of a row are summarised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// The median of the runs.
    Median,
    /// The fastest run: other load on the machine only ever adds time.
    Min,
}

impl Stat {
    fn of(self, v: &[f64]) -> f64 {
        match self {
            Stat::Median => median(v),
            Stat::Min => minimum(v),
        }
    }
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
    /// Iterations or calls (loop and gatebench workloads), bytes (sha256sum, gzip),
    /// kernel iterations (compute), files (find, cat), starts (startup), packages
    /// (gotypes), spawns (spawn) or `sched_yield` calls of all threads together (yield).
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
            Outcome::Measured { full, .. } if !full.is_empty() => Some(median(full)),
            _ => None,
        }
    }

    /// (max - min) / median of the full-size runs (of the reported values, for
    /// gatebench): how noisy the row is.
    pub fn spread(&self) -> Option<f64> {
        self.spread_of(Clock::Wall)
    }

    /// The samples of `clock` that [`Row::metric_by`] summarises: the full-size runs'
    /// and the 0-iteration runs', if any; for gatebench the guest's own values (wall only).
    fn samples(&self, clock: Clock) -> Option<(&[f64], Option<&[f64]>)> {
        let Outcome::Measured { full, baseline, cpu, baseline_cpu, reported, .. } = &self.outcome else {
            return None;
        };
        match clock {
            _ if self.workload.is_gatebench() => Some((reported.as_deref().filter(|_| clock == Clock::Wall)?, None)),
            Clock::Wall => Some((full, baseline.as_deref())),
            Clock::Cpu => Some((cpu, baseline_cpu.as_deref())),
        }
    }

    /// [`Row::spread`] over the wall or the CPU times.
    pub fn spread_of(&self, clock: Clock) -> Option<f64> {
        let v = match (&self.outcome, clock) {
            (Outcome::Measured { reported: Some(r), .. }, Clock::Wall) => r,
            (Outcome::Measured { full, .. }, Clock::Wall) => full,
            _ => self.samples(clock)?.0,
        };
        if v.is_empty() {
            return None;
        }
        let max = v.iter().copied().fold(f64::MIN, f64::max);
        let min = v.iter().copied().fold(f64::MAX, f64::min);
        let m = median(v);
        (m > 0.0).then(|| (max - min) / m)
    }

    /// Median wall time of the 0-iteration runs, in seconds.
    pub fn baseline_median(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Measured { baseline: Some(b), .. } if !b.is_empty() => Some(median(b)),
            _ => None,
        }
    }

    /// Median peak RSS of the full-size runs, KiB.
    pub fn rss_median(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Measured { rss_kib, .. } if !rss_kib.is_empty() => Some(median(rss_kib)),
            _ => None,
        }
    }

    /// Per-operation time in ns: loop workloads and spawn (median full - median baseline) /
    /// iterations; gatebench the median of the guest's own values; startup median / starts.
    pub fn per_op_ns(&self) -> Option<f64> {
        match (&self.outcome, self.workload) {
            (Outcome::Measured { reported: Some(r), .. }, _) if !r.is_empty() => Some(median(r)),
            (_, w) if w.has_zero_run() => {
                let (full, base) = (self.median()?, self.baseline_median()?);
                (self.size > 0).then(|| (full - base) / self.size as f64 * 1e9)
            }
            (_, Workload::Startup) => Some(self.median()? / self.size.max(1) as f64 * 1e9),
            _ => None,
        }
    }

    /// The quantity ratios compare: ns per operation for the loop, gatebench, startup and
    /// spawn workloads, whole-process wall seconds for the others.
    pub fn metric(&self) -> Option<f64> {
        self.metric_by(Clock::Wall, Stat::Median)
    }

    /// [`Row::metric`] over `clock`'s times summarised by `stat`: for getppid, store and spawn
    /// (stat(full) - stat(0-iteration)) / iterations in ns (only if positive), for
    /// gatebench stat(the guest's ns per call) (wall only), for startup stat / starts in
    /// ns, for the others stat in seconds.
    pub fn metric_by(&self, clock: Clock, stat: Stat) -> Option<f64> {
        let (full, base) = self.samples(clock)?;
        if full.is_empty() {
            return None;
        }
        let v = match self.workload {
            _ if self.workload.is_gatebench() => stat.of(full),
            w if w.has_zero_run() => {
                let base = base.filter(|b| !b.is_empty())?;
                if self.size == 0 {
                    return None;
                }
                (stat.of(full) - stat.of(base)) / self.size as f64 * 1e9
            }
            Workload::Startup => stat.of(full) / self.size.max(1) as f64 * 1e9,
            _ => return Some(stat.of(full)),
        };
        (v > 0.0).then_some(v)
    }

    /// The per-round values of [`Row::metric`] over `clock` (one per timed round, in
    /// order; `None` where a loop round's per-op time is not positive).
    fn per_round(&self, clock: Clock) -> Vec<Option<f64>> {
        let Some((full, base)) = self.samples(clock) else { return Vec::new() };
        let size = self.size as f64;
        full.iter()
            .enumerate()
            .map(|(i, &f)| {
                let v = match self.workload {
                    _ if self.workload.is_gatebench() => f,
                    w if w.has_zero_run() => (f - base?.get(i)?) / size * 1e9,
                    Workload::Startup => f / size.max(1.0) * 1e9,
                    _ => f,
                };
                (v > 0.0).then_some(v)
            })
            .collect()
    }

    /// The guest's name in tables: Debian arch for busybox, else the CPU name.
    pub fn guest(&self) -> &'static str {
        if self.workload.is_busybox() {
            self.arch.debarch()
        } else {
            self.arch.name()
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
/// 1.0x and sha256sum endgate/qemu within 1.5x.  Issue 6 (the gate) adds the
/// gatebench, CPU-bound, startup and peak-RSS targets, the same for every arch
/// except that arm64's sha256sum and gzip must be no slower than qemu-aarch64. The Go and
/// process-creation issue adds gotypes (no slower than qemu-user on arm64 and amd64) and
/// spawn (no slower than qemu-user on every arch).
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
    /// busybox gzip -9: endgate / qemu-user, whole-process wall time.
    pub gzip_qemu: Option<f64>,
    /// gatebench getppid through the trap: endgate / native x86_64 getppid, ns per call.
    pub null_trap_native: Option<f64>,
    /// gatebench getppid through the gate: endgate / native x86_64 getppid (trap; the
    /// native kernel has no gate), ns per call.
    pub null_gate_native: Option<f64>,
    /// gatebench clock_gettime through the vDSO: endgate / native x86_64 vDSO, ns per call.
    pub clock_vdso_native: Option<f64>,
    /// 100 x `busybox true`: endgate / qemu-user, time per start.
    pub startup_qemu: Option<f64>,
    /// Peak RSS on the CPU-bound workloads: endgate / qemu-user.
    pub rss_qemu: Option<f64>,
    /// gotypes (the Go type-checker): endgate / qemu-user, whole-process wall time.
    pub gotypes_qemu: Option<f64>,
    /// spawn (fork + execve + waitpid): endgate / qemu-user, time per spawn.
    pub spawn_qemu: Option<f64>,
}

impl Targets {
    /// The targets for guests of `arch`: issue 12's where it set one (sha256sum and gzip
    /// within 1.0x of qemu-user on arm64 and amd64 and 1.3x on the others; the gate within
    /// 1.2x of native getppid), the earlier issues' otherwise (benches/README.md).
    pub fn of(arch: Arch) -> Targets {
        let gate = Targets {
            getppid_native: None,
            getppid_qemu: Some(1.0),
            store_qemu: None,
            sha256_qemu: Some(1.3),
            gzip_qemu: Some(1.3),
            null_trap_native: Some(1.5),
            null_gate_native: Some(1.2),
            clock_vdso_native: Some(2.0),
            startup_qemu: Some(1.0),
            rss_qemu: Some(1.0),
            gotypes_qemu: None,
            spawn_qemu: Some(1.0),
        };
        match arch {
            Arch::X86_64 => Targets {
                getppid_native: Some(2.0),
                getppid_qemu: Some(0.6),
                store_qemu: Some(2.0),
                sha256_qemu: Some(1.0),
                gzip_qemu: Some(1.0),
                gotypes_qemu: Some(1.0),
                ..gate
            },
            Arch::Aarch64 => Targets {
                getppid_native: Some(2.0),
                getppid_qemu: Some(0.6),
                store_qemu: Some(2.0),
                sha256_qemu: Some(1.0),
                gzip_qemu: Some(1.0),
                gotypes_qemu: Some(1.0),
                ..gate
            },
            Arch::Riscv64 | Arch::Arm | Arch::I386 | Arch::S390x | Arch::Mips64el => gate,
        }
    }
}

/// What a ratio divides: the workload's metric or the runs' peak RSS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// [`Row::metric`].
    Metric,
    /// [`Row::rss_median`].
    PeakRss,
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

/// What [`Row::metric`] of workload `w` is, for the Basis columns.
fn basis(w: Workload) -> &'static str {
    match w {
        Workload::Getppid | Workload::NullTrap | Workload::NullGate => "ns/syscall",
        Workload::ClockVdso | Workload::ClockSyscall => "ns/call",
        Workload::Store => "ns/iter",
        Workload::Startup => "time/start",
        Workload::Spawn => "time/spawn",
        _ => "wall time",
    }
}

/// The row of (`w`, `a`, `r`), if measured or attempted.
pub fn find(rows: &[Row], w: Workload, a: Arch, r: Runner) -> Option<&Row> {
    rows.iter().find(|x| x.workload == w && x.arch == a && x.runner == r)
}

/// One ratio to compute: endgate on (`workload`, `arch`) over `ref_runner` on
/// (`ref_workload`, `ref_arch`).
#[derive(Clone, Copy)]
struct Spec {
    workload: Workload,
    arch: Arch,
    ref_runner: Runner,
    ref_arch: Arch,
    ref_workload: Workload,
    quantity: Quantity,
    target: Option<f64>,
}

/// Compute the tracked ratios from the measured rows.  `host` is the
/// architecture whose native run is the reference for "endgate / native".
pub fn ratios(rows: &[Row], host: Option<Arch>) -> Vec<Ratio> {
    use Runner::*;
    use Workload::*;
    let mut specs: Vec<Spec> = Vec::new();
    let mut add = |workload, arch, ref_runner, ref_arch, ref_workload, quantity, target| {
        specs.push(Spec { workload, arch, ref_runner, ref_arch, ref_workload, quantity, target })
    };
    let m = Quantity::Metric;
    for a in Arch::ALL {
        let t = Targets::of(a);
        if let Some(h) = host {
            add(Getppid, a, Native, h, Getppid, m, t.getppid_native);
        }
        add(Getppid, a, Qemu, a, Getppid, m, t.getppid_qemu);
    }
    for a in Arch::ALL {
        add(Store, a, Qemu, a, Store, m, Targets::of(a).store_qemu);
        if let Some(h) = host.filter(|h| *h == a) {
            add(Store, a, Native, h, Store, m, None);
        }
    }
    // gatebench: against the native host's trap / vDSO, and (info) against qemu-user.
    for (w, native_ref) in
        [(NullTrap, NullTrap), (NullGate, NullTrap), (ClockVdso, ClockVdso), (ClockSyscall, ClockSyscall)]
    {
        for a in Arch::ALL {
            let t = Targets::of(a);
            let target = match w {
                NullTrap => t.null_trap_native,
                NullGate => t.null_gate_native,
                ClockVdso => t.clock_vdso_native,
                _ => None,
            };
            if let Some(h) = host {
                add(w, a, Native, h, native_ref, m, target);
            }
            if matches!(w, NullTrap | ClockSyscall) {
                add(w, a, Qemu, a, w, m, None);
            }
        }
    }
    for w in [Sha256, Gzip, Compute, Find, Cat, Startup] {
        for a in Arch::ALL {
            let t = Targets::of(a);
            let target = match w {
                Sha256 => t.sha256_qemu,
                Gzip => t.gzip_qemu,
                Startup => t.startup_qemu,
                _ => None,
            };
            add(w, a, Qemu, a, w, m, target);
            if let Some(h) = host.filter(|h| *h == a) {
                add(w, a, Native, h, w, m, None);
            }
        }
    }
    for w in Workload::CPU_BOUND {
        for a in Arch::ALL {
            add(w, a, Qemu, a, w, Quantity::PeakRss, Targets::of(a).rss_qemu);
        }
    }
    // gotypes and spawn: against qemu-user, and (info) against the native host program, which
    // does the same work (the same packages and output; the same number of spawns).
    for w in [Gotypes, Spawn] {
        for a in Arch::ALL {
            let t = Targets::of(a);
            add(w, a, Qemu, a, w, m, if w == Gotypes { t.gotypes_qemu } else { t.spawn_qemu });
            if let Some(h) = host {
                add(w, a, Native, h, w, m, None);
            }
        }
    }
    // yield: against qemu-user and (info) against the native host program; no issue has set a
    // target, so both are info.
    for a in Arch::ALL {
        add(Yield, a, Qemu, a, Yield, m, None);
        if let Some(h) = host {
            add(Yield, a, Native, h, Yield, m, None);
        }
    }
    // fileio, mapgrow and mapchurn: the same (info).
    for w in [FileIo, MapGrow, MapChurn] {
        for a in Arch::ALL {
            add(w, a, Qemu, a, w, m, None);
            if let Some(h) = host {
                add(w, a, Native, h, w, m, None);
            }
        }
    }
    // Every ratio against qemu-user 10.0.2 also against 7.2 where 7.2 ran (info: the targets
    // are 10.0.2's), right after it.
    let specs: Vec<Spec> = specs
        .into_iter()
        .flat_map(|s| {
            let old = (s.ref_runner == Qemu && find(rows, s.ref_workload, s.ref_arch, Qemu72).is_some())
                .then_some(Spec { ref_runner: Qemu72, target: None, ..s });
            std::iter::once(s).chain(old)
        })
        .collect();
    specs
        .into_iter()
        .filter(|s| find(rows, s.workload, s.arch, Endgate).is_some())
        .map(|s| {
            let w = s.workload;
            let a = s.arch;
            let guest = if w.is_busybox() { a.debarch() } else { a.name() };
            let mut reference = if s.ref_runner == Native && s.ref_arch != a {
                format!("native {}", s.ref_arch.name())
            } else {
                s.ref_runner.label(s.ref_arch)
            };
            if s.ref_workload != w {
                reference = format!("{reference} {}", s.ref_workload.name());
            }
            let basis = match s.quantity {
                Quantity::PeakRss => "peak RSS",
                Quantity::Metric => basis(w),
            };
            let label = match s.quantity {
                Quantity::PeakRss => format!("peak RSS {} {guest}: endgate / {reference}", w.name()),
                Quantity::Metric => format!("{} {guest}: endgate / {reference}", w.name()),
            };
            let num = find(rows, w, a, Endgate);
            let den = find(rows, s.ref_workload, s.ref_arch, s.ref_runner);
            let describe = |side: &str, r: Option<&Row>| match r {
                None => format!("{side} not run"),
                Some(r) => match &r.outcome {
                    Outcome::Skipped(why) if w.is_busybox() && why.starts_with("no ") && why.contains("busybox") => {
                        format!("no {guest} busybox")
                    }
                    Outcome::Skipped(why) if w.is_gatebench() && !why.is_empty() => format!("{side}: {why}"),
                    Outcome::Skipped(_) => format!("{side} n/a"),
                    Outcome::Unsupported(_) => format!("{side} does not run {} guests yet", a.name()),
                    Outcome::Failed(_) => format!("{side} failed"),
                    Outcome::Measured { .. } => format!("{side} too noisy (per-op time <= 0)"),
                },
            };
            let value_of = |r: &Row| match s.quantity {
                Quantity::Metric => r.metric(),
                Quantity::PeakRss => r.rss_median(),
            };
            let (value, missing) = match (num.and_then(value_of), den.and_then(value_of)) {
                (Some(n), Some(d)) => (Some(n / d), None),
                (None, _) => (None, Some(describe("endgate", num))),
                (_, None) => (None, Some(describe(&reference, den))),
            };
            Ratio { label, basis, value, target: s.target, missing }
        })
        .collect()
}

/// One (workload, guest) of the A/B comparison endgate / endgate-baseline (`--baseline`):
/// the ratio of [`Row::metric_by`] of the two rows for each clock and statistic.
#[derive(Clone, Debug)]
pub struct AgainstBaseline {
    /// The workload.
    pub workload: Workload,
    /// The guest architecture.
    pub arch: Arch,
    /// The unit both metrics are in (`ns/syscall`, `wall time`, ...).
    pub basis: &'static str,
    /// endgate's and the baseline's [`Row::metric`] (median wall).
    pub endgate: Option<f64>,
    /// The baseline's [`Row::metric`].
    pub baseline: Option<f64>,
    /// Ratios endgate / baseline, indexed like [`AgainstBaseline::STATS`].
    pub ratio: [Option<f64>; 4],
    /// Spreads (see [`Row::spread_of`]): endgate wall, baseline wall, endgate CPU, baseline CPU.
    pub spread: [Option<f64>; 4],
    /// The smallest and largest per-round ratio endgate / baseline of the load-robust
    /// clock (CPU time; wall for gatebench), the two runs of a round being back to back.
    pub rounds: Option<(f64, f64)>,
    /// Why there is no value.
    pub missing: Option<String>,
}

impl AgainstBaseline {
    /// The clock and statistic of each entry of [`AgainstBaseline::ratio`], with its name.
    pub const STATS: [(Clock, Stat, &'static str); 4] = [
        (Clock::Wall, Stat::Median, "median_wall"),
        (Clock::Wall, Stat::Min, "min_wall"),
        (Clock::Cpu, Stat::Median, "median_cpu"),
        (Clock::Cpu, Stat::Min, "min_cpu"),
    ];

    /// The clock of [`AgainstBaseline::rounds`] and the verdict.
    fn robust_clock(w: Workload) -> Clock {
        if w.is_gatebench() {
            Clock::Wall
        } else {
            Clock::Cpu
        }
    }

    /// `within noise` when the per-round ratios lie on both sides of 1 (or touch it),
    /// `faster` / `slower` when endgate was faster / slower than the baseline in every
    /// round, `n/a` without rounds.
    pub fn reading(&self) -> &'static str {
        match self.rounds {
            None => "n/a",
            Some((_, hi)) if hi < 1.0 => "faster",
            Some((lo, _)) if lo > 1.0 => "slower",
            Some(_) => "within noise",
        }
    }
}

/// The A/B comparison endgate / endgate-baseline for every (workload, guest) that has a
/// baseline row, in row order.
pub fn against_baseline(rows: &[Row]) -> Vec<AgainstBaseline> {
    rows.iter()
        .filter(|b| b.runner == Runner::Baseline)
        .map(|b| {
            let (w, a) = (b.workload, b.arch);
            let e = find(rows, w, a, Runner::Endgate);
            let ratio = AgainstBaseline::STATS.map(|(clock, stat, _)| {
                let (n, d) = (e?.metric_by(clock, stat)?, b.metric_by(clock, stat)?);
                Some(n / d)
            });
            let spread = [
                e.and_then(|e| e.spread_of(Clock::Wall)),
                b.spread_of(Clock::Wall),
                e.and_then(|e| e.spread_of(Clock::Cpu)),
                b.spread_of(Clock::Cpu),
            ];
            let clock = AgainstBaseline::robust_clock(w);
            let per_round: Vec<f64> = e
                .map(|e| e.per_round(clock))
                .unwrap_or_default()
                .into_iter()
                .zip(b.per_round(clock))
                .filter_map(|(n, d)| Some(n? / d?))
                .collect();
            let rounds = (!per_round.is_empty())
                .then(|| (minimum(&per_round), per_round.iter().copied().fold(f64::NEG_INFINITY, f64::max)));
            let describe = |side: &str, r: Option<&Row>| match r.map(|r| &r.outcome) {
                None => format!("{side} not run"),
                Some(Outcome::Skipped(_)) => format!("{side} n/a"),
                Some(Outcome::Unsupported(_)) => format!("{side} does not run {} guests", a.name()),
                Some(Outcome::Failed(_)) => format!("{side} failed"),
                Some(Outcome::Measured { .. }) => format!("{side} too noisy (per-op time <= 0)"),
            };
            let (endgate, baseline) = (e.and_then(Row::metric), b.metric());
            let missing = match (endgate, baseline) {
                (Some(_), Some(_)) => None,
                (None, _) => Some(describe("endgate", e)),
                (_, None) => Some(describe("endgate-baseline", Some(b))),
            };
            AgainstBaseline { workload: w, arch: a, basis: basis(w), endgate, baseline, ratio, spread, rounds, missing }
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
    /// endgate against the `--baseline` build (empty without one).
    pub against_baseline: Vec<AgainstBaseline>,
    /// Warnings and remarks gathered during the run.
    pub notes: Vec<String>,
}

/// Thread scaling: one runner's wall time with one thread per host core over its time with one
/// thread (`None` if either is missing).
pub fn scaling(rows: &[Row], a: Arch, r: Runner) -> Option<f64> {
    let one = find(rows, Workload::Threads1, a, r)?.median()?;
    let many = find(rows, Workload::ThreadsN, a, r)?.median()?;
    (one > 0.0).then(|| many / one)
}

/// The thread-scaling target (issue 12): endgate's scaling within 15 % of the native run's.
pub const SCALING_TARGET: f64 = 1.15;

/// The "Thread scaling" table: each arch's N-thread / 1-thread wall-time ratio under endgate and
/// qemu-user, and endgate's over the native host program's (the target holds for arm64, amd64
/// and s390x).
fn scaling_table(s: &mut String, rows: &[Row]) {
    let Some(host) = Arch::host() else { return };
    let Some(native) = scaling(rows, host, Runner::Native) else { return };
    let _ = writeln!(s, "\n## Thread scaling\n");
    let _ = writeln!(
        s,
        "Wall time with one thread per host core over wall time with one thread (the same work per \
         thread); native {}: {native:.2}x.\n",
        host.name()
    );
    let _ = writeln!(s, "| Arch | endgate | qemu-user 10.0.2 | endgate / native | Target | Verdict |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---|");
    for a in Arch::ALL {
        let (e, q) = (scaling(rows, a, Runner::Endgate), scaling(rows, a, Runner::Qemu));
        if e.is_none() && q.is_none() {
            continue;
        }
        let f = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:.2}x"));
        let tracked = matches!(a, Arch::X86_64 | Arch::Aarch64 | Arch::S390x);
        let rel = e.map(|e| e / native);
        let verdict = match (rel, tracked) {
            (Some(v), true) if v <= SCALING_TARGET => "PASS",
            (Some(_), true) => "MISS",
            (None, true) => "n/a",
            (_, false) => "info",
        };
        let target = if tracked { format!("<= {SCALING_TARGET}x") } else { "-".into() };
        let _ = writeln!(s, "| {} | {} | {} | {} | {target} | {verdict} |", a.name(), f(e), f(q), f(rel));
    }
}

/// The "Go type-checking and process creation" table: gotypes (whole-process wall time) and
/// spawn (time per fork + execve + waitpid) per guest under endgate and qemu-user 10.0.2,
/// the native host program's value, endgate / qemu-user with its target and verdict, and
/// endgate / native (info).
fn go_spawn_table(s: &mut String, rows: &[Row]) {
    let host = Arch::host();
    let mut lines = Vec::new();
    for w in [Workload::Gotypes, Workload::Spawn] {
        let native = host.and_then(|h| find(rows, w, h, Runner::Native)).and_then(Row::metric);
        for a in Arch::ALL {
            let metric = |r| find(rows, w, a, r).and_then(Row::metric);
            let (e, q) = (metric(Runner::Endgate), metric(Runner::Qemu));
            if find(rows, w, a, Runner::Endgate).is_none() && find(rows, w, a, Runner::Qemu).is_none() {
                continue;
            }
            let t = Targets::of(a);
            let target = if w == Workload::Gotypes { t.gotypes_qemu } else { t.spawn_qemu };
            let vs_qemu = Ratio {
                label: String::new(),
                basis: basis(w),
                value: e.zip(q).map(|(e, q)| e / q),
                target,
                missing: None,
            };
            let fmt = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| fmt_metric(basis(w), v));
            let x = |v: Option<f64>| v.map_or_else(|| "n/a".into(), |v| format!("{v:.2}x"));
            lines.push(format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                w.name(),
                a.name(),
                fmt(e),
                fmt(q),
                fmt(native),
                x(vs_qemu.value),
                x(e.zip(native).map(|(e, n)| e / n)),
                target.map_or_else(|| "-".into(), |t| format!("<= {t}x")),
                vs_qemu.verdict(),
            ));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n## Go type-checking and process creation\n");
    let _ = writeln!(
        s,
        "gotypes: whole-process wall time of the Go program that parses and type-checks go/... \
         (stdout checked against the native run's); spawn: time per fork + execve + waitpid, \
         (median full run - median 0-iteration run) / spawns. Native: the {} program on the host.\n",
        host.map_or("(none)", Arch::name)
    );
    let _ = writeln!(
        s,
        "| Workload | Guest | endgate | qemu-user 10.0.2 | native | endgate / qemu-user | endgate / native | \
         Target (/ qemu-user) | Verdict |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---|");
    for l in lines {
        let _ = writeln!(s, "{l}");
    }
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
    let unit = match w {
        Workload::Sha256 | Workload::Gzip => return format!("{} MiB", n >> 20),
        Workload::Find | Workload::Cat => "files",
        Workload::Startup => "starts",
        Workload::NullTrap | Workload::NullGate | Workload::ClockVdso | Workload::ClockSyscall => "calls",
        Workload::Gotypes => "packages",
        Workload::Spawn => "spawns",
        Workload::Yield => "yields",
        Workload::FileIo => "rounds",
        Workload::MapGrow => "pages",
        Workload::MapChurn => "rounds",
        _ => "iter",
    };
    let exp = (n as f64).log10();
    if n >= 1000 && exp.fract() == 0.0 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a whole log10 of n >= 1000
        let exp = exp as u32;
        format!("10^{exp} {unit}")
    } else {
        format!("{n} {unit}")
    }
}

fn per_op_cell(r: &Row) -> String {
    match r.workload {
        Workload::Sha256 | Workload::Gzip => match r.median() {
            Some(s) => format!("{:.1} MiB/s", r.size as f64 / (1u64 << 20) as f64 / s),
            None => "-".into(),
        },
        Workload::Compute
        | Workload::Find
        | Workload::Cat
        | Workload::Yield
        | Workload::FileIo
        | Workload::MapGrow
        | Workload::MapChurn => match r.median() {
            Some(s) if r.size > 0 => format!("{:.2} us/{}", s / r.size as f64 * 1e6, r.workload.unit()),
            _ => "-".into(),
        },
        Workload::Startup | Workload::Spawn => match r.per_op_ns() {
            Some(ns) => format!("{:.2} ms/{}", ns / 1e6, r.workload.unit()),
            None => "-".into(),
        },
        Workload::Gotypes => match r.median() {
            Some(s) => format!("{s:.2} s/{}", r.workload.unit()),
            None => "-".into(),
        },
        _ => match r.per_op_ns() {
            Some(ns) => format!("{ns:.2} ns/{}", r.workload.unit()),
            None => "-".into(),
        },
    }
}

/// A value of [`Row::metric`] in its basis: ns, ms per start, or seconds.
fn fmt_metric(basis: &str, v: f64) -> String {
    match basis {
        "time/start" | "time/spawn" => format!("{:.2} ms", v / 1e6),
        "wall time" => fmt_secs(v),
        _ => format!("{v:.2} ns"),
    }
}

/// The Markdown table "endgate against the baseline".
fn baseline_table(s: &mut String, rows: &[AgainstBaseline]) {
    let _ = writeln!(s, "\n## endgate against the baseline\n");
    let _ = writeln!(
        s,
        "Ratio endgate / endgate-baseline (below 1x: endgate is faster). Median and min are over the runs; \
         CPU is the process's user + system time (wait4), which waiting for a busy CPU does not add to. \
         Per round: the range of the ratios of the two runs of each round (back to back), CPU time \
         (gatebench: the guest's own ns per call); it reads `faster` or `slower` when every round agrees, \
         else `within noise`.\n"
    );
    let _ = writeln!(
        s,
        "| Workload | Guest | Basis | endgate | baseline | Median wall | Min wall | Median CPU | Min CPU | \
         Spread wall (endgate / baseline) | Spread CPU (endgate / baseline) | Per round | Reading |"
    );
    let _ = writeln!(s, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    let x = |v: Option<f64>| v.map(|v| format!("{v:.3}x")).unwrap_or_else(|| "n/a".into());
    let pct = |v: Option<f64>| v.map(|v| format!("{:.0}%", v * 100.0)).unwrap_or_else(|| "-".into());
    for r in rows {
        let guest = if r.workload.is_busybox() { r.arch.debarch() } else { r.arch.name() };
        let value = |v: Option<f64>| match (v, &r.missing) {
            (Some(v), _) => fmt_metric(r.basis, v),
            (None, Some(m)) => format!("n/a ({m})"),
            (None, None) => "n/a".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {guest} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} | {} | {} |",
            r.workload.name(),
            r.basis,
            cell(&value(r.endgate)),
            cell(&value(r.baseline)),
            x(r.ratio[0]),
            x(r.ratio[1]),
            x(r.ratio[2]),
            x(r.ratio[3]),
            pct(r.spread[0]),
            pct(r.spread[1]),
            pct(r.spread[2]),
            pct(r.spread[3]),
            r.rounds.map(|(lo, hi)| format!("{lo:.3}x - {hi:.3}x")).unwrap_or_else(|| "-".into()),
            r.reading(),
        );
    }
}

fn fmt_rss(kib: f64) -> String {
    if kib >= 10240.0 {
        format!("{:.0} MiB", kib / 1024.0)
    } else {
        format!("{:.1} MiB", kib / 1024.0)
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
        scaling_table(&mut s, &self.rows);
        go_spawn_table(&mut s, &self.rows);
        if !self.against_baseline.is_empty() {
            baseline_table(&mut s, &self.against_baseline);
        }
        let _ = writeln!(s, "\n## Measurements (median wall time of the whole process)\n");
        let _ = writeln!(
            s,
            "| Workload | Guest | Runner | Size | Median | Spread | 0-iter baseline | Per op / throughput | Peak RSS | Status |"
        );
        let _ = writeln!(s, "|---|---|---|---|---:|---:|---:|---:|---:|---|");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.workload.name(),
                r.guest(),
                r.runner.label(r.arch),
                fmt_size(r.workload, r.size),
                r.median().map(fmt_secs).unwrap_or_else(|| "n/a".into()),
                r.spread().map(|x| format!("{:.0}%", x * 100.0)).unwrap_or_else(|| "-".into()),
                r.baseline_median().map(fmt_secs).unwrap_or_else(|| "-".into()),
                per_op_cell(r),
                r.rss_median().map(fmt_rss).unwrap_or_else(|| "-".into()),
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
            "\nPer-op times of getppid, store and spawn are (median full run - median 0-iteration run) / \
             iterations (spawns); null_trap, null_gate, clock_vdso and clock_syscall are the median of the ns per \
             call the guest (gatebench) timed itself; startup is the median time per start; the other \
             workloads' ratios compare whole-process median wall times. Spread is (max - min) / median \
             of the full-size runs (of the guest's values for gatebench). Peak RSS is the median \
             ru_maxrss of the process (the emulator with its guest). See benches/README.md."
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
                let nums = |v: &Option<Vec<f64>>| v.as_ref().map(|v| Json::nums(v)).unwrap_or(Json::Null);
                let (status, detail, full, baseline, rss, reported, cpu, baseline_cpu) = match &r.outcome {
                    Outcome::Measured { full, baseline, check, rss_kib, cpu, baseline_cpu, reported } => (
                        "ok",
                        check.clone(),
                        Json::nums(full),
                        nums(baseline),
                        Json::nums(rss_kib),
                        nums(reported),
                        Json::nums(cpu),
                        nums(baseline_cpu),
                    ),
                    Outcome::Skipped(w) | Outcome::Unsupported(w) | Outcome::Failed(w) => {
                        let status = match &r.outcome {
                            Outcome::Skipped(_) => "skipped",
                            Outcome::Unsupported(_) => "unsupported",
                            _ => "failed",
                        };
                        let n = || Json::Null;
                        (status, Some(w.clone()), n(), n(), n(), n(), n(), n())
                    }
                };
                Json::Obj(vec![
                    ("workload".into(), Json::str(r.workload.name())),
                    ("arch".into(), Json::str(r.arch.name())),
                    ("runner".into(), Json::str(&r.runner.label(r.arch))),
                    ("size".into(), Json::Num(r.size as f64)),
                    (
                        "size_unit".into(),
                        Json::str(match r.workload {
                            Workload::Sha256 | Workload::Gzip => "bytes",
                            Workload::Find | Workload::Cat => "files",
                            Workload::Startup => "starts",
                            Workload::Gotypes => "packages",
                            Workload::Spawn => "spawns",
                            Workload::Yield => "sched_yield calls",
                            Workload::FileIo => "rounds",
                            Workload::MapGrow => "pages",
                            Workload::MapChurn => "rounds",
                            Workload::NullTrap | Workload::NullGate | Workload::ClockVdso | Workload::ClockSyscall => {
                                "calls"
                            }
                            _ => "iterations",
                        }),
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
                    ("peak_rss_median_kib".into(), opt(r.rss_median())),
                    ("peak_rss_samples_kib".into(), rss),
                    ("reported_ns".into(), reported),
                    ("cpu_samples_s".into(), cpu),
                    ("baseline_cpu_samples_s".into(), baseline_cpu),
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
        let against_baseline = self
            .against_baseline
            .iter()
            .map(|r| {
                let mut o = vec![
                    ("workload".into(), Json::str(r.workload.name())),
                    ("arch".into(), Json::str(r.arch.name())),
                    ("basis".into(), Json::str(r.basis)),
                    ("endgate".into(), opt(r.endgate)),
                    ("baseline".into(), opt(r.baseline)),
                ];
                for ((_, _, name), v) in AgainstBaseline::STATS.iter().zip(r.ratio) {
                    o.push((format!("ratio_{name}"), opt(v)));
                }
                for (name, v) in ["wall_endgate", "wall_baseline", "cpu_endgate", "cpu_baseline"].iter().zip(r.spread) {
                    o.push((format!("spread_{name}"), opt(v)));
                }
                o.push(("per_round_min".into(), opt(r.rounds.map(|(lo, _)| lo))));
                o.push(("per_round_max".into(), opt(r.rounds.map(|(_, hi)| hi))));
                o.push(("reading".into(), Json::str(r.reading())));
                o.push(("missing".into(), r.missing.as_deref().map(Json::str).unwrap_or(Json::Null)));
                Json::Obj(o)
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
            ("against_baseline".into(), Json::Arr(against_baseline)),
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
                    #[allow(clippy::cast_possible_truncation)] // whole and below 1e15
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
            outcome: Outcome::walls(vec![full], Some(vec![base]), None),
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
        let q = r.iter().find(|r| r.label == "getppid s390x: endgate / qemu-s390x 10.0.2").unwrap();
        assert_eq!(q.verdict(), "n/a");
        assert_eq!(q.target, Some(1.0));
        assert!(q.missing.as_deref().unwrap().contains("does not run s390x"));
    }

    #[test]
    fn new_arch_targets() {
        let rows = vec![
            row(Workload::Sha256, Arch::Arm, Runner::Endgate, 1.2, 0.0),
            row(Workload::Sha256, Arch::Arm, Runner::Qemu, 1.0, 0.0),
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let sha = r.iter().find(|r| r.label == "sha256sum armhf: endgate / qemu-arm 10.0.2").unwrap();
        assert!((sha.value.unwrap() - 1.2).abs() < 1e-9);
        assert_eq!(sha.verdict(), "PASS");
        assert!(!r.iter().any(|r| r.label.ends_with(" 7.2")), "no 7.2 ratios without 7.2 rows");
        let mut rows = rows;
        rows.push(row(Workload::Sha256, Arch::Arm, Runner::Qemu72, 2.0, 0.0));
        let r = ratios(&rows, Some(Arch::X86_64));
        let i = r.iter().position(|r| r.label == "sha256sum armhf: endgate / qemu-arm 7.2").unwrap();
        assert_eq!(r[i - 1].label, "sha256sum armhf: endgate / qemu-arm 10.0.2");
        assert!((r[i].value.unwrap() - 0.6).abs() < 1e-9);
        assert_eq!((r[i].target, r[i].verdict()), (None, "info"));
        assert_eq!(Targets::of(Arch::Mips64el).getppid_qemu, Some(1.0));
        assert_eq!(Targets::of(Arch::Aarch64).getppid_qemu, Some(0.6));
        assert_eq!(Targets::of(Arch::Aarch64).sha256_qemu, Some(1.0));
        assert_eq!(Targets::of(Arch::Arm).null_gate_native, Some(1.2));
        assert_eq!(Targets::of(Arch::X86_64).sha256_qemu, Some(1.0));
        assert_eq!(Targets::of(Arch::S390x).sha256_qemu, Some(1.3));
    }

    fn gate_row(w: Workload, a: Arch, r: Runner, ns: f64) -> Row {
        Row {
            workload: w,
            arch: a,
            runner: r,
            size: 1000,
            command: None,
            outcome: Outcome::Measured {
                full: vec![0.1],
                baseline: None,
                check: None,
                rss_kib: vec![1000.0],
                cpu: vec![0.1],
                baseline_cpu: None,
                reported: Some(vec![ns, ns + 2.0, ns - 2.0]),
            },
        }
    }

    #[test]
    fn gate_ratios_use_native_trap_and_rss() {
        let rows = vec![
            gate_row(Workload::NullTrap, Arch::X86_64, Runner::Native, 100.0),
            Row {
                workload: Workload::NullGate,
                arch: Arch::X86_64,
                runner: Runner::Native,
                size: 1000,
                command: None,
                outcome: Outcome::Skipped("no __kernel_vsyscall".into()),
            },
            gate_row(Workload::NullGate, Arch::Aarch64, Runner::Endgate, 80.0),
            gate_row(Workload::Compute, Arch::Aarch64, Runner::Endgate, 0.0),
            gate_row(Workload::Compute, Arch::Aarch64, Runner::Qemu, 0.0),
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let g = r.iter().find(|r| r.label == "null_gate aarch64: endgate / native x86_64 null_trap").unwrap();
        assert!((g.value.unwrap() - 0.8).abs() < 1e-9);
        assert_eq!(g.verdict(), "PASS");
        let rss = r.iter().find(|r| r.label == "peak RSS compute aarch64: endgate / qemu-aarch64 10.0.2").unwrap();
        assert_eq!(rss.value, Some(1.0));
        assert_eq!(rss.verdict(), "PASS");
    }

    /// A measured row with wall and CPU samples (and 0-iteration ones for loops).
    fn timed(w: Workload, a: Arch, r: Runner, wall: [&[f64]; 2], cpu: [&[f64]; 2]) -> Row {
        let some = |v: &[f64]| (!v.is_empty()).then(|| v.to_vec());
        Row {
            workload: w,
            arch: a,
            runner: r,
            size: 1000,
            command: None,
            outcome: Outcome::Measured {
                full: wall[0].to_vec(),
                baseline: some(wall[1]),
                check: None,
                rss_kib: Vec::new(),
                cpu: cpu[0].to_vec(),
                baseline_cpu: some(cpu[1]),
                reported: None,
            },
        }
    }

    #[test]
    fn against_baseline_ratios_and_table() {
        use Runner::{Baseline, Endgate, Qemu};
        use Workload::{Getppid, NullTrap, Sha256};
        let x86 = Arch::X86_64;
        let ms = [1e-3; 3];
        let rows = vec![
            timed(Getppid, x86, Endgate, [&[3e-3, 4e-3, 3.5e-3], &ms], [&[2e-3, 2.2e-3, 2.1e-3], &[0.5e-3; 3]]),
            timed(Getppid, x86, Baseline, [&[5e-3, 6e-3, 5.5e-3], &ms], [&[4e-3, 4.2e-3, 4.1e-3], &[0.5e-3; 3]]),
            timed(Getppid, x86, Qemu, [&[9e-3; 3], &ms], [&[9e-3; 3], &ms]),
            timed(Sha256, x86, Endgate, [&[2.0, 2.2, 2.1], &[]], [&[1.9, 2.0, 2.1], &[]]),
            timed(Sha256, x86, Baseline, [&[2.1, 2.0, 2.2], &[]], [&[2.0, 1.9, 2.05], &[]]),
            gate_row(NullTrap, x86, Endgate, 90.0),
            gate_row(NullTrap, x86, Baseline, 100.0),
            timed(Sha256, Arch::Arm, Endgate, [&[3.0], &[]], [&[3.0], &[]]),
            Row {
                outcome: Outcome::Failed("exit status 1".into()),
                ..timed(Sha256, Arch::Arm, Baseline, [&[], &[]], [&[], &[]])
            },
        ];
        let ab = against_baseline(&rows);
        assert_eq!(ab.len(), 4, "one entry per baseline row: {ab:?}");
        let close = |v: Option<f64>, want: f64| assert!((v.unwrap() - want).abs() < 1e-9, "{v:?} != {want}");

        // getppid: (full - 0-iteration) / 1000 iterations; min of full minus min of base.
        let g = &ab[0];
        assert_eq!((g.workload, g.arch, g.basis), (Getppid, x86, "ns/syscall"));
        close(g.endgate, 2500.0);
        close(g.baseline, 4500.0);
        close(g.ratio[0], 2500.0 / 4500.0);
        close(g.ratio[1], 2000.0 / 4000.0);
        close(g.ratio[2], 1600.0 / 3600.0);
        close(g.ratio[3], 1500.0 / 3500.0);
        let (lo, hi) = g.rounds.unwrap();
        assert!((lo - 1.5 / 3.5).abs() < 1e-9 && (hi - 1.7 / 3.7).abs() < 1e-9, "{lo} {hi}");
        assert_eq!(g.reading(), "faster");

        // sha256sum: whole-process times; per-round CPU ratios on both sides of 1.
        let s = &ab[1];
        close(s.ratio[0], 1.0);
        close(s.ratio[3], 1.9 / 1.9);
        close(s.spread[0], 0.2 / 2.1);
        close(s.spread[3], 0.15 / 2.0);
        assert_eq!(s.reading(), "within noise");

        // gatebench: the guest's own ns per call; no CPU time per value.
        let n = &ab[2];
        close(n.ratio[0], 0.9);
        close(n.ratio[1], 88.0 / 98.0);
        assert_eq!((n.ratio[2], n.ratio[3], n.spread[2]), (None, None, None));
        assert_eq!(n.reading(), "faster");

        let f = &ab[3];
        assert_eq!((f.ratio, f.rounds, f.reading()), ([None; 4], None, "n/a"));
        assert_eq!(f.missing.as_deref(), Some("endgate-baseline failed"));

        let report = Report {
            host: HostInfo { date: "d".into(), cpu: "c".into(), cpus: 2, kernel: "k".into(), commit: "x".into() },
            settings: Vec::new(),
            tools: Vec::new(),
            ratios: ratios(&rows, Some(x86)),
            against_baseline: ab,
            rows,
            notes: Vec::new(),
        };
        let md = report.to_markdown();
        assert!(!report.ratios.iter().any(|r| r.label.contains("baseline")), "no tracked ratio for the baseline");
        for line in [
            "## endgate against the baseline",
            "| getppid | x86_64 | ns/syscall | 2500.00 ns | 4500.00 ns | 0.556x | 0.500x | 0.444x | 0.429x | \
             29% / 18% | 10% / 5% | 0.429x - 0.459x | faster |",
            "| sha256sum | amd64 | wall time | 2100.0 ms | 2100.0 ms | 1.000x | 1.000x | 1.000x | 1.000x | 10% / 10% | \
             10% / 7% | 0.950x - 1.053x | within noise |",
            "| null_trap | x86_64 | ns/syscall | 90.00 ns | 100.00 ns | 0.900x | 0.898x | n/a | n/a | 4% / 4% | - / - | \
             0.898x - 0.902x | faster |",
            "| sha256sum | armhf | wall time | 3000.0 ms | n/a (endgate-baseline failed) | n/a | n/a | n/a | n/a | 0% / - | \
             0% / - | - | n/a |",
            "| getppid | x86_64 | endgate-baseline | 10^3 iter |",
        ] {
            assert!(md.contains(line), "missing {line:?} in\n{md}");
        }
        let json = report.to_json();
        assert!(json.contains("\"ratio_min_cpu\": 0.42857"), "{json}");
        assert!(json.contains("\"reading\": \"within noise\""), "{json}");
        assert!(json.contains("\"cpu_samples_s\": [0.002, 0.0022, 0.0021]"), "{json}");
    }

    #[test]
    fn gotypes_and_spawn_ratios_and_table() {
        use Runner::{Endgate, Native, Qemu};
        use Workload::{Gotypes, Spawn};
        let rows = vec![
            row(Gotypes, Arch::X86_64, Native, 0.6, 0.0),
            row(Gotypes, Arch::Aarch64, Endgate, 4.0, 0.0),
            row(Gotypes, Arch::Aarch64, Qemu, 5.0, 0.0),
            row(Gotypes, Arch::S390x, Endgate, 6.0, 0.0),
            row(Gotypes, Arch::S390x, Qemu, 3.0, 0.0),
            // 1000 spawns: (full - 0-iteration run) / 1000.
            row(Spawn, Arch::X86_64, Native, 0.6, 0.1),
            row(Spawn, Arch::Arm, Endgate, 6.1, 0.1),
            row(Spawn, Arch::Arm, Qemu, 8.1, 0.1),
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let get = |label: &str| r.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no {label}: {r:?}"));
        let close = |v: Option<f64>, want: f64| assert!((v.unwrap() - want).abs() < 1e-9, "{v:?} != {want}");
        let g = get("gotypes aarch64: endgate / qemu-aarch64 10.0.2");
        close(g.value, 0.8);
        assert_eq!((g.basis, g.target, g.verdict()), ("wall time", Some(1.0), "PASS"));
        let g = get("gotypes s390x: endgate / qemu-s390x 10.0.2");
        assert_eq!((g.target, g.verdict()), (None, "info"));
        close(get("gotypes aarch64: endgate / native x86_64").value, 4.0 / 0.6);
        let sp = get("spawn arm: endgate / qemu-arm 10.0.2");
        close(sp.value, 0.75);
        assert_eq!((sp.basis, sp.target, sp.verdict()), ("time/spawn", Some(1.0), "PASS"));
        close(get("spawn arm: endgate / native x86_64").value, 12.0);
        assert_eq!(Targets::of(Arch::X86_64).gotypes_qemu, Some(1.0));
        assert_eq!(Targets::of(Arch::Mips64el).spawn_qemu, Some(1.0));
        let sp_row = find(&rows, Spawn, Arch::Arm, Endgate).unwrap();
        close(sp_row.per_op_ns(), 6e6);
        assert_eq!(per_op_cell(sp_row), "6.00 ms/spawn");
        assert_eq!(fmt_size(Spawn, 200), "200 spawns");
        assert_eq!(fmt_size(Gotypes, 10), "10 packages");
        let mut md = String::new();
        go_spawn_table(&mut md, &rows);
        for line in [
            "## Go type-checking and process creation",
            "| gotypes | aarch64 | 4000.0 ms | 5000.0 ms | 600.0 ms | 0.80x | 6.67x | <= 1x | PASS |",
            "| gotypes | s390x | 6000.0 ms | 3000.0 ms | 600.0 ms | 2.00x | 10.00x | - | info |",
            "| spawn | arm | 6.00 ms | 8.00 ms | 0.50 ms | 0.75x | 12.00x | <= 1x | PASS |",
        ] {
            assert!(md.contains(line), "missing {line:?} in\n{md}");
        }
        let mut empty = String::new();
        go_spawn_table(&mut empty, &rows[..1]);
        assert!(empty.is_empty(), "{empty}");
    }

    #[test]
    fn yield_ratios_are_info() {
        use Runner::{Endgate, Native, Qemu};
        let rows = vec![
            row(Workload::Yield, Arch::X86_64, Native, 0.1, 0.0),
            row(Workload::Yield, Arch::Aarch64, Endgate, 0.26, 0.0),
            row(Workload::Yield, Arch::Aarch64, Qemu, 0.27, 0.0),
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let get = |label: &str| r.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no {label}: {r:?}"));
        let q = get("yield aarch64: endgate / qemu-aarch64 10.0.2");
        assert!((q.value.unwrap() - 0.26 / 0.27).abs() < 1e-9);
        assert_eq!((q.basis, q.target, q.verdict()), ("wall time", None, "info"));
        let n = get("yield aarch64: endgate / native x86_64");
        assert!((n.value.unwrap() - 2.6).abs() < 1e-9);
        assert_eq!(n.verdict(), "info");
        assert_eq!(fmt_size(Workload::Yield, 96_000), "96000 yields");
        // size 1000 (the test rows'): 0.26 s / 1000 yields.
        assert_eq!(per_op_cell(&rows[1]), "260.00 us/yield");
    }

    #[test]
    fn mapgrow_ratios_are_info() {
        use Runner::{Endgate, Native, Qemu};
        let rows = vec![
            row(Workload::MapGrow, Arch::X86_64, Native, 0.02, 0.0),
            row(Workload::MapGrow, Arch::S390x, Endgate, 0.05, 0.0),
            row(Workload::MapGrow, Arch::S390x, Qemu, 0.2, 0.0),
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let get = |label: &str| r.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no {label}: {r:?}"));
        let q = get("mapgrow s390x: endgate / qemu-s390x 10.0.2");
        assert!((q.value.unwrap() - 0.25).abs() < 1e-9);
        assert_eq!((q.basis, q.target, q.verdict()), ("wall time", None, "info"));
        let n = get("mapgrow s390x: endgate / native x86_64");
        assert!((n.value.unwrap() - 2.5).abs() < 1e-9);
        assert_eq!(n.verdict(), "info");
        assert_eq!(fmt_size(Workload::MapGrow, 2000), "2000 pages");
        // size 1000 (the test rows'): 0.05 s / 1000 pages.
        assert_eq!(per_op_cell(&rows[1]), "50.00 us/page");
    }

    #[test]
    fn mapchurn_ratios_are_info() {
        use Runner::{Endgate, Native, Qemu};
        let rows = vec![
            row(Workload::MapChurn, Arch::X86_64, Native, 0.1, 0.0),
            row(Workload::MapChurn, Arch::Aarch64, Endgate, 0.3, 0.0),
            row(Workload::MapChurn, Arch::Aarch64, Qemu, 0.6, 0.0),
        ];
        let r = ratios(&rows, Some(Arch::X86_64));
        let get = |label: &str| r.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no {label}: {r:?}"));
        let q = get("mapchurn aarch64: endgate / qemu-aarch64 10.0.2");
        assert!((q.value.unwrap() - 0.5).abs() < 1e-9);
        assert_eq!((q.basis, q.target, q.verdict()), ("wall time", None, "info"));
        let n = get("mapchurn aarch64: endgate / native x86_64");
        assert!((n.value.unwrap() - 3.0).abs() < 1e-9);
        assert_eq!(n.verdict(), "info");
        assert_eq!(fmt_size(Workload::MapChurn, 20_000), "20000 rounds");
        // size 1000 (the test rows'): 0.3 s / 1000 rounds.
        assert_eq!(per_op_cell(&rows[1]), "300.00 us/round");
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
        let qemu = r.iter().find(|r| r.label == "getppid x86_64: endgate / qemu-x86_64 10.0.2").unwrap();
        assert_eq!(qemu.verdict(), "n/a");
    }
}
