//! The file system: opening, the `stat` family, directories, links, permissions, times, sizes,
//! the working directory, `statfs` and `umask`.
//!
//! Paths go through [`super::path`] (sysroot, `/proc/self/exe`). Calls with an `*at` form are
//! served by it; the older x86_64 forms (`open`, `stat`, `mkdir`…) call the `*at` handler with
//! `AT_FDCWD`, as the kernel does. Open flags are converted from the guest arch's values.

use std::ffi::CString;

use syscalls::Errno;

use super::path::{host_path, host_path_at, host_path_in, host_path_opt, is_proc_self_exe, Last};
use super::unlocked::Ctx;
use super::{as_int, host_ret, SysResult};
use crate::abi::shapes::{STATX, TIMESPEC, TIMESPEC64};
use crate::abi::thunk::{Plain, Shape};
use crate::guest::Task;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{Endian, GuestAddr, PATH_MAX};

#[allow(clippy::cast_sign_loss)] // AT_FDCWD's 32 bits, as a guest register holds the `int`
const AT_FDCWD: u64 = libc::AT_FDCWD as u32 as u64;

/// The same call with `AT_FDCWD` inserted as the first argument (for `open` -> `openat`…).
fn at_cwd(a: &SyscallArgs) -> SyscallArgs {
    a.with([AT_FDCWD, a.raw(0), a.raw(1), a.raw(2), a.raw(3), a.raw(4)])
}

/// `openat(int dirfd, const char *path, int flags, mode_t mode)` (open(2)). Errors: `EFAULT`,
/// `ENAMETOOLONG`, the host's.
pub fn openat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let raw = t.mm.read_cstr(a.ptr(1), PATH_MAX)?;
    let flags = (t.arch.info().open_flags_to_host)(a.raw(2));
    if let Some(f) = super::procfs::lookup_at(a.int(0), &raw)
        .filter(|&f| super::procfs::serves(t, f) && super::procfs::visible(t, a.int(0), &raw, f))
    {
        return super::procfs::open(t, f, flags & libc::O_CLOEXEC != 0).map(|fd| u64::from(fd.unsigned_abs()));
    }
    let last = super::path::open_last(flags, flags & libc::O_NOFOLLOW != 0);
    let fd = super::rootfs::spare_fds(|| {
        let path = super::path::lookup(cpu.get_data(), a.int(0), raw.clone(), last)?;
        if path.resolved().is_some_and(super::rootfs::host_memory) {
            return Err(Errno::EACCES);
        }
        // A name the `--root` lookup found missing is created as itself, never through a
        // link that appeared since.
        let flags = if path.pin_last() { flags | libc::O_NOFOLLOW } else { flags };
        let (dirfd, name) = path.at(a.int(0));
        // Opening a FIFO waits for its other end.
        host_ret(super::blocking_syscall(
            cpu.get_data_mut(),
            libc::SYS_openat,
            &[
                crate::abi::bits64(dirfd),
                name.as_ptr() as u64,
                u64::from_ne_bytes(i64::from(flags).to_ne_bytes()),
                u64::from(a.uint(3)),
            ],
        ))
    })?;
    let fd = super::rootfs::lowest(fd)?;
    if flags & libc::O_TRUNC != 0 {
        truncated(cpu, c"", i32::try_from(fd).unwrap_or(-1), 0);
    }
    Ok(fd)
}

/// [`openat`] without the global guest lock ([`super::unlocked`]): a path the view reads whole,
/// that names no file endgate answers itself ([`super::procfs::lookup_at`],
/// [`super::path::lookup_unlocked`]); `O_TRUNC` is left to [`openat`] (mappings of the file
/// may end).
pub fn openat_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let raw = ctx.view?.read_cstr(a.raw(1), PATH_MAX)?;
    let flags = (ctx.arch.info().open_flags_to_host)(a.raw(2));
    if flags & libc::O_TRUNC != 0 || super::procfs::lookup_at(a.int(0), &raw).is_some() {
        return None;
    }
    let last = super::path::open_last(flags, flags & libc::O_NOFOLLOW != 0);
    let path = super::path::lookup_unlocked(ctx.opts, raw, last)?;
    // Opening a FIFO waits for its other end.
    let r = ctx.blocking_syscall(
        libc::SYS_openat,
        &[a.int_arg(0), path.as_ptr() as u64, u64::from_ne_bytes(i64::from(flags).to_ne_bytes()), u64::from(a.uint(3))],
    );
    Some(host_ret(r))
}

/// `struct open_how` (include/uapi/linux/openat2.h): `__u64 flags, mode, resolve`; the
/// sizes the kernel knows (`OPEN_HOW_SIZE_VER0`).
const OPEN_HOW_SIZE: u64 = 24;
/// `RESOLVE_IN_ROOT`: `path` is resolved as if `dirfd` were the root, so the sysroot does not
/// apply to it.
const RESOLVE_IN_ROOT: u64 = 0x10;
/// `RESOLVE_NO_MAGICLINKS` 0x02 and `RESOLVE_NO_SYMLINKS` 0x04: no `/proc/self/exe` followed.
const RESOLVE_NO_LINKS: u64 = 0x02 | 0x04;
/// `RESOLVE_BENEATH`: `path` may not leave `dirfd`.
const RESOLVE_BENEATH: u64 = 0x08;

