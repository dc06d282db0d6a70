//! The gate (endgate's vDSO, `__kernel_vsyscall`, x86_64's vsyscall page) as guests use it.
//!
//! - A static glibc program (gate/vdso_use.c) reads the clocks in loops under `--strace` on
//!   every arch: its own checks must pass (monotonic never goes back, realtime agrees with the
//!   raw system call) and the trace must hold no clock system call but that raw one, because
//!   glibc found the vDSO's functions and called them. On i386 the program also checks that glibc's `sysinfo`
//!   word (`%gs:0x10`) is `AT_SYSINFO`, the vDSO's `__kernel_vsyscall`, which every glibc
//!   system call then goes through.
//! - Debian's busybox runs `date` in a shell loop under `--strace` (forked children are traced
//!   too): the dates are right and no clock system call shows.
//! - An x86_64 program calls the legacy vsyscall page's three entries and gets the time, as it
//!   does natively; calling another address of the page or reading it raises SIGSEGV, as
//!   natively.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{busybox, busybox_arches, endgate, run_with_timeout, workspace, TempDir, ARCHES, I386, X86_64};

const TIMEOUT: Duration = Duration::from_secs(120);

/// System calls a clock read would make without the vDSO, as `--strace` names them.
const CLOCK_CALLS: &[&str] = &["clock_gettime(", "clock_gettime64(", "gettimeofday(", "time("];

/// Builds emulator/tests/gate/`name`.c statically with `cc`.
fn build(dir: &Path, cc: &str, name: &str) -> PathBuf {
    let src = workspace().join("emulator/tests/gate").join(format!("{name}.c"));
    common::build_static(cc, &src, &dir.join(format!("{name}-{cc}")), &[])
}

/// The traced lines of `stderr` that are clock system calls.
fn clock_syscalls(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .map(|l| l.trim_start_matches(|c: char| c == '[' || c == ']' || c.is_ascii_digit() || c == ' '))
        .filter(|l| CLOCK_CALLS.iter().any(|c| l.starts_with(c)))
        .collect()
}

#[test]
fn glibc_reads_clocks_through_the_vdso_on_every_arch() {
    let dir = TempDir::new("gate-vdso");
    for &common::Arch { name: arch, cc, .. } in ARCHES {
        let prog = build(dir.path(), cc, "vdso_use");
        let mut cmd = Command::new(endgate());
        cmd.arg("--strace").arg(&prog).arg("2000");
        let t = run_with_timeout(&mut cmd, None, TIMEOUT);
        let (out, err) = (String::from_utf8_lossy(&t.stdout), String::from_utf8_lossy(&t.stderr));
        assert_eq!((out.as_ref(), t.status), ("ok\n", 0), "{arch}: {err}");
        assert!(err.contains("write(1, \"ok\\n\", 3) = 3"), "{arch}: --strace traced the program: {err}");
        // The one clock system call is the program's own raw `syscall(SYS_clock_gettime)`.
        let calls = clock_syscalls(&err);
        assert!(
            calls.len() == 1 && calls[0].starts_with("clock_gettime(CLOCK_REALTIME, "),
            "{arch}: clock reads left the vDSO: {calls:?}"
        );
    }
}

#[test]
fn i386_glibc_enters_the_kernel_through_kernel_vsyscall() {
    // vdso_use checks %gs:0x10 == AT_SYSINFO inside the vDSO on i386; natively (an x86_64
    // kernel's compat vDSO) the same binary passes the same check.
    let dir = TempDir::new("gate-i386");
    let prog = build(dir.path(), I386.cc, "vdso_use");
    for native in [true, false] {
        let mut cmd = if native { Command::new(&prog) } else { Command::new(endgate()) };
        if !native {
            cmd.arg(&prog);
        }
        let t = run_with_timeout(&mut cmd, None, TIMEOUT);
        assert_eq!((String::from_utf8_lossy(&t.stdout).as_ref(), t.status), ("ok\n", 0), "native: {native}");
    }
}

#[test]
fn busybox_date_loop_makes_no_clock_syscalls() {
    for arch in busybox_arches() {
        let bb = busybox(arch);
        let mut cmd = Command::new(endgate());
        cmd.arg("--strace").arg(&bb).args(["sh", "-c", "for i in 1 2 3 4 5; do date +%s; done"]);
        let before = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        let t = run_with_timeout(&mut cmd, None, TIMEOUT);
        let after = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        let (out, err) = (String::from_utf8_lossy(&t.stdout), String::from_utf8_lossy(&t.stderr));
        assert_eq!(t.status, 0, "{arch}: {err}");
        let dates: Vec<u64> = out.lines().map(|l| l.parse().expect("date +%s prints seconds")).collect();
        assert_eq!(dates.len(), 5, "{arch}: {out}");
        // `date` reads time(), the seconds of the last clock tick: up to one behind.
        assert!(
            dates.iter().all(|d| (before - 1..=after).contains(d)),
            "{arch}: {dates:?} not in {before}-1..={after}"
        );
        assert!(err.contains("wait4(") || err.contains("waitid("), "{arch}: children were traced: {err}");
        assert_eq!(clock_syscalls(&err), Vec::<&str>::new(), "{arch}: date's clock reads left the vDSO");
    }
}

#[test]
fn x86_64_legacy_vsyscall_page_gives_the_time() {
    let dir = TempDir::new("gate-vsyscall");
    let prog = build(dir.path(), X86_64.cc, "vsyscall_page");
    let native = run_with_timeout(&mut Command::new(&prog), None, TIMEOUT);
    assert_eq!((String::from_utf8_lossy(&native.stdout).as_ref(), native.status), ("vsyscall ok\n", 0), "natively");
    let mut cmd = Command::new(endgate());
    cmd.arg(&prog);
    let t = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert_eq!((String::from_utf8_lossy(&t.stdout).as_ref(), t.status), ("vsyscall ok\n", 0));
}

#[test]
fn x86_64_vsyscall_page_misuse_is_sigsegv() {
    let dir = TempDir::new("gate-vsyscall-misuse");
    let prog = build(dir.path(), X86_64.cc, "vsyscall_misuse");
    let native = run_with_timeout(&mut Command::new(&prog), None, TIMEOUT);
    let want = "misaligned call: signal 11 code 0x80\nread: signal 11\n";
    assert_eq!((String::from_utf8_lossy(&native.stdout).as_ref(), native.status), (want, 0), "natively");
    let mut cmd = Command::new(endgate());
    cmd.arg(&prog);
    let t = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert_eq!((String::from_utf8_lossy(&t.stdout).as_ref(), t.status), (want, 0));
}
