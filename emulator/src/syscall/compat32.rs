//! System calls only 32-bit guests have (arm EABI, i386): the `*64` forms that carry 64-bit file
//! offsets and sizes, `mmap2`, `_llseek`, the `stat64`/`statfs64` families, the 32-bit-uid
//! calls, the old `linux_dirent`, directory positions that fit 32 bits ([`dircookie`]),
//! `send`/`recv`, and the 32-bit names of shared calls
//! (`ugetrlimit`, `_newselect`).
//!
//! # 64-bit arguments in register pairs
//! A 32-bit ABI passes a `loff_t` in two consecutive argument registers, low word first on a
//! little-endian arch and high word first on a big-endian one. Some ABIs (arm EABI, mips o32,
//! ppc32) start such a pair at an even-numbered register and leave a register unused before it
//! ([`GuestArch::regpairs_aligned`]); i386 does not. [`ArgCursor`] walks the argument registers
//! in that order, and each handler here rebuilds the LP64 argument list that the shared
//! handlers take, so the shared handlers keep one shape (QEMU linux-user does the same with
//! `target_offset64` and `regpairs_aligned`). A shared handler called this way must take its
//! 64-bit arguments whole: one that reads an `off_t` through `SyscallArgs::long` (which keeps only the
//! guest `long`'s 32 bits) is not called from here; `truncate64` and `ftruncate64` call the
//! host themselves for that reason.
//!
//! Nothing here asks which arch it runs: differences come from [`GuestArch`] methods
//! (`regpairs_aligned`, `endian`, `write_stat64`, `statfs64_len`).
//!
//! [`DEFS`] holds the rows: they are laid over [`super::table::DEFS`] for 32-bit guests, so a
//! row here replaces the LP64 row of the same call (`pread64` takes its offset in a pair).

use syscalls::Errno;

use super::nr::Sys;
use super::{as_int, dircookie, fs, host_ret, io, mm, net, process, Handler, SysResult, SyscallDef};
use crate::abi::stat32::STATFS64_SIZE;
use crate::guest::{Cpu, GuestArch, SyscallArgs};
use crate::mm::{AddressSpace, Endian, GuestAddr, PAGE_SIZE};
use crate::syscall::strace::ArgFmt::{self, *};
use crate::syscall::strace::RetFmt::{self, Hex as RHex, Int as RInt};

/// Walks a 32-bit guest's argument registers, combining register pairs into 64-bit values as
/// the arch's ABI lays them out.
pub struct ArgCursor<'a> {
    a: &'a SyscallArgs,
    next: usize,
    aligned: bool,
    big: bool,
}

impl<'a> ArgCursor<'a> {
    /// A cursor at the first argument register of `a`.
    pub fn new(arch: &dyn GuestArch, a: &'a SyscallArgs) -> Self {
        ArgCursor { a, next: 0, aligned: arch.info().regpairs_aligned, big: arch.info().endian() == Endian::Big }
    }

    fn reg(&self, i: usize) -> u64 {
        self.a.a.get(i).copied().unwrap_or(0) & 0xffff_ffff
    }

    /// The next argument as one 32-bit register (zero-extended).
    pub fn word(&mut self) -> u64 {
        let v = self.reg(self.next);
        self.next += 1;
        v
    }

    /// The next argument as a 64-bit value in a register pair (skipping a register first when
    /// the ABI aligns pairs and the next register is odd).
    pub fn pair(&mut self) -> u64 {
        if self.aligned && self.next % 2 == 1 {
            self.next += 1;
        }
        let (first, second) = (self.reg(self.next), self.reg(self.next + 1));
        self.next += 2;
        if self.big {
            (first << 32) | second
        } else {
            (second << 32) | first
        }
    }
}

/// Runs the shared LP64 handler `h` with `args` as its argument registers.
fn lp64(cpu: &mut Cpu<'_>, a: &SyscallArgs, h: Handler, args: [u64; 6]) -> SysResult {
    h(cpu, &a.with(args))
}