/// `openat2(int dirfd, const char *path, struct open_how *how, size_t size)` (openat2(2)):
/// `openat` with the flags, mode and `RESOLVE_*` restrictions in a struct (read in the guest's
/// byte order; the flags in the arch's numbering). Errors: `EINVAL` (size below 24, unknown
/// flag bits), `E2BIG` (unknown trailing members set, or size above a page), `EFAULT`, the
/// host's (`EXDEV`, `ELOOP`, `EAGAIN` for the `RESOLVE_*` checks).
pub fn openat2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let size = a.ulong(3);
    if size < OPEN_HOW_SIZE {
        return Err(Errno::EINVAL);
    }
    if size > crate::mm::PAGE_SIZE {
        return Err(Errno::E2BIG);
    }
    let how = t.mm.read_vec(a.ptr(2), crate::abi::u64_to_usize(size))?;
    if how[crate::abi::u64_to_usize(OPEN_HOW_SIZE)..].iter().any(|&b| b != 0) {
        return Err(Errno::E2BIG);
    }
    let word = |i: usize| {
        let b: [u8; 8] = how[i * 8..i * 8 + 8].try_into().expect("8 bytes");
        if t.mm.endian() == crate::mm::Endian::Big {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        }
    };
    let (flags, mode, resolve) = (word(0), word(1), word(2));
    if flags >> 32 != 0 {
        return Err(Errno::EINVAL);
    }
    let host_flags = (t.arch.info().open_flags_to_host)(flags);
    // fs/open.c `build_open_flags`, before any lookup: a mode only with a file to create (and
    // only permission bits), known `RESOLVE_*` bits, one scope at most.
    let creates = host_flags & libc::O_CREAT != 0 || host_flags & libc::O_TMPFILE == libc::O_TMPFILE;
    if (creates && mode & !0o7777 != 0) || (!creates && mode != 0) {
        return Err(Errno::EINVAL);
    }
    if resolve & !0x3f != 0 || resolve & (RESOLVE_IN_ROOT | RESOLVE_BENEATH) == RESOLVE_IN_ROOT | RESOLVE_BENEATH {
        return Err(Errno::EINVAL);
    }
    // `RESOLVE_NO_XDEV` (1) and `RESOLVE_NO_MAGICLINKS` (2) for endgate's own walk under `--root`.
    let rules = |scope| super::rootfs::Rules { scope, no_magic: resolve & 0x02 != 0, no_xdev: resolve & 0x01 != 0 };
    let mut host_how = [u64::from(crate::abi::low32(host_flags)), mode, resolve];
    let raw = t.mm.read_cstr(a.ptr(1), PATH_MAX)?;
    let confined = resolve & (RESOLVE_IN_ROOT | RESOLVE_BENEATH) != 0;
    let path = if confined && super::rootfs::active() {
        // Under `--root` endgate walks the scope itself, so that bind points inside it are
        // crossed (the host's scoped lookup of DIR's directories would not see them); the host
        // then opens the last name in the directory found, unscoped.
        let scope =
            if resolve & RESOLVE_IN_ROOT != 0 { super::rootfs::Scope::InRoot } else { super::rootfs::Scope::Beneath };
        let no_follow = host_flags & libc::O_NOFOLLOW != 0 || resolve & 0x04 != 0;
        let last = match super::path::open_last(host_flags, no_follow) {
            super::path::Last::Follow => super::path::Last::FollowName,
            l => l,
        };
        host_how[2] &= !(RESOLVE_IN_ROOT | RESOLVE_BENEATH);
        super::path::lookup_scoped(a.int(0), &raw, last, resolve & 0x04 != 0, rules(Some(scope)))?
    } else if confined {
        super::path::HostPath::from(CString::new(raw).map_err(|_| Errno::EINVAL)?)
    } else {
        // Without `--root`, `/proc/self/exe` stays the host's link under either; under it,
        // `RESOLVE_NO_SYMLINKS` (4) refuses the last link too, and `RESOLVE_NO_MAGICLINKS`
        // only /proc's links, which the lookup answers below.
        let no_links = if super::rootfs::active() { 0x04 } else { RESOLVE_NO_LINKS };
        let no_follow = host_flags & libc::O_NOFOLLOW != 0 || resolve & no_links != 0;
        let magic = || super::path::proc_absolute_at(a.int(0), &raw).is_some_and(|p| is_proc_self_exe(&p));
        if super::rootfs::active() && resolve & 0x02 != 0 && !no_follow && magic() {
            return Err(Errno::ELOOP);
        }
        let last = match super::path::open_last(host_flags, no_follow) {
            // The `RESOLVE_*` checks must not meet the `/proc/self/fd/N` link of the object.
            super::path::Last::Follow if resolve != 0 => super::path::Last::FollowName,
            l => l,
        };
        // `RESOLVE_NO_SYMLINKS` (4) refuses a link anywhere on the way.
        super::path::lookup_rules(t, a.int(0), raw, last, resolve & 0x04 != 0, rules(None))?
    };
    if path.resolved().is_some_and(super::rootfs::host_memory) {
        return Err(Errno::EACCES);
    }
    if resolve & 0x02 != 0 && path.resolved().is_some_and(|r| r.host_follows) && host_flags & libc::O_NOFOLLOW == 0 {
        // A /proc link the host would follow: `RESOLVE_NO_MAGICLINKS` refuses it.
        return Err(Errno::ELOOP);
    }
    let (dirfd, name) = path.at(a.int(0));
    let host_how = if path.pin_last() {
        [host_how[0] | u64::from(crate::abi::low32(libc::O_NOFOLLOW)), host_how[1], host_how[2]]
    } else {
        host_how
    };
    let fd = host_ret(super::blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_openat2,
        &[crate::abi::bits64(dirfd), name.as_ptr() as u64, host_how.as_ptr() as u64, OPEN_HOW_SIZE],
    ))?;
    drop(path);
    super::rootfs::lowest(fd)
}

/// `open(const char *path, int flags, mode_t mode)` (x86_64).
pub fn open(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    openat(cpu, &at_cwd(a))
}

/// `creat(const char *path, mode_t mode)` (x86_64): `open(path, O_CREAT|O_WRONLY|O_TRUNC, mode)`.
pub fn creat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = (libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC) as u64;
    let guest_flags = (cpu.get_data().arch.info().open_flags_from_host)(crate::abi::int32(flags));
    openat(cpu, &a.with([AT_FDCWD, a.raw(0), guest_flags, a.raw(1), 0, 0]))
}

