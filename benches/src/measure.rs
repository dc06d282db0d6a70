//! Running a command as a whole process and timing it.
//!
//! Every sample is the wall time from just before `spawn` to the moment the
//! child has exited and its pipes are drained, so it includes process
//! creation, the emulator's start-up and exit.  Loop workloads subtract a
//! 0-iteration run to get the per-iteration cost.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A command line: the program to execute and its arguments.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// The executable (native binary, endgate or qemu-user).
    pub program: PathBuf,
    /// Its arguments (for an emulator: the guest program first).
    pub args: Vec<OsString>,
}

impl Invocation {
    /// The command line as a shell-like string, for reports and messages.
    pub fn display(&self) -> String {
        let mut s = self.program.display().to_string();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }
}

/// What one successful run produced.
#[derive(Debug)]
pub struct RunOutput {
    /// Wall time of the whole process.
    pub wall: Duration,
    /// Everything it wrote on stdout (empty unless captured).
    pub stdout: Vec<u8>,
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

/// Run `inv` once with stdin closed, stderr captured and stdout captured or
/// discarded.  Fails (with a description of the symptom) if it cannot be
/// started, exits with a non-zero status, is killed by a signal, or runs
/// longer than `timeout` (in which case it is killed).
pub fn run_once(inv: &Invocation, timeout: Duration, capture_stdout: bool) -> Result<RunOutput, String> {
    let mut cmd = Command::new(&inv.program);
    cmd.args(&inv.args)
        .stdin(Stdio::null())
        .stdout(if capture_stdout { Stdio::piped() } else { Stdio::null() })
        .stderr(Stdio::piped());
    let start = Instant::now();
    let child = cmd.spawn().map_err(|e| format!("cannot start `{}`: {e}", inv.program.display()))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let out = child.wait_with_output();
        let end = Instant::now();
        // The receiver may be gone after a timeout; nothing to do then.
        let _ = tx.send((out, end));
    });
    let received = match rx.recv_timeout(timeout) {
        Ok(r) => r,
        Err(_) => {
            // Kill exactly the child we started, by its pid.
            let _ = Command::new("kill").arg("-KILL").arg(pid.to_string()).status();
            let _ = waiter.join();
            return Err(format!("timed out after {} s (killed)", timeout.as_secs()));
        }
    };
    let _ = waiter.join();
    let (out, end) = received;
    let out = out.map_err(|e| format!("waiting for `{}` failed: {e}", inv.program.display()))?;
    if !out.status.success() {
        let mut msg = describe_status(out.status);
        let err = tail_lines(&out.stderr, 3);
        if !err.is_empty() {
            msg.push_str("; stderr: ");
            msg.push_str(&err);
        }
        return Err(msg);
    }
    Ok(RunOutput { wall: end - start, stdout: out.stdout })
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
    },
    /// A hashing command whose stdout must start with `expected` (hex).
    Hash {
        /// The command.
        inv: Invocation,
        /// The correct SHA-256, lowercase hex.
        expected: String,
    },
}

/// Wall-time samples in seconds from the successful runs of one task.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// Full-size runs.
    pub full: Vec<f64>,
    /// 0-iteration runs (loop tasks only).
    pub base: Option<Vec<f64>>,
}

/// Check `sha256sum` output against the expected hash.
fn check_hash(out: &[u8], expected: &str) -> Result<(), String> {
    match crate::workloads::parse_sha256sum_output(out) {
        Some(h) if h == expected => Ok(()),
        Some(h) => Err(format!("wrong hash: got {h}, expected {expected}")),
        None => Err(format!("no hash in output: {:?}", String::from_utf8_lossy(&out[..out.len().min(200)]))),
    }
}

/// Run one sample of `task`; record the times into `s` when `record`.
fn step(task: &Task, plan: &Plan, s: &mut Samples, record: bool) -> Result<(), String> {
    match task {
        Task::Loop { full, base } => {
            let b = run_once(base, plan.timeout, false)
                .map_err(|e| format!("{e} (0-iteration run `{}`)", base.display()))?;
            let f = run_once(full, plan.timeout, false)?;
            if record {
                s.base.get_or_insert_with(Vec::new).push(b.wall.as_secs_f64());
                s.full.push(f.wall.as_secs_f64());
            }
        }
        Task::Hash { inv, expected } => {
            let r = run_once(inv, plan.timeout, true)?;
            check_hash(&r.stdout, expected)?;
            if record {
                s.full.push(r.wall.as_secs_f64());
            }
        }
    }
    Ok(())
}

/// Measure all `tasks` round-robin: each round takes one sample of every task
/// still alive, so slow drifts in machine load hit all runners alike.  A task
/// whose run fails is dropped and reported with the failure.  `label(i)`
/// names task `i` in progress messages on stderr.
pub fn run_round_robin(tasks: &[Task], plan: &Plan, label: impl Fn(usize) -> String) -> Vec<Result<Samples, String>> {
    let mut results: Vec<Result<Samples, String>> = tasks.iter().map(|_| Ok(Samples::default())).collect();
    let rounds = plan.runs + usize::from(plan.warmup);
    for round in 0..rounds {
        let warm = plan.warmup && round == 0;
        eprintln!("  round {}/{rounds}{}", round + 1, if warm { " (warm-up)" } else { "" });
        for (i, task) in tasks.iter().enumerate() {
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
    fn median_odd_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn failing_command_is_reported() {
        let inv = Invocation { program: "sh".into(), args: vec!["-c".into(), "echo boom >&2; exit 7".into()] };
        let err = run_once(&inv, Duration::from_secs(10), false).unwrap_err();
        assert!(err.contains("exit status 7") && err.contains("boom"), "{err}");
    }

    #[test]
    fn timeout_kills() {
        let inv = Invocation { program: "sleep".into(), args: vec!["5".into()] };
        let t = Instant::now();
        let err = run_once(&inv, Duration::from_millis(200), false).unwrap_err();
        assert!(err.contains("timed out"), "{err}");
        assert!(t.elapsed() < Duration::from_secs(4));
    }
}