fn cursor<'a>(cpu: &Cpu<'_>, a: &'a SyscallArgs) -> ArgCursor<'a> {
    ArgCursor::new(cpu.get_data().arch, a)
}

/// A 32-bit `int` argument sign-extended to the 64 bits an LP64 handler expects.
fn sext(v: u64) -> u64 {
    crate::abi::bits64(as_int(v))
}

/// `_llseek(unsigned fd, unsigned long offset_high, unsigned long offset_low, loff_t *result,
/// unsigned whence)` (llseek(2)): seeks to the 64-bit offset `high:low` and stores the new
/// position (a 64-bit value in guest byte order) at `result`. Errors: `EFAULT`, the host's
/// (`EINVAL`, `EBADF`, `ESPIPE`).
pub fn _llseek(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (fd, whence) = (a.int(0), a.int(4));
    let mut off = ((a.raw(1) & 0xffff_ffff) << 32) | (a.raw(2) & 0xffff_ffff);
    if whence == libc::SEEK_SET {
        off = dircookie::to_host(fd, off);
    }
    let result = a.raw(3) & 0xffff_ffff;
    // Check the result pointer first, as the kernel's copy_to_user would fail after seeking.
    cpu.get_data().mm.host_range(GuestAddr::new(result), 8, crate::mm::Prot::WRITE)?;
    let pos = super::procfs::lseek(fd, crate::abi::signed64(off), whence)?;
    cpu.get_data_mut().mm.write_u64(GuestAddr::new(result), dircookie::to_guest(fd, pos))?;
    Ok(0)
}

/// `lseek(int fd, off_t offset, int whence)` (lseek(2)) with a 32-bit `off_t`: the offset is
/// sign-extended, and on a directory the position is one of [`dircookie`]'s 32-bit cookies.
/// Errors: the host's (`EBADF`, `EINVAL`, `ESPIPE`).
pub fn lseek(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (fd, whence) = (a.int(0), a.int(2));
    let mut off = sext(a.raw(1));
    if whence == libc::SEEK_SET {
        off = dircookie::to_host(fd, off);
    }
    let pos = super::procfs::lseek(fd, crate::abi::signed64(off), whence)?;
    Ok(dircookie::to_guest(fd, pos))
}

/// `getdents64(unsigned fd, struct linux_dirent64 *dirp, unsigned count)` (getdents(2)) for a
/// 32-bit guest: the shared call, then each record's `d_off` replaced by its 32-bit
/// [`dircookie`]. Errors: as the shared call.
pub fn getdents64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let n = fs::getdents64(cpu, a)?;
    let (fd, dirp) = (a.int(0), GuestAddr::new(a.raw(1) & 0xffff_ffff));
    let mm = &mut cpu.get_data_mut().mm;
    let mut off = 0u64;
    while off + 19 <= n {
        let at = dirp + off;
        let d_off = mm.read_u64(at + 8)?;
        mm.write_u64(at + 8, dircookie::to_guest(fd, d_off))?;
        let reclen = u64::from(mm.read_u16(at + 16)?);
        if reclen == 0 {
            break;
        }
        off += reclen;
    }
    Ok(n)
}

/// `mmap2(void *addr, size_t length, int prot, int flags, int fd, unsigned long pgoffset)`
/// (mmap2(2)): `mmap` with the file offset in 4096-byte units, so 32-bit guests reach offsets
/// past 4 GiB. Errors: as `mmap`.
pub fn mmap2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let args = [c.word(), c.word(), c.word(), c.word(), sext(c.word()), c.word() * PAGE_SIZE];
    lp64(cpu, a, mm::mmap, args)
}

/// Size in bytes of `struct mmap_arg_struct` on 32-bit guests: six `unsigned long`.
const MMAP_ARG_STRUCT_SIZE: u64 = 24;

