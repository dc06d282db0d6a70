//! aarch64 struct layouts and flag values that differ from other arches.
//!
//! `struct stat` and most others are asm-generic ([`crate::abi::generic`]); the open flags are
//! arm64's own (arch/arm64/include/uapi/asm/fcntl.h).

/// aarch64 `O_DIRECTORY`.
pub const O_DIRECTORY: u64 = 0o40000;
/// aarch64 `O_NOFOLLOW`.
pub const O_NOFOLLOW: u64 = 0o100000;
/// aarch64 `O_DIRECT`.
pub const O_DIRECT: u64 = 0o200000;
/// aarch64 `O_LARGEFILE`.
pub const O_LARGEFILE: u64 = 0o400000;

/// The four flags whose values differ between arm64 and x86 (asm-generic): (guest, host).
pub const OPEN_FLAG_MAP: [(u64, i32); 4] = [
    (O_DIRECTORY, libc::O_DIRECTORY),
    (O_NOFOLLOW, libc::O_NOFOLLOW),
    (O_DIRECT, libc::O_DIRECT),
    (O_LARGEFILE, libc::O_LARGEFILE),
];
