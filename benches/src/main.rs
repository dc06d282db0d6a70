//! `endgate-bench`: whole-process speed comparison of native execution,
//! endgate and qemu-user 10.0.2 (the reference; Debian 12's qemu-user 7.2 too
//! with `--qemu72`).
//!
//! One run times every workload (a `getppid` loop, a store loop, gatebench's
//! trap/gate/vDSO calls, `busybox sha256sum` and `gzip -9` of large files, a
//! CoreMark-like C kernel, `busybox find` and `cat` over 5000 small files,
//! repeated `busybox true`, thread scaling, a Go program type-checking the standard
//! library's `go/...` packages, a fork + execve + waitpid loop and many threads calling
//! `sched_yield`) for every guest
//! architecture (x86_64, aarch64,
//! riscv64, arm, i386, s390x, mips64el) under every available runner, records
//! the peak RSS of each run, prints a Markdown table with the tracked
//! endgate/native and endgate/qemu ratios (PASS/MISS against the project's
//! targets) and writes `results.md`, `results.json` and `results.svg`.  See
//! `benches/README.md`.  With `--baseline PATH` a second endgate binary runs
//! alongside for an A/B table "endgate against the baseline".
//!
//! ```text
//! cargo run --release -p endgate-benches -- [--quick] [--arches LIST] [--runs N] [--out benches/results]
//! ```

mod chart;
mod measure;
mod report;
mod tools;
mod workloads;

use guest_tests::arch::{Qemu, QEMU, QEMU72};
use measure::{run_round_robin, Check, Invocation, Plan, Task};
use report::{Outcome, Report, Row, Runner};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;
use workloads::{Arch, Workload};

const USAGE: &str = "\
usage: endgate-bench [OPTIONS]

Times native, endgate and qemu-user 10.0.2 (.cache/qemu-10.0.2, from
scripts/fetch-qemu10.sh) on a getppid loop, a store loop, gatebench
(getppid via trap and gate, clock_gettime via vDSO and syscall), busybox
sha256sum and gzip -9, a compute kernel, busybox find and cat over small files,
busybox start-up, thread scaling, a Go type-checker (gotypes; needs `go`),
fork + execve + waitpid (spawn), 32 threads calling sched_yield (yield), 4 threads
opening, reading and closing a file (fileio), a heap grown page by page with mprotect
beside 3 spinning threads (mapgrow), 4 threads mapping, filling, write-protecting and
unmapping 16 KiB blocks (mapchurn), and
writes results.md / results.json / results.svg.

Options:
  --quick              1-2 runs and smaller sizes (a smoke test, not for tracking)
  --runs N             timed runs per measurement (default 5; --quick: 2)
  --out DIR            where to write results.md, .json and .svg (default benches/results)
  --busybox-dir DIR    holds <debarch>/busybox or <debarch>/bin/busybox (default .cache/busybox)
  --endgate PATH       endgate binary to use (default: build and use target/release/endgate)
  --no-build           do not run `cargo build --release -p endgate` first
  --only LIST          comma-separated subset of: getppid,store,null_trap,null_gate,
                       clock_vdso,clock_syscall,sha256sum,gzip,compute,find,cat,startup,
                       threads1,threadsN,gotypes,spawn,yield,fileio,mapgrow,
                       mapchurn
                       (groups: gatebench = the four gatebench values, cpu, files, threads)
  --arches LIST        comma-separated guest arches (default all): x86_64,aarch64,riscv64,
                       arm,i386,s390x,mips64el (Debian names amd64,arm64,armhf also work)
  --timeout SECS       kill a run that takes longer than this (default 300)
  --qemu72             also run Debian 12's qemu-user 7.2 (/usr/bin/qemu-*): more rows and
                       info ratios endgate / qemu 7.2 (the targets are against 10.0.2)
  --baseline PATH      also run this other endgate binary (e.g. built from an older commit) as
                       runner endgate-baseline, and report endgate / baseline per workload and
                       guest: median and min of wall and CPU time, spreads, per-round range
  --gomaxprocs N       run the Go guest (gotypes) with GOMAXPROCS=N under every runner
                       (default: the Go runtime's choice, the number of CPUs)
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
    /// `--only` named gzip: run it on every busybox guest, not only arm64 and amd64.
    gzip_all: bool,
    arches: Vec<Arch>,
    timeout: Duration,
    /// Also run Debian 12's qemu-user 7.2 ([`Runner::Qemu72`]).
    qemu72: bool,
    /// Another endgate binary to compare against ([`Runner::Baseline`]).
    baseline: Option<PathBuf>,
    /// `GOMAXPROCS` for every run of the Go guest (`None`: the runtime's own choice).
    gomaxprocs: Option<u32>,
}

/// Problem sizes for one mode.
struct Sizes {
    getppid: u64,
    store: u64,
    sha_bytes: u64,
    gate_calls: u64,
    gzip_bytes: u64,
    compute_iters: u64,
    files: u64,
    starts: u64,
    threads_iters: u64,
    /// The packages gotypes parses and type-checks (its command-line arguments).
    gotypes: &'static [&'static str],
    /// fork + execve + waitpid rounds of one spawn run.
    spawns: u64,
    /// Threads of one yield run.
    yield_threads: u32,
    /// `sched_yield` calls of each yield thread.
    yields: u64,
    /// Threads of one fileio run.
    fileio_threads: u32,
    /// Rounds (open, fstat, two reads, close) of each fileio thread.
    fileio_rounds: u64,
    /// Spinning threads of one mapgrow run.
    mapgrow_threads: u32,
    /// Pages main grows one `mprotect` at a time in one mapgrow run.
    mapgrow_pages: u64,
    /// Threads of one mapchurn run.
    mapchurn_threads: u32,
    /// Rounds (mmap, write, mprotect, read back, munmap of 16 KiB) of each mapchurn thread.
    mapchurn_rounds: u64,
}