/// The old `mmap(struct mmap_arg_struct *args)` of 32-bit arches (i386's number 90): the six
/// `mmap` arguments as 32-bit words in guest memory; the offset is in bytes and must be
/// page-aligned. Errors: `EFAULT`, `EINVAL`, as `mmap`.
pub fn old_mmap(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let at = GuestAddr::new(a.raw(0) & 0xffff_ffff);
    let mm = &cpu.get_data().mm;
    mm.host_range(at, MMAP_ARG_STRUCT_SIZE, crate::mm::Prot::READ)?;
    let mut w = [0u64; 6];
    for (i, v) in w.iter_mut().enumerate() {
        *v = u64::from(mm.read_u32(at + 4 * i as u64)?);
    }
    w[4] = sext(w[4]);
    lp64(cpu, a, mm::mmap, w)
}

fn host_fstatat(dirfd: i32, path: &std::ffi::CStr, flags: i32) -> Result<libc::stat, Errno> {
    // SAFETY: `struct stat` is plain old data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: NUL-terminated path, local out struct.
    host_ret(i64::from(unsafe { libc::fstatat(dirfd, path.as_ptr(), &mut st, flags) }))?;
    Ok(st)
}

fn put_stat64(cpu: &mut Cpu<'_>, addr: GuestAddr, st: &libc::stat) -> SysResult {
    let mut st = *st;
    super::fakeroot::stat(&mut st);
    super::procfs::own_fd_dir_size(st.st_dev, st.st_ino, st.st_mode, &mut st.st_size);
    let t = cpu.get_data_mut();
    let arch = t.arch;
    (arch.info().write_stat64)(&mut t.mm, addr, &st)?;
    Ok(0)
}

/// `fstatat64(int dirfd, const char *path, struct stat64 *buf, int flags)` (stat(2)): the
/// result in the arch's `struct stat64`. Errors: `EFAULT`, `ENAMETOOLONG`, the host's.
pub fn fstatat64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = super::path::host_path_stat(cpu.get_data(), a.int(0), GuestAddr::new(a.raw(1) & 0xffff_ffff), a.int(3))?;
    let st = host_fstatat(a.int(0), &path, a.int(3))?;
    drop(path);
    put_stat64(cpu, GuestAddr::new(a.raw(2) & 0xffff_ffff), &st)
}

/// `stat64(const char *path, struct stat64 *buf)` (stat(2)).
pub fn stat64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = super::path::host_path(cpu.get_data(), GuestAddr::new(a.raw(0) & 0xffff_ffff))?;
    let st = host_fstatat(libc::AT_FDCWD, &path, 0)?;
    drop(path);
    put_stat64(cpu, GuestAddr::new(a.raw(1) & 0xffff_ffff), &st)
}

/// `lstat64(const char *path, struct stat64 *buf)` (stat(2)): does not follow a final symlink.
pub fn lstat64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = super::path::host_path_at(
        cpu.get_data(),
        libc::AT_FDCWD,
        GuestAddr::new(a.raw(0) & 0xffff_ffff),
        libc::AT_SYMLINK_NOFOLLOW,
    )?;
    let st = host_fstatat(libc::AT_FDCWD, &path, libc::AT_SYMLINK_NOFOLLOW)?;
    drop(path);
    put_stat64(cpu, GuestAddr::new(a.raw(1) & 0xffff_ffff), &st)
}

/// `fstat64(int fd, struct stat64 *buf)` (stat(2)).
pub fn fstat64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: `struct stat` is plain old data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::fstat(a.int(0), &mut st) }))?;
    put_stat64(cpu, GuestAddr::new(a.raw(1) & 0xffff_ffff), &st)
}

/// The host's `struct statfs` as the x86_64 kernel writes it (arch/x86/include/uapi/asm/statfs.h
/// = asm-generic with 64-bit words): `f_type`, `f_bsize`, `f_blocks`, `f_bfree`, `f_bavail`,
/// `f_files`, `f_ffree`, `f_fsid` (two ints), `f_namelen`, `f_frsize`, `f_flags`, `f_spare[4]`.
type HostStatfs = [u64; 15];