fn zeroed_stat() -> libc::stat {
    // SAFETY: `struct stat` is plain old data; all-zero is a valid value.
    unsafe { std::mem::zeroed() }
}

/// `newfstatat(int dirfd, const char *path, struct stat *buf, int flags)` (stat(2)); the
/// result is written in the guest arch's `struct stat` layout.
pub fn newfstatat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let path = super::path::host_path_stat(t, a.int(0), a.ptr(1), a.int(3))?;
    let mut st = zeroed_stat();
    // SAFETY: NUL-terminated path, local out struct.
    host_ret(i64::from(unsafe { libc::fstatat(a.int(0), path.as_ptr(), &mut st, a.int(3)) }))?;
    // The lookup's descriptors (under `--root`) close before /proc/self/fd is counted.
    drop(path);
    super::fakeroot::stat(&mut st);
    super::procfs::own_fd_dir_size(st.st_dev, st.st_ino, st.st_mode, &mut st.st_size);
    let arch = t.arch;
    (arch.info().write_stat)(&mut *t.mm, a.ptr(2), &st)?;
    Ok(0)
}

/// [`newfstatat`] without the global guest lock ([`super::unlocked`]): a path the view reads
/// whole and [`super::path::lookup_unlocked`] maps, a buffer in one plain writable span.
pub fn newfstatat_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let raw = ctx.view?.read_cstr(a.raw(1), PATH_MAX)?;
    let path = super::path::lookup_unlocked(ctx.opts, raw, super::path::last_of(a.int(3)))?;
    let mut st = zeroed_stat();
    // SAFETY: NUL-terminated path, local out struct.
    if let Err(e) = host_ret(i64::from(unsafe { libc::fstatat(a.int(0), path.as_ptr(), &mut st, a.int(3)) })) {
        return Some(Err(e));
    }
    stat_out_unlocked(ctx, a.ptr(2), st)
}

/// [`fstat`] without the global guest lock: a buffer in one plain writable span of the view.
pub fn fstat_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let mut st = zeroed_stat();
    // SAFETY: local out struct.
    if let Err(e) = host_ret(i64::from(unsafe { libc::fstat(a.int(0), &mut st) })) {
        return Some(Err(e));
    }
    stat_out_unlocked(ctx, a.ptr(1), st)
}

/// The end of the unlocked `stat` calls: `st` as [`fstat`] adjusts it, in the arch's layout,
/// stored at `addr` through the view; `None` (serve the call again under the lock, which
/// finds the fault) if the view cannot take it.
fn stat_out_unlocked(ctx: &Ctx<'_>, addr: GuestAddr, mut st: libc::stat) -> Option<SysResult> {
    let view = ctx.view?;
    super::procfs::own_fd_dir_size(st.st_dev, st.st_ino, st.st_mode, &mut st.st_size);
    let mut staged = crate::mm::Staged::default();
    if let Err(e) = (ctx.arch.info().write_stat)(&mut staged, addr, &st) {
        return Some(Err(e));
    }
    for (at, bytes) in &staged.writes {
        view.write_bytes(at.get(), bytes)?;
    }
    Some(Ok(0))
}

/// `fstat(int fd, struct stat *buf)` (stat(2)).
pub fn fstat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let mut st = zeroed_stat();
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::fstat(a.int(0), &mut st) }))?;
    super::fakeroot::stat(&mut st);
    super::procfs::own_fd_dir_size(st.st_dev, st.st_ino, st.st_mode, &mut st.st_size);
    let arch = t.arch;
    (arch.info().write_stat)(&mut *t.mm, a.ptr(1), &st)?;
    Ok(0)
}

/// `stat(const char *path, struct stat *buf)` (x86_64).
pub fn stat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    newfstatat(cpu, &a.with([AT_FDCWD, a.raw(0), a.raw(1), 0, 0, 0]))
}

/// `lstat(const char *path, struct stat *buf)` (x86_64).
pub fn lstat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    newfstatat(cpu, &a.with([AT_FDCWD, a.raw(0), a.raw(1), libc::AT_SYMLINK_NOFOLLOW as u64, 0, 0]))
}

/// `statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *buf)` (statx(2)).
/// The layout is the same on every arch ([`STATX`]); only byte order differs.
pub fn statx(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let path = super::path::host_path_stat(t, a.int(0), a.ptr(1), a.int(2))?;
    t.mm.check_writable(a.ptr(4), 256)?;
    let mut stx = libc::statx::zeroed();
    // SAFETY: NUL-terminated path; a local statx.
    host_ret(unsafe { libc::syscall(libc::SYS_statx, a.int(0), path.as_ptr(), a.int(2), a.uint(3), &mut stx) })?;
    drop(path);
    super::fakeroot::statx(&mut stx);
    own_fd_dir_statx(&mut stx);
    t.mm.write_shape(a.ptr(4), STATX, &stx)?;
    Ok(0)
}

/// [`statx`] without the global guest lock ([`super::unlocked`]): a buffer in one plain
/// writable span of the view (looked at first, as [`statx`] does), a path the view reads
/// whole and [`super::path::lookup_unlocked`] maps. glibc's `fstat` and `stat` are `statx`
/// on arm, i386 and mips64el.
pub fn statx_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let view = ctx.view?;
    view.host_range(a.raw(4), 256, crate::mm::Prot::WRITE)?;
    let raw = view.read_cstr(a.raw(1), PATH_MAX)?;
    let path = super::path::lookup_unlocked(ctx.opts, raw, super::path::last_of(a.int(2)))?;
    let mut stx = libc::statx::zeroed();
    // SAFETY: NUL-terminated path; a local statx.
    let r = unsafe { libc::syscall(libc::SYS_statx, a.int(0), path.as_ptr(), a.int(2), a.uint(3), &mut stx) };
    if let Err(e) = host_ret(r) {
        return Some(Err(e));
    }
    own_fd_dir_statx(&mut stx);
    let model = view.model();
    let mut out = [0u8; 256];
    let size = crate::abi::thunk::size_of(STATX, model);
    // SAFETY: `struct statx` is integers only.
    crate::abi::thunk::convert(
        STATX,
        crate::abi::DataModel::HOST,
        unsafe { crate::abi::thunk::host_bytes(&stx) },
        model,
        &mut out,
    );
    view.write_bytes(a.raw(4), &out[..size])?;
    Some(Ok(0))
}

