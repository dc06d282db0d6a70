//! Guest architectures: one table row per arch says how to compile for it, what qemu-user
//! calls it, what Debian and Go call it. Adding an arch is one row here (plus, optionally,
//! `programs/asm/<arch>/` ports of the freestanding tests); the C programs need no change.
//! Every C program is linked `-static` with the arch's Debian cross gcc and glibc.
//!
//! This table is the one list of guest arches and their toolchains in the workspace: endgate's
//! integration tests (`emulator/tests/common`) and the benchmarks (`benches`) read it too.
//!
//! Two qemu-user builds are references, under the same binary names ([`Arch::qemu`]):
//! qemu-user 10.0.2 ([`QEMU`], the peer to beat: Debian's static build from
//! bookworm-backports, which `scripts/fetch-qemu10.sh` unpacks into `.cache/qemu-10.0.2/`
//! without installing it; [`Arch::qemu10`], `{qemu}` in an emulator command) and Debian 12's
//! installed qemu-user 7.2 ([`QEMU72`], in `/usr/bin`; [`Arch::qemu72`], `{qemu72}`).

use std::path::PathBuf;

use crate::builder;
use crate::error::{Error, Result};

/// A qemu-user build the suite compares against: its version and where its binaries are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qemu {
    /// The upstream version, as `qemu-<arch> --version` prints it.
    pub version: &'static str,
    /// The directory of its `qemu-<arch>` binaries: absolute, or relative to the workspace
    /// root.
    pub dir: &'static str,
    /// What provides it, for error messages.
    pub how: &'static str,
}

/// qemu-user 10.0.2, the reference: Debian's static binaries from bookworm-backports'
/// `qemu-user` package, unpacked (not installed) into the checkout's `.cache/`.
pub const QEMU: Qemu = Qemu {
    version: "10.0.2",
    dir: ".cache/qemu-10.0.2/usr/bin",
    how: "scripts/fetch-qemu10.sh (run by scripts/install-deps.sh) puts it there",
};

/// qemu-user 7.2, the second reference: Debian 12's own `qemu-user` package.
pub const QEMU72: Qemu = Qemu { version: "7.2", dir: "/usr/bin", how: "install Debian 12's qemu-user" };

impl Qemu {
    /// The binary `name` (`qemu-aarch64`) of this build.
    pub fn binary(&self, name: &str) -> PathBuf {
        builder::workspace_root().join(self.dir).join(name)
    }
}

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
    /// qemu-user's binary name for this arch (`qemu-aarch64`), the same in both reference
    /// builds ([`Arch::qemu10`], [`Arch::qemu72`]); found on `$PATH` it is Debian's 7.2.
    pub qemu: &'static str,
    /// Debian's name for the arch (`amd64`, `arm64`, `armhf`…): packages, and the directory
    /// `scripts/fetch-inputs.sh` puts its busybox in (`.cache/busybox/<debian>/busybox`).
    pub debian: &'static str,
    /// The root that holds the arch's shared glibc, for a dynamic guest's `-L`: Debian's
    /// cross sysroot `/usr/<triplet>`, or `/` for the host's own.
    pub sysroot: &'static str,
    /// Why Debian bookworm has no `busybox-static` for this arch; `None` when it has one.
    pub no_busybox: Option<&'static str>,
    /// Go's `GOARCH` for the arch.
    pub goarch: &'static str,
    /// Further environment `go build` needs for the arch's baseline (`GO386`, `GOARM`).
    pub goenv: &'static [(&'static str, &'static str)],
}

/// 64-bit x86, the host.
pub const X86_64: Arch = Arch {
    name: "x86_64",
    cc: "gcc",
    cflags: &[],
    cc_package: "gcc",
    qemu: "qemu-x86_64",
    debian: "amd64",
    sysroot: "/",
    no_busybox: None,
    goarch: "amd64",
    goenv: &[],
};

/// 64-bit ARM.
pub const AARCH64: Arch = Arch {
    name: "aarch64",
    cc: "aarch64-linux-gnu-gcc",
    cflags: &[],
    cc_package: "gcc-aarch64-linux-gnu",
    qemu: "qemu-aarch64",
    debian: "arm64",
    sysroot: "/usr/aarch64-linux-gnu",
    no_busybox: None,
    goarch: "arm64",
    goenv: &[],
};

