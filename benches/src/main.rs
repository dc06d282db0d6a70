//! `endgate-bench`: whole-process speed comparison of native execution,
//! endgate and qemu-user.
//!
//! One run times every workload (a `getppid` loop, a store loop and
//! `busybox sha256sum` of a large file) for every guest architecture
//! (x86_64, aarch64, riscv64, arm, i386, s390x, mips64el) under every
//! available runner, prints
//! a Markdown table with the tracked endgate/native and endgate/qemu ratios
//! (PASS/MISS against the project's targets) and writes `results.md` and
//! `results.json`.  See `benches/README.md`.
//!
//! ```text
//! cargo run --release -p endgate-benches -- [--quick] [--arches LIST] [--runs N] [--out benches/results]
//! ```

mod measure;
mod report;
mod tools;
mod workloads;

use measure::{run_round_robin, Invocation, Plan, Task};
use report::{Outcome, Report, Row, Runner};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;
use workloads::{Arch, Workload};

const USAGE: &str = "\
usage: endgate-bench [OPTIONS]

Times native, endgate and qemu-user on a getppid loop, a store loop and
busybox sha256sum, and writes results.md / results.json.

Options:
  --quick              1-2 runs and smaller sizes (a smoke test, not for tracking)
  --runs N             timed runs per measurement (default 5; --quick: 2)
  --out DIR            where to write results.md and results.json (default benches/results)
  --busybox-dir DIR    holds <debarch>/busybox or <debarch>/bin/busybox (default .cache/busybox)
  --endgate PATH       endgate binary to use (default: build and use target/release/endgate)
  --no-build           do not run `cargo build --release -p endgate` first
  --only LIST          comma-separated subset of: getppid,store,sha256sum
  --arches LIST        comma-separated guest arches (default all): x86_64,aarch64,riscv64,
                       arm,i386,s390x,mips64el (Debian names amd64,arm64,armhf also work)
  --timeout SECS       kill a run that takes longer than this (default 300)
  -h, --help           print this help
";

/// Command-line options.
struct Options {
    quick: bool,
    runs: usize,
    out: PathBuf,
    busybox_dir: PathBuf,
    endgate: Option<PathBuf>,
    build: bool,
    only: Vec<Workload>,
    arches: Vec<Arch>,
    timeout: Duration,
}

/// Problem sizes for one mode.
struct Sizes {
    getppid: u64,
    store: u64,
    sha_bytes: u64,
}

impl Sizes {
    fn for_mode(quick: bool) -> Sizes {
        if quick {
            Sizes { getppid: 100_000, store: 10_000_000, sha_bytes: 8 << 20 }
        } else {
            Sizes { getppid: 1_000_000, store: 100_000_000, sha_bytes: 64 << 20 }
        }
    }

    fn of(&self, w: Workload) -> u64 {
        match w {
            Workload::Getppid => self.getppid,
            Workload::Store => self.store,
            Workload::Sha256 => self.sha_bytes,
        }
    }
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

fn parse_args(root: &Path) -> Result<Options, String> {
    let mut o = Options {
        quick: false,
        runs: 0,
        out: root.join("benches/results"),
        busybox_dir: root.join(".cache/busybox"),
        endgate: None,
        build: true,
        only: Workload::ALL.to_vec(),
        arches: Arch::ALL.to_vec(),
        timeout: Duration::from_secs(300),
    };
    let mut runs = None;
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        let arg = arg.to_string_lossy().into_owned();
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| args.next().map(|v| v.to_string_lossy().into_owned()))
                .ok_or_else(|| format!("{name} needs {what}"))
        };
        match name.as_str() {
            "--quick" => o.quick = true,
            "--runs" => {
                let n: usize = value("a number")?.parse().map_err(|_| "--runs needs a positive number")?;
                if n == 0 {
                    return Err("--runs must be at least 1".into());
                }
                runs = Some(n);
            }
            "--out" => o.out = PathBuf::from(value("a directory")?),
            "--busybox-dir" => o.busybox_dir = PathBuf::from(value("a directory")?),
            "--endgate" => o.endgate = Some(PathBuf::from(value("a path")?)),
            "--no-build" => o.build = false,
            "--only" => {
                o.only = value("a list")?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| Workload::parse(s.trim()).ok_or_else(|| format!("unknown workload `{s}`")))
                    .collect::<Result<_, _>>()?;
            }
            "--arches" => {
                let list = value("a list")?;
                let picked: Vec<Arch> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| Arch::parse(s).ok_or_else(|| format!("unknown guest architecture `{s}`")))
                    .collect::<Result<_, _>>()?;
                if picked.is_empty() {
                    return Err("--arches needs at least one architecture".into());
                }
                // Keep report order, drop repeats.
                o.arches = Arch::ALL.into_iter().filter(|a| picked.contains(a)).collect();
            }
            "--timeout" => {
                let secs: u64 = value("seconds")?.parse().map_err(|_| "--timeout needs a whole number of seconds")?;
                o.timeout = Duration::from_secs(secs.max(1));
            }
            "-h" | "--help" => {
                print!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    o.runs = runs.unwrap_or(if o.quick { 2 } else { 5 });
    Ok(o)
}

