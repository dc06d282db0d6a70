//! The old forms of calls that 32-bit libcs no longer make, and that old binaries and
//! hand-written assembly still do: `oldstat`/`oldlstat`/`oldfstat` (`struct
//! __old_kernel_stat`), `olduname`/`oldolduname`, `readdir` (one `struct old_linux_dirent`
//! per call), `waitpid`, and the signal calls of one-word masks: `signal`, `sigaction`
//! (`struct old_sigaction`), `sigpending`, `sigprocmask`, `sigsuspend`, `sgetmask`,
//! `ssetmask`.
//!
//! Which arch has which is its table's business: i386 numbers all of them, arm EABI the
//! `sig*` ones, s390x `signal` and the `sig*` ones (its 64-bit table leaves `readdir` to
//! `sys_ni_syscall`, so `readdir`'s row is a 32-bit one, in [`super::compat32::DEFS`]). The
//! structs are declared once in [`crate::abi::shapes`] (`OLD_KERNEL_STAT`, `OLD_SIGACTION`,
//! `OLD_LINUX_DIRENT`): their members are `unsigned long`s and `unsigned short`s, laid out by
//! the guest's data model.
//!
//! An `old_sigset_t` is one `unsigned long`: signals 1 to 32 on ILP32 guests, 1 to 64 on
//! s390x. Where the kernel replaces the whole mask from it (`sigsuspend`, `ssetmask`) the
//! signals above it are unblocked; `sigprocmask`'s `SIG_SETMASK` replaces only that word.
//!
//! Sources: kernel/signal.c (`sys_signal`, `sys_sigaction`, `sys_sigpending`,
//! `sys_sigprocmask`, the three-argument `sys_sigsuspend` of `CONFIG_OLD_SIGSUSPEND3`, which
//! x86, arm and s390 select, `sys_sgetmask`, `sys_ssetmask`), fs/stat.c (`cp_old_stat`),
//! kernel/sys.c (`sys_uname`, `sys_olduname`), fs/readdir.c (`old_readdir`), kernel/exit.c
//! (`sys_waitpid`); man pages signal(2), sigaction(2), sigprocmask(2), sigpending(2),
//! sigsuspend(2), sgetmask(2), stat(2), uname(2), readdir(2), waitpid(2).

use syscalls::Errno;

use super::misc::{utsname, UTS_LEN};
use super::signal::{do_sigaction, pending_set, set_blocked, suspend_with};
use super::{dircookie, host_ret, process, SysResult};
use crate::abi::shapes::{OLD_KERNEL_STAT, OLD_LINUX_DIRENT, OLD_SIGACTION};
use crate::abi::stat32::high2low;
use crate::abi::thunk;
use crate::guest::{Cpu, GuestArch, SyscallArgs};
use crate::mm::GuestAddr;
use crate::signal::{bit, sa, SigAction, Signal};

/// `old_sigset_t` bits (bit `n-1` for guest signal `n`) as a host-numbered mask.
fn old_set_to_host(arch: &dyn GuestArch, word: u64) -> u64 {
    (1..=64u64)
        .filter(|n| word >> (n - 1) & 1 != 0)
        .filter_map(|n| (arch.info().signal_to_host)(n))
        .fold(0, |m, s| m | bit(s))
}

/// A host-numbered mask as `old_sigset_t` bits in the guest's numbering (the caller keeps the
/// guest word's width).
fn old_set_from_host(arch: &dyn GuestArch, mask: u64) -> u64 {
    (1..=64u32)
        .filter(|n| mask >> (n - 1) & 1 != 0)
        .map(|n| (arch.info().signal_from_host)(Signal(n)))
        .filter(|g| (1..=64).contains(g))
        .fold(0, |m, g| m | 1 << (g - 1))
}

/// The bits of an `old_sigset_t`: the guest's word.
fn old_set_bits(arch: &dyn GuestArch) -> u64 {
    arch.info().word_mask()
}

/// A guest `int sig` argument as `do_sigaction` takes it (a negative one is no signal).
fn sig_arg(a: &SyscallArgs, n: usize) -> u64 {
    u64::try_from(a.int(n)).unwrap_or(0)
}