/// `stx_size` of endgate's own `/proc/self/fd` directory as the guest counts it
/// ([`super::procfs::own_fd_dir_size`]).
fn own_fd_dir_statx(stx: &mut libc::statx) {
    if stx.stx_mask & libc::STATX_SIZE != 0 {
        let mut size = i64::try_from(stx.stx_size).unwrap_or(i64::MAX);
        let dev = libc::makedev(stx.stx_dev_major, stx.stx_dev_minor);
        super::procfs::own_fd_dir_size(dev, stx.stx_ino, u32::from(stx.stx_mode), &mut size);
        stx.stx_size = u64::try_from(size).unwrap_or(0);
    }
}

/// [`getdents64`] without the global guest lock ([`super::unlocked`]): a guest of the host's
/// byte order (the records pass as the kernel writes them) whose whole buffer lies in one
/// plain writable span of the thread's view; endgate's own entries taken out as under the
/// lock. `None` otherwise (served under the lock).
pub fn getdents64_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let view = ctx.view.filter(|v| v.model().endian == Endian::HOST)?;
    let want = a.raw(2) & 0xffff_ffff;
    let p = view.host_range(a.raw(1), want, crate::mm::Prot::WRITE)?;
    // SAFETY: `want` guest-writable bytes (the view checked them; this thread counts as
    // running guest code, so no change takes them away meanwhile).
    Some(unsafe { read_dents64(a.int(0), p, want) })
}

/// The host's `getdents64` of `fd` into the `count` bytes at `p`, endgate's own entries taken
/// out ([`super::procfs::hide_own_entries`]); a read whose every record was endgate's is read
/// again, since 0 would be the end. Returns the bytes kept.
///
/// # Safety
/// `p` addresses `count` bytes the host may write.
unsafe fn read_dents64(fd: i32, p: *mut u8, count: u64) -> SysResult {
    loop {
        // SAFETY: the caller's.
        let n = host_ret(unsafe { libc::syscall(libc::SYS_getdents64, fd, p, count) })?;
        // SAFETY: the host wrote `n` bytes of records there.
        let records = unsafe { std::slice::from_raw_parts_mut(p, usize::try_from(n).unwrap_or(0)) };
        let kept = super::procfs::hide_own_entries(fd, records, 19);
        if kept > 0 || n == 0 {
            return Ok(kept);
        }
    }
}

/// `getdents64(int fd, struct linux_dirent64 *dirp, unsigned count)` (getdents(2)): the record
/// layout is the same on every arch (`u64 d_ino`, `s64 d_off`, `u16 d_reclen`, `u8 d_type`,
/// name); on a big-endian guest the three integers of each record are swapped in place. A
/// buffer that runs off the guest's writable memory gets the records that fit before it (as
/// the kernel stops at the first record whose copy faults); `EFAULT` if none fits (also where
/// `count` itself is below the first record's size, which Linux answers with `EINVAL`).
pub fn getdents64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let want = a.raw(2) & 0xffff_ffff;
    let (p, count) = t.buf_out_partial(a.ptr(1), want)?;
    // SAFETY: `count` guest-writable bytes.
    let n = match unsafe { read_dents64(a.int(0), p, count) } {
        // The writable part holds no whole record: the kernel's copy of the first one faults.
        Err(Errno::EINVAL) if count < want => return Err(Errno::EFAULT),
        r => r?,
    };
    if t.mm.endian() != Endian::HOST {
        let mut off = 0u64;
        while off + 19 <= n {
            let at = a.ptr(1) + off;
            let mut head = [0u8; 18];
            t.mm.read_bytes(at, &mut head)?;
            let reclen = u16::from_ne_bytes([head[16], head[17]]);
            let ino = u64::from_ne_bytes(head[0..8].try_into().unwrap_or_default());
            let d_off = u64::from_ne_bytes(head[8..16].try_into().unwrap_or_default());
            t.mm.write_u64(at, ino)?;
            t.mm.write_u64(at + 8, d_off)?;
            t.mm.write_u16(at + 16, reclen)?;
            if reclen == 0 {
                break;
            }
            off += u64::from(reclen);
        }
    }
    Ok(n)
}

/// `getdents(int fd, struct linux_dirent *dirp, unsigned count)` (x86_64, whose layout the host
/// shares).
pub fn getdents(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let p = cpu.get_data_mut().buf_out(a.ptr(1), a.raw(2) & 0xffff_ffff)?;
    loop {
        // SAFETY: `count` guest-writable bytes.
        let n = host_ret(unsafe { libc::syscall(libc::SYS_getdents, a.int(0), p, a.uint(2)) })?;
        // SAFETY: the host wrote `n` bytes of records there.
        let kept = super::procfs::hide_own_entries(
            a.int(0),
            unsafe { std::slice::from_raw_parts_mut(p, usize::try_from(n).unwrap_or(0)) },
            18,
        );
        // A read whose every record is endgate's own is read again: 0 would be the end.
        if kept > 0 || n == 0 {
            return Ok(kept);
        }
    }
}