/// Writes `struct statfs64` of 32-bit arches (layout: include/uapi/asm-generic/statfs.h with
/// `ARCH_PACK_STATFS64` = packed, 4-byte aligned, as arch/arm/include/uapi/asm/statfs.h and
/// arch/x86/include/uapi/asm/statfs.h define it): 84 bytes, 32-bit `f_type`, `f_bsize`,
/// `f_namelen`, `f_frsize`, `f_flags`, `f_spare[4]`; 64-bit block and file counts.
fn write_statfs64(mm: &mut AddressSpace, addr: GuestAddr, s: &HostStatfs) -> Result<(), Errno> {
    // fs/statfs.c `put_compat_statfs64`: a block or fragment size above 32 bits is
    // EOVERFLOW; the other 32-bit members are truncated.
    if u32::try_from(s[1]).is_err() || u32::try_from(s[9]).is_err() {
        return Err(Errno::EOVERFLOW);
    }
    mm.host_range(addr, STATFS64_SIZE, crate::mm::Prot::WRITE)?;
    mm.write_u32(addr, crate::abi::low32(s[0]))?;
    mm.write_u32(addr + 4, crate::abi::low32(s[1]))?;
    for i in 0..5 {
        mm.write_u64(addr + 8 + 8 * i, s[2 + crate::abi::u64_to_usize(i)])?;
    }
    // f_fsid: two ints, in the host's memory order.
    mm.write_u32(addr + 48, crate::abi::low32(s[7]))?;
    mm.write_u32(addr + 52, (s[7] >> 32) as u32)?;
    for i in 0..3 {
        mm.write_u32(addr + 56 + 4 * i, crate::abi::low32(s[8 + crate::abi::u64_to_usize(i)]))?;
    }
    for i in 0..4 {
        mm.write_u32(addr + 68 + 4 * i, 0)?;
    }
    Ok(())
}

fn finish_statfs64(cpu: &mut Cpu<'_>, buf: GuestAddr, st: &HostStatfs) -> SysResult {
    write_statfs64(&mut cpu.get_data_mut().mm, buf, st)?;
    Ok(0)
}

fn check_statfs64_size(cpu: &Cpu<'_>, size: u64) -> Result<(), Errno> {
    match (cpu.get_data().arch.info().statfs64_len)(size & 0xffff_ffff) {
        Some(STATFS64_SIZE) => Ok(()),
        _ => Err(Errno::EINVAL),
    }
}

/// `statfs64(const char *path, size_t size, struct statfs64 *buf)` (statfs(2)). Errors:
/// `EINVAL` when `size` is not the arch's `sizeof(struct statfs64)`, `EFAULT`, the host's.
pub fn statfs64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    check_statfs64_size(cpu, a.raw(1))?;
    let path = super::path::host_path(cpu.get_data(), GuestAddr::new(a.raw(0) & 0xffff_ffff))?;
    let mut st: HostStatfs = [0; 15];
    // SAFETY: NUL-terminated path; a local buffer of the host struct's 120 bytes.
    host_ret(unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), st.as_mut_ptr()) })?;
    finish_statfs64(cpu, GuestAddr::new(a.raw(2) & 0xffff_ffff), &st)
}

/// `fstatfs64(int fd, size_t size, struct statfs64 *buf)` (statfs(2)).
pub fn fstatfs64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    check_statfs64_size(cpu, a.raw(1))?;
    let mut st: HostStatfs = [0; 15];
    // SAFETY: a local buffer of the host struct's 120 bytes.
    host_ret(unsafe { libc::syscall(libc::SYS_fstatfs, a.int(0), st.as_mut_ptr()) })?;
    finish_statfs64(cpu, GuestAddr::new(a.raw(2) & 0xffff_ffff), &st)
}

/// `truncate64(const char *path, loff_t length)` (truncate(2)). Served here rather than by
/// the shared `truncate`, which reads its `off_t` in the guest's `long` width.
pub fn truncate64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let (path, len) = (c.word(), c.pair());
    let path = super::path::host_path(cpu.get_data(), GuestAddr::new(path))?;
    // The pair is a signed `loff_t`.
    let len = i64::from_ne_bytes(len.to_ne_bytes());
    // SAFETY: NUL-terminated path.
    let r = host_ret(i64::from(unsafe { libc::truncate(path.as_ptr(), len) }))?;
    fs::truncated(cpu, &path, -1, len);
    Ok(r)
}

