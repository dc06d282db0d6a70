//! arm (EABI, little-endian) struct layouts and `AT_HWCAP` bits.
//!
//! - `struct stat64`: arch/arm/include/uapi/asm/stat.h. Under EABI a `long long` is 8-byte
//!   aligned, which puts implicit padding before `st_size` and `st_blocks` (104 bytes; checked
//!   against `sizeof` and `offsetof` from arm-linux-gnueabihf-gcc with the kernel's header).
//!   The old `struct stat` is the one i386 has too: [`crate::abi::stat32`].
//! - open flags (arch/arm/include/uapi/asm/fcntl.h) are arm64's: [`crate::abi::arm_fcntl`].
//! - `AT_HWCAP`: arch/arm/include/uapi/asm/hwcap.h.

use crate::abi::stat32::new_encode_dev;
use zerocopy::byteorder::little_endian::{I64, U32, U64};
use zerocopy::{Immutable, IntoBytes};

/// `AT_HWCAP` bits (arch/arm/include/uapi/asm/hwcap.h).
#[allow(missing_docs)]
pub mod hwcap {
    pub const SWP: u64 = 1 << 0;
    pub const HALF: u64 = 1 << 1;
    pub const THUMB: u64 = 1 << 2;
    pub const FAST_MULT: u64 = 1 << 4;
    pub const VFP: u64 = 1 << 6;
    pub const EDSP: u64 = 1 << 7;
    pub const NEON: u64 = 1 << 12;
    pub const VFPV3: u64 = 1 << 13;
    pub const TLS: u64 = 1 << 15;
    pub const VFPV4: u64 = 1 << 16;
    pub const IDIVA: u64 = 1 << 17;
    pub const IDIVT: u64 = 1 << 18;
    pub const VFPD32: u64 = 1 << 19;
    pub const LPAE: u64 = 1 << 20;
}

/// `AT_HWCAP` of unicorn's Cortex-A15 model (ARMv7VE with VFPv4, 32 D registers, NEON,
/// hardware divide in ARM and Thumb, LPAE, TLS register): what a Linux kernel reports for a
/// Cortex-A15 (`half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae`),
/// plus `swp`, which QEMU's model executes.
pub const HWCAP_A15: u64 = hwcap::SWP
    | hwcap::HALF
    | hwcap::THUMB
    | hwcap::FAST_MULT
    | hwcap::VFP
    | hwcap::EDSP
    | hwcap::NEON
    | hwcap::VFPV3
    | hwcap::TLS
    | hwcap::VFPV4
    | hwcap::IDIVA
    | hwcap::IDIVT
    | hwcap::VFPD32
    | hwcap::LPAE;

/// `struct stat64` (layout: arch/arm/include/uapi/asm/stat.h under EABI, little-endian),
/// 104 bytes. `__st_ino` repeats the low 32 bits of the inode number; times are 32-bit.
#[repr(C)]
#[derive(IntoBytes, Immutable, Default)]
#[allow(missing_docs)]
pub struct Stat64 {
    pub st_dev: U64,
    pub __pad0: [u8; 4],
    pub __st_ino: U32,
    pub st_mode: U32,
    pub st_nlink: U32,
    pub st_uid: U32,
    pub st_gid: U32,
    pub st_rdev: U64,
    pub __pad3: [u8; 4],
    /// EABI alignment of the `long long` that follows.
    pub __align_size: [u8; 4],
    pub st_size: I64,
    pub st_blksize: U32,
    /// EABI alignment of the `unsigned long long` that follows.
    pub __align_blocks: [u8; 4],
    pub st_blocks: U64,
    pub st_atime: U32,
    pub st_atime_nsec: U32,
    pub st_mtime: U32,
    pub st_mtime_nsec: U32,
    pub st_ctime: U32,
    pub st_ctime_nsec: U32,
    pub st_ino: U64,
}

impl Stat64 {
    /// From a host stat, as the kernel's `cp_new_stat64` fills it (device numbers in the
    /// kernel's `huge_encode_dev` form, which for 32-bit majors and minors is
    /// `new_encode_dev`).
    #[allow(clippy::unnecessary_cast)]
    pub fn from_host(s: &libc::stat) -> Stat64 {
        Stat64 {
            st_dev: U64::new(u64::from(new_encode_dev(s.st_dev))),
            __st_ino: U32::new(s.st_ino as u32),
            st_mode: U32::new(s.st_mode),
            st_nlink: U32::new(s.st_nlink as u32),
            st_uid: U32::new(s.st_uid),
            st_gid: U32::new(s.st_gid),
            st_rdev: U64::new(u64::from(new_encode_dev(s.st_rdev))),
            st_size: I64::new(s.st_size),
            st_blksize: U32::new(s.st_blksize as u32),
            st_blocks: U64::new(s.st_blocks as u64),
            st_atime: U32::new(s.st_atime as u32),
            st_atime_nsec: U32::new(s.st_atime_nsec as u32),
            st_mtime: U32::new(s.st_mtime as u32),
            st_mtime_nsec: U32::new(s.st_mtime_nsec as u32),
            st_ctime: U32::new(s.st_ctime as u32),
            st_ctime_nsec: U32::new(s.st_ctime_nsec as u32),
            st_ino: U64::new(s.st_ino),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_kernel_header() {
        // sizeof from arm-linux-gnueabihf-gcc with arch/arm/include/uapi/asm/stat.h.
        assert_eq!(std::mem::size_of::<Stat64>(), 104);
        assert_eq!(std::mem::offset_of!(Stat64, st_size), 48);
        assert_eq!(std::mem::offset_of!(Stat64, st_blocks), 64);
        assert_eq!(std::mem::offset_of!(Stat64, st_ino), 96);
    }

    #[test]
    fn hwcap_value() {
        assert_eq!(HWCAP_A15, 0x1f_b0d7);
    }
}
