//! Every system-call number of every guest arch is accounted for: served by a row of the arch's
//! dispatch table, or answered on purpose by a group of `endgate::syscall::unserved` (Linux's
//! own ENOSYS, refused with EPERM, or not served yet). `docs/syscalls.md` is the matrix of
//! both, made from the same data: this test fails when it is out of date
//! (`ENDGATE_BLESS=1 cargo test --release -p endgate --test syscall_matrix` rewrites it).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use endgate::arch::ALL;
use endgate::syscall::unserved::{group_of, Kind, GROUPS};
use endgate::syscall::DispatchTable;

/// name -> (arch -> answer): "served", an errno name, or absent (the arch has no such number).
fn matrix() -> BTreeMap<&'static str, BTreeMap<&'static str, String>> {
    let mut m: BTreeMap<&'static str, BTreeMap<&'static str, String>> = BTreeMap::new();
    for (arch_name, arch) in &ALL {
        let table = DispatchTable::new(*arch);
        for (nr, name) in (arch.info().numbers)().entries() {
            let cell = if table.get(nr).is_some() {
                "served".to_string()
            } else {
                match group_of(name) {
                    Some(g) => g.errno.name().unwrap_or("E?").to_string(),
                    None => "UNACCOUNTED".to_string(),
                }
            };
            m.entry(name).or_default().insert(arch_name, cell);
        }
    }
    m
}

#[test]
fn every_number_of_every_arch_is_accounted_for() {
    let mut missing = Vec::new();
    for (name, arches) in matrix() {
        for (arch, cell) in arches {
            if cell == "UNACCOUNTED" {
                missing.push(format!("{arch}: {name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "numbers with neither a handler nor a group in syscall/unserved.rs:\n{}",
        missing.join("\n")
    );
}

/// Calls of `arch` endgate answers other than Linux would for lack of the call itself: refused,
/// answered as a kernel without the feature, or not served yet (Linux's own ENOSYS excluded).
fn not_served_as_linux(arch: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (name, cells) in matrix() {
        if cells.get(arch).is_some_and(|c| c != "served") && group_of(name).is_some_and(|g| g.kind != Kind::LinuxEnosys)
        {
            out.push(name);
        }
    }
    out
}

/// Issue 11's bound: at most 30 calls per arch refused or not served, each with its reason (the
/// group's, in docs/syscalls.md).
#[test]
fn at_most_30_calls_per_arch_are_refused_or_not_served() {
    for (arch, _) in &ALL {
        let names = not_served_as_linux(arch);
        assert!(names.len() <= 30, "{arch}: {} calls refused or not served: {names:?}", names.len());
        for n in &names {
            assert!(group_of(n).is_some_and(|g| !g.reason.is_empty()), "{arch}: {n} has no reason");
        }
    }
}

fn render() -> String {
    let m = matrix();
    let mut out = String::new();
    let _ = writeln!(out, "# System calls per guest arch\n");
    let _ = writeln!(
        out,
        "Made from endgate's dispatch tables and `emulator/src/syscall/unserved.rs` by\n\
         `emulator/tests/syscall_matrix.rs` (`ENDGATE_BLESS=1 cargo test --release -p endgate --test\n\
         syscall_matrix` rewrites it; the test fails when it is out of date). Names are the kernel's\n\
         as each arch's table has them (the `syscalls` crate). A cell is `served`, or the errno\n\
         endgate answers; empty: the arch has no such call.\n"
    );
    let arches: Vec<&str> = ALL.iter().map(|(n, _)| *n).collect();
    let mut served = vec![0usize; arches.len()];
    let mut total = vec![0usize; arches.len()];
    for cells in m.values() {
        for (i, a) in arches.iter().enumerate() {
            if let Some(c) = cells.get(a) {
                total[i] += 1;
                if c == "served" {
                    served[i] += 1;
                }
            }
        }
    }
    let _ = writeln!(out, "| | {} |", arches.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(arches.len()));
    let counts: Vec<String> = served.iter().zip(&total).map(|(s, t)| format!("{s} of {t}")).collect();
    let _ = writeln!(out, "| served | {} |", counts.join(" | "));
    let refused: Vec<String> = arches.iter().map(|a| not_served_as_linux(a).len().to_string()).collect();
    let _ = writeln!(out, "| refused or not served (Linux's own ENOSYS aside) | {} |\n", refused.join(" | "));
    let _ = writeln!(out, "## Calls without a handler, by answer\n");
    for g in GROUPS {
        let kind = match g.kind {
            Kind::LinuxEnosys => "Linux's own answer",
            Kind::Refused => "refused",
            Kind::Absent => "as a kernel without the feature",
            Kind::NotYet => "not served yet",
        };
        let _ = writeln!(out, "- **{}** ({kind}): {}.", g.errno.name().unwrap_or("E?"), g.reason);
    }
    let _ = writeln!(out, "\n## The matrix\n");
    let _ = writeln!(out, "| call | {} |", arches.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(arches.len()));
    for (name, cells) in &m {
        let row: Vec<&str> = arches.iter().map(|a| cells.get(a).map_or("", |c| c.as_str())).collect();
        let _ = writeln!(out, "| `{}` | {} |", name, row.join(" | "));
    }
    out
}

#[test]
fn docs_syscalls_md_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/syscalls.md");
    let want = render();
    if std::env::var_os("ENDGATE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/syscalls.md is out of date: run ENDGATE_BLESS=1 cargo test --release -p endgate --test syscall_matrix"
    );
}