/// `ftruncate64(int fd, loff_t length)` (truncate(2)).
pub fn ftruncate64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let (fd, len) = (c.word(), c.pair());
    let len = i64::from_ne_bytes(len.to_ne_bytes());
    // SAFETY: integer arguments.
    let r = host_ret(i64::from(unsafe { libc::ftruncate(as_int(fd), len) }))?;
    fs::truncated(cpu, c"", as_int(fd), len);
    Ok(r)
}

/// `pread64(int fd, void *buf, size_t count, loff_t offset)` (pread(2)).
pub fn pread64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let args = [c.word(), c.word(), c.word(), c.pair(), 0, 0];
    lp64(cpu, a, io::pread64, args)
}

/// `pwrite64(int fd, const void *buf, size_t count, loff_t offset)` (pwrite(2)).
pub fn pwrite64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let args = [c.word(), c.word(), c.word(), c.pair(), 0, 0];
    lp64(cpu, a, io::pwrite64, args)
}

/// The `pos_l`/`pos_h` offset of `preadv`/`pwritev`: two `unsigned long`s, low word first
/// on every arch and never pair-aligned (fs/read_write.c `pos_from_hilo`).
fn hilo(a: &SyscallArgs) -> u64 {
    ((a.raw(4) & 0xffff_ffff) << 32) | (a.raw(3) & 0xffff_ffff)
}

/// `preadv(int fd, const struct iovec *iov, int iovcnt, unsigned long pos_l, unsigned long
/// pos_h)` (preadv(2)).
pub fn preadv(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lp64(cpu, a, io::preadv, [a.raw(0), a.raw(1), a.raw(2), hilo(a), 0, 0])
}

/// `pwritev(int fd, const struct iovec *iov, int iovcnt, unsigned long pos_l, unsigned long
/// pos_h)` (pwritev(2)).
pub fn pwritev(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lp64(cpu, a, io::pwritev, [a.raw(0), a.raw(1), a.raw(2), hilo(a), 0, 0])
}

/// `preadv2(…, unsigned long pos_l, unsigned long pos_h, int flags)` (preadv2(2)).
pub fn preadv2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lp64(cpu, a, io::preadv2, [a.raw(0), a.raw(1), a.raw(2), hilo(a), 0, a.raw(5)])
}

/// `pwritev2(…, unsigned long pos_l, unsigned long pos_h, int flags)`.
pub fn pwritev2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lp64(cpu, a, io::pwritev2, [a.raw(0), a.raw(1), a.raw(2), hilo(a), 0, a.raw(5)])
}

/// `fallocate(int fd, int mode, loff_t offset, loff_t len)` (fallocate(2)).
pub fn fallocate(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let args = [c.word(), c.word(), c.pair(), c.pair(), 0, 0];
    lp64(cpu, a, fs::fallocate, args)
}

/// `fadvise64_64(int fd, loff_t offset, loff_t len, int advice)` (posix_fadvise(2); i386).
pub fn fadvise64_64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let args = [c.word(), c.pair(), c.pair(), c.word(), 0, 0];
    lp64(cpu, a, fs::fadvise64, args)
}

/// `fadvise64(int fd, loff_t offset, size_t len, int advice)` (posix_fadvise(2); i386).
pub fn fadvise64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let args = [c.word(), c.pair(), c.word(), c.word(), 0, 0];
    lp64(cpu, a, fs::fadvise64, args)
}

/// `sync_file_range(int fd, loff_t offset, loff_t nbytes, unsigned flags)`
/// (sync_file_range(2)). Errors: the host's (`EINVAL` for bad flags or a negative range).
pub fn sync_file_range(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = cursor(cpu, a);
    let (fd, off, n, flags) = (c.word(), c.pair(), c.pair(), c.word());
    host_sync_file_range(fd, off, n, flags)
}

/// `readahead(int fd, loff_t offset, size_t count)` with the offset in a register pair.
pub fn readahead(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = ArgCursor::new(cpu.get_data().arch, a);
    let (fd, off, count) = (c.word(), c.pair(), c.word());
    super::fs::host_readahead(fd, off, count)
}

