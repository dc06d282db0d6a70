//! Guest architectures: one table row per arch says how to compile for it and what qemu-user
//! calls it. Adding an arch is one row here (plus, optionally, `programs/asm/<arch>/` ports of
//! the freestanding tests); the C programs need no change. Every C program is linked
//! `-static` with the arch's Debian cross gcc and glibc.

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
    // 32-bit ARM, hard-float EABI (armhf): Debian's default ARMv7-A Thumb-2 code.
    Arch {
        name: "arm",
        cc: "arm-linux-gnueabihf-gcc",
        cflags: &[],
        cc_package: "gcc-arm-linux-gnueabihf",
        qemu: "qemu-arm",
    },
    // 32-bit x86 (i686 code, the i386 syscall ABI).
    Arch { name: "i386", cc: "i686-linux-gnu-gcc", cflags: &[], cc_package: "gcc-i686-linux-gnu", qemu: "qemu-i386" },
    // 64-bit IBM Z: the one big-endian arch of the table.
    Arch {
        name: "s390x",
        cc: "s390x-linux-gnu-gcc",
        cflags: &[],
        cc_package: "gcc-s390x-linux-gnu",
        qemu: "qemu-s390x",
    },
    // 64-bit little-endian MIPS, n64 ABI.
    Arch {
        name: "mips64el",
        cc: "mips64el-linux-gnuabi64-gcc",
        cflags: &[],
        cc_package: "gcc-mips64el-linux-gnuabi64",
        qemu: "qemu-mips64el",
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
