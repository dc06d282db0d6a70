//! The old 32-bit `struct stat` shared by arm and i386, and the narrowings the kernel applies
//! when it fills it or the other 32-bit-era structs.
//!
//! arch/arm/include/uapi/asm/stat.h (little-endian, i.e. without `__ARMEB__`) and
//! arch/x86/include/uapi/asm/stat.h (`__i386__`) declare the same members: 32-bit
//! `unsigned long`s with 16-bit mode, link count and ids, 64 bytes in all (offsets checked
//! with arm-linux-gnueabihf-gcc and i686-linux-gnu-gcc against those headers; see the tests).
//! Their `struct stat64` also has the same members; only the alignment of its 64-bit members
//! differs (8 under arm EABI: 104 bytes; 4 on i386: 96 bytes), which the data model decides,
//! so it is declared once as a [`Shape`] ([`STAT64`]).
//!
//! Sources: [`new_encode_dev`] follows include/linux/kdev_t.h; [`high2low`], [`low2high`] and
//! [`OVERFLOW_ID`] follow include/linux/highuid.h; [`MAX_NON_LFS`] is from include/linux/fs.h.

use syscalls::Errno;

use super::thunk::{Field as F, Plain, Shape};
use zerocopy::byteorder::little_endian::{U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// Size of the 32-bit arches' packed `struct statfs64` in bytes (arm and i386:
/// include/uapi/asm-generic/statfs.h with `ARCH_PACK_STATFS64`).
pub const STATFS64_SIZE: u64 = 84;

/// The old `struct stat` of little-endian arm and of i386 (layout: arch/arm/include/uapi/asm/stat.h
/// and arch/x86/include/uapi/asm/stat.h), 64 bytes: 32-bit device, inode, size, block and time
/// members; 16-bit `st_mode`, `st_nlink`, `st_uid`, `st_gid`. The kernel's `cp_new_stat`
/// fills it.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
#[allow(missing_docs)]
pub struct Stat {
    pub st_dev: U32,
    pub st_ino: U32,
    pub st_mode: U16,
    pub st_nlink: U16,
    pub st_uid: U16,
    pub st_gid: U16,
    pub st_rdev: U32,
    pub st_size: U32,
    pub st_blksize: U32,
    pub st_blocks: U32,
    pub st_atime: U32,
    pub st_atime_nsec: U32,
    pub st_mtime: U32,
    pub st_mtime_nsec: U32,
    pub st_ctime: U32,
    pub st_ctime_nsec: U32,
    pub __unused4: U32,
    pub __unused5: U32,
}

/// Largest file size in bytes the old `struct stat` reports (the kernel's `MAX_NON_LFS`).
pub const MAX_NON_LFS: i64 = 0x7fff_ffff;

/// `overflowuid`/`overflowgid`: the id reported when a real one does not fit 16 bits
/// (`DEFAULT_OVERFLOWUID`).
pub const OVERFLOW_ID: u16 = 65534;

/// The 16-bit id the kernel stores for a 32-bit one (`high2lowuid`/`high2lowgid`): ids above
/// 65535 become [`OVERFLOW_ID`].
pub fn high2low(id: u32) -> u16 {
    u16::try_from(id).unwrap_or(OVERFLOW_ID)
}

/// The 32-bit id for a 16-bit argument (`low2highuid`/`low2highgid`): only the low 16 bits
/// count, and 0xffff ("leave unchanged") becomes -1.
pub fn low2high(id: u64) -> u32 {
    match super::low16(id) {
        0xffff => u32::MAX,
        v => u32::from(v),
    }
}

/// A host device number in the kernel's 32-bit `new_encode_dev` form: minor's low 8 bits,
/// then the major, then the minor's high bits from bit 20. For 32-bit majors and minors this
/// is also what `huge_encode_dev` gives the 64-bit `st_dev` of `struct stat64`.
pub fn new_encode_dev(dev: u64) -> u32 {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12)
}