/// The host `sync_file_range` for a guest's fd, offset, byte count and flags.
pub fn host_sync_file_range(fd: u64, off: u64, n: u64, flags: u64) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe {
        libc::sync_file_range(as_int(fd), crate::abi::signed64(off), crate::abi::signed64(n), crate::abi::low32(flags))
    }))
}

/// The old `struct linux_dirent` of 32-bit arches (fs/readdir.c `compat_linux_dirent`):
/// `u32 d_ino; u32 d_off; u16 d_reclen; char d_name[]`, then a NUL, then `d_type` in the last
/// byte of the record, which is 4-byte aligned.
const DIRENT32_HEADER: usize = 10;

/// `getdents(unsigned fd, struct linux_dirent *dirp, unsigned count)` (getdents(2)) with 32-bit
/// `d_ino` and `d_off`: the host's `linux_dirent64` records are rewritten in the 32-bit layout
/// (never longer, so what the host returns always fits). Errors: `EOVERFLOW` for an inode
/// number above 32 bits (as the kernel's compat_filldir), `EINVAL` for a buffer too small for
/// one record, `EFAULT`, the host's.
pub fn getdents(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (fd, dirp, count) = (a.int(0), a.raw(1) & 0xffff_ffff, (a.raw(2) & 0xffff_ffff) as usize);
    cpu.get_data_mut().buf_out(GuestAddr::new(dirp), count as u64)?;
    let mut host = vec![0u8; count];
    // A read whose every record is endgate's own is read again: 0 would be the end.
    let n = loop {
        // SAFETY: `count` bytes of a local buffer.
        let n = crate::abi::u64_to_usize(host_ret(unsafe {
            libc::syscall(libc::SYS_getdents64, fd, host.as_mut_ptr(), a.uint(2))
        })?);
        let kept = crate::abi::u64_to_usize(super::procfs::hide_own_entries(fd, &mut host[..n], 19));
        if kept > 0 || n == 0 {
            break kept;
        }
    };
    let mut out = Vec::with_capacity(n);
    let mut off = 0;
    while off + 19 <= n {
        let rec = &host[off..];
        let ino = u64::from_le_bytes(rec[0..8].try_into().unwrap_or_default());
        let d_off = u64::from_le_bytes(rec[8..16].try_into().unwrap_or_default());
        let reclen = usize::from(u16::from_le_bytes([rec[16], rec[17]]));
        let d_type = rec[18];
        if reclen == 0 || off + reclen > n {
            break;
        }
        let name_area = &rec[19..reclen];
        let name = &name_area[..name_area.iter().position(|&b| b == 0).unwrap_or(name_area.len())];
        let ino32 = u32::try_from(ino).map_err(|_| Errno::EOVERFLOW)?;
        let len = (DIRENT32_HEADER + name.len() + 2).next_multiple_of(4);
        let start = out.len();
        out.resize(start + len, 0);
        let endian = cpu.get_data().mm.endian();
        let w32 = |v: u32| if endian == Endian::Big { v.to_be_bytes() } else { v.to_le_bytes() };
        let w16 = |v: u16| if endian == Endian::Big { v.to_be_bytes() } else { v.to_le_bytes() };
        out[start..start + 4].copy_from_slice(&w32(ino32));
        out[start + 4..start + 8].copy_from_slice(&w32(crate::abi::low32(dircookie::to_guest(fd, d_off))));
        out[start + 8..start + 10].copy_from_slice(&w16(u16::try_from(len).map_err(|_| Errno::EOVERFLOW)?));
        out[start + 10..start + 10 + name.len()].copy_from_slice(name);
        out[start + len - 1] = d_type;
        off += reclen;
    }
    cpu.get_data_mut().mm.write_bytes(GuestAddr::new(dirp), &out)?;
    Ok(out.len() as u64)
}

/// `send(int fd, const void *buf, size_t len, int flags)` (send(2)): `sendto` without an
/// address.
pub fn send(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lp64(cpu, a, net::sendto, [a.raw(0), a.raw(1), a.raw(2), a.raw(3), 0, 0])
}

