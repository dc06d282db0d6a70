//! The guest suite as cargo tests: every program built for each arch, run under endgate
//! (x86_64, aarch64 and riscv64 guests; arm, i386, s390x and mips64el once endgate has them:
//! their tests are `#[ignore]`d until then) and natively (x86_64, which validates the
//! expected files).
//!
//! endgate is looked up at `$ENDGATE_BIN`, else `<target dir>/release/endgate`; build it
//! first (`cargo build --release`, which `cargo test --release --workspace` also does for
//! the workspace's binaries). The programs are built into `<target dir>/guest-tests` with
//! Debian's cross gcc (`gcc`, `aarch64-linux-gnu-gcc`, `riscv64-linux-gnu-gcc`, …; see
//! `scripts/install-deps.sh`).
//!
//! Under endgate, tests the manifest marks `endgate_pending` may fail (they are reported as
//! pending); each suite test fails on any real failure, and on an XPASS (a pending test that
//! now passes: remove its mark). `$ENDGATE_BIN` must therefore name a file called `endgate`,
//! or the marks would not apply.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use guest_tests::arch::Arch;
use guest_tests::builder;
use guest_tests::pool;
use guest_tests::report;
use guest_tests::runner::{self, Emulator, RunConfig};
use guest_tests::suite::Suite;

fn suite() -> Suite {
    Suite::load(&Suite::default_root()).unwrap_or_else(|e| panic!("loading the guest suite: {e}"))
}

/// Builds every program for `arch` once per test process (each arch's build result is kept,
/// so the arches' tests, which cargo runs in parallel, build only what they run).
fn built(arch: &'static Arch) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<&'static str, Result<PathBuf, String>>>> = OnceLock::new();
    let mut done = BUILT.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    let r = done.entry(arch.name).or_insert_with(|| {
        let dir = builder::default_out_dir();
        let results = builder::build(&suite(), &[arch], &dir, pool::default_jobs()).map_err(|e| e.0)?;
        let failed: Vec<String> = results
            .iter()
            .filter_map(|b| b.result.as_ref().err().map(|e| format!("{} [{}]: {e}", b.test, b.arch.name)))
            .collect();
        if failed.is_empty() {
            Ok(dir)
        } else {
            Err(format!("building guest programs failed:\n{}", failed.join("\n")))
        }
    });
    match r {
        Ok(d) => d.clone(),
        Err(e) => panic!("{e}"),
    }
}

fn endgate() -> PathBuf {
    let path = match std::env::var_os("ENDGATE_BIN") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => builder::target_dir().join("release").join("endgate"),
    };
    assert!(
        Emulator::Command(vec![path.to_string_lossy().into_owned()]).is_endgate(),
        "ENDGATE_BIN={} is not a file named `endgate`, so the manifest's endgate_pending marks \
         would not apply: point it at (or link it as) .../endgate",
        path.display()
    );
    assert!(
        path.is_file(),
        "endgate binary not found at {}: build it first with `cargo build --release -p endgate` \
         (or point ENDGATE_BIN at one)",
        path.display()
    );
    path
}

fn run_suite(emulator: Emulator, arch: &str) {
    let arch = Arch::by_name(arch).expect("known arch");
    let config = RunConfig {
        emulator,
        arches: vec![arch],
        build_dir: built(arch),
        jobs: pool::default_jobs(),
        timeout: Duration::from_secs(60),
    };
    let outcomes = runner::run(&suite(), &config, &|_, _, _| {}).unwrap_or_else(|e| panic!("{e}"));
    let failed: Vec<&str> = outcomes.iter().filter(|o| o.verdict.failed()).map(|o| o.test.as_str()).collect();
    if !failed.is_empty() {
        panic!(
            "{} guest test(s) failed on {} under {} (an XPASS means: remove endgate_pending): {}\n\n{}\n{}\n{}",
            failed.len(),
            arch.name,
            config.emulator,
            failed.join(", "),
            report::matrix(&outcomes, &[arch]),
            report::failure_details(&outcomes),
            report::summary(&outcomes)
        );
    }
    let pending = report::pending(&outcomes);
    if !pending.is_empty() {
        println!("pending under endgate:\n{pending}");
    }
    println!("{}", report::summary(&outcomes));
}

#[test]
fn endgate_x86_64() {
    run_suite(Emulator::Command(vec![endgate().to_string_lossy().into_owned()]), "x86_64");
}

#[test]
fn endgate_aarch64() {
    run_suite(Emulator::Command(vec![endgate().to_string_lossy().into_owned()]), "aarch64");
}

#[test]
fn endgate_riscv64() {
    run_suite(Emulator::Command(vec![endgate().to_string_lossy().into_owned()]), "riscv64");
}

// The arches endgate is gaining (each on its own branch): enable a test when its arch lands.

#[test]
fn endgate_arm() {
    run_suite(Emulator::Command(vec![endgate().to_string_lossy().into_owned()]), "arm");
}

#[test]
fn endgate_i386() {
    run_suite(Emulator::Command(vec![endgate().to_string_lossy().into_owned()]), "i386");
}

#[test]
fn endgate_s390x() {
    run_suite(Emulator::Command(vec![endgate().to_string_lossy().into_owned()]), "s390x");
}

#[test]
fn endgate_mips64el() {
    run_suite(Emulator::Command(vec![endgate().to_string_lossy().into_owned()]), "mips64el");
}

/// The whole suite under `endgate --root /` (docs/root.md): every path every test names goes
/// through endgate's own lookup (descriptor by descriptor, links read and walked by endgate)
/// instead of the host's, with the host's own root as DIR, and must give the same results
/// (pivot_root included, which endgate then serves itself).
#[test]
fn endgate_root_lookup_aarch64() {
    let words = vec![endgate().to_string_lossy().into_owned(), "--root".into(), "/".into()];
    run_suite(Emulator::Command(words), "aarch64");
}

/// [`endgate_root_lookup_aarch64`] for the big-endian guest.
#[test]
fn endgate_root_lookup_s390x() {
    let words = vec![endgate().to_string_lossy().into_owned(), "--root".into(), "/".into()];
    run_suite(Emulator::Command(words), "s390x");
}

/// The expected files come from native x86_64 runs; this keeps them honest.
#[cfg(target_arch = "x86_64")]
#[test]
fn native_x86_64() {
    run_suite(Emulator::Native, "x86_64");
}
