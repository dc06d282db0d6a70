//! `-seed N` (`emulator/src/seed.rs`): the guest's `AT_RANDOM` bytes and `getrandom` results
//! come from a generator seeded with N, so two runs with one seed print the same bytes, another
//! seed prints others, and without `-seed` they are the host's (two runs differ).
//! Guest: emulator/tests/seed/random_bytes.c, built here for aarch64 and s390x.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{endgate, workspace, TempDir};

/// Builds the guest with `cc`.
fn build(dir: &Path, cc: &str) -> PathBuf {
    let src = workspace().join("emulator/tests/seed/random_bytes.c");
    common::build_static(cc, &src, &dir.join(format!("random_bytes-{cc}")), &[])
}

/// The guest's two lines of hex, run with `args` before the program.
fn bytes(prog: &Path, args: &[&str]) -> String {
    let o = Command::new(endgate()).args(args).arg(prog).output().expect("endgate runs");
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).expect("hex");
    assert_eq!(out.lines().count(), 2, "{out:?}");
    out
}

#[test]
fn a_seed_makes_the_random_bytes_repeat() {
    let dir = TempDir::new("seed");
    for cc in ["aarch64-linux-gnu-gcc", "s390x-linux-gnu-gcc"] {
        let prog = build(dir.path(), cc);
        let a = bytes(&prog, &["-seed", "7"]);
        assert_eq!(a, bytes(&prog, &["--seed", "7"]), "{cc}: same seed, same bytes");
        assert_ne!(a, bytes(&prog, &["-seed", "8"]), "{cc}: another seed, other bytes");
        assert_ne!(bytes(&prog, &[]), bytes(&prog, &[]), "{cc}: without a seed, the host's bytes");
    }
}