/// [`send`] without the global guest lock: [`net::sendto_unlocked`] without an address.
pub fn send_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    net::sendto_unlocked(ctx, &a.with([a.raw(0), a.raw(1), a.raw(2), a.raw(3), 0, 0]))
}

/// `recv(int fd, void *buf, size_t len, int flags)` (recv(2)): `recvfrom` without an address.
pub fn recv(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lp64(cpu, a, net::recvfrom, [a.raw(0), a.raw(1), a.raw(2), a.raw(3), 0, 0])
}

/// [`recv`] without the global guest lock: [`net::recvfrom_unlocked`] without an address.
pub fn recv_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    net::recvfrom_unlocked(ctx, &a.with([a.raw(0), a.raw(1), a.raw(2), a.raw(3), 0, 0]))
}

const fn d(sys: Sys, handler: Handler, args: &'static [ArgFmt], ret: RetFmt) -> SyscallDef {
    SyscallDef { sys, handler, args, ret, reach: super::table::Reach::Process, host_id: None, unlocked: None }
}

/// The rows for 32-bit guests, laid over [`super::table::DEFS`] (a row here wins). Argument
/// formats list every register the call reads, pair halves as `Hex`.
pub static DEFS: &[SyscallDef] = &[
    d(Sys::_llseek, _llseek, &[Fd, Hex, Hex, Ptr, Whence], RInt),
    d(Sys::lseek, lseek, &[Fd, Long, Whence], RInt),
    d(Sys::getdents64, getdents64, &[Fd, Ptr, ULong], RInt),
    d(Sys::mmap2, mmap2, &[Ptr, ULong, ArgFmt::Prot, MmapFlags, Fd, Hex], RHex),
    d(Sys::mmap, old_mmap, &[ArgFmt::MmapArgBlock], RHex),
    d(Sys::stat64, stat64, &[Str, Ptr], RInt),
    d(Sys::lstat64, lstat64, &[Str, Ptr], RInt),
    d(Sys::fstat64, fstat64, &[Fd, Ptr], RInt),
    d(Sys::fstatat64, fstatat64, &[AtFd, Str, Ptr, AtFlags], RInt),
    d(Sys::statfs64, statfs64, &[Str, ULong, Ptr], RInt),
    d(Sys::fstatfs64, fstatfs64, &[Fd, ULong, Ptr], RInt),
    d(Sys::truncate64, truncate64, &[Str, Hex, Hex, Hex], RInt),
    d(Sys::ftruncate64, ftruncate64, &[Fd, Hex, Hex, Hex], RInt),
    d(Sys::pread64, pread64, &[Fd, BufOut, ULong, Hex, Hex, Hex], RInt),
    d(Sys::pwrite64, pwrite64, &[Fd, BufIn(2), ULong, Hex, Hex, Hex], RInt),
    d(Sys::preadv, preadv, &[Fd, Ptr, Int, Hex, Hex], RInt),
    d(Sys::preadv2, preadv2, &[Fd, Ptr, Int, Hex, Hex, Hex], RInt),
    d(Sys::pwritev2, pwritev2, &[Fd, Ptr, Int, Hex, Hex, Hex], RInt),
    d(Sys::pwritev, pwritev, &[Fd, Ptr, Int, Hex, Hex], RInt),
    d(Sys::fallocate, fallocate, &[Fd, Int, Hex, Hex, Hex, Hex], RInt),
    d(Sys::fadvise64_64, fadvise64_64, &[Fd, Hex, Hex, Hex, Hex, Int], RInt),
    d(Sys::fadvise64, fadvise64, &[Fd, Hex, Hex, ULong, Int], RInt),
    d(Sys::sync_file_range, sync_file_range, &[Fd, Hex, Hex, Hex, Hex, Hex], RInt),
    d(Sys::readahead, readahead, &[Fd, Hex, Hex, Hex, Hex], RInt),
    d(Sys::getdents, getdents, &[Fd, Ptr, ULong], RInt),
    // The 64-bit s390 kernel has no `readdir` (sys_ni_syscall): a 32-bit row.
    d(Sys::readdir, super::old::readdir, &[Fd, Ptr, ULong], RInt),
    // The mask in a register pair; the handler reads either layout.
    d(Sys::fanotify_mark, super::fanotify::fanotify_mark, &[Fd, Hex, Hex, Hex, Hex, Hex], RInt)
        .reaching(super::table::Reach::Host),
    // The shared handlers already read `struct rlimit` and `struct timeval` in the guest's
    // `long` width; these are only other names for them.
    d(Sys::ugetrlimit, process::getrlimit, &[Int, Ptr], RInt),
    d(Sys::_newselect, io::select, &[Int, Ptr, Ptr, Ptr, Ptr], RInt),
    d(Sys::send, send, &[Fd, BufIn(2), ULong, Hex], RInt).unlocked(send_unlocked),
    d(Sys::recv, recv, &[Fd, BufOut, ULong, Hex], RInt).unlocked(recv_unlocked),
    // The 32-bit-uid calls are the LP64 calls (uid_t is 32 bits there).
    d(Sys::getuid32, process::getuid, &[], RInt).host_id(syscalls::Sysno::getuid),
    d(Sys::getgid32, process::getgid, &[], RInt).host_id(syscalls::Sysno::getgid),
    d(Sys::geteuid32, process::geteuid, &[], RInt).host_id(syscalls::Sysno::geteuid),
    d(Sys::getegid32, process::getegid, &[], RInt).host_id(syscalls::Sysno::getegid),
    d(Sys::setuid32, process::setuid, &[Int], RInt),
    d(Sys::setgid32, process::setgid, &[Int], RInt),
    d(Sys::setreuid32, process::setreuid, &[Int, Int], RInt),
    d(Sys::setregid32, process::setregid, &[Int, Int], RInt),
    d(Sys::setresuid32, process::setresuid, &[Int, Int, Int], RInt),
    d(Sys::setresgid32, process::setresgid, &[Int, Int, Int], RInt),
    d(Sys::getresuid32, process::getresuid, &[Ptr, Ptr, Ptr], RInt),
    d(Sys::getresgid32, process::getresgid, &[Ptr, Ptr, Ptr], RInt),
    d(Sys::getgroups32, process::getgroups, &[Int, Ptr], RInt),
    d(Sys::setgroups32, process::setgroups, &[Int, Ptr], RInt),
    d(Sys::chown32, fs::chown, &[Str, Int, Int], RInt),
    d(Sys::lchown32, fs::lchown, &[Str, Int, Int], RInt),
    d(Sys::fchown32, fs::fchown, &[Fd, Int, Int], RInt),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn args(r: [u64; 6]) -> SyscallArgs {
        SyscallArgs { a: r, ..SyscallArgs::default() }
    }

    fn walk(aligned: bool, big: bool, r: [u64; 6]) -> (u64, u64, u64) {
        let a = args(r);
        let mut c = ArgCursor { a: &a, next: 0, aligned, big };
        (c.word(), c.pair(), c.word())
    }

    #[test]
    fn pairs_follow_the_abi() {
        // arm EABI `pread64(fd, buf, count, off)`-like: fd in r0, pad r1, off in r2:r3.
        assert_eq!(walk(true, false, [3, 0xdead, 0x5678, 0x1234, 9, 0]), (3, 0x1234_0000_5678, 9));
        // i386: no alignment.
        assert_eq!(walk(false, false, [3, 0x5678, 0x1234, 9, 0, 0]), (3, 0x1234_0000_5678, 9));
        // A big-endian o32-like ABI: high word first.
        assert_eq!(walk(true, true, [3, 0, 0x1234, 0x5678, 9, 0]), (3, 0x1234_0000_5678, 9));
    }

    #[test]
    fn rows_are_unique_and_sized() {
        let mut seen = std::collections::HashSet::new();
        for d in DEFS {
            assert!(seen.insert(d.sys), "{} listed twice", d.sys.name());
            assert!(d.args.len() <= 6);
        }
    }
}
