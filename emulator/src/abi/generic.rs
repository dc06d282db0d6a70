//! Layouts from include/uapi/asm-generic, used by aarch64 (and later riscv64): little-endian,
//! LP64.

use zerocopy::byteorder::little_endian::{I32, I64, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `struct stat` of asm-generic (layout: include/uapi/asm-generic/stat.h), 128 bytes.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
#[allow(missing_docs)]
pub struct Stat {
    pub st_dev: U64,
    pub st_ino: U64,
    pub st_mode: U32,
    pub st_nlink: U32,
    pub st_uid: U32,
    pub st_gid: U32,
    pub st_rdev: U64,
    pub __pad1: U64,
    pub st_size: I64,
    pub st_blksize: I32,
    pub __pad2: I32,
    pub st_blocks: I64,
    pub st_atime: I64,
    pub st_atime_nsec: U64,
    pub st_mtime: I64,
    pub st_mtime_nsec: U64,
    pub st_ctime: I64,
    pub st_ctime_nsec: U64,
    pub __unused4: U32,
    pub __unused5: U32,
}

impl Stat {
    /// From the host's `struct stat` (field widths differ between hosts, hence the casts).
    #[allow(clippy::unnecessary_cast)]
    pub fn from_host(s: &libc::stat) -> Stat {
        Stat {
            st_dev: U64::new(s.st_dev),
            st_ino: U64::new(s.st_ino),
            st_mode: U32::new(s.st_mode),
            st_nlink: U32::new(super::low32(s.st_nlink)),
            st_uid: U32::new(s.st_uid),
            st_gid: U32::new(s.st_gid),
            st_rdev: U64::new(s.st_rdev),
            st_size: I64::new(s.st_size),
            st_blksize: I32::new(super::int32(s.st_blksize)),
            st_blocks: I64::new(s.st_blocks),
            st_atime: I64::new(s.st_atime),
            st_atime_nsec: U64::new(super::bits64(s.st_atime_nsec)),
            st_mtime: I64::new(s.st_mtime),
            st_mtime_nsec: U64::new(super::bits64(s.st_mtime_nsec)),
            st_ctime: I64::new(s.st_ctime),
            st_ctime_nsec: U64::new(super::bits64(s.st_ctime_nsec)),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stat_is_128_bytes() {
        assert_eq!(std::mem::size_of::<super::Stat>(), 128);
    }
}
