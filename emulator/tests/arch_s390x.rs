//! s390x guests (big-endian z/Architecture): programs from `tests/s390x/` built with Debian's
//! `s390x-linux-gnu-gcc` must behave under endgate as under `qemu-s390x` (package qemu-user),
//! the reference: same stdout, same exit status or killing signal. Where qemu-user departs
//! from the kernel (it gives no `AT_PLATFORM` on s390x), the kernel's documented value is
//! checked instead.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{endgate, run_with_timeout, TempDir, Timed, S390X};

const CC: &str = S390X.cc;
const SYSROOT: &str = S390X.sysroot;
const TIMEOUT: Duration = Duration::from_secs(60);

fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/s390x").join(name)
}

/// Builds `tests/s390x/<src>` into `dir` with `flags` after the source (so `-lm` links).
fn build(dir: &Path, src: &str, flags: &[&str]) -> PathBuf {
    let out = dir.join(src.split('.').next().unwrap_or(src));
    let st = Command::new(CC)
        .args(["-O2", "-Wall", "-o"])
        .arg(&out)
        .arg(source(src))
        .args(flags)
        .status()
        .unwrap_or_else(|e| panic!("{CC} missing ({e}): run scripts/install-deps.sh"));
    assert!(st.success(), "building {src}");
    out
}

fn run(runner: &str, pre: &[&str], prog: &Path, args: &[&str]) -> Timed {
    let mut cmd = Command::new(runner);
    cmd.args(pre).arg(prog).args(args).env_clear().env("S390X_TEST", "set").env("LC_ALL", "C");
    let t = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert!(!t.timed_out, "{runner} {} timed out", prog.display());
    t
}

fn under_endgate(prog: &Path, args: &[&str]) -> Timed {
    run(endgate().to_str().unwrap_or("endgate"), &[], prog, args)
}

fn under_qemu(prog: &Path, args: &[&str]) -> Timed {
    run(S390X.qemu, &[], prog, args)
}

/// Asserts endgate gives the stdout and status qemu-s390x gives; returns endgate's run.
fn same_as_qemu(prog: &Path, args: &[&str]) -> Timed {
    let want = under_qemu(prog, args);
    let got = under_endgate(prog, args);
    assert_eq!(
        (String::from_utf8_lossy(&got.stdout), got.status),
        (String::from_utf8_lossy(&want.stdout), want.status),
        "{} {args:?}: endgate stderr: {}",
        prog.display(),
        String::from_utf8_lossy(&got.stderr)
    );
    got
}

#[test]
fn startup_argv_envp_auxv_tls() {
    let dir = TempDir::new("s390x-startup");
    let prog = build(dir.path(), "startup.c", &["-static"]);
    let got = same_as_qemu(&prog, &["one", "two words", ""]);
    assert_eq!(got.status, 7);
    let out = String::from_utf8_lossy(&got.stdout);
    assert!(out.contains("argv[2]=<two words>\n"), "{out}");
    assert!(out.contains("S390X_TEST=set\n"), "{out}");
    assert!(out.contains("hwcap esan3=1 zarch=1 highgprs=1 eimm=1 ldisp=1\n"), "{out}");
    assert!(out.contains("vector add: 42\n"), "{out}");
    assert!(out.contains("thread pointer in a0:a1: 1\n"), "{out}");
}

#[test]
fn platform_names_the_machine_type() {
    // arch/s390/kernel/processor.c names machine type 0x2964 (the CPU model's) "z13";
    // qemu-user sets no AT_PLATFORM on s390x, so the kernel is the reference here.
    let dir = TempDir::new("s390x-platform");
    let prog = build(dir.path(), "startup.c", &["-static"]);
    let got = under_endgate(&prog, &["--platform"]);
    assert!(String::from_utf8_lossy(&got.stdout).contains("AT_PLATFORM=z13\n"));
}

#[test]
fn svc_number_in_immediate_r1_ex_and_exrl() {
    let dir = TempDir::new("s390x-svc");
    let prog = build(dir.path(), "svc.S", &["-nostdlib", "-static"]);
    let got = same_as_qemu(&prog, &[]);
    assert_eq!(String::from_utf8_lossy(&got.stdout), "svc 4\nsvc 0 + r1\nex svc\nexrl svc\n");
    assert_eq!(got.status, 42);
}

