//! Processes under endgate: fork, wait and exec, shown with Debian's busybox shell.
//!
//! Each case is a `busybox sh -c SCRIPT` run natively with amd64 busybox (the reference) and
//! under endgate with the guest arch's busybox; stdout, stderr and the exit status must be the
//! same. The scripts fork (pipelines, subshells, command substitution, background jobs), wait
//! for children that exit or die by a signal, and exec: busybox itself, a `#!` script, a
//! file without `#!` (the shell runs it itself after `ENOEXEC`), a missing file (`ENOENT`)
//! and a file without execute permission (`EACCES`), both coming back to the guest shell.
//!
//! `{bb}` in a script stands for the busybox binary of the run, `{other}` for a busybox of
//! another arch (a guest exec'ing a guest of another arch; natively, amd64's again).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{busybox, busybox_arches, endgate, run_with_timeout, TempDir};

/// The longest one case may take before it counts as hung.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `script` with `bb` (under endgate unless `native`) in `dir`; returns stdout, stderr
/// and the status as a shell reports it.
fn run(bb: &Path, other: &Path, native: bool, dir: &Path, script: &str) -> (String, String, i32) {
    let script = script.replace("{bb}", bb.to_str().unwrap()).replace("{other}", other.to_str().unwrap());
    let mut cmd = if native {
        Command::new(bb)
    } else {
        let mut c = Command::new(endgate());
        c.arg(bb);
        c
    };
    cmd.args(["sh", "-c", &script]).current_dir(dir).env("PATH", "/nonexistent-path");
    let t = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert!(!t.timed_out, "timed out: {script}");
    (String::from_utf8_lossy(&t.stdout).into_owned(), String::from_utf8_lossy(&t.stderr).into_owned(), t.status)
}

/// Prepares the files the scripts use: a `#!` script, one with an interpreter argument, a
/// plain executable text file, and a file without execute permission.
fn prepare(dir: &Path, bb: &Path) {
    let write = |name: &str, text: String, mode: u32| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    write("script.sh", format!("#!{} sh\necho \"script: $0 [$*]\"\nexit 4\n", bb.display()), 0o755);
    // Interpreter, its one argument ("echo"), the script path, then the caller's arguments.
    write("echo.sh", format!("#!{}  echo  \nnot run\n", bb.display()), 0o755);
    write("plain", "echo plain text run by the shell\n".to_string(), 0o755);
    write("noexec", "#!/bin/sh\necho no\n".to_string(), 0o644);
}

/// Runs one script on every arch with a Debian busybox-static ([`busybox_arches`]) and compares
/// with the native run: amd64, arm64 and s390x at least, the others where they are fetched.
fn check(script: &str) {
    let native_bb = busybox("amd64");
    let dir = TempDir::new("process-native");
    prepare(dir.path(), &native_bb);
    let want = run(&native_bb, &native_bb, true, dir.path(), script);
    // The native run names its busybox; the guest runs name theirs.
    for arch in busybox_arches() {
        let bb = common::workspace().join(".cache/busybox").join(arch).join("busybox");
        let bb = if arch == "amd64" || arch == "arm64" || arch == "s390x" {
            busybox(arch)
        } else if bb.exists() {
            bb
        } else {
            continue;
        };
        let other = busybox(if arch == "s390x" { "arm64" } else { "s390x" });
        let dir = TempDir::new(&format!("process-{arch}"));
        prepare(dir.path(), &bb);
        let got = run(&bb, &other, false, dir.path(), script);
        let norm = |s: &str, b: &Path| s.replace(b.to_str().unwrap(), "BB");
        assert_eq!(
            (norm(&got.0, &bb), norm(&got.1, &bb), got.2),
            (norm(&want.0, &native_bb), norm(&want.1, &native_bb), want.2),
            "{arch}: {script}"
        );
    }
}

#[test]
fn pipelines_and_subshells() {
    check("echo a | {bb} cat; false || echo b; {bb} seq 1000 | {bb} sort -r | {bb} head -3");
    check("x=$(echo sub; echo two); echo \"[$x]\"; (cd /; pwd); pwd >/dev/null; echo $( (exit 3); echo $?)");
    check("{bb} seq 1 5 | while read n; do echo line $n; done | {bb} tail -2");
}

#[test]
fn exit_statuses_of_children() {
    check("(exit 7); echo s=$?; sh -c 'exit 300'; echo s=$?; {bb} false; echo s=$?");
    check("sh -c 'kill -TERM $$'; echo term=$?; sh -c 'kill -9 $$'; echo kill=$?");
    check("{bb} yes | {bb} head -2; echo pipe=$?");
}

/// busybox's `wait` sleeps in `rt_sigsuspend` until its SIGCHLD handler runs.
#[test]
fn background_jobs_and_wait() {
    check("{bb} sleep 0.1 & p=$!; wait $p; echo waited=$?; (exit 5) & wait $!; echo bg=$?");
}

#[test]
fn exec_of_scripts_and_other_programs() {
    check("./script.sh one 'two words'; echo rc=$?");
    check("./echo.sh x y");
    check("./plain; echo rc=$?");
    check("{bb} sh -c 'exec {bb} echo replaced'; echo rc=$?");
    check("{other} echo from another arch; echo rc=$?");
    check("exec ./script.sh last");
}

