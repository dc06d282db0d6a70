//! Running a command as a whole process and timing it.
//!
//! Every sample is the wall time from just before `spawn` to the moment the
//! child has exited and its pipes are drained, so it includes process
//! creation, the emulator's start-up and exit.  Loop workloads subtract a
//! 0-iteration run to get the per-iteration cost.  The child is reaped with
//! `wait4`, whose `ru_maxrss` gives its peak resident set size and whose
//! `ru_utime + ru_stime` its CPU time (less sensitive to other load on the
//! machine than the wall time: time spent waiting for a CPU does not count).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A command line: the program to execute, its arguments and working directory.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// The executable (native binary, endgate or qemu-user).
    pub program: PathBuf,
    /// Its arguments (for an emulator: the guest program first).
    pub args: Vec<OsString>,
    /// The working directory (`None`: the harness's own).
    pub cwd: Option<PathBuf>,
}

impl Invocation {
    /// The command line as a shell-like string, for reports and messages (long argument
    /// lists are cut after 8 arguments).
    pub fn display(&self) -> String {
        let mut s = String::new();
        if let Some(d) = &self.cwd {
            s.push_str(&format!("(cd {} && ", d.display()));
        }
        s.push_str(&self.program.display().to_string());
        for a in self.args.iter().take(8) {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        if self.args.len() > 8 {
            s.push_str(&format!(" ... ({} arguments)", self.args.len()));
        }
        if self.cwd.is_some() {
            s.push(')');
        }
        s
    }
}

/// What one successful run produced.
#[derive(Debug)]
pub struct RunOutput {
    /// Wall time of the whole process.
    pub wall: Duration,
    /// Everything it wrote on stderr.
    pub stderr: Vec<u8>,
    /// The child's peak resident set size in KiB (`ru_maxrss` from `wait4`): for an
    /// emulator, the emulator process with its guest.
    pub maxrss_kib: u64,
    /// The child's CPU time, user + system, all its threads (`ru_utime + ru_stime`).
    pub cpu: Duration,
}

/// Describe an exit status the way a shell user would read it.
pub fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        format!("exit status {code}")
    } else if let Some(sig) = status.signal() {
        format!("killed by signal {sig}{}", if status.core_dumped() { " (core dumped)" } else { "" })
    } else {
        format!("{status}")
    }
}

/// The last `n` non-empty lines of `bytes`, joined with " | ".
fn tail_lines(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(n);
    lines[start..].join(" | ")
}

/// Reads a pipe to its end on a thread.
fn drain(mut r: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut v = Vec::new();
        let _ = r.read_to_end(&mut v);
        v
    })
}

/// A `timeval` from `getrusage`/`wait4` as a duration (negative fields count as 0).
fn timeval(t: libc::timeval) -> Duration {
    let secs = u64::try_from(t.tv_sec).unwrap_or(0);
    let micros = u32::try_from(t.tv_usec).unwrap_or(0);
    Duration::from_secs(secs) + Duration::from_micros(u64::from(micros))
}

/// What `wait4` says about a reaped child.
struct Reaped {
    status: ExitStatus,
    /// Peak RSS in KiB.
    maxrss_kib: u64,
    /// User + system CPU time.
    cpu: Duration,
}

