//! `endgate-diff` (docs/diff.md): a divergence planted with `ENDGATE_TEST_WRONG_RESULT` (one
//! wrong instruction result in one of two endgate runs) is reported at the block holding that
//! instruction, with the differing register, both disassemblies and the first differing system
//! call; against qemu-user 10.0.2, a correct program (the freestanding `asm_compute` of
//! guest-tests/programs/asm, built here with the arch's Debian cross gcc) shows no difference
//! on aarch64 and x86_64.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{arch, endgate, run_with_timeout, TempDir};

const TIMEOUT: Duration = Duration::from_secs(120);

fn endgate_diff() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_endgate-diff"))
}

/// Builds guest-tests/programs/asm/<arch>/<name>.S into `dir`.
fn build_asm(dir: &Path, arch_name: &str, name: &str) -> PathBuf {
    let a = arch(arch_name);
    let src = common::workspace().join("guest-tests/programs/asm").join(arch_name).join(format!("{name}.S"));
    let out = dir.join(format!("{name}_{arch_name}"));
    let st = Command::new(a.cc)
        .args(a.cflags)
        .args(["-nostdlib", "-static", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", a.cc));
    assert!(st.success(), "building {}", src.display());
    out
}

/// The ELF64 entry point (`_start` of these programs).
fn entry(prog: &Path) -> u64 {
    let b = std::fs::read(prog).expect("program");
    u64::from_le_bytes(b[24..32].try_into().expect("ELF64 header"))
}

/// Runs `endgate-diff ARGS`: (status, stdout).
fn diff(args: &[&str], prog: &Path) -> (i32, String) {
    let t = run_with_timeout(Command::new(endgate_diff()).args(args).arg(prog), None, TIMEOUT);
    assert!(!t.timed_out, "endgate-diff {args:?} timed out");
    let out = String::from_utf8_lossy(&t.stdout).into_owned();
    let err = String::from_utf8_lossy(&t.stderr);
    (t.status, format!("{out}{err}"))
}

/// The one "first differing block" line of a report.
fn first_block_line(report: &str) -> &str {
    let lines: Vec<&str> = report.lines().filter(|l| l.starts_with("first differing block:")).collect();
    assert_eq!(lines.len(), 1, "one thread, one first difference: {report}");
    lines[0]
}

#[test]
fn planted_wrong_result_is_reported_at_its_block() {
    let dir = TempDir::new("diff-planted");
    let me = endgate();
    let me = me.to_str().expect("utf-8 path");
    // (arch, register the first instruction of _start zeroes, the sum's wrong text)
    for (a, reg, insn) in [("aarch64", "X19", "mov      x19, #0"), ("x86_64", "RBX", "xorl     %ebx, %ebx")] {
        let prog = build_asm(dir.path(), a, "asm_compute");
        let start = entry(&prog);
        let plant = format!("--env=ENDGATE_TEST_WRONG_RESULT={start:#x}:{reg}");
        for mode in [None, Some("--insn")] {
            let mut args = vec!["--reference", me, "--endgate", me, plant.as_str()];
            args.extend(mode);
            let (status, report) = diff(&args, &prog);
            assert_eq!(status, 1, "{a} {mode:?}: a difference: {report}");
            let line = first_block_line(&report);
            assert!(line.contains(&format!("produced by the block at {start:#x}")), "{a} {mode:?}: {line}\n{report}");
            // (x86's flags follow the wrong sum.)
            assert!(report.contains(&format!("entry registers differ: {reg}")), "{a} {mode:?}: {report}");
            // The register marked, both disassemblies of the block with the wrong result.
            assert!(report.lines().any(|l| l.trim_start().starts_with(&format!("* {reg}"))), "{report}");
            assert_eq!(report.matches(insn).count(), 2, "{a} {mode:?}: both runs' in_asm: {report}");
            // The sum (500501 instead of 500500) is the first differing system call.
            assert!(report.contains("first differing system call: #1 write"), "{a} {mode:?}: {report}");
            assert!(report.contains("\"500501\\n\""), "{report}");
            assert!(report.contains("exit statuses differ: a exit 1, b exit 0"), "{report}");
        }
        // Without the switch the two runs agree.
        let (status, report) = diff(&["--reference", me, "--endgate", me], &prog);
        assert_eq!(status, 0, "{a}: {report}");
        assert!(report.contains("no differences"), "{report}");
    }
}

#[test]
fn a_correct_program_matches_qemu_user_10() {
    let dir = TempDir::new("diff-qemu");
    for a in ["aarch64", "x86_64"] {
        let q = arch(a).qemu10();
        if !q.exists() {
            eprintln!("skipped for {a}: {} is missing (scripts/fetch-qemu10.sh)", q.display());
            continue;
        }
        let prog = build_asm(dir.path(), a, "asm_compute");
        let q = q.to_str().expect("utf-8 path").to_string();
        for mode in [None, Some("--insn")] {
            let mut args = vec!["--reference", q.as_str()];
            args.extend(mode);
            let (status, report) = diff(&args, &prog);
            assert_eq!(status, 0, "{a} {mode:?}: {report}");
            assert!(report.contains("no differences"), "{report}");
            assert!(report.contains("system calls: 6 compared, no difference"), "{report}");
            let blocks = report.lines().find(|l| l.starts_with("blocks: ")).expect(&report);
            let n: usize = blocks["blocks: ".len()..].split(' ').next().and_then(|n| n.parse().ok()).expect(blocks);
            assert!(n > 1000, "{a}: the loops' blocks were compared: {report}");
        }
    }
}
