//! i386 struct layouts and flag values that differ from other arches.
//!
//! Open flags are asm-generic (arch/x86 has no `fcntl.h` of its own), the same values as the
//! x86_64 host's, so they pass through unchanged; `O_LARGEFILE` (0o100000), which i386 glibc
//! adds to every `open`, is a flag the host kernel accepts and ignores.

use zerocopy::byteorder::little_endian::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `CPUID.1:EDX` of QEMU's `qemu32` model, the CPU endgate gives i386 guests: QEMU's
/// `PPRO_FEATURES` (fpu de pse tsc msr pae mce cx8 apic sep pge cmov pat mmx fxsr sse sse2;
/// target/i386/cpu.c). Linux passes this word as `AT_HWCAP` on x86
/// (`boot_cpu_data.x86_capability[CPUID_1_EDX]`).
pub const HWCAP_QEMU32: u64 = 0x0781_abfd;

/// i386 `struct stat` (layout: arch/x86/include/uapi/asm/stat.h, `__i386__`), 64 bytes:
/// 32-bit `unsigned long` fields with 16-bit mode, link count and ids. The kernel's
/// `cp_new_stat` fills it.
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

/// Largest file size the old `struct stat` reports (`MAX_NON_LFS`, include/linux/fs.h).
const MAX_NON_LFS: i64 = 0x7fff_ffff;

/// The 16-bit id the kernel stores for a 32-bit one (`high2lowuid`, include/linux/highuid.h):
/// ids above 65535 become the overflow id 65534.
pub fn high2low(id: u32) -> u16 {
    u16::try_from(id).unwrap_or(OVERFLOW_ID)
}

/// `overflowuid`/`overflowgid`: the id reported when a real one does not fit 16 bits
/// (`DEFAULT_OVERFLOWUID`, include/linux/highuid.h).
pub const OVERFLOW_ID: u16 = 65534;

/// The 32-bit id for a 16-bit argument (`low2highuid`): 0xffff ("unchanged") becomes -1.
pub fn low2high(id: u64) -> u32 {
    match id as u16 {
        0xffff => u32::MAX,
        v => u32::from(v),
    }
}

/// Linux's `new_encode_dev` (include/linux/kdev_t.h): the 32-bit `dev_t` of the i386 ABI.
pub fn new_encode_dev(dev: u64) -> u32 {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12)
}

impl Stat {
    /// From the host's `struct stat`, as `cp_new_stat` converts it. `None` (the kernel's
    /// `EOVERFLOW`) if the inode number or size do not fit 32 bits.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_host(s: &libc::stat) -> Option<Stat> {
        let ino = u32::try_from(s.st_ino).ok()?;
        if s.st_size > MAX_NON_LFS {
            return None;
        }
        Some(Stat {
            st_dev: U32::new(new_encode_dev(s.st_dev)),
            st_ino: U32::new(ino),
            st_mode: U16::new(s.st_mode as u16),
            st_nlink: U16::new(u16::try_from(s.st_nlink).unwrap_or(u16::MAX)),
            st_uid: U16::new(high2low(s.st_uid)),
            st_gid: U16::new(high2low(s.st_gid)),
            st_rdev: U32::new(new_encode_dev(s.st_rdev)),
            st_size: U32::new(s.st_size as u32),
            st_blksize: U32::new(s.st_blksize as u32),
            st_blocks: U32::new(s.st_blocks as u32),
            st_atime: U32::new(s.st_atime as u32),
            st_atime_nsec: U32::new(s.st_atime_nsec as u32),
            st_mtime: U32::new(s.st_mtime as u32),
            st_mtime_nsec: U32::new(s.st_mtime_nsec as u32),
            st_ctime: U32::new(s.st_ctime as u32),
            st_ctime_nsec: U32::new(s.st_ctime_nsec as u32),
            ..Default::default()
        })
    }
}

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

/// `socketcall` call numbers (include/uapi/linux/net.h `SYS_SOCKET`…`SYS_SENDMMSG`).
pub mod socketcall {
    #![allow(missing_docs)]
    pub const SOCKET: u64 = 1;
    pub const BIND: u64 = 2;
    pub const CONNECT: u64 = 3;
    pub const LISTEN: u64 = 4;
    pub const ACCEPT: u64 = 5;
    pub const GETSOCKNAME: u64 = 6;
    pub const GETPEERNAME: u64 = 7;
    pub const SOCKETPAIR: u64 = 8;
    pub const SEND: u64 = 9;
    pub const RECV: u64 = 10;
    pub const SENDTO: u64 = 11;
    pub const RECVFROM: u64 = 12;
    pub const SHUTDOWN: u64 = 13;
    pub const SETSOCKOPT: u64 = 14;
    pub const GETSOCKOPT: u64 = 15;
    pub const SENDMSG: u64 = 16;
    pub const RECVMSG: u64 = 17;
    pub const ACCEPT4: u64 = 18;
    pub const RECVMMSG: u64 = 19;
    pub const SENDMMSG: u64 = 20;
    /// Number of argument words each call reads (net/socket.c `nargs`), by call number.
    pub const NARGS: [u8; 21] = [0, 3, 3, 3, 2, 3, 3, 3, 4, 4, 4, 6, 6, 2, 5, 5, 3, 3, 4, 5, 4];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_uapi_headers() {
        assert_eq!(std::mem::size_of::<Stat>(), 64);
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

    #[test]
    fn ids_and_devices() {
        assert_eq!(high2low(70000), OVERFLOW_ID);
        assert_eq!(high2low(1000), 1000);
        assert_eq!(low2high(0xffff), u32::MAX);
        assert_eq!(low2high(0x1_0005), 5);
        assert_eq!(new_encode_dev(libc::makedev(8, 1)), 0x801);
        assert_eq!(new_encode_dev(libc::makedev(259, 0x123)), 0x11_0323);
    }
}
