//! `--max-memory BYTES` (docs/ARCHITECTURE.md, "Guest memory"; `emulator/src/mm/limits.rs`):
//! the guest's address space is capped as a `ulimit -v` would cap it.
//!
//! guest-tests/programs/mem_limits.c, built here for x86_64, aarch64 and s390x:
//! - `alloc` mallocs and touches 1 MiB at a time under `--max-memory 64M`: malloc fails before
//!   64 MiB, and the guest ends with its own message and status (3), nothing from endgate;
//! - `exec-check` under `--max-memory 64M` sees RLIMIT_AS at 64 MiB and cannot map 128 MiB,
//!   and neither can a program it starts through `execve` (the cap is handed on);
//! - `stack` recurses without end: the guest dies of SIGSEGV and endgate keeps its status
//!   contract (one line, 128 + 11);
//! - `show` prints the guest's `RLIMIT_AS` when endgate starts under a shell's `ulimit -v`: a
//!   hard limit below endgate's up-front reservations stops it with one line naming both, a
//!   soft one or a hard one above them is the guest's (README, "Limitations").

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{endgate, run_with_timeout, workspace, TempDir};

const TIMEOUT: Duration = Duration::from_secs(120);

/// The compilers of the guests tested here.
const COMPILERS: &[(&str, &str)] =
    &[("x86_64", "gcc"), ("aarch64", "aarch64-linux-gnu-gcc"), ("s390x", "s390x-linux-gnu-gcc")];

/// Builds guest-tests/programs/mem_limits.c statically with `cc`.
fn build(dir: &Path, cc: &str) -> PathBuf {
    let programs = workspace().join("guest-tests/programs");
    let out = dir.join(format!("mem_limits-{cc}"));
    let flags = [std::ffi::OsStr::new("-std=gnu11"), std::ffi::OsStr::new("-I"), programs.as_os_str()];
    common::build_static(cc, &programs.join("mem_limits.c"), &out, &flags)
}

