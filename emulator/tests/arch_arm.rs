//! The arm guest (EABI armhf): static glibc programs from tests/arch_arm/*.c, built with
//! `arm-linux-gnueabihf-gcc -static -O2` (Thumb-2, the compiler's default) and with `-marm`,
//! run under endgate and compared with a reference:
//! - programs whose output means the same on every arch (hello, file offsets past 4 GiB,
//!   clocks) with the same source built for x86_64 and run natively;
//! - programs about arm itself (auxv and `uname`, the kuser helpers, arm's `struct stat64`,
//!   exit statuses and fault signals) with `qemu-arm -cpu cortex-a15`, the CPU endgate models.
//!
//! Needs `gcc-arm-linux-gnueabihf` and `qemu-user` (scripts/install-deps.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{endgate, run_with_timeout, TempDir, Timed, ARM, X86_64};

/// The C sources, by name.
fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/arch_arm").join(format!("{name}.c"))
}

/// Builds `name` with `cc` and `flags` into `dir`.
fn build(dir: &Path, cc: &str, name: &str, flags: &[&str]) -> PathBuf {
    let out = dir.join(format!("{name}-{cc}{}", flags.join("")));
    let st = Command::new(cc)
        .args(["-static", "-O2", "-o"])
        .arg(&out)
        .arg(source(name))
        .args(flags)
        .status()
        .unwrap_or_else(|e| panic!("{cc} missing ({e}): run scripts/install-deps.sh"));
    assert!(st.success(), "building {name} with {cc} {flags:?}");
    out
}

const ARM_CC: &str = ARM.cc;

/// The reference for ARM-specific behaviour: qemu-arm with the CPU endgate models.
const QEMU_ARM: [&str; 3] = [ARM.qemu, "-cpu", "cortex-a15"];

/// Runs `prog args` (under `runner` when given) in `dir` with a small fixed environment.
fn run(runner: &[&str], prog: &Path, args: &[&str], dir: &Path) -> Timed {
    let mut cmd = match runner.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(prog);
            c
        }
        None => Command::new(prog),
    };
    cmd.args(args).current_dir(dir).env_clear().env("ARMTEST_VAR", "some value").env("LC_ALL", "C");
    run_with_timeout(&mut cmd, None, Duration::from_secs(60))
}

fn endgate_str() -> String {
    endgate().to_string_lossy().into_owned()
}

/// Asserts that endgate gives the reference's stdout and status for `name` built as armhf
/// (Thumb-2 and, when `marm`, also ARM), the reference being `reference(dir, name)`.
fn compare(name: &str, args: &[&str], marm: bool, reference: &dyn Fn(&Path) -> Timed) {
    let dir = TempDir::new(&format!("arm-{name}"));
    let want = reference(dir.path());
    assert!(!want.timed_out, "{name}: reference timed out");
    let mut variants = vec![build(dir.path(), ARM_CC, name, &[])];
    if marm {
        variants.push(build(dir.path(), ARM_CC, name, &["-marm"]));
    }
    let eg = endgate_str();
    for prog in variants {
        let got = run(&[&eg], &prog, args, dir.path());
        assert!(
            got.stdout == want.stdout && got.status == want.status,
            "{} {args:?}: endgate status {} vs {}\n--- endgate stdout\n{}\n--- reference stdout\n{}\n--- endgate stderr\n{}",
            prog.display(),
            got.status,
            want.status,
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            String::from_utf8_lossy(&got.stderr),
        );
    }
}

/// The same source built for x86_64 and run natively.
fn native<'a>(name: &'a str, args: &'a [&'a str]) -> impl Fn(&Path) -> Timed + 'a {
    move |dir| {
        let prog = build(dir, X86_64.cc, name, &[]);
        run(&[], &prog, args, dir)
    }
}

/// The armhf build run under `qemu-arm -cpu cortex-a15`.
fn qemu<'a>(name: &'a str, args: &'a [&'a str]) -> impl Fn(&Path) -> Timed + 'a {
    move |dir| {
        let prog = build(dir, ARM_CC, name, &[]);
        run(&QEMU_ARM, &prog, args, dir)
    }
}

