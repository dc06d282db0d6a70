//! s390x struct layouts and flag values (64-bit, big-endian).
//!
//! s390x has its own `struct stat` and `struct statfs` (below); its open flags are
//! asm-generic (arch/s390/include/uapi/asm/fcntl.h only includes
//! include/uapi/asm-generic/fcntl.h), the same values as the x86_64 host's, so they pass
//! through unchanged.

use zerocopy::byteorder::big_endian::{I32, I64, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `struct stat` of 64-bit s390 (layout: arch/s390/include/uapi/asm/stat.h, the `__s390x__`
/// variant), 144 bytes, big-endian. Unlike asm-generic's, `st_nlink` is a long and comes
/// before `st_mode`, and `st_blksize` follows the times.
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
    pub __pad1: U32,
    pub st_rdev: U64,
    pub st_size: U64,
    pub st_atime: U64,
    pub st_atime_nsec: U64,
    pub st_mtime: U64,
    pub st_mtime_nsec: U64,
    pub st_ctime: U64,
    pub st_ctime_nsec: U64,
    pub st_blksize: U64,
    pub st_blocks: I64,
    pub __unused: [U64; 3],
}

impl Stat {
    /// From the host's `struct stat` (field widths differ between hosts, hence the casts;
    /// the kernel stores the signed times and size as unsigned longs here).
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
            st_size: U64::new(crate::abi::bits64(s.st_size)),
            st_atime: U64::new(crate::abi::bits64(s.st_atime)),
            st_atime_nsec: U64::new(crate::abi::bits64(s.st_atime_nsec)),
            st_mtime: U64::new(crate::abi::bits64(s.st_mtime)),
            st_mtime_nsec: U64::new(crate::abi::bits64(s.st_mtime_nsec)),
            st_ctime: U64::new(crate::abi::bits64(s.st_ctime)),
            st_ctime_nsec: U64::new(crate::abi::bits64(s.st_ctime_nsec)),
            st_blksize: U64::new(crate::abi::bits64(s.st_blksize)),
            st_blocks: I64::new(s.st_blocks as i64),
            ..Default::default()
        }
    }
}

/// `struct statfs` of 64-bit s390 (layout: arch/s390/include/uapi/asm/statfs.h), 88 bytes,
/// big-endian: `f_type`, `f_bsize`, `f_namelen`, `f_frsize` and `f_flags` are 32-bit here,
/// where asm-generic has longs.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
#[allow(missing_docs)]
pub struct Statfs {
    pub f_type: U32,
    pub f_bsize: U32,
    pub f_blocks: U64,
    pub f_bfree: U64,
    pub f_bavail: U64,
    pub f_files: U64,
    pub f_ffree: U64,
    pub f_fsid: [I32; 2],
    pub f_namelen: U32,
    pub f_frsize: U32,
    pub f_flags: U32,
    pub f_spare: [U32; 4],
    /// Tail padding: the C struct is 8-aligned by its longs.
    pub __pad: U32,
}

impl Statfs {
    /// From the host kernel's `struct statfs` (x86_64: fifteen longs, `f_fsid` being two ints
    /// in one of them). The 32-bit fields keep the low half, as the s390 kernel's own copy
    /// into this struct does.
    pub fn from_host(h: &HostStatfs) -> Statfs {
        let w = &h.0;
        let low = |v: i64| U32::new(crate::abi::low32(v));
        let fsid = w[7].to_ne_bytes();
        Statfs {
            f_type: low(w[0]),
            f_bsize: low(w[1]),
            f_blocks: U64::new(crate::abi::bits64(w[2])),
            f_bfree: U64::new(crate::abi::bits64(w[3])),
            f_bavail: U64::new(crate::abi::bits64(w[4])),
            f_files: U64::new(crate::abi::bits64(w[5])),
            f_ffree: U64::new(crate::abi::bits64(w[6])),
            f_fsid: [
                I32::new(i32::from_ne_bytes([fsid[0], fsid[1], fsid[2], fsid[3]])),
                I32::new(i32::from_ne_bytes([fsid[4], fsid[5], fsid[6], fsid[7]])),
            ],
            f_namelen: low(w[8]),
            f_frsize: low(w[9]),
            f_flags: low(w[10]),
            ..Default::default()
        }
    }
}