/// The cargo target directory (honours `CARGO_TARGET_DIR`).
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => root.join(PathBuf::from(d)),
        _ => root.join("target"),
    }
}

/// Find (and unless told otherwise, first rebuild) the endgate binary.
fn resolve_endgate(o: &Options, root: &Path, notes: &mut Vec<String>) -> Result<PathBuf, String> {
    if let Some(p) = &o.endgate {
        return if tools::is_executable(p) {
            Ok(p.clone())
        } else {
            Err(format!("--endgate {}: not an executable file", p.display()))
        };
    }
    let bin = target_dir(root).join("release/endgate");
    if o.build {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        eprintln!("endgate-bench: building endgate (cargo build --release -p endgate)");
        let ok = Command::new(&cargo)
            .args(["build", "--release", "-p", "endgate"])
            .current_dir(root)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            if tools::is_executable(&bin) {
                let msg = format!("building endgate failed; using the existing, possibly stale {}", bin.display());
                eprintln!("endgate-bench: warning: {msg}");
                notes.push(msg);
            } else {
                return Err("building endgate failed and there is no target/release/endgate".into());
            }
        }
    }
    if tools::is_executable(&bin) {
        Ok(bin)
    } else {
        Err(format!("{} not found (build it with `cargo build --release -p endgate`)", bin.display()))
    }
}

/// Tools found (or the reason they are missing).
struct Toolset {
    endgate: Result<PathBuf, String>,
    /// qemu-user per architecture, indexed by [`Arch::index`].
    qemu: Vec<Result<PathBuf, String>>,
    /// Cross compiler per architecture, indexed by [`Arch::index`].
    compiler: Vec<Result<PathBuf, String>>,
}

impl Toolset {
    fn qemu(&self, a: Arch) -> &Result<PathBuf, String> {
        &self.qemu[a.index()]
    }
    fn compiler(&self, a: Arch) -> &Result<PathBuf, String> {
        &self.compiler[a.index()]
    }
}

/// The runners that apply to guests of `arch` on this host.
fn runners_for(arch: Arch) -> Vec<Runner> {
    let mut v = Vec::new();
    if Arch::host() == Some(arch) {
        v.push(Runner::Native);
    }
    v.extend([Runner::Endgate, Runner::Qemu]);
    v
}

/// The command running `guest` with `args` under `runner`, or why it cannot.
fn invocation(
    tools: &Toolset,
    runner: Runner,
    arch: Arch,
    guest: &Path,
    args: &[OsString],
) -> Result<Invocation, String> {
    let wrap = |emu: &Result<PathBuf, String>| -> Result<Invocation, String> {
        let emu = emu.as_ref().map_err(Clone::clone)?;
        let mut all = vec![guest.as_os_str().to_owned()];
        all.extend_from_slice(args);
        Ok(Invocation { program: emu.clone(), args: all })
    };
    match runner {
        Runner::Native => Ok(Invocation { program: guest.to_path_buf(), args: args.to_vec() }),
        Runner::Endgate => wrap(&tools.endgate),
        Runner::Qemu => wrap(tools.qemu(arch)),
    }
}

