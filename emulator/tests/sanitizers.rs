//! AddressSanitizer programs under endgate. ASan reserves its shadow memory at fixed addresses
//! far from everything else (aarch64: 8 GiB at 0xffffff000 and 32 TiB from 0x2000000000;
//! x86_64: 2 TiB of `PROT_NONE` gap from 2.4 GiB and 14 TiB of shadow from 2 TiB), which the
//! guest address space must grant as the guest's Linux does (`mm`'s windows made on demand).
//!
//! The program (sanitizers/heap_overflow.c) writes one byte past a 16-byte allocation. Its
//! native x86_64 build gives the expected behaviour: "before" on stdout, status 1, and ASan's
//! report of a 17-byte write 0 bytes to the right of the 16-byte region. The aarch64 build
//! (glibc, dynamic, run with `-L /usr/aarch64-linux-gnu`) and the x86_64 build under endgate
//! must do the same.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{endgate, run_with_timeout, workspace, TempDir};

/// Lines of ASan's report that do not depend on addresses or the arch.
const REPORT: [&str; 3] = [
    "ERROR: AddressSanitizer: heap-buffer-overflow on address",
    "WRITE of size 17 at",
    "is located 0 bytes to the right of 16-byte region",
];

fn build(dir: &Path, cc: &str, name: &str) -> PathBuf {
    let src = workspace().join("emulator/tests/sanitizers/heap_overflow.c");
    let out = dir.join(name);
    let o = Command::new(cc)
        .args(["-fsanitize=address", "-O0", "-g", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("{cc}: {e} (scripts/install-deps.sh installs it)"));
    assert!(o.status.success(), "{cc} -fsanitize=address: {}", String::from_utf8_lossy(&o.stderr));
    out
}

fn check(what: &str, cmd: &mut Command) {
    let r = run_with_timeout(cmd, None, Duration::from_secs(120));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.timed_out, "{what}: timed out; stderr:\n{err}");
    assert_eq!(String::from_utf8_lossy(&r.stdout), "before\n", "{what}: stdout; stderr:\n{err}");
    assert_eq!(r.status, 1, "{what}: status; stderr:\n{err}");
    for line in REPORT {
        assert!(err.contains(line), "{what}: no {line:?} in stderr:\n{err}");
    }
}

#[test]
fn asan_reports_a_heap_overflow() {
    let dir = TempDir::new("asan");
    let native = build(dir.path(), "gcc", "overflow-x86_64");
    // The expected behaviour, natively.
    check("native x86_64", &mut Command::new(&native));
    let mut c = Command::new(endgate());
    c.arg(&native);
    check("x86_64 under endgate", &mut c);
    let a64 = build(dir.path(), "aarch64-linux-gnu-gcc", "overflow-aarch64");
    let mut c = Command::new(endgate());
    c.args(["-L", "/usr/aarch64-linux-gnu"]).arg(&a64);
    check("aarch64 under endgate", &mut c);
}