impl Sizes {
    fn for_mode(quick: bool) -> Sizes {
        if quick {
            Sizes {
                getppid: 100_000,
                store: 10_000_000,
                sha_bytes: 8 << 20,
                gate_calls: 20_000,
                gzip_bytes: 4 << 20,
                compute_iters: 500,
                files: 5000,
                starts: 20,
                threads_iters: 20_000_000,
                gotypes: &workloads::GOTYPES_QUICK_PACKAGES,
                spawns: 20,
                yield_threads: 32,
                yields: 300,
                fileio_threads: 4,
                fileio_rounds: 1000,
                mapgrow_threads: 3,
                mapgrow_pages: 500,
                mapchurn_threads: 4,
                mapchurn_rounds: 500,
            }
        } else {
            Sizes {
                getppid: 1_000_000,
                store: 100_000_000,
                sha_bytes: 64 << 20,
                gate_calls: 1_000_000,
                gzip_bytes: 64 << 20,
                compute_iters: 5000,
                files: 5000,
                starts: 100,
                threads_iters: 200_000_000,
                gotypes: &workloads::GOTYPES_PACKAGES,
                spawns: 200,
                yield_threads: 32,
                yields: 3000,
                fileio_threads: 4,
                fileio_rounds: 10_000,
                mapgrow_threads: 3,
                mapgrow_pages: 2000,
                mapchurn_threads: 4,
                mapchurn_rounds: 5000,
            }
        }
    }

    fn of(&self, w: Workload) -> u64 {
        match w {
            Workload::Getppid => self.getppid,
            Workload::Store => self.store,
            Workload::Sha256 => self.sha_bytes,
            Workload::NullTrap | Workload::NullGate | Workload::ClockVdso | Workload::ClockSyscall => self.gate_calls,
            Workload::Gzip => self.gzip_bytes,
            Workload::Compute => self.compute_iters,
            Workload::Find | Workload::Cat => self.files,
            Workload::Startup => self.starts,
            Workload::Threads1 | Workload::ThreadsN => self.threads_iters,
            Workload::Gotypes => self.gotypes.len() as u64,
            Workload::Spawn => self.spawns,
            Workload::Yield => u64::from(self.yield_threads) * self.yields,
            Workload::FileIo => u64::from(self.fileio_threads) * self.fileio_rounds,
            Workload::MapGrow => self.mapgrow_pages,
            Workload::MapChurn => u64::from(self.mapchurn_threads) * self.mapchurn_rounds,
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
        gzip_all: false,
        arches: Arch::ALL.to_vec(),
        timeout: Duration::from_secs(300),
        qemu72: false,
        baseline: None,
        gomaxprocs: None,
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
            "--qemu72" => o.qemu72 = true,
            "--baseline" => o.baseline = Some(PathBuf::from(value("a path")?)),
            "--gomaxprocs" => {
                let n: u32 = value("a number")?.parse().map_err(|_| "--gomaxprocs needs a positive number")?;
                if n == 0 {
                    return Err("--gomaxprocs must be at least 1".into());
                }
                o.gomaxprocs = Some(n);
            }
            "--only" => {
                let picked: Vec<Vec<Workload>> = value("a list")?
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| Workload::parse(s).ok_or_else(|| format!("unknown workload `{s}`")))
                    .collect::<Result<_, _>>()?;
                let picked: Vec<Workload> = picked.into_iter().flatten().collect();
                o.only = Workload::ALL.into_iter().filter(|w| picked.contains(w)).collect();
                o.gzip_all = o.only.contains(&Workload::Gzip);
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
    /// qemu-user 10.0.2 per architecture, indexed by [`Arch::index`].
    qemu: Vec<Result<PathBuf, String>>,
    /// Debian 12's qemu-user 7.2 per architecture, indexed by [`Arch::index`].
    qemu72: Vec<Result<PathBuf, String>>,
    /// The `--baseline` endgate binary.
    baseline: Result<PathBuf, String>,
    /// Cross compiler per architecture, indexed by [`Arch::index`].
    compiler: Vec<Result<PathBuf, String>>,
    /// The host's `go`, which builds the gotypes guest for every arch.
    go: Result<PathBuf, String>,
}

impl Toolset {
    fn qemu(&self, a: Arch) -> &Result<PathBuf, String> {
        &self.qemu[a.index()]
    }
    fn qemu72(&self, a: Arch) -> &Result<PathBuf, String> {
        &self.qemu72[a.index()]
    }
    /// Builds the C guest `src` for `a` into `out` (`workloads::build_c_guest`); a failure is
    /// printed as a warning and returned, and the caller reports the rows as not run.
    fn c_guest(&self, a: Arch, src: &Path, out: &Path) -> Result<PathBuf, String> {
        let stem = src.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let guest = self
            .compiler(a)
            .as_ref()
            .map_err(|e| format!("cannot build the {stem} guest for {}: {e}", a.name()))
            .and_then(|cc| workloads::build_c_guest(a, cc, src, None, out));
        if let Err(e) = &guest {
            eprintln!("endgate-bench: warning: {e}");
        }
        guest
    }

    fn compiler(&self, a: Arch) -> &Result<PathBuf, String> {
        &self.compiler[a.index()]
    }

    /// The program a spawn guest under `runner` execs its children through, if any: qemu-user
    /// does not follow a guest's execve (the host kernel runs the new program, which without
    /// binfmt_misc fails for a foreign binary and runs natively for an x86 one), so its
    /// children exec `qemu-<arch> <spawn> 0`, as binfmt_misc would have the kernel do.
    /// endgate runs an execve'd guest itself.
    fn spawn_interp(&self, runner: Runner, a: Arch) -> Result<Option<PathBuf>, String> {
        match runner {
            Runner::Native | Runner::Endgate | Runner::Baseline => Ok(None),
            Runner::Qemu => self.qemu(a).clone().map(Some),
            Runner::Qemu72 => self.qemu72(a).clone().map(Some),
        }
    }
}

/// The runners that apply to guests of `arch` on this host: native (host arch only),
/// endgate, the `--baseline` endgate right after it, qemu-user 10.0.2, and with `--qemu72`
/// qemu-user 7.2.
fn runners_for(arch: Arch, o: &Options) -> Vec<Runner> {
    let mut v = Vec::new();
    if Arch::host() == Some(arch) {
        v.push(Runner::Native);
    }
    v.push(Runner::Endgate);
    if o.baseline.is_some() {
        v.push(Runner::Baseline);
    }
    v.push(Runner::Qemu);
    if o.qemu72 {
        v.push(Runner::Qemu72);
    }
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
        Ok(Invocation { program: emu.clone(), args: all, cwd: None })
    };
    match runner {
        Runner::Native => Ok(Invocation { program: guest.to_path_buf(), args: args.to_vec(), cwd: None }),
        Runner::Endgate => wrap(&tools.endgate),
        Runner::Baseline => wrap(&tools.baseline),
        Runner::Qemu => wrap(tools.qemu(arch)),
        Runner::Qemu72 => wrap(tools.qemu72(arch)),
    }
}

/// The outcome of a failed measurement: [`Outcome::Unsupported`] when endgate (or the
/// baseline endgate) refused the guest's architecture (exit status 126 and a message
/// naming an unsupported architecture), else [`Outcome::Failed`].
fn failure(runner: Runner, err: String) -> Outcome {
    if matches!(runner, Runner::Endgate | Runner::Baseline)
        && err.starts_with("exit status 126")
        && err.contains("unsupported")
    {
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
                    Task::Repeat { .. } => "exit 0".into(),
                    Task::Loop { check, .. } | Task::Run { check, .. } => check.describe().into(),
                }),
                rss_kib: s.rss_kib,
                cpu: s.cpu,
                baseline_cpu: s.base_cpu,
                reported: None,
            },
            Err(e) => failure(rows[i].runner, e),
        };
    }
}

