//! The aarch64 guest's CPU: the features a program sees (`AT_HWCAP`, `AT_HWCAP2`, ID
//! registers read with `mrs`) and can use (LSE atomics, dot product, JSCVT), from
//! tests/arch_aarch64/features.c built with `aarch64-linux-gnu-gcc -static -O2`. The program
//! checks each instruction's result against plain C; its output must be the same under
//! endgate as under qemu-aarch64 (10.0.2 from `.cache`, else Debian's 7.2), whose default
//! `max` CPU has all of them, and endgate must report LSE atomics, which programs built for
//! ARMv8.1 and later use without asking.
//!
//! Needs `gcc-aarch64-linux-gnu` and qemu-user (scripts/install-deps.sh).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{endgate, run_with_timeout, workspace, TempDir, AARCH64};

#[test]
fn cpu_features_match_qemu_max() {
    let dir = TempDir::new("aarch64-features");
    let prog = dir.path().join("features");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/arch_aarch64/features.c");
    let st = Command::new(AARCH64.cc)
        .args(["-static", "-O2", "-o"])
        .arg(&prog)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", AARCH64.cc));
    assert!(st.success(), "building features.c");

    let ours = run_with_timeout(Command::new(endgate()).arg(&prog), None, Duration::from_secs(60));
    let out = String::from_utf8_lossy(&ours.stdout).into_owned();
    assert_eq!(ours.status, 0, "endgate: {}", String::from_utf8_lossy(&ours.stderr));
    for line in ["hwcap atomics: yes", "hwcap asimddp: yes", "id_aa64isar0 atomic: 2", "ldaddal: ok", "sdot: ok"] {
        assert!(out.lines().any(|l| l == line), "missing {line:?} in:\n{out}");
    }

    let qemu10 = workspace().join(".cache/qemu-10.0.2/usr/bin/qemu-aarch64");
    let qemu = if qemu10.exists() { qemu10.into_os_string() } else { AARCH64.qemu.into() };
    let theirs = run_with_timeout(Command::new(&qemu).arg(&prog), None, Duration::from_secs(60));
    assert_eq!(theirs.status, 0, "{qemu:?}: {}", String::from_utf8_lossy(&theirs.stderr));
    assert_eq!(out, String::from_utf8_lossy(&theirs.stdout), "endgate and {qemu:?} differ");
}