/// `readlinkat(int dirfd, const char *path, char *buf, size_t size)` (readlink(2)).
/// `/proc/self/exe` reads as the guest program's absolute path. Errors: `EINVAL` for a size
/// of 0 or one the kernel's `int bufsiz` reads as negative, `EFAULT`, the host's.
pub fn readlinkat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let Ok(size @ 1..) = usize::try_from(a.int(3)) else {
        return Err(Errno::EINVAL);
    };
    let raw = t.mm.read_cstr(a.ptr(1), PATH_MAX)?;
    if super::path::proc_absolute_at(a.int(0), &raw).is_some_and(|p| is_proc_self_exe(&p)) {
        let host = t.exe.host_path.as_os_str().as_encoded_bytes();
        let exe = if super::rootfs::active() { super::rootfs::guest_view(host) } else { None };
        let exe = exe.unwrap_or_else(|| host.to_vec());
        let n = exe.len().min(size);
        t.mm.write_bytes(a.ptr(2), &exe[..n])?;
        return Ok(n as u64);
    }
    let path = super::path::lookup(t, a.int(0), raw, Last::NoFollow)?;
    // Under `--root`, a `/proc` link to a host path (`cwd`, `root`, `fd/N`) reads as the
    // guest sees that place: the host's text is read here and only the guest's reaches the
    // buffer, cut to its size.
    if let Some(res) = path.resolved().filter(|r| r.guest.first().is_some_and(|c| c == b"proc")) {
        let mut text = vec![0u8; 4096];
        // SAFETY: NUL-terminated path; a local buffer of its length.
        let n = host_ret(
            unsafe { libc::readlinkat(a.int(0), path.as_ptr(), text.as_mut_ptr().cast(), text.len()) } as i64
        )?;
        text.truncate(crate::abi::u64_to_usize(n));
        let name = res.guest.last().map(Vec::as_slice);
        let seen = if name == Some(b"root") { Some(b"/".to_vec()) } else { super::rootfs::guest_view(&text) };
        let v = seen.filter(|_| text.first() == Some(&b'/')).unwrap_or(text);
        let m = v.len().min(size);
        t.mm.write_bytes(a.ptr(2), &v[..m])?;
        return Ok(m as u64);
    }
    // Linux copies only the link's bytes: a buffer whose size runs past the guest's writable
    // memory is fine when the link fits before it.
    let b = t.buf_out_lazy(a.ptr(2), size as u64)?;
    // SAFETY: NUL-terminated path; `len` bytes: guest-writable ones, or a host copy and guard.
    let r =
        host_ret(
            unsafe { libc::readlinkat(a.int(0), path.as_ptr(), b.ptr().cast(), crate::abi::u64_to_usize(b.len())) }
                as i64,
        );
    b.finish(t);
    r
}

/// `readlink(const char *path, char *buf, size_t size)` (x86_64).
pub fn readlink(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    readlinkat(cpu, &at_cwd(a))
}

/// [`readlinkat`] without the global guest lock ([`super::unlocked`]): a path that is no
/// `/proc/self/exe` (and no `--root`, [`super::path::lookup_unlocked`]), the link's text read
/// into a local buffer, then stored through the thread's view. `None` (served under the lock,
/// which finds the fault) when the view cannot take the path's or the text's bytes.
pub fn readlinkat_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let Ok(size @ 1..) = usize::try_from(a.int(3)) else {
        return Some(Err(Errno::EINVAL));
    };
    let view = ctx.view?;
    let raw = view.read_cstr(a.raw(1), PATH_MAX)?;
    if super::path::proc_absolute_at(a.int(0), &raw).is_some_and(|p| is_proc_self_exe(&p)) {
        return None;
    }
    let path = super::path::lookup_unlocked(ctx.opts, raw, Last::NoFollow)?;
    // A link's text is at most PATH_MAX - 1 bytes (the kernel's own limit).
    let mut text = [0u8; PATH_MAX];
    let want = size.min(text.len());
    // SAFETY: NUL-terminated path; a local buffer of `want` bytes.
    let r = host_ret(unsafe { libc::readlinkat(a.int(0), path.as_ptr(), text.as_mut_ptr().cast(), want) } as i64);
    let n = match r {
        Ok(n) => n,
        Err(e) => return Some(Err(e)),
    };
    // Only the link's bytes are stored, as Linux copies them.
    view.write_bytes(a.raw(2), text.get(..crate::abi::u64_to_usize(n))?)?;
    Some(Ok(n))
}

/// [`readlink`] without the global guest lock: [`readlinkat_unlocked`] from the working
/// directory.
pub fn readlink_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    readlinkat_unlocked(ctx, &at_cwd(a))
}

/// `faccessat(int dirfd, const char *path, int mode)` (access(2); the kernel call has no flags).
pub fn faccessat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    faccessat2(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), 0, 0, 0]))
}

/// `faccessat2(int dirfd, const char *path, int mode, int flags)` (access(2)).
pub fn faccessat2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path_at(cpu.get_data(), a.int(0), a.ptr(1), a.int(3))?;
    // SAFETY: NUL-terminated path.
    host_ret(unsafe { libc::syscall(libc::SYS_faccessat2, a.int(0), path.as_ptr(), a.int(2), a.int(3)) })
}

/// `access(const char *path, int mode)` (x86_64).
pub fn access(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    faccessat(cpu, &at_cwd(a))
}

/// `mkdirat(int dirfd, const char *path, mode_t mode)` (mkdir(2)).
pub fn mkdirat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path_in(cpu.get_data(), a.int(0), a.ptr(1), Last::NoFollow)?;
    // SAFETY: NUL-terminated path.
    host_ret(i64::from(unsafe { libc::mkdirat(a.int(0), path.as_ptr(), a.uint(2)) }))
}

/// `mkdir(const char *path, mode_t mode)` (x86_64).
pub fn mkdir(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    mkdirat(cpu, &at_cwd(a))
}

/// `mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)` (mknod(2)).
pub fn mknodat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path_in(cpu.get_data(), a.int(0), a.ptr(1), Last::NoFollow)?;
    // SAFETY: NUL-terminated path.
    host_ret(i64::from(unsafe { libc::mknodat(a.int(0), path.as_ptr(), a.uint(2), a.raw(3)) }))
}

/// `mknod(const char *path, mode_t mode, dev_t dev)` (x86_64).
pub fn mknod(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    mknodat(cpu, &at_cwd(a))
}