/// The outcome of a failed measurement: [`Outcome::Unsupported`] when endgate
/// refused the guest's architecture (exit status 126 and a message naming an
/// unsupported architecture), else [`Outcome::Failed`].
fn failure(runner: Runner, err: String) -> Outcome {
    if runner == Runner::Endgate && err.starts_with("exit status 126") && err.contains("unsupported") {
        // Keep endgate's own one-line reason, without the command line.
        let why = err.split_once("stderr: ").map_or(err.as_str(), |(_, e)| e);
        let why = why.split(" (0-iteration run").next().unwrap_or(why);
        Outcome::Unsupported(why.trim().to_string())
    } else {
        Outcome::Failed(err)
    }
}

/// Measure the rows that have a task (round-robin) and fill in their outcomes.
fn measure_group(plan: &Plan, rows: &mut [Row], tasks: Vec<(usize, Task)>) {
    if tasks.is_empty() {
        return;
    }
    let (idx, tasks): (Vec<usize>, Vec<Task>) = tasks.into_iter().unzip();
    let label = |i: usize| {
        let r = &rows[idx[i]];
        format!("{} {} {}", r.workload.name(), r.arch.name(), r.runner.label(r.arch))
    };
    let results = run_round_robin(&tasks, plan, label);
    for ((i, task), res) in idx.into_iter().zip(&tasks).zip(results) {
        rows[i].outcome = match res {
            Ok(s) => Outcome::Measured {
                full: s.full,
                baseline: s.base,
                check: Some(match task {
                    Task::Loop { .. } => "exit 0".into(),
                    Task::Hash { .. } => "hash matches".into(),
                }),
            },
            Err(e) => failure(rows[i].runner, e),
        };
    }
}

fn progress_done(row: &Row) {
    let what = match &row.outcome {
        Outcome::Measured { .. } => {
            let med = row.median().unwrap_or(0.0);
            match row.per_op_ns() {
                Some(ns) => format!("median {:.1} ms, {ns:.2} ns/op", med * 1e3),
                None => format!("median {:.1} ms", med * 1e3),
            }
        }
        other => match other {
            Outcome::Skipped(w) => format!("n/a: {w}"),
            Outcome::Unsupported(w) => format!("unsupported: {w}"),
            Outcome::Failed(w) => format!("FAILED: {w}"),
            Outcome::Measured { .. } => unreachable!(),
        },
    };
    eprintln!("  {:<10} {:<8} {:<13} {what}", row.workload.name(), row.arch.name(), row.runner.label(row.arch));
}