impl Stat {
    /// From the host's `struct stat`, as the kernel's `cp_new_stat` converts it: owner and
    /// group narrowed by [`high2low`]. Errors: `EOVERFLOW` when the size exceeds
    /// [`MAX_NON_LFS`], or the inode number does not fit 32 bits, or the link count 16 bits.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_host(s: &libc::stat) -> Result<Stat, Errno> {
        if s.st_size > MAX_NON_LFS {
            return Err(Errno::EOVERFLOW);
        }
        Ok(Stat {
            st_dev: U32::new(new_encode_dev(s.st_dev)),
            st_ino: U32::new(u32::try_from(s.st_ino).map_err(|_| Errno::EOVERFLOW)?),
            st_mode: U16::new(super::low16(s.st_mode)),
            st_nlink: U16::new(u16::try_from(s.st_nlink).map_err(|_| Errno::EOVERFLOW)?),
            st_uid: U16::new(high2low(s.st_uid)),
            st_gid: U16::new(high2low(s.st_gid)),
            st_rdev: U32::new(new_encode_dev(s.st_rdev)),
            st_size: U32::new(u32::try_from(s.st_size).map_err(|_| Errno::EOVERFLOW)?),
            st_blksize: U32::new(super::low32(s.st_blksize)),
            st_blocks: U32::new(super::low32(s.st_blocks)),
            st_atime: U32::new(super::low32(s.st_atime)),
            st_atime_nsec: U32::new(super::low32(s.st_atime_nsec)),
            st_mtime: U32::new(super::low32(s.st_mtime)),
            st_mtime_nsec: U32::new(super::low32(s.st_mtime_nsec)),
            st_ctime: U32::new(super::low32(s.st_ctime)),
            st_ctime_nsec: U32::new(super::low32(s.st_ctime_nsec)),
            ..Default::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layout_matches_both_headers() {
        // offsetof/sizeof printed by the same program built with arm-linux-gnueabihf-gcc and
        // with i686-linux-gnu-gcc against their kernel headers: identical for `struct stat`.
        assert_eq!(size_of::<Stat>(), 64);
        let offsets = [
            (offset_of!(Stat, st_ino), 4),
            (offset_of!(Stat, st_mode), 8),
            (offset_of!(Stat, st_nlink), 10),
            (offset_of!(Stat, st_uid), 12),
            (offset_of!(Stat, st_gid), 14),
            (offset_of!(Stat, st_rdev), 16),
            (offset_of!(Stat, st_size), 20),
            (offset_of!(Stat, st_blksize), 24),
            (offset_of!(Stat, st_blocks), 28),
            (offset_of!(Stat, st_atime), 32),
            (offset_of!(Stat, st_mtime), 40),
            (offset_of!(Stat, st_ctime), 48),
            (offset_of!(Stat, st_ctime_nsec), 52),
            (offset_of!(Stat, __unused5), 60),
        ];
        for (got, want) in offsets {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn ids_and_devices() {
        assert_eq!(high2low(70000), OVERFLOW_ID);
        assert_eq!(high2low(1000), 1000);
        assert_eq!(low2high(0xffff), u32::MAX);
        assert_eq!(low2high(0x1_0005), 5);
        assert_eq!(new_encode_dev(libc::makedev(8, 1)), 0x801);
        assert_eq!(new_encode_dev(libc::makedev(259, 0x123)), 0x11_0323);
    }

    #[test]
    fn cp_new_stat_narrowing() {
        // SAFETY: `libc::stat` is plain data; all-zero is a valid value.
        let mut s: libc::stat = unsafe { std::mem::zeroed() };
        s.st_uid = 100_000;
        s.st_nlink = 3;
        s.st_size = MAX_NON_LFS;
        let st = Stat::from_host(&s).ok().map(|st| (st.st_uid.get(), st.st_nlink.get()));
        assert_eq!(st, Some((OVERFLOW_ID, 3)));
        s.st_nlink = 70_000;
        assert!(Stat::from_host(&s).is_err());
        s.st_nlink = 1;
        s.st_size = MAX_NON_LFS + 1;
        assert!(Stat::from_host(&s).is_err());
        s.st_size = 0;
        s.st_ino = 1 << 32;
        assert!(Stat::from_host(&s).is_err());
    }
}

/// `struct stat64` of arm and i386 (layout: arch/arm/include/uapi/asm/stat.h,
/// arch/x86/include/uapi/asm/stat.h): `st_dev`, 4 bytes of padding, the 32-bit `__st_ino`,
/// mode, link count, ids, `st_rdev`, 4 bytes of padding, `st_size`, `st_blksize`,
/// `st_blocks`, three (seconds, nanoseconds) pairs, the 64-bit `st_ino`. 104 bytes under arm
/// EABI, 96 on i386.
pub static STAT64: &Shape = &[
    F::U64,
    F::Bytes(4),
    F::U32,
    F::U32,
    F::U32,
    F::U32,
    F::U32,
    F::U64,
    F::Bytes(4),
    F::I64,
    F::U32,
    F::U64,
    F::Array(&F::U32, 6),
    F::U64,
];

/// [`STAT64`] as laid out on the host (64-bit members 8-aligned; the alignment gaps are
/// explicit fields so every byte is initialised).
#[repr(C)]
#[derive(Default)]
#[allow(missing_docs)]
pub struct HostStat64 {
    st_dev: u64,
    pad0: [u8; 4],
    st_ino32: u32,
    st_mode: u32,
    st_nlink: u32,
    st_uid: u32,
    st_gid: u32,
    st_rdev: u64,
    pad3: [u8; 4],
    align_size: [u8; 4],
    st_size: i64,
    st_blksize: u32,
    align_blocks: [u8; 4],
    st_blocks: u64,
    times: [u32; 6],
    st_ino: u64,
}

// SAFETY: a C struct of integers and byte arrays with no implicit padding.
unsafe impl Plain for HostStat64 {}

/// The guest's `struct stat64` (as [`STAT64`] converts it) from a host stat, as the kernel's
/// `cp_new_stat64` fills it (device numbers in `huge_encode_dev` form, which for 32-bit majors
/// and minors is [`new_encode_dev`]; times truncated to 32 bits).
#[allow(clippy::unnecessary_cast)]
pub fn stat64_from_host(s: &libc::stat) -> HostStat64 {
    HostStat64 {
        st_dev: u64::from(new_encode_dev(s.st_dev)),
        st_ino32: super::low32(s.st_ino),
        st_mode: s.st_mode,
        st_nlink: super::low32(s.st_nlink),
        st_uid: s.st_uid,
        st_gid: s.st_gid,
        st_rdev: u64::from(new_encode_dev(s.st_rdev)),
        st_size: s.st_size,
        st_blksize: super::low32(s.st_blksize),
        st_blocks: super::bits64(s.st_blocks),
        times: [
            super::low32(s.st_atime),
            super::low32(s.st_atime_nsec),
            super::low32(s.st_mtime),
            super::low32(s.st_mtime_nsec),
            super::low32(s.st_ctime),
            super::low32(s.st_ctime_nsec),
        ],
        st_ino: s.st_ino,
        ..Default::default()
    }
}

#[cfg(test)]
mod stat64_tests {
    use super::*;
    use crate::abi::thunk::{convert, host_bytes, size_of};
    use crate::abi::DataModel;

    /// Offsets of `st_size`, `st_blocks` and `st_ino` from `offsetof` with
    /// arm-linux-gnueabihf-gcc (48, 64, 96; 104 bytes) and i686-linux-gnu-gcc (44, 56, 88;
    /// 96 bytes) against the kernel headers.
    #[test]
    fn layouts_match_both_headers() {
        assert_eq!(size_of(STAT64, DataModel::HOST), std::mem::size_of::<HostStat64>());
        let v = HostStat64 { st_size: 0x1111, st_blocks: 0x2222, st_ino: 0x3333, ..Default::default() };
        for (model, size, offs) in
            [(DataModel::ILP32_LE, 104, [48, 64, 96]), (DataModel::ILP32_LE_I386, 96, [44, 56, 88])]
        {
            assert_eq!(size_of(STAT64, model), size);
            let mut out = vec![0u8; size];
            // SAFETY: HostStat64 has no implicit padding.
            convert(STAT64, DataModel::HOST, unsafe { host_bytes(&v) }, model, &mut out);
            for (off, want) in offs.into_iter().zip([0x1111u16, 0x2222, 0x3333]) {
                assert_eq!(u16::from_le_bytes([out[off], out[off + 1]]), want, "{model:?} at {off}");
            }
        }
    }
}