/// Wait for `pid` with `wait4`, returning its status, peak RSS and CPU time.
fn wait4(pid: u32) -> std::io::Result<Reaped> {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 only writes into the two out-pointers.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = libc::pid_t::try_from(pid).expect("a child pid fits pid_t");
    loop {
        // SAFETY: valid out-pointers for the duration of the call.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r >= 0 {
            return Ok(Reaped {
                status: ExitStatus::from_raw(status),
                maxrss_kib: u64::try_from(ru.ru_maxrss).unwrap_or(0),
                cpu: timeval(ru.ru_utime) + timeval(ru.ru_stime),
            });
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Run `inv` once with stdin closed, stderr captured and stdout written to the
/// file `stdout` (created or truncated) or discarded.  Fails (with a
/// description of the symptom) if it cannot be started, exits with a non-zero
/// status, is killed by a signal, or runs longer than `timeout` (in which case
/// it is killed).
///
/// stdout goes to a file rather than into the harness's memory because Linux
/// carries the peak RSS of the process that calls `execve` (for a spawned
/// child, the harness's own high-water mark) into the child's `ru_maxrss`: the
/// harness must stay small for the children's peak RSS to be their own.
pub fn run_once(inv: &Invocation, timeout: Duration, stdout: Option<&Path>) -> Result<RunOutput, String> {
    let out_file = match stdout {
        Some(p) => Stdio::from(File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?),
        None => Stdio::null(),
    };
    let mut cmd = Command::new(&inv.program);
    cmd.args(&inv.args).stdin(Stdio::null()).stdout(out_file).stderr(Stdio::piped());
    if let Some(d) = &inv.cwd {
        cmd.current_dir(d);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot start `{}`: {e}", inv.program.display()))?;
    let pid = child.id();
    let err = child.stderr.take().map(drain);
    let (tx, rx) = mpsc::channel();
    // The child is reaped by wait4 (for its rusage), never by `Child::wait`.
    let waiter = thread::spawn(move || {
        let r = wait4(pid);
        let end = Instant::now();
        // The receiver may be gone after a timeout; nothing to do then.
        let _ = tx.send((r, end));
    });
    let received = match rx.recv_timeout(timeout) {
        Ok(r) => r,
        Err(_) => {
            // Kill exactly the child we started, by its pid (not yet reaped, so not reused).
            // SAFETY: plain kill(2) of our own child.
            unsafe { libc::kill(libc::pid_t::try_from(pid).expect("a child pid fits pid_t"), libc::SIGKILL) };
            let _ = waiter.join();
            return Err(format!("timed out after {} s (killed)", timeout.as_secs()));
        }
    };
    let _ = waiter.join();
    let stderr = err.map(|h| h.join().unwrap_or_default()).unwrap_or_default();
    let (r, end) = received;
    let Reaped { status, maxrss_kib, cpu } =
        r.map_err(|e| format!("waiting for `{}` failed: {e}", inv.program.display()))?;
    if !status.success() {
        let mut msg = describe_status(status);
        let err = tail_lines(&stderr, 3);
        if !err.is_empty() {
            msg.push_str("; stderr: ");
            msg.push_str(&err);
        }
        return Err(msg);
    }
    Ok(RunOutput { wall: end - start, stderr, maxrss_kib, cpu })
}

/// How many times to run each measurement, and the per-run time limit.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Timed runs per measurement.
    pub runs: usize,
    /// Whether to do one untimed warm-up round first.
    pub warmup: bool,
    /// A run taking longer than this is killed and counts as a failure.
    pub timeout: Duration,
    /// Scratch file that receives the stdout of runs whose output is checked.
    pub stdout_file: PathBuf,
}

/// How a run's output is judged (besides exit status 0).
#[derive(Clone, Debug)]
pub enum Check {
    /// Exit status 0 is enough (the guest checks itself).
    Exit0,
    /// `sha256sum` output whose hash field must be this (lowercase hex).
    Sha256sum(String),
    /// The whole stdout must have this SHA-256 (lowercase hex).
    StdoutSha256(String),
    /// stdout is gzip data that the host's `gzip -dc` (at this path) must turn into bytes
    /// with this SHA-256.
    Gunzip { gzip: PathBuf, sha256: String },
    /// stdout must have exactly this many lines.
    Lines(usize),
    /// gatebench: stderr must carry every field of [`crate::workloads::Workload::GATEBENCH`]
    /// as `name value` or `name n/a`; the values are recorded.
    Gatebench,
}

impl Check {
    /// What a passing run shows, for the Status column.
    pub fn describe(&self) -> &'static str {
        match self {
            Check::Exit0 => "exit 0",
            Check::Sha256sum(_) => "hash matches",
            Check::StdoutSha256(_) => "output hash matches",
            Check::Gunzip { .. } => "gunzips to the input",
            Check::Lines(_) => "line count matches",
            Check::Gatebench => "self-checked",
        }
    }

    fn needs_stdout(&self) -> bool {
        !matches!(self, Check::Exit0 | Check::Gatebench)
    }
}

/// One thing to measure repeatedly.
#[derive(Clone, Debug)]
pub enum Task {
    /// A loop guest: time the full-size run and a 0-iteration run.
    Loop {
        /// The run at full iteration count.
        full: Invocation,
        /// The same program with 0 iterations (start-up and exit only).
        base: Invocation,
        /// How the full-size run's output is judged (the 0-iteration run: exit 0).
        check: Check,
    },
    /// One command per sample, its output judged by `check`.
    Run {
        /// The command.
        inv: Invocation,
        /// How its output is judged.
        check: Check,
    },
    /// `count` runs of the same command back to back make one sample (start-up cost).
    Repeat {
        /// The command.
        inv: Invocation,
        /// Runs per sample.
        count: usize,
    },
}

/// Samples in seconds (and KiB, ns) from the successful runs of one task.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// Full-size runs' wall times.
    pub full: Vec<f64>,
    /// 0-iteration runs (loop tasks only).
    pub base: Option<Vec<f64>>,
    /// CPU time (user + system) of each full-size run (a Repeat sample: of all its runs).
    pub cpu: Vec<f64>,
    /// CPU time of each 0-iteration run (loop tasks only).
    pub base_cpu: Option<Vec<f64>>,
    /// Peak RSS of each full-size run, KiB (the largest of a Repeat sample's runs).
    pub rss_kib: Vec<f64>,
    /// Values the guest reported itself (gatebench): field name to one value per run;
    /// a field reported as `n/a` maps to an empty list.
    pub reported: BTreeMap<String, Vec<f64>>,
}

