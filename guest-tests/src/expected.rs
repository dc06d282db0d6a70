//! Making the expected outputs — the one sanctioned way: build the x86_64 programs and run
//! them natively on an x86_64 host. Asm tests' expected files are written by hand from the
//! program's logic; here they are only checked.
//!
//! A test the manifest marks `arch_specific` (its output truly differs per arch, e.g. the
//! sizes of C types) has one expected output per arch under `expected/<arch>/`: the x86_64
//! one from the native run, every other arch's from a run under that arch's qemu-user 10.0.2
//! (the reference emulator, [`Arch::qemu10`]). endgate's output is never used.
//!
//! A test whose `arches` leave out x86_64 (`thread_counter_llsc`: aarch64 only, built with an
//! aarch64 gcc flag) cannot run natively: its one shared expected output comes from a run
//! under qemu-user 10.0.2 on the first arch it lists, as for an arch-specific test.

use std::fs;

use crate::arch::{Arch, ARCHES, QEMU};
use crate::builder;
use crate::error::{Error, Result};
use crate::exec;
use crate::pool;
use crate::suite::{Expected, Suite, Test};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The arch whose native runs define the expected outputs.
pub const REFERENCE_ARCH: &str = "x86_64";

/// What happened to one test's expected files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Written for the first time.
    Created,
    /// Rewritten with different contents.
    Updated,
    /// Already matched the native run.
    Unchanged,
    /// A hand-written expectation that the native run agrees with.
    HandChecked,
}

/// Builds the x86_64 programs into `build_dir`, runs each natively, and writes
/// `expected/<test>.{stdout,status}` for every generated (C) test; for `arch_specific` tests
/// also builds the other arches' programs and writes `expected/<arch>/<test>.*` from runs
/// under qemu-user, and for a test x86_64 does not run (`arches` without it) writes
/// `expected/<test>.*` from a run under qemu-user on the first arch it lists. Returns one entry per file pair (`name`, or `name [arch]` for an
/// arch-specific one). Fails, writing nothing for that test, if a program times out, a
/// compiler or qemu-user is missing, or a hand-written (asm) expectation disagrees with the
/// native run.
pub fn regenerate(suite: &Suite, build_dir: &Path, jobs: usize, timeout: Duration) -> Result<Vec<(String, Change)>> {
    let arch = Arch::by_name(REFERENCE_ARCH).expect("the reference arch is in the table");
    if Arch::host().map(|h| h.name) != Some(arch.name) {
        return Err(Error::new(format!(
            "expected outputs come from native {REFERENCE_ARCH} runs, and this host is {}",
            std::env::consts::ARCH
        )));
    }
    let built = builder::build(suite, &[arch], build_dir, jobs)?;
    let failed: Vec<String> =
        built.iter().filter_map(|b| b.result.as_ref().err().map(|e| format!("{}: {e}", b.test))).collect();
    if !failed.is_empty() {
        return Err(Error::new(format!("build failed:\n{}", failed.join("\n"))));
    }
    let scratch = std::env::temp_dir().join(format!("guest-tests-expected-{}", std::process::id()));
    let tests: Vec<&Test> = suite.tests.iter().filter(|t| t.applies_to(arch)).collect();
    let results = pool::map(&tests, jobs, |i, test| {
        let workdir = scratch.join(format!("{i}-{}", test.name));
        let r = one(suite, test, arch, build_dir, &workdir, timeout);
        let _ = fs::remove_dir_all(&workdir);
        r
    });
    let _ = fs::remove_dir_all(&scratch);
    let mut results = results;
    results.extend(regenerate_foreign(suite, build_dir, jobs, timeout)?);
    let (ok, errs): (Vec<_>, Vec<_>) = results.into_iter().partition(|r| r.is_ok());
    if !errs.is_empty() {
        let msgs: Vec<String> = errs.into_iter().filter_map(|r| r.err()).map(|e| e.0).collect();
        return Err(Error::new(msgs.join("\n")));
    }
    Ok(ok.into_iter().filter_map(|r| r.ok()).collect())
}