#[test]
fn stat_and_statfs_layouts() {
    let dir = TempDir::new("s390x-stat");
    let prog = build(dir.path(), "stat.c", &["-static"]);
    let file = dir.path().join("file");
    std::fs::write(&file, b"twelve bytes").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink("file", &link).unwrap();
    // Fixed times, so neither run can change what the other sees.
    for p in [&file, &prog] {
        let st = Command::new("touch").args(["-h", "-d", "@1700000000.123456789"]).arg(p).status().unwrap();
        assert!(st.success());
    }
    let paths = [file.to_str().unwrap(), link.to_str().unwrap(), dir.path().to_str().unwrap(), "/dev/null"];
    let got = same_as_qemu(&prog, &paths);
    let out = String::from_utf8_lossy(&got.stdout);
    assert!(out.contains("mode=100644 nlink=1 ") && out.contains(" size=12 "), "{out}");
    assert!(out.contains("mode=120777"), "{out}");
}

#[test]
fn cpu_exceptions_end_with_linux_signals() {
    let dir = TempDir::new("s390x-faults");
    let prog = build(dir.path(), "faults.c", &["-static", "-lm"]);
    // Status as a shell reports it: 128 + SIGSEGV 11, SIGILL 4, SIGFPE 8. A data exception
    // (IEEE trap, compare and trap) is SIGFPE whenever the DXC is nonzero
    // (arch/s390/kernel/traps.c `data_exception`).
    for (case, status) in [
        (&["segv"][..], 139),
        (&["segv-high"], 139),
        (&["ill"], 132),
        (&["priv"], 132),
        (&["trap"], 132),
        (&["div"], 136),
        (&["fdiv"], 136),
        (&["cmptrap"], 136),
        (&["exit", "3"], 3),
        (&[], 0),
    ] {
        let got = same_as_qemu(&prog, case);
        assert_eq!(got.status, status, "{case:?}");
    }
    // s390 Linux reports only the page of a refused access (the translation-exception
    // identification holds the page address), so si_addr is page-aligned.
    let got = under_endgate(&prog, &["segv-high"]);
    let err = String::from_utf8_lossy(&got.stderr);
    assert!(err.contains("killed by SIGSEGV") && err.contains("fault address 0x3ff00000000"), "{err}");
}

#[test]
fn signal_frames_and_returns() {
    // The cases of sighandlers.c: the PSW a SIGILL/SIGFPE handler returns to, the old
    // frame's sigcontext, registers and PSW address written into uc_mcontext, TLS.
    let dir = TempDir::new("s390x-sighandlers");
    let prog = build(dir.path(), "sighandlers.c", &["-static", "-lm"]);
    for case in ["ill", "div", "old", "rt", "tls"] {
        let got = same_as_qemu(&prog, &[case]);
        let out = String::from_utf8_lossy(&got.stdout);
        let all_true = [" 0,", " 0;", " 0\n"].iter().all(|f| !out.contains(f));
        assert!(out.contains(&format!("{case}: handled 1")) && all_true, "{case}: {out}");
    }
    // sigreturn restores the FPC whole (arch/s390/kernel/signal.c `restore_sigregs`), the
    // rounding mode with it; qemu-user does not, so the kernel is the reference.
    let got = under_endgate(&prog, &["round"]);
    assert_eq!(String::from_utf8_lossy(&got.stdout), "round: handled 1, mode to nearest again 1, same quotient 1\n");
}

#[test]
fn dynamic_glibc_from_the_sysroot() {
    let dir = TempDir::new("s390x-dynamic");
    let prog = build(dir.path(), "startup.c", &[]);
    let want = run(S390X.qemu, &["-L", SYSROOT], &prog, &["x"]);
    let got = run(endgate().to_str().unwrap_or("endgate"), &["-L", SYSROOT], &prog, &["x"]);
    assert_eq!(want.status, 7);
    assert_eq!(
        (String::from_utf8_lossy(&got.stdout), got.status),
        (String::from_utf8_lossy(&want.stdout), want.status),
        "stderr: {}",
        String::from_utf8_lossy(&got.stderr)
    );
}