/// The x86_64 host kernel's `struct statfs` (arch/x86 uses include/uapi/asm-generic/statfs.h
/// with 64-bit longs): fifteen longs, filled by the raw `statfs`/`fstatfs` calls. libc's
/// `struct statfs` hides `f_flags` among its spare words, hence this plain form.
#[repr(C)]
#[derive(Default)]
pub struct HostStatfs(pub [i64; 15]);

/// The argument block of s390x `mmap` (`old_mmap`): the guest passes one pointer to six
/// longs (layout: `struct s390_mmap_arg_struct`, arch/s390/kernel/syscall.c), big-endian.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
#[allow(missing_docs)]
pub struct MmapArgStruct {
    pub addr: U64,
    pub len: U64,
    pub prot: U64,
    pub flags: U64,
    pub fd: U64,
    pub offset: U64,
}

// sizeof on an s390x build of the headers: stat 144, statfs 88, s390_mmap_arg_struct 48.
const _: () = assert!(std::mem::size_of::<Stat>() == 144 && std::mem::size_of::<Statfs>() == 88);
const _: () = assert!(std::mem::size_of::<MmapArgStruct>() == 48);

/// `AT_HWCAP` for the facilities of unicorn's "qemu" CPU model (target/s390x/gen-features.h
/// `S390_FEAT_LIST_QEMU_LATEST`), the bits arch/s390/kernel/processor.c `setup_hwcaps` sets
/// from the facility list (arch/s390/include/asm/elf.h `HWCAP_S390_*`): `esan3` (instructions
/// marked N3, facility 0), `zarch` (z/Architecture mode active, 2), `stfle`
/// (store-facility-list-extended, 7), `msa` (message-security assist, 17), `ldisp` (long
/// displacement, 19), `eimm` (extended immediate, 21), `etf3eh` (extended-translation facility
/// 3 enhancement, 22 and 30), `highgprs` (64-bit registers for 31-bit processes; the kernel
/// always sets it), `vx` (vector facility, 129). No DFP (42/44), no EDAT-1 huge pages (8), no
/// transactional execution (50/73), and the vector facility without the z14 enhancements
/// (129 but not 134/135).
pub const HWCAP_QEMU_Z13: u64 = crate::arch::hwcap_of(
    super::cpuinfo::HWCAP_NAMES,
    &["esan3", "zarch", "stfle", "msa", "ldisp", "eimm", "etf3eh", "highgprs", "vx"],
);

// esan3 zarch stfle msa ldisp eimm etf3eh highgprs vx: bits 0-5, 8, 9 and 11.
const _: () = assert!(HWCAP_QEMU_Z13 == 0xb3f);

/// s390x's `POSIX_FADV_DONTNEED` (6) and `POSIX_FADV_NOREUSE` (7) as the host's 4 and 5
/// (include/uapi/linux/fadvise.h `#if defined(__s390x__)`); s390x's own kernel knows no advice
/// 4 or 5, which therefore become a value the host refuses too (`EINVAL`).
pub fn fadvise_to_host(advice: i32) -> i32 {
    match advice {
        6 => libc::POSIX_FADV_DONTNEED,
        7 => libc::POSIX_FADV_NOREUSE,
        4 | 5 => -1,
        a => a,
    }
}

/// Terminal ioctl requests (arch/s390/include/uapi/asm/ioctls.h) -> host: only `FIOQSIZE` differs, 0x545E here and
/// 0x5460 in include/uapi/asm-generic/ioctls.h.
pub fn ioctl_to_host(req: u64) -> u64 {
    match req {
        0x545E => 0x5460,
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_big_endian() {
        // SAFETY: all-zero is a valid `struct stat`.
        let mut h: libc::stat = unsafe { std::mem::zeroed() };
        h.st_nlink = 1;
        h.st_mode = 0o100644;
        let g = Stat::from_host(&h);
        let b = g.as_bytes();
        assert_eq!(&b[16..24], &[0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(&b[24..28], &0o100644u32.to_be_bytes());
    }
}