/// Runs `prog mode` under `endgate --max-memory 64M`: status, stdout, stderr.
fn run(prog: &Path, mode: &str) -> (i32, String, String) {
    let mut cmd = Command::new(endgate());
    cmd.args(["--max-memory", "64M"]).arg(prog).arg(mode);
    let o = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert!(!o.timed_out, "{} {mode}: still running after {TIMEOUT:?}", prog.display());
    (o.status, String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn allocating_until_it_fails_ends_with_the_guests_own_error() {
    let dir = TempDir::new("limits-alloc");
    for &(arch, cc) in COMPILERS {
        let prog = build(dir.path(), cc);
        let (status, out, err) = run(&prog, "alloc");
        assert_eq!(status, 3, "{arch}: the guest's own exit status; stdout {out:?} stderr {err:?}");
        assert!(err.is_empty(), "{arch}: endgate said something: {err:?}");
        let n: u64 = out
            .trim()
            .strip_prefix("mem_limits: malloc failed after ")
            .and_then(|s| s.strip_suffix(" MiB"))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{arch}: unexpected output {out:?}"));
        assert!((16..64).contains(&n), "{arch}: malloc failed after {n} MiB under a 64 MiB cap");
    }
}

#[test]
fn the_cap_is_the_guests_rlimit_as_across_execve() {
    let dir = TempDir::new("limits-exec");
    for &(arch, cc) in COMPILERS {
        let prog = build(dir.path(), cc);
        let (status, out, err) = run(&prog, "exec-check");
        assert_eq!(status, 0, "{arch}: stdout {out:?} stderr {err:?}");
        assert_eq!(
            out,
            "after execve: RLIMIT_AS 64 MiB\nafter execve: 128 MiB under a 64 MiB RLIMIT_AS: ENOMEM\n\
             after execve: 1 MiB under it: mapped\n",
            "{arch}"
        );
    }
}

#[test]
fn a_stack_that_cannot_grow_keeps_the_status_contract() {
    let dir = TempDir::new("limits-stack");
    let prog = build(dir.path(), "aarch64-linux-gnu-gcc");
    let (status, out, err) = run(&prog, "stack");
    assert_eq!(status, 128 + 11, "SIGSEGV; stdout {out:?} stderr {err:?}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line from endgate: {err:?}");
    assert!(lines[0].starts_with("endgate: ") && lines[0].contains("SIGSEGV"), "{err:?}");
}

/// Runs `prog show` under endgate from a shell that first runs `ulimit ARGS` (so endgate
/// itself starts under that limit): status, stdout, stderr.
fn run_under_ulimit(prog: &Path, ulimit: &str) -> (i32, String, String) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("ulimit {ulimit} && exec \"$0\" \"$@\"")).arg(endgate()).arg(prog).arg("show");
    let o = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert!(!o.timed_out, "{}: still running after {TIMEOUT:?}", prog.display());
    (o.status, String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A hard `ulimit -v` (1000000 KiB) below the host address space endgate reserves up front
/// (README, "Limitations": 4 GiB for a 32-bit guest, more than 4 TiB for a 64-bit one) stops
/// endgate at start with one line naming the limit, what endgate reserves and the way out
/// (status 1); the same limit set soft only is the guest's `RLIMIT_AS`, as a native program
/// sees it (getrlimit(2)), and the guest runs under it.
#[test]
fn a_hard_address_space_limit_below_the_reservations_is_named_at_start() {
    let dir = TempDir::new("limits-hard");
    for &(arch, cc) in COMPILERS {
        let prog = build(dir.path(), cc);
        let (status, out, err) = run_under_ulimit(&prog, "-v 1000000");
        assert_eq!(status, 1, "{arch}: stdout {out:?} stderr {err:?}");
        assert!(out.is_empty(), "{arch}: the guest ran: {out:?}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{arch}: one line from endgate: {err:?}");
        let line = lines[0];
        assert!(line.starts_with("endgate: cannot reserve "), "{arch}: {line}");
        assert!(
            line.contains(
                "the hard address-space limit (ulimit -v, RLIMIT_AS) is 1024000000 bytes, and endgate reserves "
            ),
            "{arch}: {line}"
        );
        assert!(
            line.ends_with("or set a soft one (ulimit -S -v), which endgate applies to the guest"),
            "{arch}: {line}"
        );
        let (status, out, err) = run_under_ulimit(&prog, "-S -v 1000000");
        assert_eq!(status, 0, "{arch}: stdout {out:?} stderr {err:?}");
        assert_eq!(out, "RLIMIT_AS soft 1000000 KiB, hard unlimited\nmalloc 16 MiB: ok\n", "{arch}");
    }
}

/// A hard `ulimit -v` above what endgate reserves (5 TiB, over an aarch64 guest's 4.19 TiB)
/// lets it run, and the guest sees the limit as its `RLIMIT_AS`, soft and hard, as a native
/// program under it does (the x86_64 build of the same program prints the same line).
#[test]
fn a_hard_limit_above_the_reservations_is_the_guests() {
    let dir = TempDir::new("limits-hard-above");
    let prog = build(dir.path(), "aarch64-linux-gnu-gcc");
    let (status, out, err) = run_under_ulimit(&prog, "-v 5368709120");
    assert_eq!(status, 0, "stdout {out:?} stderr {err:?}");
    assert_eq!(out, "RLIMIT_AS soft 5368709120 KiB, hard 5368709120 KiB\nmalloc 16 MiB: ok\n");
}

#[test]
fn bad_sizes_are_usage_errors() {
    for bad in ["", "0", "12Q", "x", "99999999999T"] {
        let o = Command::new(endgate()).args(["--max-memory", bad, "/bin/true"]).output().expect("endgate runs");
        assert_eq!(o.status.code(), Some(2), "--max-memory {bad:?}: {:?}", String::from_utf8_lossy(&o.stderr));
    }
}
