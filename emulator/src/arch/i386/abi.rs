//! i386 struct layouts and flag values that differ from other arches.
//!
//! Open flags are asm-generic (arch/x86 has no `fcntl.h` of its own), the same values as the
//! x86_64 host's, so they pass through unchanged; `O_LARGEFILE` (0o100000), which i386 glibc
//! adds to every `open`, is a flag the host kernel accepts and ignores.

use crate::abi::stat32::new_encode_dev;
use zerocopy::byteorder::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `CPUID.1:EDX` of QEMU's `qemu32` model, the CPU endgate gives i386 guests: QEMU's
/// `PPRO_FEATURES` (fpu de pse tsc msr pae mce cx8 apic sep pge cmov pat mmx fxsr sse sse2;
/// target/i386/cpu.c). Linux passes this word as `AT_HWCAP` on x86
/// (`boot_cpu_data.x86_capability[CPUID_1_EDX]`).
pub const HWCAP_QEMU32: u64 = 0x0781_abfd;

/// i386 `struct stat64` (layout: arch/x86/include/uapi/asm/stat.h), 96 bytes, packed: its
/// 64-bit members are only 4-byte aligned (the i386 psABI's `long long` alignment), the inode
/// number is there twice (`__st_ino`, truncated, and the full `st_ino` at the end), and times
/// are 32-bit. The kernel's `cp_new_stat64` fills it.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
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
    pub st_size: U64,
    pub st_blksize: U32,
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
    /// From the host's `struct stat`, as `cp_new_stat64` converts it (`st_dev`/`st_rdev` in
    /// `huge_encode_dev` form, which on 64-bit `dev_t` values is `new_encode_dev`).
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
            st_size: U64::new(s.st_size as u64),
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

/// `struct user_desc` (layout: arch/x86/include/uapi/asm/ldt.h), 16 bytes: the argument of
/// `set_thread_area`/`get_thread_area` and of `clone(CLONE_SETTLS)` on i386. `flags` holds
/// the bit fields, lowest bit first: `seg_32bit:1, contents:2, read_exec_only:1,
/// limit_in_pages:1, seg_not_present:1, useable:1`.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct UserDesc {
    pub entry_number: U32,
    pub base_addr: U32,
    pub limit: U32,
    pub flags: U32,
}

/// Bit positions inside [`UserDesc::flags`].
pub mod user_desc {
    /// `seg_32bit`.
    pub const SEG_32BIT: u32 = 1 << 0;
    /// `contents` (2 bits: 0 data, 1 stack (expand-down), 2 code).
    pub const CONTENTS_SHIFT: u32 = 1;
    /// `read_exec_only`.
    pub const READ_EXEC_ONLY: u32 = 1 << 3;
    /// `limit_in_pages`.
    pub const LIMIT_IN_PAGES: u32 = 1 << 4;
    /// `seg_not_present`.
    pub const SEG_NOT_PRESENT: u32 = 1 << 5;
    /// `useable`.
    pub const USEABLE: u32 = 1 << 6;
    /// Every bit the kernel reads.
    pub const ALL: u32 = 0x7f;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_uapi_headers() {
        assert_eq!(std::mem::size_of::<Stat64>(), 96);
        assert_eq!(std::mem::size_of::<UserDesc>(), 16);
        assert_eq!(std::mem::offset_of!(Stat64, st_size), 44);
        assert_eq!(std::mem::offset_of!(Stat64, st_blocks), 56);
        assert_eq!(std::mem::offset_of!(Stat64, st_ino), 88);
    }

    #[test]
    fn hwcap_is_ppro_features() {
        // fpu de pse tsc msr mce cx8 pge cmov pat fxsr mmx sse sse2 pae sep apic.
        let bits = [0, 2, 3, 4, 5, 7, 8, 13, 15, 16, 24, 23, 25, 26, 6, 11, 9];
        assert_eq!(HWCAP_QEMU32, bits.iter().fold(0, |a, b| a | 1 << b));
    }
}