/// `unlinkat(int dirfd, const char *path, int flags)` (unlink(2); `AT_REMOVEDIR` for rmdir).
pub fn unlinkat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path_in(cpu.get_data(), a.int(0), a.ptr(1), Last::NoFollow)?;
    if path.slash_link() {
        return Err(Errno::ENOTDIR);
    }
    // SAFETY: NUL-terminated path.
    host_ret(i64::from(unsafe { libc::unlinkat(a.int(0), path.as_ptr(), a.int(2)) }))
}

/// `unlink(const char *path)` (x86_64).
pub fn unlink(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    unlinkat(cpu, &a.with([AT_FDCWD, a.raw(0), 0, 0, 0, 0]))
}

/// `rmdir(const char *path)` (x86_64).
pub fn rmdir(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    unlinkat(cpu, &a.with([AT_FDCWD, a.raw(0), libc::AT_REMOVEDIR as u64, 0, 0, 0]))
}

/// `renameat2(int olddirfd, const char *old, int newdirfd, const char *new, unsigned flags)`.
pub fn renameat2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let old = host_path_in(t, a.int(0), a.ptr(1), Last::NoFollow)?;
    let new = host_path_in(t, a.int(2), a.ptr(3), Last::NoFollow)?;
    if old.slash_link() || new.slash_link() {
        return Err(Errno::ENOTDIR);
    }
    // SAFETY: NUL-terminated paths.
    host_ret(unsafe { libc::syscall(libc::SYS_renameat2, a.int(0), old.as_ptr(), a.int(2), new.as_ptr(), a.uint(4)) })
}

/// `renameat(int olddirfd, const char *old, int newdirfd, const char *new)`.
pub fn renameat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    renameat2(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), a.raw(3), 0, 0]))
}

/// `rename(const char *old, const char *new)` (x86_64).
pub fn rename(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    renameat2(cpu, &a.with([AT_FDCWD, a.raw(0), AT_FDCWD, a.raw(1), 0, 0]))
}

/// `linkat(int olddirfd, const char *old, int newdirfd, const char *new, int flags)` (link(2)).
pub fn linkat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let follow = if a.int(4) & libc::AT_SYMLINK_FOLLOW != 0 { Last::Follow } else { Last::NoFollow };
    let old = if a.int(4) & libc::AT_EMPTY_PATH != 0 {
        host_path_at(t, a.int(0), a.ptr(1), 0)?
    } else {
        host_path_in(t, a.int(0), a.ptr(1), follow)?
    };
    let new = host_path_in(t, a.int(2), a.ptr(3), Last::NoFollow)?;
    // SAFETY: NUL-terminated paths.
    host_ret(i64::from(unsafe { libc::linkat(a.int(0), old.as_ptr(), a.int(2), new.as_ptr(), a.int(4)) }))
}

/// `link(const char *old, const char *new)` (x86_64).
pub fn link(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    linkat(cpu, &a.with([AT_FDCWD, a.raw(0), AT_FDCWD, a.raw(1), 0, 0]))
}

/// `symlinkat(const char *target, int newdirfd, const char *linkpath)` (symlink(2)); the target
/// is stored as the guest wrote it (it is link content, not a path looked up now).
pub fn symlinkat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let target = CString::new(t.mm.read_cstr(a.ptr(0), PATH_MAX)?).map_err(|_| Errno::EINVAL)?;
    let link = host_path_in(t, a.int(1), a.ptr(2), Last::NoFollow)?;
    // SAFETY: NUL-terminated strings.
    host_ret(i64::from(unsafe { libc::symlinkat(target.as_ptr(), a.int(1), link.as_ptr()) }))
}

/// `symlink(const char *target, const char *linkpath)` (x86_64).
pub fn symlink(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    symlinkat(cpu, &a.with([a.raw(0), AT_FDCWD, a.raw(1), 0, 0, 0]))
}

/// `fchmod(int fd, mode_t mode)` (chmod(2)).
pub fn fchmod(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::fchmod(a.int(0), a.uint(1)) }))
}

/// `fchmodat(int dirfd, const char *path, mode_t mode)` (the kernel call has no flags).
pub fn fchmodat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path_in(cpu.get_data(), a.int(0), a.ptr(1), Last::Follow)?;
    // SAFETY: NUL-terminated path.
    host_ret(unsafe { libc::syscall(libc::SYS_fchmodat, a.int(0), path.as_ptr(), a.uint(2)) })
}

/// `fchmodat2(int dirfd, const char *path, mode_t mode, unsigned int flags)` (Linux 6.6):
/// fchmodat with `AT_SYMLINK_NOFOLLOW` and `AT_EMPTY_PATH`. Errors: the host's (`EINVAL`,
/// `EOPNOTSUPP` for a symlink's mode, `ENOSYS` on a host kernel before 6.6).
pub fn fchmodat2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = a.int(3);
    let path = super::path::host_path_at(cpu.get_data(), a.int(0), a.ptr(1), flags)?;
    // SAFETY: NUL-terminated path and integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_fchmodat2, a.int(0), path.as_ptr(), a.uint(2), flags) })
}

/// `chmod(const char *path, mode_t mode)` (x86_64).
pub fn chmod(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fchmodat(cpu, &at_cwd(a))
}

/// `fchown(int fd, uid_t owner, gid_t group)` (chown(2)).
pub fn fchown(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::fchown(a.int(0), a.uint(1), a.uint(2)) }))
}

/// `fchownat(int dirfd, const char *path, uid_t owner, gid_t group, int flags)` (chown(2)).
pub fn fchownat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path_at(cpu.get_data(), a.int(0), a.ptr(1), a.int(4))?;
    // SAFETY: NUL-terminated path.
    host_ret(i64::from(unsafe { libc::fchownat(a.int(0), path.as_ptr(), a.uint(2), a.uint(3), a.int(4)) }))
}

