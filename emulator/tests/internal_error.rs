//! An internal error (a panic in endgate's own code under an engine callback) ends the guest
//! with exactly one line on stderr naming the callback, and status 70 (`EX_SOFTWARE`): never an
//! abort, never Rust's multi-line panic text (docs/ARCHITECTURE.md, "Internal errors").
//!
//! `ENDGATE_TEST_PANIC=<callback>` makes one callback panic (`endgate::guard::test_panic`): the
//! TLB fill (the first fetch of the guest's first instruction), the system-call entry every
//! arch's trap hook calls (the guest's first system call), and the gate's code hook (busybox
//! `date` reads the clock through the vDSO). Inputs: Debian's busybox-static
//! (`scripts/fetch-inputs.sh`).

mod common;

use std::process::Command;
use std::time::Duration;

use common::{busybox, endgate, run_with_timeout};

/// A panic ends the process at once; anything close to this is a hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Runs busybox of `arch` (Debian's name) with `args` under endgate with
/// `ENDGATE_TEST_PANIC=callback` (and `RUST_BACKTRACE` as given); returns status and stderr.
fn run_panicking(arch: &str, args: &[&str], callback: &str, backtrace: Option<&str>) -> (i32, String) {
    let mut cmd = Command::new(endgate());
    cmd.arg(busybox(arch)).args(args).env("ENDGATE_TEST_PANIC", callback).env_remove("RUST_BACKTRACE");
    if let Some(b) = backtrace {
        cmd.env("RUST_BACKTRACE", b);
    }
    let o = run_with_timeout(&mut cmd, None, TIMEOUT);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.timed_out, "{arch} {callback}: still running after {TIMEOUT:?}; stderr {err:?}");
    assert!(o.stdout.is_empty(), "{arch} {callback}: the guest ran on: {:?}", String::from_utf8_lossy(&o.stdout));
    (o.status, err)
}

/// Checks status 70 and one stderr line: "endgate: internal error in WHAT: panic injected by
/// ENDGATE_TEST_PANIC=CALLBACK at FILE:LINE".
fn assert_one_line(arch: &str, args: &[&str], callback: &str, what: &str) {
    let (status, err) = run_panicking(arch, args, callback, None);
    assert_eq!(status, 70, "{arch} {callback}: exit status; stderr {err:?}");
    assert!(err.ends_with('\n') && err.matches('\n').count() == 1, "{arch} {callback}: want one line, got {err:?}");
    let want =
        format!("endgate: internal error in {what}: panic injected by ENDGATE_TEST_PANIC={callback} at emulator/src/");
    assert!(err.starts_with(&want), "{arch} {callback}: got {err:?}, want a line starting {want:?}");
    let at = err.trim_end().rsplit(' ').next().unwrap_or_default();
    let line = at.rsplit(':').next().unwrap_or_default();
    assert!(
        at.ends_with(&format!(".rs:{line}")) && line.parse::<u32>().is_ok(),
        "{arch} {callback}: no file:line in {err:?}"
    );
}

#[test]
fn a_panic_in_the_tlb_fill_is_one_line_and_status_70() {
    for arch in ["arm64", "amd64", "i386"] {
        assert_one_line(arch, &["true"], "tlb-fill", "TLB fill");
    }
}

#[test]
fn a_panic_under_the_trap_hook_is_one_line_and_status_70() {
    // The trap hook each arch installs: an interrupt hook (svc, ecall, int 0x80, syscall on
    // mips and s390x), x86_64's `syscall` instruction hook.
    for (arch, what) in [
        ("arm64", "interrupt hook"),
        ("amd64", "SYSCALL instruction hook"),
        ("i386", "interrupt hook"),
        ("armhf", "interrupt hook"),
        ("s390x", "interrupt hook"),
        ("mips64el", "interrupt hook"),
    ] {
        assert_one_line(arch, &["true"], "trap", what);
    }
}

#[test]
fn a_panic_in_the_gate_code_hook_is_one_line_and_status_70() {
    // busybox `date` reads the time through the vDSO, whose entries are the gate's slots.
    for arch in ["arm64", "amd64"] {
        assert_one_line(arch, &["date", "+%s"], "gate", "gate code hook");
    }
}

#[test]
fn rust_backtrace_keeps_rusts_report_before_the_line() {
    let (status, err) = run_panicking("arm64", &["true"], "trap", Some("1"));
    assert_eq!(status, 70, "stderr {err:?}");
    assert!(err.contains("panicked at"), "Rust's report is missing: {err:?}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("endgate: internal error in interrupt hook: "), "last line {last:?} of {err:?}");
}

#[test]
fn without_the_switch_nothing_panics() {
    let mut cmd = Command::new(endgate());
    cmd.arg(busybox("arm64")).args(["echo", "ok"]).env_remove("ENDGATE_TEST_PANIC");
    let o = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert_eq!((o.status, o.stdout.as_slice(), o.stderr.as_slice()), (0, &b"ok\n"[..], &b""[..]));
}