/// `sighandler_t signal(int sig, sighandler_t handler)`: installs `handler` with the flags
/// of System V's `signal` (`SA_RESETHAND | SA_NODEFER`, an empty mask) and returns the
/// previous handler. Errors: `EINVAL` (bad signal, SIGKILL, SIGSTOP).
pub fn signal(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let new = SigAction { handler: a.ulong(1), flags: sa::RESETHAND | sa::NODEFER, restorer: 0, mask: 0 };
    do_sigaction(cpu.get_data_mut(), sig_arg(a, 0), Some(new)).map(|old| old.handler)
}

/// `sigaction(int sig, const struct old_sigaction *act, struct old_sigaction *oact)`:
/// [`OLD_SIGACTION`], whose mask is one word; a new mask blocks only the signals that word
/// names. `act` is read first and `oact` written after the change, as in the kernel. Errors:
/// `EFAULT`, `EINVAL`.
pub fn sigaction(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (act, oact) = (a.ptr(1), a.ptr(2));
    let t = cpu.get_data_mut();
    let arch = t.arch;
    let new = if act.is_null() {
        None
    } else {
        let [handler, mask, flags, restorer]: [u64; 4] = t.mm.read_shape(act, OLD_SIGACTION)?;
        Some(SigAction { handler, flags, restorer, mask: old_set_to_host(arch, mask) })
    };
    let old = do_sigaction(t, sig_arg(a, 0), new)?;
    if !oact.is_null() {
        let mask = old_set_from_host(arch, old.mask) & old_set_bits(arch);
        t.mm.write_shape(oact, OLD_SIGACTION, &[old.handler, mask, old.flags, old.restorer])?;
    }
    Ok(0)
}

/// `sigpending(old_sigset_t *set)`: the first word of the pending set. Errors: `EFAULT`.
pub fn sigpending(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let word = old_set_from_host(t.arch, pending_set(t)) & old_set_bits(t.arch);
    t.mm.write_ulong(a.ptr(0), word)?;
    Ok(0)
}

/// `sigprocmask(int how, const old_sigset_t *set, old_sigset_t *oldset)`: `SIG_BLOCK` and
/// `SIG_UNBLOCK` add and remove the signals of `*set`; `SIG_SETMASK` replaces the first word of
/// the mask only (real-time signals above it stay as they were); `*oldset` gets the first word
/// from before. Errors: `EINVAL` (bad `how` with a `set`), `EFAULT`.
pub fn sigprocmask(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    const BLOCK: u64 = 0;
    const UNBLOCK: u64 = 1;
    const SETMASK: u64 = 2;
    let (set, oset) = (a.ptr(1), a.ptr(2));
    let t = cpu.get_data_mut();
    let arch = t.arch;
    let bits = old_set_bits(arch);
    let old = t.sig.mask;
    if !set.is_null() {
        let new = old_set_to_host(arch, t.mm.read_ulong(set)?);
        let mask = match (arch.info().sigmask_how_to_generic)(u64::from(a.uint(0))) {
            BLOCK => old | new,
            UNBLOCK => old & !new,
            SETMASK => (old & !old_set_to_host(arch, bits)) | new,
            _ => return Err(Errno::EINVAL),
        };
        set_blocked(t, mask & !(bit(Signal::SIGKILL) | bit(Signal::SIGSTOP)))?;
    }
    if !oset.is_null() {
        t.mm.write_ulong(oset, old_set_from_host(arch, old) & bits)?;
    }
    Ok(0)
}

/// `sigsuspend(int unused1, int unused2, old_sigset_t mask)`: the three-argument form
/// (`CONFIG_OLD_SIGSUSPEND3`) that i386, arm and s390 have; waits with the mask set to the
/// signals `mask` names (every other signal unblocked) until a handler runs. Always `EINTR`.
pub fn sigsuspend(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let new = old_set_to_host(t.arch, a.ulong(2));
    suspend_with(t, new)
}

/// `long sgetmask(void)`: the first word of the blocked mask.
pub fn sgetmask(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    Ok(old_set_from_host(t.arch, t.sig.mask) & old_set_bits(t.arch))
}

/// `long ssetmask(long newmask)`: the blocked mask becomes `newmask` (less SIGKILL and
/// SIGSTOP), and the first word of the old one is returned. The `int` is widened to the
/// kernel's 64-bit word with its sign, as the x86_64 kernel serving an i386 task does, so a
/// negative mask also blocks signals 33 to 64 (a 32-bit kernel would unblock them).
pub fn ssetmask(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let old = old_set_from_host(t.arch, t.sig.mask) & old_set_bits(t.arch);
    let new = old_set_to_host(t.arch, crate::abi::bits64(a.int(0)));
    set_blocked(t, new & !(bit(Signal::SIGKILL) | bit(Signal::SIGSTOP)))?;
    Ok(old)
}