/// Check `sha256sum` output against the expected hash.
fn check_hash(out: &[u8], expected: &str) -> Result<(), String> {
    match crate::workloads::parse_sha256sum_output(out) {
        Some(h) if h == expected => Ok(()),
        Some(h) => Err(format!("wrong hash: got {h}, expected {expected}")),
        None => Err(format!("no hash in output: {:?}", String::from_utf8_lossy(&out[..out.len().min(200)]))),
    }
}

/// SHA-256 (lowercase hex) of everything `r` yields and the number of newlines in it,
/// read in 64 KiB pieces.
fn hash_and_count(mut r: impl Read) -> std::io::Result<(String, usize)> {
    let mut h = crate::workloads::Sha256::new();
    let mut lines = 0;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                h.update(&buf[..n]);
                lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((crate::workloads::hex(&h.finish()), lines))
}

/// Decompress the file `data` with the host's gzip and return the SHA-256 of the result.
fn gunzip_sha256(gzip: &Path, data: &Path) -> Result<String, String> {
    let input = File::open(data).map_err(|e| format!("cannot open {}: {e}", data.display()))?;
    let mut child = Command::new(gzip)
        .arg("-dc")
        .stdin(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", gzip.display()))?;
    let err = child.stderr.take().map(drain);
    let hashed = child.stdout.take().map(hash_and_count);
    let status = child.wait().map_err(|e| format!("gzip -dc: {e}"))?;
    let stderr = err.map(|h| h.join().unwrap_or_default()).unwrap_or_default();
    if !status.success() {
        return Err(format!("output is not valid gzip data: {}", tail_lines(&stderr, 2)));
    }
    match hashed {
        Some(Ok((h, _))) => Ok(h),
        Some(Err(e)) => Err(format!("reading gzip -dc output: {e}")),
        None => Err("no gzip -dc output pipe".into()),
    }
}

/// Parse gatebench's stderr fields.
pub fn parse_gatebench(stderr: &[u8]) -> Result<Vec<(&'static str, Option<f64>)>, String> {
    let text = String::from_utf8_lossy(stderr);
    crate::workloads::Workload::GATEBENCH
        .iter()
        .map(|&(_, field)| {
            let line = text
                .lines()
                .find_map(|l| l.strip_prefix(field).and_then(|r| r.strip_prefix(' ')))
                .ok_or_else(|| format!("gatebench printed no `{field}` line"))?;
            match line.trim() {
                "n/a" => Ok((field, None)),
                v => v
                    .parse::<f64>()
                    .map(|x| (field, Some(x)))
                    .map_err(|_| format!("gatebench `{field}` is not a number: {v:?}")),
            }
        })
        .collect()
}

/// Judge one run by `check`, its stdout being in the file `out`; gatebench values go
/// into `reported`.
fn judge(
    check: &Check,
    r: &RunOutput,
    out: &Path,
    reported: &mut Vec<(&'static str, Option<f64>)>,
) -> Result<(), String> {
    let stdout = || {
        File::open(out)
            .and_then(hash_and_count)
            .map_err(|e| format!("cannot read the output in {}: {e}", out.display()))
    };
    match check {
        Check::Exit0 => Ok(()),
        Check::Sha256sum(expected) => {
            let text = std::fs::read(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
            check_hash(&text, expected)
        }
        Check::StdoutSha256(expected) => match stdout()? {
            (h, _) if &h == expected => Ok(()),
            (h, _) => Err(format!("wrong output: SHA-256 {h}, expected {expected}")),
        },
        Check::Gunzip { gzip, sha256 } => match gunzip_sha256(gzip, out)? {
            h if &h == sha256 => Ok(()),
            h => Err(format!("gzip output decompresses to SHA-256 {h}, expected {sha256}")),
        },
        Check::Lines(n) => match stdout()? {
            (_, got) if got == *n => Ok(()),
            (_, got) => Err(format!("printed {got} lines, expected {n}")),
        },
        Check::Gatebench => {
            *reported = parse_gatebench(&r.stderr)?;
            Ok(())
        }
    }
}

/// Run one sample of `task`; record the times into `s` when `record`.
fn step(task: &Task, plan: &Plan, s: &mut Samples, record: bool) -> Result<(), String> {
    match task {
        Task::Loop { full, base, check } => {
            let b = run_once(base, plan.timeout, None)
                .map_err(|e| format!("{e} (0-iteration run `{}`)", base.display()))?;
            let out = check.needs_stdout().then_some(plan.stdout_file.as_path());
            let f = run_once(full, plan.timeout, out)?;
            judge(check, &f, &plan.stdout_file, &mut Vec::new())?;
            if record {
                s.base.get_or_insert_with(Vec::new).push(b.wall.as_secs_f64());
                s.base_cpu.get_or_insert_with(Vec::new).push(b.cpu.as_secs_f64());
                s.full.push(f.wall.as_secs_f64());
                s.cpu.push(f.cpu.as_secs_f64());
                s.rss_kib.push(f.maxrss_kib as f64);
            }
        }
        Task::Run { inv, check } => {
            let out = check.needs_stdout().then_some(plan.stdout_file.as_path());
            let r = run_once(inv, plan.timeout, out)?;
            let (wall, rss, cpu) = (r.wall.as_secs_f64(), r.maxrss_kib as f64, r.cpu.as_secs_f64());
            let mut reported = Vec::new();
            judge(check, &r, &plan.stdout_file, &mut reported)?;
            if record {
                s.full.push(wall);
                s.cpu.push(cpu);
                s.rss_kib.push(rss);
                for (field, v) in reported {
                    let e = s.reported.entry(field.to_string()).or_default();
                    e.extend(v);
                }
            }
        }
        Task::Repeat { inv, count } => {
            let start = Instant::now();
            let (mut rss, mut cpu) = (0u64, Duration::ZERO);
            for _ in 0..*count {
                let r = run_once(inv, plan.timeout, None)?;
                rss = rss.max(r.maxrss_kib);
                cpu += r.cpu;
            }
            if record {
                s.full.push(start.elapsed().as_secs_f64());
                s.cpu.push(cpu.as_secs_f64());
                s.rss_kib.push(rss as f64);
            }
        }
    }
    Ok(())
}

/// The order in which round `round` visits `n` tasks: forward in even rounds, backward
/// in odd ones, so no task always runs right after the same neighbour and a steady
/// drift in load evens out between neighbours.
fn round_order(round: usize, n: usize) -> Box<dyn Iterator<Item = usize>> {
    if round % 2 == 0 {
        Box::new(0..n)
    } else {
        Box::new((0..n).rev())
    }
}

/// Measure all `tasks` round-robin: each round takes one sample of every task
/// still alive (every other round in reverse order), so slow drifts in machine
/// load hit all runners alike.  A task whose run fails is dropped and reported
/// with the failure.  `label(i)` names task `i` in progress messages on stderr.
pub fn run_round_robin(tasks: &[Task], plan: &Plan, label: impl Fn(usize) -> String) -> Vec<Result<Samples, String>> {
    let mut results: Vec<Result<Samples, String>> = tasks.iter().map(|_| Ok(Samples::default())).collect();
    let rounds = plan.runs + usize::from(plan.warmup);
    for round in 0..rounds {
        let warm = plan.warmup && round == 0;
        eprintln!("  round {}/{rounds}{}", round + 1, if warm { " (warm-up)" } else { "" });
        // Timed rounds alternate, starting forward.
        let timed = if plan.warmup { round.saturating_sub(1) } else { round };
        for i in round_order(timed, tasks.len()) {
            let task = &tasks[i];
            if let Ok(s) = &mut results[i] {
                if let Err(e) = step(task, plan, s, !warm) {
                    eprintln!("    {}: stopped after a failed run: {e}", label(i));
                    results[i] = Err(e);
                }
            }
        }
    }
    results
}

/// Smallest value of a non-empty slice.
pub fn minimum(samples: &[f64]) -> f64 {
    assert!(!samples.is_empty(), "minimum of no samples");
    samples.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Median of a non-empty slice (mean of the two middle values for even length).
pub fn median(samples: &[f64]) -> f64 {
    let mut v = samples.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    assert!(n > 0, "median of no samples");
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_alternate_direction() {
        assert_eq!(round_order(0, 3).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(round_order(1, 3).collect::<Vec<_>>(), [2, 1, 0]);
        assert_eq!(round_order(2, 0).count(), 0);
    }

    #[test]
    fn median_odd_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(minimum(&[4.0, 1.0, 2.0, 3.0]), 1.0);
    }

    #[test]
    fn failing_command_is_reported() {
        let inv =
            Invocation { program: "sh".into(), args: vec!["-c".into(), "echo boom >&2; exit 7".into()], cwd: None };
        let err = run_once(&inv, Duration::from_secs(10), None).unwrap_err();
        assert!(err.contains("exit status 7") && err.contains("boom"), "{err}");
    }

    #[test]
    fn rss_and_stderr_are_recorded() {
        let inv = Invocation {
            program: "sh".into(),
            args: vec!["-c".into(), "echo getppid_trap_ns 12.5 >&2; echo out".into()],
            cwd: Some("/".into()),
        };
        let out = std::env::temp_dir().join(format!("endgate-bench-test-{}.out", std::process::id()));
        let r = run_once(&inv, Duration::from_secs(10), Some(&out)).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"out\n");
        let _ = std::fs::remove_file(&out);
        assert!(r.maxrss_kib > 0);
        assert!(r.cpu <= r.wall + Duration::from_millis(10), "{r:?}");
        assert!(String::from_utf8_lossy(&r.stderr).contains("12.5"));
    }

    #[test]
    fn gatebench_fields() {
        let err =
            b"getppid_trap_ns 103.3\ngetppid_gate_ns n/a\nclock_gettime_vdso_ns 28.1\nclock_gettime_syscall_ns 197.7\n";
        let v = parse_gatebench(err).unwrap();
        assert_eq!(v[0], ("getppid_trap_ns", Some(103.3)));
        assert_eq!(v[1], ("getppid_gate_ns", None));
        assert!(parse_gatebench(b"getppid_trap_ns 1\n").is_err());
    }

    #[test]
    fn loop_full_run_output_is_checked() {
        let sh = |script: &str| Invocation { program: "sh".into(), args: vec!["-c".into(), script.into()], cwd: None };
        let mut h = crate::workloads::Sha256::new();
        h.update(b"spawned 2\n");
        let good = crate::workloads::hex(&h.finish());
        let plan = Plan {
            runs: 2,
            warmup: false,
            timeout: Duration::from_secs(10),
            stdout_file: std::env::temp_dir().join(format!("endgate-bench-test-loop-{}.out", std::process::id())),
        };
        let task = |check| Task::Loop { full: sh("echo spawned 2"), base: sh("exit 0"), check };
        let tasks = [task(Check::StdoutSha256(good)), task(Check::StdoutSha256("00".into()))];
        let res = run_round_robin(&tasks, &plan, |i| format!("task {i}"));
        let _ = std::fs::remove_file(&plan.stdout_file);
        let ok = res[0].as_ref().unwrap();
        assert_eq!((ok.full.len(), ok.base.as_ref().map(Vec::len)), (2, Some(2)));
        let err = res[1].as_ref().unwrap_err();
        assert!(err.contains("wrong output"), "{err}");
    }

    #[test]
    fn timeout_kills() {
        let inv = Invocation { program: "sleep".into(), args: vec!["5".into()], cwd: None };
        let t = Instant::now();
        let err = run_once(&inv, Duration::from_millis(200), None).unwrap_err();
        assert!(err.contains("timed out"), "{err}");
        assert!(t.elapsed() < Duration::from_secs(4));
    }
}
