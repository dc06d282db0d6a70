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

/// The host kernel's values of the same four flags (x86_64 uses asm-generic/fcntl.h). Written
/// out because glibc's headers, and so `libc`, define `O_LARGEFILE` as 0 on 64-bit hosts while
/// the kernel still reports `0o100000` in `F_GETFL`.
mod host {
    pub const O_DIRECT: i32 = 0o40000;
    pub const O_LARGEFILE: i32 = 0o100000;
    pub const O_DIRECTORY: i32 = 0o200000;
    pub const O_NOFOLLOW: i32 = 0o400000;
}

/// The four flags whose values differ between arm64 and the host: (guest, host).
pub const OPEN_FLAG_MAP: [(u64, i32); 4] = [
    (O_DIRECTORY, host::O_DIRECTORY),
    (O_NOFOLLOW, host::O_NOFOLLOW),
    (O_DIRECT, host::O_DIRECT),
    (O_LARGEFILE, host::O_LARGEFILE),
];