/// The first three fields of /proc/loadavg.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Removes the temporary directory holding the sha256sum input on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn main() -> ExitCode {
    let root = workspace_root();
    let opts = match parse_args(&root) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("endgate-bench: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let sizes = Sizes::for_mode(opts.quick);
    let plan = Plan { runs: opts.runs, warmup: !opts.quick, timeout: opts.timeout };
    let mut notes = Vec::new();

    let endgate = resolve_endgate(&opts, &root, &mut notes);
    let find = |name: &str| tools::which(name);
    let toolset = Toolset {
        endgate,
        qemu: Arch::ALL.into_iter().map(|a| find(a.qemu())).collect(),
        compiler: Arch::ALL.into_iter().map(|a| find(a.compiler())).collect(),
    };
    let mut tool_lines = Vec::new();
    let version = |r: &Result<PathBuf, String>| match r {
        Ok(p) => tools::version_line(p).unwrap_or_else(|| format!("{} (version unknown)", p.display())),
        Err(e) => format!("not available: {e}"),
    };
    tool_lines.push(("endgate".to_string(), version(&toolset.endgate)));
    for &a in &opts.arches {
        tool_lines.push((a.qemu().to_string(), version(toolset.qemu(a))));
    }
    for &a in &opts.arches {
        tool_lines.push((a.compiler().to_string(), version(toolset.compiler(a))));
    }
    for (name, r) in tool_lines.iter() {
        if r.starts_with("not available") {
            eprintln!("endgate-bench: warning: {name} {r}; its column will be n/a");
        }
    }
    let host = Arch::host();
    if host.is_none() {
        notes.push(format!("host architecture {} is not a guest architecture: no native runs", std::env::consts::ARCH));
    }

    let guest_src = root.join("benches/guests");
    let guest_out = target_dir(&root).join("bench-guests");
    let mut rows: Vec<Row> = Vec::new();

    let load_before = load_average();

    // Loop workloads: getppid and store.
    for w in [Workload::Getppid, Workload::Store] {
        if !opts.only.contains(&w) {
            continue;
        }
        let n = sizes.of(w);
        let first = rows.len();
        let mut tasks = Vec::new();
        for a in Arch::ALL {
            // The native host run is the reference of every arch's getppid
            // "endgate / native" ratio, so it runs even if the host arch is
            // not among --arches.
            let runners = if opts.arches.contains(&a) {
                runners_for(a)
            } else if w == Workload::Getppid && host == Some(a) {
                vec![Runner::Native]
            } else {
                continue;
            };
            let guest = toolset
                .compiler(a)
                .as_ref()
                .map_err(|e| format!("cannot build the {} guest: {e}", a.name()))
                .and_then(|cc| workloads::build_guest(w, a, cc, &guest_src, &guest_out));
            if let Err(e) = &guest {
                eprintln!("endgate-bench: warning: {e}");
            }
            for r in runners {
                let mut row = Row {
                    workload: w,
                    arch: a,
                    runner: r,
                    size: n,
                    command: None,
                    outcome: Outcome::Skipped(String::new()),
                };
                let full_args = [OsString::from(n.to_string())];
                let base_args = [OsString::from("0")];
                let invs = guest.as_ref().map_err(Clone::clone).and_then(|g| {
                    Ok((invocation(&toolset, r, a, g, &full_args)?, invocation(&toolset, r, a, g, &base_args)?))
                });
                match invs {
                    Err(e) => row.outcome = Outcome::Skipped(e),
                    Ok((full, base)) => {
                        row.command = Some(full.display());
                        tasks.push((rows.len() - first, Task::Loop { full, base }));
                    }
                }
                rows.push(row);
            }
        }
        eprintln!("endgate-bench: {} ({n} iterations)", w.name());
        measure_group(&plan, &mut rows[first..], tasks);
        rows[first..].iter().for_each(progress_done);
    }

    // busybox sha256sum of a deterministic file.
    let mut _tmp_guard = None;
    if opts.only.contains(&Workload::Sha256) {
        let bytes = sizes.sha_bytes;
        let busyboxes: Vec<(Arch, Result<PathBuf, String>)> = opts
            .arches
            .iter()
            .map(|&a| {
                let bb = tools::find_busybox(&opts.busybox_dir, a.debarch());
                let bb = match (bb, a.busybox_hint()) {
                    (Err(e), Some(hint)) => Err(format!("{e}; {hint}")),
                    (bb, _) => bb,
                };
                (a, bb)
            })
            .collect();
        for (_, bb) in &busyboxes {
            if let Err(e) = bb {
                eprintln!("endgate-bench: warning: {e}");
            }
        }
        let tmp = std::env::temp_dir().join(format!("endgate-bench-{}", std::process::id()));
        let data = tmp.join(format!("data-{}MiB.bin", bytes >> 20));
        let expected = if busyboxes.iter().all(|(_, bb)| bb.is_err()) {
            Err("no busybox".to_string())
        } else {
            eprintln!("endgate-bench: writing {} MiB of test data to {}", bytes >> 20, data.display());
            std::fs::create_dir_all(&tmp)
                .and_then(|_| {
                    _tmp_guard = Some(TempDir(tmp.clone()));
                    workloads::make_data_file(&data, bytes)
                })
                .map_err(|e| format!("cannot create the input file {}: {e}", data.display()))
        };
        match &expected {
            Ok(h) => notes.push(format!(
                "sha256sum input: {} MiB of splitmix64(seed {:#x}) output, SHA-256 {h} \
                 (computed by the harness; every run's output is checked against it)",
                bytes >> 20,
                workloads::DATA_SEED
            )),
            Err(e) if e != "no busybox" => eprintln!("endgate-bench: warning: {e}"),
            Err(_) => {}
        }
        let first = rows.len();
        let mut tasks = Vec::new();
        for (a, bb) in &busyboxes {
            let a = *a;
            for r in runners_for(a) {
                let mut row = Row {
                    workload: Workload::Sha256,
                    arch: a,
                    runner: r,
                    size: bytes,
                    command: None,
                    outcome: Outcome::Skipped(String::new()),
                };
                let args = [OsString::from("sha256sum"), data.clone().into_os_string()];
                let inv = bb
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|bb| expected.as_ref().map(|h| (bb, h)).map_err(Clone::clone))
                    .and_then(|(bb, h)| Ok((invocation(&toolset, r, a, bb, &args)?, h.clone())));
                match inv {
                    Err(e) => row.outcome = Outcome::Skipped(e),
                    Ok((inv, expected)) => {
                        row.command = Some(inv.display());
                        tasks.push((rows.len() - first, Task::Hash { inv, expected }));
                    }
                }
                rows.push(row);
            }
        }
        eprintln!("endgate-bench: sha256sum ({} MiB)", bytes >> 20);
        measure_group(&plan, &mut rows[first..], tasks);
        rows[first..].iter().for_each(progress_done);
    }
    drop(_tmp_guard);
    let unsupported: Vec<&str> = opts
        .arches
        .iter()
        .filter(|&&a| rows.iter().any(|r| r.arch == a && matches!(r.outcome, Outcome::Unsupported(_))))
        .map(|a| a.name())
        .collect();
    if !unsupported.is_empty() {
        eprintln!("endgate-bench: endgate does not run these guests yet: {}", unsupported.join(", "));
    }
    notes.push(format!(
        "load average (1/5/15 min) before: {load_before}, after: {}; other load on the machine inflates wall times",
        load_average()
    ));

    let settings = vec![
        ("Guest architectures".to_string(), opts.arches.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")),
        ("Mode".to_string(), if opts.quick { "quick (smoke test; not for tracking)" } else { "full" }.to_string()),
        (
            "Runs".to_string(),
            format!(
                "{} timed runs per measurement, median taken{}; runners interleaved round-robin",
                plan.runs,
                if plan.warmup { ", after 1 warm-up round" } else { "" }
            ),
        ),
        (
            "Sizes".to_string(),
            format!(
                "getppid {} calls, store loop {} iterations, sha256sum {} MiB",
                sizes.getppid,
                sizes.store,
                sizes.sha_bytes >> 20
            ),
        ),
    ];
    let report = Report {
        host: tools::HostInfo::collect(&root),
        settings,
        tools: tool_lines,
        ratios: report::ratios(&rows, host),
        rows,
        notes,
    };
    let md = report.to_markdown();
    println!("{md}");
    let written = std::fs::create_dir_all(&opts.out)
        .and_then(|_| std::fs::write(opts.out.join("results.md"), &md))
        .and_then(|_| std::fs::write(opts.out.join("results.json"), report.to_json()));
    match written {
        Ok(()) => eprintln!("endgate-bench: wrote {}/results.md and results.json", opts.out.display()),
        Err(e) => {
            eprintln!("endgate-bench: cannot write results to {}: {e}", opts.out.display());
            return ExitCode::from(2);
        }
    }
    if report.rows.iter().any(|r| matches!(r.outcome, Outcome::Failed(_))) {
        eprintln!("endgate-bench: some measurements FAILED (see the table)");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
