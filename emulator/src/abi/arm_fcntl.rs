//! The `open` flags of arm and arm64, and their translation to the host's.
//!
//! arch/arm/include/uapi/asm/fcntl.h and arch/arm64/include/uapi/asm/fcntl.h give the same
//! four flags values other than asm-generic's (`O_DIRECTORY`, `O_NOFOLLOW`, `O_DIRECT`,
//! `O_LARGEFILE`); every other flag has the host's (x86_64, asm-generic) value.

/// arm/arm64 `O_DIRECTORY`.
pub const O_DIRECTORY: u64 = 0o40000;
/// arm/arm64 `O_NOFOLLOW`.
pub const O_NOFOLLOW: u64 = 0o100000;
/// arm/arm64 `O_DIRECT`.
pub const O_DIRECT: u64 = 0o200000;
/// arm/arm64 `O_LARGEFILE` (32-bit arm glibc sets it on every `open`).
pub const O_LARGEFILE: u64 = 0o400000;

/// The host kernel's values of the same four flags (asm-generic/fcntl.h), written out for
/// `O_LARGEFILE`'s sake ([`super::HOST_O_LARGEFILE`]).
mod host {
    pub const O_DIRECT: i32 = 0o40000;
    pub const O_LARGEFILE: i32 = super::super::HOST_O_LARGEFILE;
    pub const O_DIRECTORY: i32 = 0o200000;
    pub const O_NOFOLLOW: i32 = 0o400000;
}

/// The four flags whose values differ between arm/arm64 and the host: (guest, host).
const OPEN_FLAG_MAP: [(u64, i32); 4] = [
    (O_DIRECTORY, host::O_DIRECTORY),
    (O_NOFOLLOW, host::O_NOFOLLOW),
    (O_DIRECT, host::O_DIRECT),
    (O_LARGEFILE, host::O_LARGEFILE),
];

/// arm/arm64 `open` flags -> host flags: the four mapped bits moved, all others kept.
pub fn open_flags_to_host(flags: u64) -> i32 {
    let mut out = flags;
    for (g, _) in OPEN_FLAG_MAP {
        out &= !g;
    }
    let mut out = super::int32(out);
    for (g, h) in OPEN_FLAG_MAP {
        if flags & g != 0 {
            out |= h;
        }
    }
    out
}

/// Host `open` flags (as `F_GETFL` reports them) -> arm/arm64 flags.
pub fn open_flags_from_host(flags: i32) -> u64 {
    let mut out = flags;
    for (_, h) in OPEN_FLAG_MAP {
        out &= !h;
    }
    let mut out = u64::from(super::low32(out));
    for (g, h) in OPEN_FLAG_MAP {
        if flags & h != 0 {
            out |= g;
        }
    }
    out
}