/// `chown(const char *path, uid_t owner, gid_t group)` (x86_64).
pub fn chown(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fchownat(cpu, &a.with([AT_FDCWD, a.raw(0), a.raw(1), a.raw(2), 0, 0]))
}

/// `lchown(const char *path, uid_t owner, gid_t group)` (x86_64).
pub fn lchown(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fchownat(cpu, &a.with([AT_FDCWD, a.raw(0), a.raw(1), a.raw(2), libc::AT_SYMLINK_NOFOLLOW as u64, 0]))
}

/// `utimensat(int dirfd, const char *path, const struct timespec times[2], int flags)`
/// (utimensat(2)); a NULL path sets the times of `dirfd` itself (futimens).
pub fn utimensat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    utimensat_with(cpu, a, TIMESPEC)
}

/// `utimensat_time64` of ILP32 guests: `times` are two `struct __kernel_timespec`.
pub fn utimensat_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    utimensat_with(cpu, a, TIMESPEC64)
}

fn utimensat_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &Shape) -> SysResult {
    let t = cpu.get_data();
    let path = host_path_opt(t, a.int(0), a.ptr(1), a.int(3))?;
    let times = if a.raw(2) == 0 {
        None
    } else {
        let v: Vec<libc::timespec> = t.mm.read_shape_array(a.ptr(2), ts_shape, 2)?;
        Some([v[0], v[1]])
    };
    let pp = path.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
    let tp = times.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
    // SAFETY: path NULL or NUL-terminated; times NULL or a local array of two timespecs.
    host_ret(unsafe { libc::syscall(libc::SYS_utimensat, a.int(0), pp, tp, a.int(3)) })
}

/// `futimesat(int dirfd, const char *path, const struct timeval times[2])` (the old form of
/// utimensat; futimesat(2)): microseconds, and NULL for "now". Errors: `EINVAL` (microseconds
/// out of range), `EFAULT`, and those of utimensat.
pub fn futimesat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let path = host_path_in(t, a.int(0), a.ptr(1), Last::Follow)?;
    let times = if a.raw(2) == 0 {
        None
    } else {
        let v: Vec<libc::timeval> = t.mm.read_shape_array(a.ptr(2), crate::abi::shapes::TIMEVAL, 2)?;
        if v.iter().any(|tv| !(0..1_000_000).contains(&tv.tv_usec)) {
            return Err(Errno::EINVAL);
        }
        Some([v[0], v[1]].map(|tv| libc::timespec { tv_sec: tv.tv_sec, tv_nsec: tv.tv_usec * 1000 }))
    };
    set_times(a.int(0), &path, times)
}

/// `utimes(const char *path, const struct timeval times[2])`.
pub fn utimes(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    futimesat(cpu, &a.with([AT_FDCWD, a.raw(0), a.raw(1), 0, 0, 0]))
}

/// `utime(const char *path, const struct utimbuf *times)`: `{time_t actime, modtime}` in
/// seconds, NULL for "now".
pub fn utime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let path = host_path(t, a.ptr(0))?;
    let times = if a.raw(1) == 0 {
        None
    } else {
        let (at, mt) = (t.mm.read_ulong(a.ptr(1))?, t.mm.read_ulong(a.ptr(1) + t.mm.long_bytes())?);
        let long =
            |v: u64| if t.mm.long_bytes() == 4 { i64::from(crate::abi::int32(v)) } else { crate::abi::signed64(v) };
        Some([libc::timespec { tv_sec: long(at), tv_nsec: 0 }, libc::timespec { tv_sec: long(mt), tv_nsec: 0 }])
    };
    set_times(libc::AT_FDCWD, &path, times)
}

/// utimensat on the host for `path` relative to `dirfd`.
fn set_times(dirfd: i32, path: &std::ffi::CStr, times: Option<[libc::timespec; 2]>) -> SysResult {
    let tp = times.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
    // SAFETY: a NUL-terminated path; times NULL or a local array of two timespecs.
    host_ret(unsafe { libc::syscall(libc::SYS_utimensat, dirfd, path.as_ptr(), tp, 0) })
}

/// `truncate(const char *path, off_t length)` (truncate(2)).
pub fn truncate(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path(cpu.get_data(), a.ptr(0))?;
    let len = a.long(1);
    // SAFETY: NUL-terminated path.
    let r = host_ret(i64::from(unsafe { libc::truncate(path.as_ptr(), len) }))?;
    truncated(cpu, &path, -1, len);
    Ok(r)
}

/// After a successful `truncate` of `path` (or `ftruncate` of `fd` when `path` is empty) to
/// `len` bytes: the guest's mappings of that file end there ([`crate::mm::AddressSpace::file_truncated`]).
pub(crate) fn truncated(cpu: &mut Cpu<'_>, path: &std::ffi::CStr, fd: i32, len: i64) {
    // SAFETY: a local stat for the host to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above; a NUL-terminated path or an integer fd.
    let ok = unsafe {
        if path.is_empty() {
            libc::fstat(fd, &mut st)
        } else {
            libc::stat(path.as_ptr(), &mut st)
        }
    };
    if ok == 0 {
        cpu.get_data_mut().mm.file_truncated((st.st_dev, st.st_ino), u64::try_from(len).unwrap_or(0));
    }
}

/// `ftruncate(int fd, off_t length)` (truncate(2)).
pub fn ftruncate(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let len = a.long(1);
    // SAFETY: integer arguments.
    let r = host_ret(i64::from(unsafe { libc::ftruncate(a.int(0), len) }))?;
    truncated(cpu, c"", a.int(0), len);
    Ok(r)
}

/// `fallocate(int fd, int mode, off_t offset, off_t len)` (fallocate(2)).
pub fn fallocate(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    let r = host_ret(i64::from(unsafe {
        libc::fallocate(a.int(0), a.int(1), crate::abi::signed64(a.raw(2)), crate::abi::signed64(a.raw(3)))
    }))?;
    // A punched hole or zeroed range changes what a shared executable mapping holds.
    super::io::file_changed(cpu, a.int(0));
    Ok(r)
}

