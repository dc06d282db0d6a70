//! Guest architectures: one table row per arch says how to compile for it and what qemu-user
//! calls it. Adding an arch (riscv64, arm, i386, s390x, mips64el…) is one row here plus
//! `programs/asm/<arch>/` sources; the C programs need no change.

use crate::error::{Error, Result};

/// A guest architecture the suite can be built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Arch {
    /// The name used on the command line, in build directories and in reports (`uname -m`
    /// spelling where there is one).
    pub name: &'static str,
    /// The C compiler (Debian's cross gcc), also used to assemble the freestanding programs.
    pub cc: &'static str,
    /// Extra compiler flags this arch always needs (e.g. `-m32` for a multilib compiler).
    pub cflags: &'static [&'static str],
    /// The Debian package that provides [`Arch::cc`], for error messages.
    pub cc_package: &'static str,
    /// qemu-user's binary for this arch; what `{qemu}` expands to in an emulator command.
    pub qemu: &'static str,
}

/// Every arch the suite knows, in report column order.
pub const ARCHES: &[Arch] = &[
    Arch { name: "x86_64", cc: "gcc", cflags: &[], cc_package: "gcc", qemu: "qemu-x86_64" },
    Arch {
        name: "aarch64",
        cc: "aarch64-linux-gnu-gcc",
        cflags: &[],
        cc_package: "gcc-aarch64-linux-gnu",
        qemu: "qemu-aarch64",
    },
    Arch {
        name: "riscv64",
        cc: "riscv64-linux-gnu-gcc",
        cflags: &[],
        cc_package: "gcc-riscv64-linux-gnu",
        qemu: "qemu-riscv64",
    },
];

impl Arch {
    /// Looks an arch up by name.
    pub fn by_name(name: &str) -> Option<&'static Arch> {
        ARCHES.iter().find(|a| a.name == name)
    }

    /// The arch this runner itself was compiled for, if the suite knows it: the only one
    /// whose programs can run `native`ly.
    pub fn host() -> Option<&'static Arch> {
        Arch::by_name(std::env::consts::ARCH)
    }
}

/// Parses `--arch`: `all`, one name, or a comma-separated list; keeps [`ARCHES`] order.
pub fn parse_selection(spec: &str) -> Result<Vec<&'static Arch>> {
    if spec == "all" {
        return Ok(ARCHES.iter().collect());
    }
    let mut out: Vec<&'static Arch> = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let arch = Arch::by_name(part).ok_or_else(|| {
            let known: Vec<_> = ARCHES.iter().map(|a| a.name).collect();
            Error::new(format!("unknown arch '{part}' (known: {}, or 'all')", known.join(", ")))
        })?;
        if !out.contains(&arch) {
            out.push(arch);
        }
    }
    if out.is_empty() {
        return Err(Error::new("--arch needs at least one arch name"));
    }
    out.sort_by_key(|a| ARCHES.iter().position(|b| b == *a));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection() {
        assert_eq!(parse_selection("all").unwrap().len(), ARCHES.len());
        let v = parse_selection("aarch64,x86_64,aarch64").unwrap();
        assert_eq!(v.iter().map(|a| a.name).collect::<Vec<_>>(), ["x86_64", "aarch64"]);
        assert!(parse_selection("sparc").unwrap_err().0.contains("unknown arch"));
        assert!(parse_selection(",").is_err());
    }
}