/// A C guest of many threads run as `guest THREADS COUNT` on every arch and runner, whose
/// whole run is timed and whose stdout must be `expected` (yield, fileio, mapgrow, mapchurn).
struct ThreadedRun {
    workload: Workload,
    src: PathBuf,
    /// The guest's two arguments: threads, and the work of each.
    counts: [u64; 2],
    expected: String,
    /// What one run does, for the notes.
    about: String,
}

/// Builds, runs and measures a [`ThreadedRun`], adding its rows and its note.
fn threaded_run(
    run: &ThreadedRun,
    sizes: &Sizes,
    toolset: &Toolset,
    opts: &Options,
    guest_out: &Path,
    plan: &Plan,
    (rows, notes): (&mut Vec<Row>, &mut Vec<String>),
) {
    let n = sizes.of(run.workload);
    let sha = workloads::sha256_hex(run.expected.as_bytes());
    let first = rows.len();
    let mut tasks = Vec::new();
    for a in Arch::ALL {
        let runners = runners_or_reference(a, opts);
        if runners.is_empty() {
            continue;
        }
        let guest = toolset.c_guest(a, &run.src, guest_out);
        for r in runners {
            let args = run.counts.map(|c| OsString::from(c.to_string()));
            let task = guest
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|g| invocation(toolset, r, a, g, &args))
                .map(|inv| Task::Run { inv, check: Check::StdoutSha256(sha.clone()) });
            push_row(rows, &mut tasks, first, run.workload, a, r, n, task);
        }
    }
    let name = run.workload.name();
    notes.push(format!(
        "{name}: {}; every run must print `{}` (checked by SHA-256)",
        run.about,
        run.expected.trim_end()
    ));
    eprintln!("endgate-bench: {name} ({})", run.about);
    measure_group(plan, &mut rows[first..], tasks);
    rows[first..].iter().for_each(progress_done);
}

/// Add a row for (`w`, `a`, `r`) whose task is `task` (or the reason it cannot run) to
/// `rows`, and its task to `tasks` (indices relative to `first`).
#[allow(clippy::too_many_arguments)]
fn push_row(
    rows: &mut Vec<Row>,
    tasks: &mut Vec<(usize, Task)>,
    first: usize,
    w: Workload,
    a: Arch,
    r: Runner,
    size: u64,
    task: Result<Task, String>,
) {
    let mut row =
        Row { workload: w, arch: a, runner: r, size, command: None, outcome: Outcome::Skipped(String::new()) };
    match task {
        Err(e) => row.outcome = Outcome::Skipped(e),
        Ok(t) => {
            row.command = Some(match &t {
                Task::Loop { full, .. } => full.display(),
                Task::Run { inv, .. } => inv.display(),
                Task::Repeat { inv, count } => format!("{count} x {}", inv.display()),
            });
            tasks.push((rows.len() - first, t));
        }
    }
    rows.push(row);
}