#[test]
fn hello_matches_native() {
    compare("hello", &["a", "bc"], true, &native("hello", &["a", "bc"]));
}

#[test]
fn argv_env_auxv_uname_match_qemu() {
    compare("auxv", &["x", "y z"], true, &qemu("auxv", &["x", "y z"]));
}

#[test]
fn kuser_helpers_match_qemu() {
    compare("kuser", &[], true, &qemu("kuser", &[]));
}

#[test]
fn stat64_family_matches_qemu() {
    compare("stat64", &[], false, &qemu("stat64", &[]));
}

#[test]
fn file_offsets_past_4_gib_match_native() {
    // qemu-arm 7.2 reads zeros through a MAP_SHARED mapping at a file offset past 4 GiB, so
    // the reference here is native.
    compare("bigfile", &[], true, &native("bigfile", &[]));
}

#[test]
fn clocks_match_native() {
    compare("clock", &[], false, &native("clock", &[]));
}

#[test]
fn exit_status_and_fault_signals_match_qemu() {
    // Shell statuses: exit(42); SIGSEGV 139; SIGILL 132 (`udf` from __builtin_trap); SIGTRAP 133.
    for (mode, status) in [("exit", 42), ("segv", 139), ("ill", 132), ("bkpt", 133)] {
        compare("faults", &[mode], true, &qemu("faults", &[mode]));
        let dir = TempDir::new("arm-fault-report");
        let prog = build(dir.path(), ARM_CC, "faults", &[]);
        let got = run(&[&endgate_str()], &prog, &[mode], dir.path());
        assert_eq!(got.status, status, "{mode}");
        if mode == "segv" {
            let err = String::from_utf8_lossy(&got.stderr);
            assert!(err.contains("killed by SIGSEGV") && err.contains("(fault address 0x8)"), "{err}");
        }
    }
}

#[test]
fn private_calls_follow_the_kernel() {
    // Expected from arch/arm/kernel/traps.c (`arm_syscall`, `do_cache_op`): cacheflush returns
    // 0, or EINVAL for end < start; set_tls returns 0 and TPIDRURO then reads back the value;
    // private numbers up to 0xf07ff without a call give ENOSYS. (qemu-arm skips the
    // cacheflush range check, so it is not the reference here.)
    let want = "cacheflush: 0\ncall: 42\ncall after rewrite: 7\ncacheflush end<start: -1 Invalid argument\n\
                get_tls == thread pointer: 1\nset_tls: 0, then mrc 12345678 get_tls 12345678\n\
                unknown private call: -1 Function not implemented\n";
    let dir = TempDir::new("arm-private");
    for flags in [&[][..], &["-marm"][..]] {
        let prog = build(dir.path(), ARM_CC, "private", flags);
        let got = run(&[&endgate_str()], &prog, &[], dir.path());
        assert_eq!(String::from_utf8_lossy(&got.stdout), want, "{flags:?}: {}", String::from_utf8_lossy(&got.stderr));
        assert_eq!(got.status, 0);
    }
}

#[test]
fn arm_state_entry_and_interworking_match_qemu() {
    // tests/arch_arm/interwork.S: an ARM-state `_start` (e_entry bit 0 clear) that `blx`es into
    // Thumb code which returns with `pop {pc}`; raw `svc #0` in both states.
    let dir = TempDir::new("arm-interwork");
    let prog = dir.path().join("interwork");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/arch_arm/interwork.S");
    let st = Command::new(ARM_CC)
        .args(["-nostdlib", "-static", "-o"])
        .arg(&prog)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{ARM_CC} missing ({e}): run scripts/install-deps.sh"));
    assert!(st.success());
    let want = run(&QEMU_ARM, &prog, &[], dir.path());
    let got = run(&[&endgate_str()], &prog, &[], dir.path());
    assert_eq!(want.stdout, b"arm\nthumb\nback\n");
    assert_eq!((got.stdout, got.status), (want.stdout, want.status));
}

#[test]
fn directory_positions_fit_32_bits_and_seek_back() {
    // glibc's armhf readdir keeps positions in a 32-bit off_t; see syscall/dircookie.rs.
    compare("seekdir", &[], false, &native("seekdir", &[]));
}
