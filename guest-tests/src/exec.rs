//! Running one program: in a given working directory, with a fixed environment, optional
//! stdin bytes, captured stdout/stderr, and a timeout after which the program's whole
//! process group is killed.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The environment every test program sees (and nothing else), so outputs are reproducible.
pub const FIXED_ENV: &[(&str, &str)] = &[("PATH", "/usr/local/bin:/usr/bin:/bin"), ("TEST", "1"), ("LC_ALL", "C")];

/// At most this much of each output stream is kept (the rest is read and dropped).
pub const OUTPUT_CAP: usize = 16 << 20;

/// What a finished (or killed) program did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// Exit status as a shell shows it: the exit code, or 128+signo for a death by signal.
    /// `None` only if the status could not be collected.
    pub status: Option<i32>,
    /// Captured stdout (at most [`OUTPUT_CAP`] bytes).
    pub stdout: Vec<u8>,
    /// Captured stderr (at most [`OUTPUT_CAP`] bytes).
    pub stderr: Vec<u8>,
    /// Whether the timeout expired and the program was killed.
    pub timed_out: bool,
    /// Wall-clock time from spawn to exit.
    pub duration: Duration,
}

/// Converts an exit status to the shell's number: code, or 128+signo.
pub fn shell_status(st: ExitStatus) -> Option<i32> {
    st.code().or_else(|| st.signal().map(|s| 128 + s))
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
    fn close_range(first: u32, last: u32, flags: i32) -> i32;
    fn signal(sig: i32, handler: usize) -> usize;
}

const SIGKILL: i32 = 9;

/// Sends SIGKILL to the process group `pgid` (the test program and anything it forked).
fn kill_group(pgid: u32) {
    let Ok(pgid) = i32::try_from(pgid) else { return };
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a negative pid names
    // the process group that `run` made for this child alone (process_group(0)).
    unsafe {
        kill(-pgid, SIGKILL);
    }
}

fn drain(mut r: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 65536];
        loop {
            match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let room = OUTPUT_CAP.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        kept
    })
}

/// Runs `cmd` (program and arguments already set) in `workdir` with [`FIXED_ENV`], feeding
/// `stdin` (or /dev/null), killing it after `timeout`. Errors only if it cannot be spawned.
pub fn run(mut cmd: Command, workdir: &Path, stdin: Option<&[u8]>, timeout: Duration) -> std::io::Result<Execution> {
    cmd.current_dir(workdir)
        .env_clear()
        .envs(FIXED_ENV.iter().copied())
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    // Every test starts with only fds 0-2 open and every signal at its default action,
    // whatever the runner itself inherited (a CI harness may hold a lock file at fd 200; a
    // shell without job control starts its background commands with SIGINT and SIGQUIT
    // ignored, which exec keeps): outputs must not depend on the caller.
    // SAFETY: the closure runs in the forked child before exec and calls only close_range(2)
    // and signal(2), which are async-signal-safe and touch no memory.
    unsafe {
        cmd.pre_exec(|| {
            close_range(3, u32::MAX, 0);
            // Linux x86_64 signals 1-64 but SIGKILL and SIGSTOP (19); SIG_DFL is 0.
            for sig in (1..=64).filter(|&s| s != SIGKILL && s != 19) {
                signal(sig, 0);
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id();
    let feeder = match (stdin, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => {
            let bytes = bytes.to_vec();
            // A program that exits without reading gives EPIPE here: not an error of ours.
            Some(thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            }))
        }
        _ => None,
    };
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);

    let mut timed_out = false;
    let mut nap = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        if start.elapsed() >= timeout {
            timed_out = true;
            kill_group(pid);
            let _ = child.kill();
            break child.wait().ok();
        }
        thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(20));
    };
    let duration = start.elapsed();
    // Anything the program left behind in its group would hold the pipes open.
    kill_group(pid);
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let stdout = out.map(|h| h.join().unwrap_or_default()).unwrap_or_default();
    let stderr = err.map(|h| h.join().unwrap_or_default()).unwrap_or_default();
    Ok(Execution { status: status.and_then(shell_status), stdout, stderr, timed_out, duration })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_stdin_env_timeout() {
        let dir = std::env::temp_dir();
        let mut c = Command::new("sh");
        c.args(["-c", "cat; echo \"$TEST\"; exit 3"]);
        let e = run(c, &dir, Some(b"in\n"), Duration::from_secs(10)).unwrap();
        assert_eq!((e.status, e.stdout.as_slice(), e.timed_out), (Some(3), &b"in\n1\n"[..], false));

        let mut c = Command::new("sh");
        c.args(["-c", "kill -SEGV $$"]);
        assert_eq!(run(c, &dir, None, Duration::from_secs(10)).unwrap().status, Some(139));

        let mut c = Command::new("sh");
        c.args(["-c", "sleep 30 & sleep 30"]);
        let e = run(c, &dir, None, Duration::from_millis(200)).unwrap();
        assert!(e.timed_out && e.duration < Duration::from_secs(10));
        assert_eq!(e.status, Some(128 + SIGKILL));
    }
}