/// The runners of a workload on `a`: all that apply when `a` is selected, else only the
/// native host run when `a` is the host (kept as the reference of the "/ native" ratios).
fn runners_or_reference(a: Arch, o: &Options) -> Vec<Runner> {
    if o.arches.contains(&a) {
        runners_for(a, o)
    } else if Arch::host() == Some(a) {
        vec![Runner::Native]
    } else {
        Vec::new()
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

/// `go version`'s line (`go --version` is not a go command), or why there is none.
fn go_version(go: &Result<PathBuf, String>) -> String {
    match go {
        Ok(p) => Command::new(p)
            .arg("version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().next().map(|l| l.trim().to_string()))
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| format!("{} (version unknown)", p.display())),
        Err(e) => format!("not available: {e}"),
    }
}

/// The end of a program's output, for a message.
fn tail(out: &[u8]) -> String {
    let text = String::from_utf8_lossy(out);
    let start = text.len().saturating_sub(200);
    text.get(start..).unwrap_or(&text).to_string()
}

/// The first three fields of /proc/loadavg.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Removes a scratch file on drop.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The harness's own peak RSS in KiB (VmHWM in /proc/self/status), if readable.
fn own_peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
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
    let stdout_file = std::env::temp_dir().join(format!("endgate-bench-{}.out", std::process::id()));
    let _stdout_guard = TempFile(stdout_file.clone());
    let plan = Plan { runs: opts.runs, warmup: !opts.quick, timeout: opts.timeout, stdout_file };
    let mut notes = Vec::new();
    if let Some(n) = opts.gomaxprocs {
        // Set before any thread starts; every runner passes the environment to its guest, and
        // only the Go guest reads it.
        std::env::set_var("GOMAXPROCS", n.to_string());
        notes.push(format!("GOMAXPROCS={n} for every run (--gomaxprocs)"));
    }

    let endgate = resolve_endgate(&opts, &root, &mut notes);
    let find = |name: &str| tools::which(name);
    let qemu = |q: Qemu, a: Arch| {
        let p = q.binary(a.qemu());
        if tools::is_executable(&p) {
            Ok(p)
        } else {
            Err(format!("qemu-user {} is not at {} ({})", q.version, p.display(), q.how))
        }
    };
    let toolset = Toolset {
        endgate,
        qemu: Arch::ALL.into_iter().map(|a| qemu(QEMU, a)).collect(),
        qemu72: Arch::ALL.into_iter().map(|a| qemu(QEMU72, a)).collect(),
        baseline: match &opts.baseline {
            Some(p) if tools::is_executable(p) => Ok(p.clone()),
            Some(p) => Err(format!("--baseline {}: not an executable file", p.display())),
            None => Err("no --baseline".into()),
        },
        compiler: Arch::ALL.into_iter().map(|a| find(a.compiler())).collect(),
        go: find("go"),
    };
    let mut tool_lines = Vec::new();
    let version = |r: &Result<PathBuf, String>| match r {
        Ok(p) => tools::version_line(p).unwrap_or_else(|| format!("{} (version unknown)", p.display())),
        Err(e) => format!("not available: {e}"),
    };
    // With a baseline the two endgate builds are told apart by their paths.
    let with_path = |r: &Result<PathBuf, String>| match r {
        Ok(p) if opts.baseline.is_some() => format!("{} ({})", p.display(), version(r)),
        _ => version(r),
    };
    tool_lines.push(("endgate".to_string(), with_path(&toolset.endgate)));
    if opts.baseline.is_some() {
        tool_lines.push((Runner::Baseline.label(Arch::X86_64), with_path(&toolset.baseline)));
    }
    for &a in &opts.arches {
        tool_lines.push((Runner::Qemu.label(a), version(toolset.qemu(a))));
        if opts.qemu72 {
            tool_lines.push((Runner::Qemu72.label(a), version(toolset.qemu72(a))));
        }
    }
    for &a in &opts.arches {
        tool_lines.push((a.compiler().to_string(), version(toolset.compiler(a))));
    }
    if opts.only.contains(&Workload::Gotypes) {
        tool_lines.push(("go".to_string(), go_version(&toolset.go)));
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
                runners_for(a, &opts)
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
                let full_args = [OsString::from(n.to_string())];
                let base_args = [OsString::from("0")];
                let task = guest.as_ref().map_err(Clone::clone).and_then(|g| {
                    Ok(Task::Loop {
                        full: invocation(&toolset, r, a, g, &full_args)?,
                        base: invocation(&toolset, r, a, g, &base_args)?,
                        check: Check::Exit0,
                    })
                });
                push_row(&mut rows, &mut tasks, first, w, a, r, n, task);
            }
        }
        eprintln!("endgate-bench: {} ({n} iterations)", w.name());
        measure_group(&plan, &mut rows[first..], tasks);
        rows[first..].iter().for_each(progress_done);
    }

    // gatebench: one run reports all four gatebench values.
    let gate_ws: Vec<Workload> =
        Workload::GATEBENCH.iter().map(|(w, _)| *w).filter(|w| opts.only.contains(w)).collect();
    if !gate_ws.is_empty() {
        let n = sizes.gate_calls;
        let src = root.join("guest-tests/programs/gatebench.c");
        let include = root.join("guest-tests/programs");
        let mut keys = Vec::new(); // (arch, runner) per task, and rows skipped up front
        let mut tasks = Vec::new();
        let mut skipped: Vec<(Arch, Runner, String)> = Vec::new();
        for a in Arch::ALL {
            let runners = runners_or_reference(a, &opts);
            if runners.is_empty() {
                continue;
            }
            let guest = toolset
                .compiler(a)
                .as_ref()
                .map_err(|e| format!("cannot build gatebench for {}: {e}", a.name()))
                .and_then(|cc| workloads::build_c_guest(a, cc, &src, Some(&include), &guest_out));
            if let Err(e) = &guest {
                eprintln!("endgate-bench: warning: {e}");
            }
            for r in runners {
                let args = [OsString::from(n.to_string())];
                match guest.as_ref().map_err(Clone::clone).and_then(|g| invocation(&toolset, r, a, g, &args)) {
                    Ok(inv) => {
                        keys.push((a, r, inv.display()));
                        tasks.push(Task::Run { inv, check: Check::Gatebench });
                    }
                    Err(e) => skipped.push((a, r, e)),
                }
            }
        }
        eprintln!("endgate-bench: gatebench ({n} calls per value)");
        let results = run_round_robin(&tasks, &plan, |i| {
            format!("gatebench {} {}", keys[i].0.name(), keys[i].1.label(keys[i].0))
        });
        let first = rows.len();
        for w in &gate_ws {
            let field = Workload::GATEBENCH.iter().find(|(x, _)| x == w).map(|(_, f)| *f).unwrap_or("");
            for ((a, r, cmd), res) in keys.iter().zip(&results) {
                let outcome = match res {
                    Ok(s) => match s.reported.get(field) {
                        Some(v) if !v.is_empty() => Outcome::Measured {
                            full: s.full.clone(),
                            baseline: None,
                            check: Some(Check::Gatebench.describe().into()),
                            rss_kib: s.rss_kib.clone(),
                            cpu: s.cpu.clone(),
                            baseline_cpu: None,
                            reported: Some(v.clone()),
                        },
                        _ => Outcome::Skipped(match w {
                            Workload::NullGate => "no __kernel_vsyscall in the vDSO".into(),
                            Workload::ClockVdso => "no vDSO clock_gettime".into(),
                            _ => format!("gatebench reported no {field}"),
                        }),
                    },
                    Err(e) => failure(*r, e.clone()),
                };
                rows.push(Row { workload: *w, arch: *a, runner: *r, size: n, command: Some(cmd.clone()), outcome });
            }
            for (a, r, e) in &skipped {
                rows.push(Row {
                    workload: *w,
                    arch: *a,
                    runner: *r,
                    size: n,
                    command: None,
                    outcome: Outcome::Skipped(e.clone()),
                });
            }
        }
        rows[first..].iter().for_each(progress_done);
    }

    // The CoreMark-like C kernel.
    if opts.only.contains(&Workload::Compute) {
        let n = sizes.compute_iters;
        let src = guest_src.join("compute.c");
        let first = rows.len();
        let mut tasks = Vec::new();
        for a in Arch::ALL {
            let runners = runners_or_reference(a, &opts);
            if runners.is_empty() {
                continue;
            }
            let guest = toolset.c_guest(a, &src, &guest_out);
            for r in runners {
                let args = [OsString::from(n.to_string())];
                let task = guest
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|g| invocation(&toolset, r, a, g, &args))
                    .map(|inv| Task::Run { inv, check: Check::Exit0 });
                push_row(&mut rows, &mut tasks, first, Workload::Compute, a, r, n, task);
            }
        }
        eprintln!("endgate-bench: compute ({n} iterations)");
        measure_group(&plan, &mut rows[first..], tasks);
        rows[first..].iter().for_each(progress_done);
    }

    // Thread scaling: the same per-thread work with one thread and with one per host core.
    let thread_ws: Vec<Workload> =
        [Workload::Threads1, Workload::ThreadsN].into_iter().filter(|w| opts.only.contains(w)).collect();
    if !thread_ws.is_empty() {
        let n = sizes.threads_iters;
        let cores = u32::try_from(std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
            .unwrap_or(1)
            .clamp(1, 64);
        let src = guest_src.join("threads.c");
        let first = rows.len();
        let mut tasks = Vec::new();
        for a in Arch::ALL {
            let runners = runners_or_reference(a, &opts);
            if runners.is_empty() {
                continue;
            }
            let guest = toolset.c_guest(a, &src, &guest_out);
            for &w in &thread_ws {
                let threads = if w == Workload::Threads1 { 1 } else { cores };
                let expected = workloads::threads_expected(threads, n);
                for &r in &runners {
                    let args = [OsString::from(threads.to_string()), OsString::from(n.to_string())];
                    let check = Check::StdoutSha256(workloads::sha256_hex(expected.as_bytes()));
                    let task = guest
                        .as_ref()
                        .map_err(Clone::clone)
                        .and_then(|g| invocation(&toolset, r, a, g, &args))
                        .map(|inv| Task::Run { inv, check });
                    push_row(&mut rows, &mut tasks, first, w, a, r, n, task);
                }
            }
        }
        eprintln!("endgate-bench: thread scaling (1 and {cores} threads, {n} rounds each)");
        measure_group(&plan, &mut rows[first..], tasks);
        rows[first..].iter().for_each(progress_done);
    }

    // gotypes: a Go program parsing and type-checking the standard library's go/... packages.
    if opts.only.contains(&Workload::Gotypes) {
        let pkgs = sizes.gotypes;
        let n = sizes.of(Workload::Gotypes);
        let src = guest_src.join("gotypes/main.go");
        let first = rows.len();
        let mut tasks = Vec::new();
        let args: Vec<OsString> = pkgs.iter().map(OsString::from).collect();
        let mut built = Vec::new();
        for a in Arch::ALL {
            let runners = runners_or_reference(a, &opts);
            if runners.is_empty() {
                continue;
            }
            let guest = toolset
                .go
                .as_ref()
                .map_err(|e| format!("cannot build the gotypes guest for {}: no go ({e})", a.name()))
                .and_then(|go| {
                    eprintln!("endgate-bench: building the gotypes guest for {} (GOARCH={})", a.name(), a.goarch());
                    workloads::build_go_guest(a, go, &src, &guest_out)
                });
            if let Err(e) = &guest {
                eprintln!("endgate-bench: warning: {e}");
            }
            built.push((a, runners, guest));
        }
        // The expected output: one untimed run of the native host build.
        let expected: Result<String, String> = match built.iter().find(|(a, ..)| Some(*a) == host) {
            None => Err("no native run to take the expected output from".into()),
            Some((a, _, guest)) => guest
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|g| invocation(&toolset, Runner::Native, *a, g, &args))
                .and_then(|inv| {
                    eprintln!("endgate-bench: gotypes: native run for the expected output");
                    measure::run_once(&inv, opts.timeout, Some(&plan.stdout_file))
                        .map_err(|e| format!("native {}: {e}", inv.display()))?;
                    let out = std::fs::read(&plan.stdout_file)
                        .map_err(|e| format!("cannot read {}: {e}", plan.stdout_file.display()))?;
                    let total = workloads::gotypes_total(&out)
                        .ok_or_else(|| format!("the native run printed no `total` line: {:?}", tail(&out)))?;
                    let sha = workloads::sha256_hex(&out);
                    notes.push(format!(
                        "gotypes: expected stdout from the native {} run ({} lines, `{total}`, SHA-256 {sha}); \
                         every run's stdout must hash to it",
                        a.name(),
                        out.iter().filter(|&&b| b == b'\n').count()
                    ));
                    Ok(sha)
                }),
        };
        let mut reference_failed = None;
        for (a, runners, guest) in &built {
            for &r in runners {
                let task = guest.as_ref().map_err(Clone::clone).and_then(|g| {
                    let sha = expected.clone().map_err(|e| format!("no expected output: {e}"))?;
                    let inv = invocation(&toolset, r, *a, g, &args)?;
                    Ok(Task::Run { inv, check: Check::StdoutSha256(sha) })
                });
                if r == Runner::Native && guest.is_ok() {
                    if let Err(e) = &expected {
                        reference_failed = Some((rows.len(), e.clone()));
                    }
                }
                push_row(&mut rows, &mut tasks, first, Workload::Gotypes, *a, r, n, task);
            }
        }
        if let Some((i, e)) = reference_failed {
            rows[i].outcome = Outcome::Failed(e);
        }
        eprintln!("endgate-bench: gotypes ({})", pkgs.join(" "));
        measure_group(&plan, &mut rows[first..], tasks);
        rows[first..].iter().for_each(progress_done);
    }

    // spawn: fork + execve of itself + waitpid, N times, less a 0-iteration run.
    if opts.only.contains(&Workload::Spawn) {
        let n = sizes.spawns;
        let src = guest_src.join("spawn.c");
        let expected = workloads::spawn_expected(n);
        let sha = workloads::sha256_hex(expected.as_bytes());
        let first = rows.len();
        let mut tasks = Vec::new();
        for a in Arch::ALL {
            let runners = runners_or_reference(a, &opts);
            if runners.is_empty() {
                continue;
            }
            let guest = toolset.c_guest(a, &src, &guest_out);
            for r in runners {
                let task = guest.as_ref().map_err(Clone::clone).and_then(|g| {
                    let interp = toolset.spawn_interp(r, a)?.map(PathBuf::into_os_string);
                    let with = |count: u64| {
                        let mut v = vec![OsString::from(count.to_string())];
                        v.extend(interp.clone());
                        v
                    };
                    Ok(Task::Loop {
                        full: invocation(&toolset, r, a, g, &with(n))?,
                        base: invocation(&toolset, r, a, g, &with(0))?,
                        check: Check::StdoutSha256(sha.clone()),
                    })
                });
                push_row(&mut rows, &mut tasks, first, Workload::Spawn, a, r, n, task);
            }
        }
        notes.push(format!(
            "spawn: every full run must print `{}` (checked by SHA-256); under qemu-user each child execs \
             `qemu-<arch> <spawn> 0` (what binfmt_misc would run), under endgate and natively the program itself",
            expected.trim_end()
        ));
        eprintln!("endgate-bench: spawn ({n} fork + execve + waitpid)");
        measure_group(&plan, &mut rows[first..], tasks);
        rows[first..].iter().for_each(progress_done);
    }

    // yield: many threads calling sched_yield at once; whole-process wall time.
    if opts.only.contains(&Workload::Yield) {
        let (threads, yields) = (sizes.yield_threads, sizes.yields);
        let expected = workloads::yield_expected(threads, yields);
        let about = format!("{threads} threads x {yields} sched_yield calls, started together at a barrier");
        let run = ThreadedRun {
            workload: Workload::Yield,
            src: guest_src.join("yield.c"),
            counts: [u64::from(threads), yields],
            expected,
            about,
        };
        threaded_run(&run, &sizes, &toolset, &opts, &guest_out, &plan, (&mut rows, &mut notes));
    }

    // fileio: threads opening, reading and closing a file at once; whole-process wall time.
    if opts.only.contains(&Workload::FileIo) {
        let (threads, rounds) = (sizes.fileio_threads, sizes.fileio_rounds);
        let expected = workloads::fileio_expected(threads, rounds);
        let about = format!(
            "{threads} threads x {rounds} rounds of open + fstat + read + read + close of a 4 KiB file in /tmp, \
             started together at a barrier"
        );
        let run = ThreadedRun {
            workload: Workload::FileIo,
            src: guest_src.join("fileio.c"),
            counts: [u64::from(threads), rounds],
            expected,
            about,
        };
        threaded_run(&run, &sizes, &toolset, &opts, &guest_out, &plan, (&mut rows, &mut notes));
    }

    // mapgrow: a heap grown page by page with mprotect while other threads spin; whole-process
    // wall time.
    if opts.only.contains(&Workload::MapGrow) {
        let (threads, pages) = (sizes.mapgrow_threads, sizes.mapgrow_pages);
        let expected = workloads::mapgrow_expected(threads, pages);
        let about = format!(
            "{threads} threads spinning while main grows a PROT_NONE anonymous reservation by {pages} pages, \
             one mprotect(PROT_READ | PROT_WRITE) of 4 KiB and a byte written each"
        );
        let run = ThreadedRun {
            workload: Workload::MapGrow,
            src: guest_src.join("mapgrow.c"),
            counts: [u64::from(threads), pages],
            expected,
            about,
        };
        threaded_run(&run, &sizes, &toolset, &opts, &guest_out, &plan, (&mut rows, &mut notes));
    }

    // mapchurn: threads mapping, filling, write-protecting and unmapping small blocks at once;
    // whole-process wall time.
    if opts.only.contains(&Workload::MapChurn) {
        let (threads, rounds) = (sizes.mapchurn_threads, sizes.mapchurn_rounds);
        let expected = workloads::mapchurn_expected(threads, rounds);
        let about = format!(
            "{threads} threads x {rounds} rounds of mmap 16 KiB + a byte written per 4 KiB page + \
             mprotect(PROT_READ) + the bytes read back + munmap, started together at a barrier"
        );
        let run = ThreadedRun {
            workload: Workload::MapChurn,
            src: guest_src.join("mapchurn.c"),
            counts: [u64::from(threads), rounds],
            expected,
            about,
        };
        threaded_run(&run, &sizes, &toolset, &opts, &guest_out, &plan, (&mut rows, &mut notes));
    }

    // busybox workloads: sha256sum, gzip -9, find, cat, startup.
    let bb_ws: Vec<Workload> = [Workload::Sha256, Workload::Gzip, Workload::Find, Workload::Cat, Workload::Startup]
        .into_iter()
        .filter(|w| opts.only.contains(w))
        .collect();
    let mut _tmp_guard = None;
    if !bb_ws.is_empty() {
        let busybox = |a: Arch| -> Result<PathBuf, String> {
            match (tools::find_busybox(&opts.busybox_dir, a.debarch()), a.busybox_hint()) {
                (Err(e), Some(hint)) => Err(format!("{e}; {hint}")),
                (bb, _) => bb,
            }
        };
        // Every selected arch, plus the host's busybox as the native reference.
        let bb_arches: Vec<(Arch, Vec<Runner>)> =
            Arch::ALL.into_iter().map(|a| (a, runners_or_reference(a, &opts))).filter(|(_, r)| !r.is_empty()).collect();
        for (a, _) in &bb_arches {
            if let Err(e) = busybox(*a) {
                eprintln!("endgate-bench: warning: {e}");
            }
        }
        let tmp = std::env::temp_dir().join(format!("endgate-bench-{}", std::process::id()));
        let made = std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()));
        if made.is_ok() {
            _tmp_guard = Some(TempDir(tmp.clone()));
        }
        let input = |what: &str, make: &dyn Fn() -> std::io::Result<String>| -> Result<String, String> {
            made.clone()?;
            eprintln!("endgate-bench: writing {what}");
            make().map_err(|e| format!("cannot create {what}: {e}"))
        };
        let data = tmp.join(format!("data-{}MiB.bin", sizes.sha_bytes >> 20));
        let text = tmp.join(format!("text-{}MiB.txt", sizes.gzip_bytes >> 20));
        let tree_root = tmp.join("tree");
        let sha_expected = if bb_ws.contains(&Workload::Sha256) {
            input(&format!("{} MiB of test data", sizes.sha_bytes >> 20), &|| {
                workloads::make_data_file(&data, sizes.sha_bytes)
            })
        } else {
            Err("not selected".into())
        };
        let gzip_expected = if bb_ws.contains(&Workload::Gzip) {
            input(&format!("{} MiB of text", sizes.gzip_bytes >> 20), &|| {
                workloads::make_text_file(&text, sizes.gzip_bytes)
            })
        } else {
            Err("not selected".into())
        };
        let tree = if bb_ws.contains(&Workload::Find) || bb_ws.contains(&Workload::Cat) {
            made.clone().and_then(|_| {
                eprintln!("endgate-bench: creating {} small files", sizes.files);
                workloads::make_file_tree(&tree_root, usize::try_from(sizes.files).expect("64-bit host"))
                    .map_err(|e| format!("cannot create the file tree: {e}"))
            })
        } else {
            Err("not selected".into())
        };
        let host_gzip = tools::which("gzip");
        if let Ok(h) = &sha_expected {
            notes.push(format!(
                "sha256sum input: {} MiB of splitmix64(seed {:#x}) output, SHA-256 {h} \
                 (computed by the harness; every run's output is checked against it)",
                sizes.sha_bytes >> 20,
                workloads::DATA_SEED
            ));
        }
        if let Ok(h) = &gzip_expected {
            notes.push(format!(
                "gzip input: {} MiB of word text (SHA-256 {h}); every run's output is decompressed \
                 with the host's gzip -dc and must give the input back",
                sizes.gzip_bytes >> 20
            ));
        }
        if let Ok(t) = &tree {
            notes.push(format!(
                "find/cat input: {} files of 64-1087 bytes in {} directories; find must print {} lines, \
                 cat's output must hash to {}",
                t.files.len(),
                t.find_lines - 1 - t.files.len(),
                t.find_lines,
                t.cat_sha256
            ));
        }
        for w in bb_ws {
            let n = sizes.of(w);
            let first = rows.len();
            let mut tasks = Vec::new();
            for (a, runners) in &bb_arches {
                let a = *a;
                // gzip -9 of 64 MiB is long: arm64 and amd64 guests (and the native reference),
                // every busybox guest when `--only` names gzip.
                if w == Workload::Gzip && !opts.gzip_all && !matches!(a, Arch::X86_64 | Arch::Aarch64) {
                    continue;
                }
                let bb = busybox(a);
                for &r in runners {
                    let task = bb.clone().and_then(|bb| -> Result<Task, String> {
                        let run = |args: Vec<OsString>, cwd: Option<&Path>| {
                            invocation(&toolset, r, a, &bb, &args).map(|mut inv| {
                                inv.cwd = cwd.map(Path::to_path_buf);
                                inv
                            })
                        };
                        Ok(match w {
                            Workload::Sha256 => Task::Run {
                                inv: run(vec!["sha256sum".into(), data.clone().into()], None)?,
                                check: Check::Sha256sum(sha_expected.clone()?),
                            },
                            Workload::Gzip => Task::Run {
                                inv: run(vec!["gzip".into(), "-9".into(), "-c".into(), text.clone().into()], None)?,
                                check: Check::Gunzip {
                                    gzip: host_gzip.clone().map_err(|e| format!("no host gzip to check: {e}"))?,
                                    sha256: gzip_expected.clone()?,
                                },
                            },
                            Workload::Find => {
                                let t = tree.as_ref().map_err(Clone::clone)?;
                                Task::Run {
                                    inv: run(vec!["find".into(), ".".into()], Some(&t.root))?,
                                    check: Check::Lines(t.find_lines),
                                }
                            }
                            Workload::Cat => {
                                let t = tree.as_ref().map_err(Clone::clone)?;
                                let mut args = vec![OsString::from("cat")];
                                args.extend(t.files.iter().map(OsString::from));
                                Task::Run {
                                    inv: run(args, Some(&t.root))?,
                                    check: Check::StdoutSha256(t.cat_sha256.clone()),
                                }
                            }
                            _ => Task::Repeat {
                                inv: run(vec!["true".into()], None)?,
                                count: usize::try_from(n).expect("64-bit host"),
                            },
                        })
                    });
                    push_row(&mut rows, &mut tasks, first, w, a, r, n, task);
                }
            }
            eprintln!("endgate-bench: {} ({})", w.name(), n);
            measure_group(&plan, &mut rows[first..], tasks);
            rows[first..].iter().for_each(progress_done);
        }
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
    if let Some(kib) = own_peak_rss_kib() {
        notes.push(format!(
            "peak RSS is each child's ru_maxrss; Linux starts it at the RSS of the process that calls execve \
             (here the harness, whose own peak was {:.1} MiB), so values at that level are a floor, not a measurement",
            kib as f64 / 1024.0
        ));
    }

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
                "getppid {} calls, store loop {} iterations, gatebench {} calls per value, sha256sum {} MiB, \
                 gzip -9 {} MiB, compute {} iterations, find/cat {} files, startup {} starts, threads {} rounds \
                 per thread, gotypes {} ({} packages), spawn {} spawns, yield {} threads x {} sched_yield, \
                 fileio {} threads x {} rounds, mapgrow {} threads x {} pages, mapchurn {} threads x {} rounds",
                sizes.getppid,
                sizes.store,
                sizes.gate_calls,
                sizes.sha_bytes >> 20,
                sizes.gzip_bytes >> 20,
                sizes.compute_iters,
                sizes.files,
                sizes.starts,
                sizes.threads_iters,
                sizes.gotypes.join(" "),
                sizes.gotypes.len(),
                sizes.spawns,
                sizes.yield_threads,
                sizes.yields,
                sizes.fileio_threads,
                sizes.fileio_rounds,
                sizes.mapgrow_threads,
                sizes.mapgrow_pages,
                sizes.mapchurn_threads,
                sizes.mapchurn_rounds
            ),
        ),
    ];
    let report = Report {
        host: tools::HostInfo::collect(&root),
        settings,
        tools: tool_lines,
        ratios: report::ratios(&rows, host),
        against_baseline: report::against_baseline(&rows),
        rows,
        notes,
    };
    let md = report.to_markdown();
    println!("{md}");
    let title = format!("endgate vs qemu-user 10.0.2, relative to native: {} ({})", report.host.date, report.host.cpu);
    let svg = chart::svg(&report.rows, host, &title);
    let written = std::fs::create_dir_all(&opts.out)
        .and_then(|_| std::fs::write(opts.out.join("results.md"), &md))
        .and_then(|_| std::fs::write(opts.out.join("results.json"), report.to_json()))
        .and_then(|_| match &svg {
            Some(svg) => std::fs::write(opts.out.join("results.svg"), svg),
            None => Ok(()),
        });
    match written {
        Ok(()) => eprintln!(
            "endgate-bench: wrote {}/results.md, results.json{}",
            opts.out.display(),
            if svg.is_some() { " and results.svg" } else { " (no native runs: no results.svg)" }
        ),
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