/// `waitpid(pid_t pid, int *status, int options)`: `wait4` without a `struct rusage`.
pub fn waitpid(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::wait4(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), 0, 0, 0]))
}

/// Writes a host `stat` as `struct __old_kernel_stat` ([`OLD_KERNEL_STAT`]), as the kernel's
/// `cp_old_stat` fills it: the device numbers in the old 8:8 encoding, ids above 65535 as
/// 65534. Errors: `EOVERFLOW` for an inode number or link count above 65535, or (32-bit
/// guests, as a 32-bit kernel checks) a size above 2 GiB - 1; `EFAULT`.
fn put_old_stat(cpu: &mut Cpu<'_>, buf: GuestAddr, st: &libc::stat) -> SysResult {
    let mut faked = *st;
    super::fakeroot::stat(&mut faked);
    super::procfs::own_fd_dir_size(faked.st_dev, faked.st_ino, faked.st_mode, &mut faked.st_size);
    let st = &faked;
    let old_dev = |d: u64| (u64::from(libc::major(d)) << 8 | u64::from(libc::minor(d))) & 0xffff;
    let ino = u16::try_from(st.st_ino).map_err(|_| Errno::EOVERFLOW)?;
    let nlink = u16::try_from(st.st_nlink).map_err(|_| Errno::EOVERFLOW)?;
    let size = u64::try_from(st.st_size).unwrap_or(0);
    let mm = &mut cpu.get_data_mut().mm;
    if mm.long_bytes() == 4 && size > 0x7fff_ffff {
        return Err(Errno::EOVERFLOW);
    }
    let vals = [
        old_dev(st.st_dev),
        u64::from(ino),
        u64::from(st.st_mode & 0xffff),
        u64::from(nlink),
        u64::from(high2low(st.st_uid)),
        u64::from(high2low(st.st_gid)),
        old_dev(st.st_rdev),
        size,
        crate::abi::bits64(st.st_atime),
        crate::abi::bits64(st.st_mtime),
        crate::abi::bits64(st.st_ctime),
    ];
    let mut out = vec![0u8; thunk::size_of(OLD_KERNEL_STAT, mm.model())];
    thunk::from_values(OLD_KERNEL_STAT, mm.model(), &vals, &mut out);
    mm.write_bytes(buf, &out)?;
    Ok(0)
}

fn old_stat_at(cpu: &mut Cpu<'_>, a: &SyscallArgs, flags: i32) -> SysResult {
    let path = super::path::host_path_at(cpu.get_data(), libc::AT_FDCWD, a.ptr(0), flags)?;
    // SAFETY: `struct stat` is plain old data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: NUL-terminated path, local out struct.
    host_ret(i64::from(unsafe { libc::fstatat(libc::AT_FDCWD, path.as_ptr(), &mut st, flags) }))?;
    drop(path);
    put_old_stat(cpu, a.ptr(1), &st)
}

/// `oldstat(const char *path, struct __old_kernel_stat *buf)` (i386's `stat` of Linux 1.x).
/// Errors: `EOVERFLOW` (see `put_old_stat`), `EFAULT`, the host's.
pub fn oldstat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    old_stat_at(cpu, a, 0)
}

/// `oldlstat(const char *path, struct __old_kernel_stat *buf)`: does not follow a final
/// symlink.
pub fn oldlstat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    old_stat_at(cpu, a, libc::AT_SYMLINK_NOFOLLOW)
}

/// `oldfstat(unsigned int fd, struct __old_kernel_stat *buf)`.
pub fn oldfstat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: `struct stat` is plain old data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::fstat(a.int(0), &mut st) }))?;
    put_old_stat(cpu, a.ptr(1), &st)
}

/// `olduname(struct old_utsname *buf)` (the kernel's `sys_uname`, i386's number 109): the
/// first five fields of `uname`'s answer (no `domainname`), 65 bytes each. Errors: `EFAULT`.
pub fn olduname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let f = utsname(cpu.get_data())?;
    cpu.get_data_mut().mm.write_bytes(a.ptr(0), f[..5].as_flattened())?;
    Ok(0)
}