/// RV64GC, lp64d ABI.
pub const RISCV64: Arch = Arch {
    name: "riscv64",
    cc: "riscv64-linux-gnu-gcc",
    cflags: &[],
    cc_package: "gcc-riscv64-linux-gnu",
    qemu: "qemu-riscv64",
    debian: "riscv64",
    sysroot: "/usr/riscv64-linux-gnu",
    no_busybox: Some(
        "Debian 12 bookworm has no riscv64 busybox-static (riscv64 is not a bookworm release \
         architecture), so scripts/fetch-inputs.sh does not fetch one",
    ),
    goarch: "riscv64",
    goenv: &[],
};

/// 32-bit ARM, hard-float EABI (armhf): Debian's default ARMv7-A Thumb-2 code.
pub const ARM: Arch = Arch {
    name: "arm",
    cc: "arm-linux-gnueabihf-gcc",
    cflags: &[],
    cc_package: "gcc-arm-linux-gnueabihf",
    qemu: "qemu-arm",
    debian: "armhf",
    sysroot: "/usr/arm-linux-gnueabihf",
    no_busybox: None,
    goarch: "arm",
    goenv: &[("GOARM", "7")],
};

/// 32-bit x86 (i686 code, the i386 syscall ABI).
pub const I386: Arch = Arch {
    name: "i386",
    cc: "i686-linux-gnu-gcc",
    cflags: &[],
    cc_package: "gcc-i686-linux-gnu",
    qemu: "qemu-i386",
    debian: "i386",
    sysroot: "/usr/i686-linux-gnu",
    no_busybox: None,
    goarch: "386",
    goenv: &[("GO386", "sse2")],
};

/// 64-bit IBM Z: the one big-endian arch of the table.
pub const S390X: Arch = Arch {
    name: "s390x",
    cc: "s390x-linux-gnu-gcc",
    cflags: &[],
    cc_package: "gcc-s390x-linux-gnu",
    qemu: "qemu-s390x",
    debian: "s390x",
    sysroot: "/usr/s390x-linux-gnu",
    no_busybox: None,
    goarch: "s390x",
    goenv: &[],
};

/// 64-bit little-endian MIPS, n64 ABI.
pub const MIPS64EL: Arch = Arch {
    name: "mips64el",
    cc: "mips64el-linux-gnuabi64-gcc",
    cflags: &[],
    cc_package: "gcc-mips64el-linux-gnuabi64",
    qemu: "qemu-mips64el",
    debian: "mips64el",
    sysroot: "/usr/mips64el-linux-gnuabi64",
    no_busybox: None,
    goarch: "mips64le",
    goenv: &[],
};

/// Every arch the suite knows, in report column order.
pub const ARCHES: &[Arch] = &[X86_64, AARCH64, RISCV64, ARM, I386, S390X, MIPS64EL];

impl Arch {
    /// Looks an arch up by name.
    pub fn by_name(name: &str) -> Option<&'static Arch> {
        ARCHES.iter().find(|a| a.name == name)
    }

    /// Looks an arch up by its Debian name ([`Arch::debian`]).
    pub fn by_debian(debian: &str) -> Option<&'static Arch> {
        ARCHES.iter().find(|a| a.debian == debian)
    }

    /// qemu-user 10.0.2's binary for this arch ([`QEMU`]); what `{qemu}` expands to in an
    /// emulator command.
    pub fn qemu10(&self) -> PathBuf {
        QEMU.binary(self.qemu)
    }

    /// Debian 12's qemu-user 7.2 binary for this arch ([`QEMU72`], `/usr/bin/qemu-…`); what
    /// `{qemu72}` expands to in an emulator command.
    pub fn qemu72(&self) -> PathBuf {
        QEMU72.binary(self.qemu)
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

    #[test]
    fn names_are_unique() {
        for (i, a) in ARCHES.iter().enumerate() {
            for b in &ARCHES[i + 1..] {
                assert!(a.name != b.name && a.debian != b.debian && a.goarch != b.goarch, "{a:?} {b:?}");
            }
        }
        assert_eq!(Arch::by_debian("armhf"), Some(&ARM));
        assert_eq!(Arch::by_debian("arm"), None);
    }

    #[test]
    fn qemu_paths() {
        assert_eq!(AARCH64.qemu72(), PathBuf::from("/usr/bin/qemu-aarch64"));
        assert_eq!(AARCH64.qemu10(), builder::workspace_root().join(".cache/qemu-10.0.2/usr/bin/qemu-aarch64"));
    }
}