#[test]
fn ignored_signals_stay_ignored_across_exec() {
    check("trap '' INT; sh -c 'kill -INT $$; echo still here'; {bb} sh -c 'kill -INT $$; echo again'");
    check("trap '' TERM; exec {bb} sh -c 'kill -TERM $$; echo survived'");
}

#[test]
fn exec_errors_come_back_to_the_guest() {
    check("/nonexistent/program; echo missing=$?");
    check("./noexec; echo noexec=$?");
    check("{bb} env /nonexistent/x; echo env=$?");
    check("exec /nonexistent/y; echo not reached");
}

#[test]
fn traps_run_for_signals_the_guest_sends_itself() {
    check("trap 'echo got USR1' USR1; kill -USR1 $$; echo after; trap 'echo got TERM; exit 9' TERM; kill $$; echo not reached");
    check("{bb} seq 7 | {bb} xargs -n 3 echo x; echo rc=$?");
}

/// Starts `sh -c SCRIPT` with busybox `bb` (under endgate unless `native`), waits until the
/// script printed its first line ("ready"), sends `sig` to the process endgate runs as, and
/// returns what the script printed and its status.
fn signal_from_outside(bb: &Path, native: bool, script: &str, sig: i32) -> (String, i32) {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let script = script.replace("{bb}", bb.to_str().unwrap());
    let mut cmd = if native {
        Command::new(bb)
    } else {
        let mut c = Command::new(endgate());
        c.arg(bb);
        c
    };
    // The shell may only trap what it did not find ignored at start (POSIX `trap`), and a test
    // runner started as an asynchronous command of a shell without job control inherits
    // SIGINT and SIGQUIT ignored: start both sides with the default dispositions.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            for s in [libc::SIGINT, libc::SIGQUIT, libc::SIGTERM] {
                libc::signal(s, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    let mut child = cmd.args(["sh", "-c", &script]).stdout(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    // SAFETY: signals the child this test started.
    unsafe { libc::kill(i32::try_from(child.id()).unwrap(), sig) };
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let status = common::shell_status(child.wait().unwrap());
    (first + &rest, status)
}

/// SIGTERM and SIGINT sent to endgate from outside reach the guest's handlers first; a guest
/// that ignores SIGTERM keeps running.
#[test]
fn signals_from_outside_reach_the_guest() {
    let cases = [
        ("trap 'echo got TERM; exit 3' TERM; echo ready; while :; do {bb} sleep 0.05; done", libc::SIGTERM),
        ("trap 'echo got INT; exit 4' INT; echo ready; while :; do {bb} sleep 0.05; done", libc::SIGINT),
        ("trap '' TERM; echo ready; {bb} sleep 0.5; echo survived", libc::SIGTERM),
    ];
    let native_bb = busybox("amd64");
    for (script, sig) in cases {
        let want = signal_from_outside(&native_bb, true, script, sig);
        for arch in busybox_arches() {
            let bb = common::workspace().join(".cache/busybox").join(arch).join("busybox");
            let bb = if bb.exists() { bb } else { busybox(arch) };
            let got = signal_from_outside(&bb, false, script, sig);
            assert_eq!(got, want, "{arch}: {script}");
        }
    }
}

/// Signals ignored by whoever starts endgate (a shell's `trap ''`, `nohup`) are ignored by the
/// guest too, as a native program inherits them.
#[test]
fn signals_ignored_by_the_parent_stay_ignored() {
    use std::os::unix::process::CommandExt;
    let script = "kill -INT $$; kill -HUP $$; echo survived";
    let run = |mut cmd: Command| {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                libc::signal(libc::SIGHUP, libc::SIG_IGN);
                Ok(())
            });
        }
        let o = cmd.output().unwrap();
        (String::from_utf8_lossy(&o.stdout).into_owned(), common::shell_status(o.status))
    };
    let native_bb = busybox("amd64");
    let mut native = Command::new(&native_bb);
    native.args(["sh", "-c", script]);
    let want = run(native);
    assert_eq!(want, ("survived\n".to_string(), 0));
    for arch in ["amd64", "arm64", "s390x"] {
        let mut guest = Command::new(endgate());
        guest.arg(busybox(arch)).args(["sh", "-c", script]);
        assert_eq!(run(guest), want, "{arch}");
    }
}

/// A small descriptor limit: the kernel needs no descriptor to exec a static program, and
/// endgate must need none beyond the one the host's loader takes while it starts endgate again
/// (short exec state goes in an argument, not a memfd held across the exec). At `ulimit -n 4`
/// (descriptors 0-3) a forked child execs busybox by its path, and busybox's shell runs its
/// `sh` applet through `/proc/self/exe` (whose file endgate hands over as a descriptor only
/// when the path no longer names it).
#[test]
fn exec_under_a_small_descriptor_limit() {
    check("ulimit -n 4; {bb} echo direct; echo s=$?; {bb} true; echo s=$?");
    check("ulimit -n 4; sh -c 'echo through proc self exe'; echo s=$?");
}