/// The expected outputs that need qemu-user 10.0.2: an `arch_specific` test's for every arch
/// but the reference one, and the shared one of a test the reference arch does not run, from
/// the first arch it lists. One result per (test, arch).
fn regenerate_foreign(
    suite: &Suite,
    build_dir: &Path,
    jobs: usize,
    timeout: Duration,
) -> Result<Vec<Result<(String, Change)>>> {
    let reference = Arch::by_name(REFERENCE_ARCH).expect("the reference arch is in the table");
    let tests: Vec<&Test> =
        suite.tests.iter().filter(|t| t.settings.arch_specific || !t.applies_to(reference)).collect();
    if tests.is_empty() {
        return Ok(Vec::new());
    }
    let arches: Vec<&'static Arch> = ARCHES.iter().filter(|a| a.name != REFERENCE_ARCH).collect();
    let sub = Suite { root: suite.root.clone(), tests: tests.iter().map(|t| (*t).clone()).collect() };
    let built = builder::build(&sub, &arches, build_dir, jobs)?;
    let failed: Vec<String> = built
        .iter()
        .filter_map(|b| b.result.as_ref().err().map(|e| format!("{} [{}]: {e}", b.test, b.arch.name)))
        .collect();
    if !failed.is_empty() {
        return Err(Error::new(format!("build failed:\n{}", failed.join("\n"))));
    }
    let scratch = std::env::temp_dir().join(format!("guest-tests-expected-qemu-{}", std::process::id()));
    // An arch-specific test runs on every other arch it has a program for; a test with one
    // shared expected output on the first of them only.
    let jobs_list: Vec<(&Test, &'static Arch)> = tests
        .iter()
        .flat_map(|t| {
            let mut on: Vec<&'static Arch> = arches.iter().copied().filter(|a| t.source_for(a).is_some()).collect();
            if !t.settings.arch_specific {
                on.truncate(1);
            }
            on.into_iter().map(move |a| (*t, a))
        })
        .collect();
    let results = pool::map(&jobs_list, jobs, |i, (test, arch)| {
        let workdir = scratch.join(format!("{i}-{}-{}", arch.name, test.name));
        let r = one(suite, test, arch, build_dir, &workdir, timeout);
        let _ = fs::remove_dir_all(&workdir);
        r
    });
    let _ = fs::remove_dir_all(&scratch);
    Ok(results)
}

fn one(
    suite: &Suite,
    test: &Test,
    arch: &Arch,
    build_dir: &Path,
    workdir: &Path,
    timeout: Duration,
) -> Result<(String, Change)> {
    let label = if arch.name == REFERENCE_ARCH { test.name.clone() } else { format!("{} [{}]", test.name, arch.name) };
    let program = std::path::absolute(builder::binary_path(build_dir, arch, &test.name))
        .map_err(|e| Error::new(format!("{label}: {e}")))?;
    fs::create_dir_all(workdir).map_err(|e| Error::new(format!("creating {}: {e}", workdir.display())))?;
    // The reference arch runs natively; another arch (arch-specific tests, and tests the
    // reference arch does not run) under qemu-user.
    let (mut cmd, how) = if arch.name == REFERENCE_ARCH {
        (Command::new(&program), "natively".to_string())
    } else {
        let qemu = arch.qemu10();
        if !qemu.is_file() {
            return Err(Error::new(format!(
                "{label}: {} is missing: qemu-user {} runs the non-x86_64 arch-specific tests and the tests x86_64 does not run ({})",
                qemu.display(),
                QEMU.version,
                QEMU.how
            )));
        }
        let mut c = Command::new(&qemu);
        c.arg(&program);
        (c, format!("under {}", qemu.display()))
    };
    cmd.args(&test.settings.args);
    let ex = exec::run(cmd, workdir, test.settings.stdin.as_deref(), test.settings.timeout.unwrap_or(timeout))
        .map_err(|e| Error::new(format!("{label}: cannot run {} {how}: {e}", program.display())))?;
    if ex.timed_out {
        return Err(Error::new(format!("{label}: timed out {how}; fix the program")));
    }
    let status = ex.status.ok_or_else(|| Error::new(format!("{label}: no exit status")))?;
    let new = Expected { stdout: ex.stdout, status };
    let old = suite.expected(test, arch).ok();
    if test.expected_by_hand() {
        return match old {
            Some(old) if old == new => Ok((test.name.clone(), Change::HandChecked)),
            Some(old) => Err(Error::new(format!(
                "{}: the hand-written expected output disagrees with the native run (status {} vs {}; {})",
                test.name,
                old.status,
                new.status,
                crate::runner::describe_diff(&old.stdout, &new.stdout)
            ))),
            None => Err(Error::new(format!(
                "{0}: asm tests' expected files are written by hand: add expected/{0}.stdout and .status",
                test.name
            ))),
        };
    }
    let change = match old {
        None => Change::Created,
        Some(o) if o == new => Change::Unchanged,
        Some(_) => Change::Updated,
    };
    if change != Change::Unchanged {
        suite.write_expected(test, arch, &new)?;
    }
    Ok((label, change))
}
