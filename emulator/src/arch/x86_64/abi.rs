//! x86_64 struct layouts that differ from asm-generic.

use zerocopy::byteorder::little_endian::{I64, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// x86_64 `struct stat` (layout: arch/x86/include/uapi/asm/stat.h), 144 bytes: `st_nlink` is
/// 64-bit and comes before `st_mode`.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
#[allow(missing_docs)]
pub struct Stat {
    pub st_dev: U64,
    pub st_ino: U64,
    pub st_nlink: U64,
    pub st_mode: U32,
    pub st_uid: U32,
    pub st_gid: U32,
    pub __pad0: U32,
    pub st_rdev: U64,
    pub st_size: I64,
    pub st_blksize: I64,
    pub st_blocks: I64,
    pub st_atime: I64,
    pub st_atime_nsec: U64,
    pub st_mtime: I64,
    pub st_mtime_nsec: U64,
    pub st_ctime: I64,
    pub st_ctime_nsec: U64,
    pub __unused: [I64; 3],
}

impl Stat {
    /// From the host's `struct stat` (field widths differ between hosts, hence the casts).
    #[allow(clippy::unnecessary_cast)]
    pub fn from_host(s: &libc::stat) -> Stat {
        Stat {
            st_dev: U64::new(s.st_dev),
            st_ino: U64::new(s.st_ino),
            st_nlink: U64::new(s.st_nlink as u64),
            st_mode: U32::new(s.st_mode),
            st_uid: U32::new(s.st_uid),
            st_gid: U32::new(s.st_gid),
            st_rdev: U64::new(s.st_rdev),
            st_size: I64::new(s.st_size),
            st_blksize: I64::new(s.st_blksize as i64),
            st_blocks: I64::new(s.st_blocks),
            st_atime: I64::new(s.st_atime),
            st_atime_nsec: U64::new(crate::abi::bits64(s.st_atime_nsec)),
            st_mtime: I64::new(s.st_mtime),
            st_mtime_nsec: U64::new(crate::abi::bits64(s.st_mtime_nsec)),
            st_ctime: I64::new(s.st_ctime),
            st_ctime_nsec: U64::new(crate::abi::bits64(s.st_ctime_nsec)),
            ..Default::default()
        }
    }
}

/// `arch_prctl` codes (arch/x86/include/uapi/asm/prctl.h).
pub mod arch_prctl {
    /// Set the GS base.
    pub const ARCH_SET_GS: u64 = 0x1001;
    /// Set the FS base (TLS).
    pub const ARCH_SET_FS: u64 = 0x1002;
    /// Read the FS base.
    pub const ARCH_GET_FS: u64 = 0x1003;
    /// Read the GS base.
    pub const ARCH_GET_GS: u64 = 0x1004;
    /// Whether `cpuid` runs (1) or faults.
    pub const ARCH_GET_CPUID: u64 = 0x1011;
    /// Makes `cpuid` fault (0) or run (1); needs CPUID faulting.
    pub const ARCH_SET_CPUID: u64 = 0x1012;
}

#[cfg(test)]
mod tests {
    #[test]
    fn stat_is_144_bytes() {
        assert_eq!(std::mem::size_of::<super::Stat>(), 144);
    }
}