/// Length of each field of `struct oldold_utsname` without its NUL (`__OLD_UTS_LEN`).
const OLD_UTS_LEN: usize = 8;

/// `oldolduname(struct oldold_utsname *buf)` (the kernel's `sys_olduname`, i386's number 59):
/// five 9-byte fields, each the first 8 bytes of `uname`'s field and a NUL. Errors: `EFAULT`.
pub fn oldolduname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let f = utsname(cpu.get_data())?;
    let mut out = [0u8; 5 * (OLD_UTS_LEN + 1)];
    for (o, field) in out.chunks_exact_mut(OLD_UTS_LEN + 1).zip(&f) {
        o[..OLD_UTS_LEN].copy_from_slice(&field[..OLD_UTS_LEN]);
    }
    const _: () = assert!(OLD_UTS_LEN < UTS_LEN);
    cpu.get_data_mut().mm.write_bytes(a.ptr(0), &out)?;
    Ok(0)
}

/// The first record of a host `linux_dirent64` buffer: inode, `d_off` (the position after
/// it), record length, name.
fn first_dirent64(b: &[u8]) -> Option<(u64, u64, usize, &[u8])> {
    let ino = u64::from_ne_bytes(b.get(0..8)?.try_into().ok()?);
    let off = u64::from_ne_bytes(b.get(8..16)?.try_into().ok()?);
    let reclen = usize::from(u16::from_ne_bytes(b.get(16..18)?.try_into().ok()?));
    let area = b.get(19..reclen)?;
    let name = &area[..area.iter().position(|&c| c == 0).unwrap_or(area.len())];
    Some((ino, off, reclen, name))
}

/// Room for one host `linux_dirent64` of the longest name (19 bytes of header, 255 of name, a
/// NUL, padded to 8) and more.
const ONE_DIRENT: usize = 512;

/// `readdir(unsigned int fd, struct old_linux_dirent *dirent, unsigned int count)`
/// (readdir(2)): reads one entry into [`OLD_LINUX_DIRENT`] and its name (NUL-terminated),
/// returns 1, or 0 at the end of the directory; `count` is ignored. `d_offset` is the entry's
/// own position, the directory's offset before the call (as a [`dircookie`]; a hashing file
/// system reports the first entry's hash there, endgate its start, 0, which leads back to the
/// same entry). The directory's offset then moves past the entry only. Errors: `EOVERFLOW`
/// (an inode number wider than the guest's `unsigned long`), `EFAULT` (the entry stays
/// unread), `EBADF`, `ENOTDIR`.
pub fn readdir(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (fd, dirent) = (a.int(0), a.ptr(1));
    // SAFETY: integer arguments.
    let pos = host_ret(unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) })?;
    let mut buf = vec![0u8; ONE_DIRENT];
    // SAFETY: a local buffer of `ONE_DIRENT` bytes.
    let n = host_ret(unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), ONE_DIRENT) })?;
    let Some((ino, next, reclen, name)) = first_dirent64(&buf[..usize::try_from(n).unwrap_or(0)]) else {
        return Ok(0);
    };
    let t = cpu.get_data_mut();
    let model = t.mm.model();
    let r = if model.long_bytes == 4 && u32::try_from(ino).is_err() {
        Err(Errno::EOVERFLOW)
    } else {
        let d_off = if model.long_bytes == 4 { dircookie::to_guest(fd, pos) } else { pos };
        let mut out = vec![0u8; thunk::size_of(OLD_LINUX_DIRENT, model)];
        let namlen = u16::try_from(name.len()).unwrap_or(u16::MAX);
        thunk::from_values(OLD_LINUX_DIRENT, model, &[ino, d_off, u64::from(namlen)], &mut out);
        // The kernel writes the members and the name with its NUL, not the struct's padding.
        out.truncate(2 * usize::from(model.long_bytes) + 2);
        out.extend_from_slice(name);
        out.push(0);
        t.mm.write_bytes(dirent, &out)
    };
    // The entry is consumed only when it was written; otherwise the next call reads it again.
    let to = if r.is_ok() { next } else { pos };
    if r.is_err() || usize::try_from(n).is_ok_and(|n| n > reclen) {
        // SAFETY: integer arguments; `to` is a position the host gave for this directory.
        unsafe { libc::lseek(fd, crate::abi::signed64(to), libc::SEEK_SET) };
    }
    r.map(|()| 1)
}