/// `fadvise64(int fd, off_t offset, off_t len, int advice)` (posix_fadvise(2)).
pub fn fadvise64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let advice = (cpu.get_data().arch.info().fadvise_to_host)(a.int(3));
    // SAFETY: integer arguments. posix_fadvise returns the error number itself.
    let r = unsafe {
        libc::posix_fadvise(a.int(0), crate::abi::signed64(a.raw(1)), crate::abi::signed64(a.raw(2)), advice)
    };
    if r == 0 {
        Ok(0)
    } else {
        Err(Errno::new(r))
    }
}

/// `fsync(int fd)` (fsync(2)).
pub fn fsync(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::fsync(a.int(0)) }))
}

/// `fdatasync(int fd)` (fsync(2)).
pub fn fdatasync(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::fdatasync(a.int(0)) }))
}

/// `sync(void)` (sync(2)).
pub fn sync(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    // SAFETY: no arguments.
    unsafe { libc::sync() };
    Ok(0)
}

/// `syncfs(int fd)` (sync(2)).
pub fn syncfs(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::syncfs(a.int(0)) }))
}

/// `getcwd(char *buf, size_t size)` (getcwd(2)): returns the length including the NUL.
pub fn getcwd(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if super::rootfs::active() {
        // The host's path, seen from the guest's root.
        let host = std::env::current_dir().map_err(|e| Errno::new(e.raw_os_error().unwrap_or(libc::ENOENT)))?;
        let mut p = super::rootfs::guest_cwd_view(host.as_os_str().as_encoded_bytes()).ok_or(Errno::ENOENT)?;
        p.push(0);
        if (p.len() as u64) > a.raw(1) {
            return Err(Errno::ERANGE);
        }
        cpu.get_data_mut().mm.write_bytes(a.ptr(0), &p)?;
        return Ok(p.len() as u64);
    }
    // Linux copies only the path: a buffer whose size runs past the guest's writable memory
    // is fine when the path fits before it ([`crate::guest::shaped`]).
    let b = cpu.get_data_mut().buf_out_lazy(a.ptr(0), a.raw(1))?;
    // SAFETY: `len` bytes: guest-writable ones, or a host copy and its guard.
    let r = host_ret(unsafe { libc::syscall(libc::SYS_getcwd, b.ptr(), b.len()) });
    b.finish(cpu.get_data_mut());
    r
}

/// `chdir(const char *path)` (chdir(2)).
pub fn chdir(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path(cpu.get_data(), a.ptr(0))?;
    // SAFETY: NUL-terminated path.
    host_ret(i64::from(unsafe { libc::chdir(path.as_ptr()) }))
}

/// `fchdir(int fd)` (chdir(2)).
pub fn fchdir(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::fchdir(a.int(0)) }))
}

/// `statfs(const char *path, struct statfs *buf)` (statfs(2)); the guest's layout is the
/// arch's [`crate::guest::GuestArch::statfs_shape`].
pub fn statfs(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let shape = cpu.get_data().arch.info().statfs_shape;
    statfs_into(cpu.get_data_mut(), StatfsOf::Path(a.raw(0)), a.ptr(1), shape)
}

/// `fstatfs(int fd, struct statfs *buf)` (statfs(2)).
pub fn fstatfs(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let shape = cpu.get_data().arch.info().statfs_shape;
    statfs_into(cpu.get_data_mut(), StatfsOf::Fd(a.int(0)), a.ptr(1), shape)
}

/// What a statfs call asks about: a guest path or a descriptor.
#[derive(Clone, Copy, Debug)]
pub enum StatfsOf {
    /// A guest path pointer.
    Path(u64),
    /// A descriptor.
    Fd(i32),
}

/// Runs the host's statfs/fstatfs and writes the result at guest `buf` in the layout `shape`
/// (`struct statfs`, or an ILP32 arch's `struct statfs64`). Errors: `EFAULT`, the host's.
pub fn statfs_into(t: &mut Task, of: StatfsOf, buf: GuestAddr, shape: &Shape) -> SysResult {
    let mut st = libc::statfs::zeroed();
    match of {
        StatfsOf::Path(p) => {
            let path = host_path(t, GuestAddr::new(p))?;
            // SAFETY: NUL-terminated path; a local statfs.
            host_ret(unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), &mut st) })?
        }
        // SAFETY: as above.
        StatfsOf::Fd(fd) => host_ret(unsafe { libc::syscall(libc::SYS_fstatfs, fd, &mut st) })?,
    };
    t.mm.write_shape(buf, shape, &st)?;
    Ok(0)
}

/// `umask(mode_t mask)` (umask(2)): returns the previous mask.
pub fn umask(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    Ok(u64::from(unsafe { libc::umask(a.uint(0) & 0o777) }))
}

/// `sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags)` (64-bit
/// guests; sync_file_range(2)). 32-bit guests take the offsets in register pairs
/// ([`super::compat32`]). Errors: the host's (`EBADF`, `EINVAL` for bad flags or a negative
/// range, `ESPIPE`).
pub fn sync_file_range(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    super::compat32::host_sync_file_range(a.raw(0), a.raw(1), a.raw(2), a.raw(3))
}

/// `readahead(int fd, off64_t offset, size_t count)` (readahead(2); 64-bit guests: 32-bit ones
/// pass the offset in a register pair, [`super::compat32`]). Errors: the host's (`EBADF`,
/// `EINVAL` for a file that cannot read ahead).
pub fn readahead(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    host_readahead(a.raw(0), a.raw(1), a.raw(2))
}

/// The host `readahead` for a guest's fd, offset and count.
pub fn host_readahead(fd: u64, off: u64, count: u64) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe {
        libc::syscall(libc::SYS_readahead, as_int(fd), crate::abi::signed64(off), crate::abi::u64_to_usize(count))
    })
}
