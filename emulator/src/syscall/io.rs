//! Reading, writing and controlling file descriptors: `read`/`write` and their vector and
//! positioned forms, `lseek`, `sendfile`, `dup*`, `close`, `fcntl`, `ioctl`, `pipe*`,
//! `poll`/`ppoll`/`select`/`pselect6`, `flock`.
//!
//! Guest file descriptors are host file descriptors. Buffers are checked against the guest's
//! page permissions ([`crate::guest::Task::buf_in`]/`buf_out`) and then handed to the host
//! as they are: byte data is never swapped.

use syscalls::Errno;

use super::blocking_syscall;
use super::unlocked::Ctx;
use super::{host_ret, SysResult};
use crate::abi::shapes::{FLOCK, FLOCK64, POLLFD, TIMESPEC, TIMESPEC64, TIMEVAL};
use crate::abi::thunk::{Plain, Shape};
use crate::abi::{bits64, int32, low32, signed64, u64_to_usize};
use crate::guest::Task;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{Endian, GuestAddr, Prot};

/// `read(int fd, void *buf, size_t count)`. The buffer is checked as the kernel checks it,
/// when the host copies ([`crate::guest::shaped`]): a read at the end of a file answers 0
/// whatever the buffer, a file's read into a buffer that runs off the guest's writable memory
/// returns what it copied before the first bad byte, a pipe's answers `EFAULT` and keeps the
/// data (fs/pipe.c). Errors: `EFAULT`; otherwise the host's (read(2)).
pub fn read(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let b = cpu.get_data_mut().buf_out_lazy(a.ptr(1), a.raw(2))?;
    let (p, count) = (b.ptr(), b.len());
    super::procfs::before_read(cpu.get_data(), a.int(0), None, count)?;
    // SAFETY: `p` covers `count` bytes: guest-writable ones, or a host copy and its guard.
    let r = host_ret(blocking_syscall(cpu.get_data_mut(), libc::SYS_read, &[a.int_arg(0), p as u64, count]));
    let n = match r {
        Ok(n) => n,
        Err(e) => {
            b.finish(cpu.get_data_mut());
            return Err(e);
        }
    };
    if n == 8 && cpu.get_data().mm.endian() != Endian::HOST && is_counter_fd(a.int(0)) {
        // SAFETY: the host just wrote these 8 bytes into the buffer.
        unsafe { std::slice::from_raw_parts_mut(p, 8) }.reverse();
    }
    if super::signalfd::needs_conversion(a.int(0), u64_to_usize(n)) {
        let t = cpu.get_data();
        // SAFETY: the host just wrote `n` bytes into the buffer.
        super::signalfd::to_guest(unsafe { std::slice::from_raw_parts_mut(p, u64_to_usize(n)) }, t.arch, t.mm.endian());
    }
    if n > 0 && cpu.get_data().mm.endian() != Endian::HOST && super::inotify::is_inotify_fd(a.int(0)) {
        // SAFETY: the host just wrote `n` bytes into the buffer.
        super::inotify::swap_events(unsafe { std::slice::from_raw_parts_mut(p, u64_to_usize(n)) });
    }
    if n > 0 && cpu.get_data().mm.endian() != Endian::HOST && super::fanotify::is_fanotify_fd(a.int(0)) {
        // SAFETY: the host just wrote `n` bytes into the buffer.
        super::fanotify::events_to_guest(unsafe { std::slice::from_raw_parts_mut(p, usize::try_from(n).unwrap_or(0)) });
    }
    // SAFETY: the host just wrote `n` bytes into the buffer.
    unsafe { super::netlink::after_read(cpu.get_data(), a.int(0), p, n) };
    b.finish(cpu.get_data_mut());
    Ok(n)
}

/// [`read`] without the global guest lock ([`super::unlocked`]): a buffer inside one plain
/// writable span of the thread's view, data that needs no conversion ([`Ctx::io_view`]).
pub fn read_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let view = read_view(ctx, a.int(0), a.raw(2))?;
    let p = view.host_range(a.raw(1), a.raw(2), Prot::WRITE)?;
    let r = host_ret(ctx.blocking_syscall(libc::SYS_read, &[a.int_arg(0), p as u64, a.raw(2)]));
    counter_after(ctx, view, a, &r);
    Some(r)
}

/// After a read without the lock of more than 8 bytes by a guest of the other byte order
/// that returned 8: if the descriptor is an eventfd or a timerfd, those bytes are its counter
/// ([`read`] swaps them), which is swapped under the lock once the call is over (a read of
/// exactly 8 such bytes never comes here: [`read_view`]).
fn counter_after(ctx: &Ctx<'_>, view: &crate::mm::fill_view::FillView, a: &SyscallArgs, r: &SysResult) {
    if *r == Ok(8) && a.raw(2) != 8 && !Ctx::plain_transfer(view, 8) && is_counter_fd(a.int(0)) {
        ctx.then_locked(swap_counter);
    }
}

/// [`counter_after`]'s work under the lock: the 8 bytes at the call's buffer reversed.
fn swap_counter(cpu: &mut Cpu<'_>, a: &SyscallArgs, _: &SysResult) {
    let mm = &mut cpu.get_data_mut().mm;
    let mut b = [0u8; 8];
    if mm.read_bytes(a.ptr(1), &mut b).is_ok() {
        b.reverse();
        let _ = mm.write_bytes(a.ptr(1), &b);
    }
}

/// [`pread64`] without the global guest lock, as [`read_unlocked`] (LP64 rows only: ILP32
/// guests pass the offset in a register pair, `super::compat32`).
pub fn pread64_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let view = read_view(ctx, a.int(0), a.raw(2))?;
    let p = view.host_range(a.raw(1), a.raw(2), Prot::WRITE)?;
    let r = host_ret(ctx.blocking_syscall(libc::SYS_pread64, &[a.int_arg(0), p as u64, a.raw(2), a.raw(3)]));
    counter_after(ctx, view, a, &r);
    Some(r)
}

/// The thread's view for a read of `count` bytes through descriptor `fd` without the global
/// guest lock ([`Ctx::io_view`]; an 8-byte transfer of a guest of the other byte order only
/// when `fd` is no eventfd or timerfd, whose counter [`read`] swaps).
fn read_view<'a>(ctx: &'a Ctx<'_>, fd: i32, count: u64) -> Option<&'a crate::mm::fill_view::FillView> {
    ctx.io_view().filter(|v| Ctx::plain_transfer(v, count) || !is_counter_fd(fd))
}

/// The thread's view for a write of `count` bytes through descriptor `fd` without the global
/// guest lock: as [`read_view`], and no file is mapped shared and executable (whose writes
/// drop translations: [`file_changed`]).
fn write_view<'a>(ctx: &'a Ctx<'_>, fd: i32, count: u64) -> Option<&'a crate::mm::fill_view::FillView> {
    read_view(ctx, fd, count).filter(|v| !v.watches_file_writes())
}

/// [`write`] without the global guest lock ([`super::unlocked`]): a buffer inside one plain
/// readable span of the thread's view ([`write_view`]).
pub fn write_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let p = write_view(ctx, a.int(0), a.raw(2))?.host_range(a.raw(1), a.raw(2), Prot::READ)?;
    ctx.if_mappings_changed(file_changed_after);
    Some(host_ret(ctx.blocking_syscall(libc::SYS_write, &[a.int_arg(0), p as u64, a.raw(2)])))
}

/// After a write without the lock during which the mappings changed: a shared executable
/// mapping of the file made meanwhile may hold translations of what the write replaced
/// ([`after_file_write`]).
fn file_changed_after(cpu: &mut Cpu<'_>, a: &SyscallArgs, r: &SysResult) {
    after_file_write(cpu, a.int(0), r);
}

/// [`pwrite64`] without the global guest lock, as [`write_unlocked`] (LP64 rows only).
pub fn pwrite64_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let p = write_view(ctx, a.int(0), a.raw(2))?.host_range(a.raw(1), a.raw(2), Prot::READ)?;
    ctx.if_mappings_changed(file_changed_after);
    Some(host_ret(ctx.blocking_syscall(libc::SYS_pwrite64, &[a.int_arg(0), p as u64, a.raw(2), a.raw(3)])))
}

/// `true` if `fd` is an eventfd or a timerfd: files whose reads and writes carry one `u64`
/// counter in the kernel's byte order (eventfd(2), timerfd_create(2)), which a guest of the
/// other byte order sees swapped. Asked of `/proc/self/fd` (an anonymous inode's link names
/// its kind), so it holds for fds that were dup'ed or inherited across exec; endgate asks only
/// for 8-byte transfers of such guests.
fn is_counter_fd(fd: i32) -> bool {
    let Some(link) = super::selfref::fd_kind(fd) else { return false };
    let link = link.as_os_str().as_encoded_bytes();
    link == b"anon_inode:[eventfd]" || link == b"anon_inode:[timerfd]"
}

/// `write(int fd, const void *buf, size_t count)`. The buffer is checked as the host copies
/// ([`read`]): a file's write from a buffer that runs off the guest's memory writes what comes
/// before the first bad byte. Errors: `EFAULT`, the host's (write(2)).
pub fn write(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let b = cpu.get_data_mut().buf_in_lazy(a.ptr(1), a.raw(2))?;
    let p = b.ptr().cast_const();
    if !b.is_direct()
        && (a.raw(2) == 8 && cpu.get_data().mm.endian() != Endian::HOST && is_counter_fd(a.int(0))
            || cpu.get_data().mm.endian() != Endian::HOST && super::fanotify::is_fanotify_fd(a.int(0))
            || super::netlink::protocol(cpu.get_data(), a.int(0)).is_some())
    {
        // Converted whole before the host sees them: an eventfd counter, fanotify responses
        // and netlink messages are copied in one piece by the kernel too.
        return Err(Errno::EFAULT);
    }
    if a.raw(2) == 8 && cpu.get_data().mm.endian() != Endian::HOST && is_counter_fd(a.int(0)) {
        // An eventfd increment in the guest's byte order, for the host kernel in its own.
        let mut v = [0u8; 8];
        // SAFETY: `p` covers 8 guest-readable bytes.
        v.copy_from_slice(unsafe { std::slice::from_raw_parts(p, 8) });
        v.reverse();
        // SAFETY: `v` is 8 readable bytes.
        return host_ret(blocking_syscall(cpu.get_data_mut(), libc::SYS_write, &[a.int_arg(0), v.as_ptr() as u64, 8]));
    }
    if cpu.get_data().mm.endian() != Endian::HOST && super::fanotify::is_fanotify_fd(a.int(0)) {
        // Permission responses in the guest's byte order, for the host kernel in its own.
        // SAFETY: `p` covers `count` guest-readable bytes.
        let mut v = unsafe { std::slice::from_raw_parts(p, a.size(2)) }.to_vec();
        super::fanotify::responses_to_host(&mut v);
        return host_ret(blocking_syscall(
            cpu.get_data_mut(),
            libc::SYS_write,
            &[a.int_arg(0), v.as_ptr() as u64, a.raw(2)],
        ));
    }
    // SAFETY: `p` covers `count` guest-readable bytes.
    if let Some(v) = unsafe { super::netlink::before_write(cpu.get_data(), a.int(0), p, a.size(2)) } {
        // SAFETY: `v` is the converted copy of the guest's netlink messages.
        return host_ret(blocking_syscall(
            cpu.get_data_mut(),
            libc::SYS_write,
            &[a.int_arg(0), v.as_ptr() as u64, v.len() as u64],
        ));
    }
    // SAFETY: `p` covers `len` bytes: guest-readable ones, or a host copy and its guard.
    let r = host_ret(blocking_syscall(cpu.get_data_mut(), libc::SYS_write, &[a.int_arg(0), p as u64, b.len()]));
    after_file_write(cpu, a.int(0), &r);
    r
}

/// After a write through descriptor `fd`: [`file_changed`] if it wrote something.
pub(crate) fn after_file_write(cpu: &mut Cpu<'_>, fd: i32, r: &SysResult) {
    if matches!(r, Ok(n) if *n > 0) {
        file_changed(cpu, fd);
    }
}

/// The file behind descriptor `fd` changed: the translated code of its shared executable
/// mappings is dropped (`mm::alias`; asked only while the guest has such a mapping).
pub(crate) fn file_changed(cpu: &mut Cpu<'_>, fd: i32) {
    if cpu.get_data().mm.watches_file_writes() {
        if let Some(id) = crate::mm::file_id(fd) {
            cpu.get_data_mut().mm.file_written(id);
        }
    }
}

/// `pread64(int fd, void *buf, size_t count, off_t offset)` (pread(2)); the buffer checked
/// as in [`read`].
pub fn pread64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let b = cpu.get_data_mut().buf_out_lazy(a.ptr(1), a.raw(2))?;
    super::procfs::before_read(cpu.get_data(), a.int(0), Some(a.raw(3)), b.len())?;
    // SAFETY: as `read`.
    let r = host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_pread64,
        &[a.int_arg(0), b.ptr() as u64, b.len(), a.raw(3)],
    ));
    b.finish(cpu.get_data_mut());
    r
}

/// `pwrite64(int fd, const void *buf, size_t count, off_t offset)` (pwrite(2)); the buffer
/// checked as in [`write`].
pub fn pwrite64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let b = cpu.get_data_mut().buf_in_lazy(a.ptr(1), a.raw(2))?;
    // SAFETY: as `write`.
    let r = host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_pwrite64,
        &[a.int_arg(0), b.ptr() as u64, b.len(), a.raw(3)],
    ));
    after_file_write(cpu, a.int(0), &r);
    r
}

/// Most iovecs the kernel accepts in one call (`UIO_MAXIOV`).
const UIO_MAXIOV: u64 = 1024;

/// Reads a guest `struct iovec[cnt]` and checks each buffer. `out` means the host writes into
/// the buffers (readv). Errors: `EINVAL` for a count above 1024, `EFAULT`.
pub(crate) fn host_iovecs(task: &mut Task, addr: GuestAddr, cnt: u64, out: bool) -> Result<Vec<libc::iovec>, Errno> {
    if cnt > UIO_MAXIOV {
        return Err(Errno::EINVAL);
    }
    let word = task.mm.long_bytes();
    let mut v = Vec::with_capacity(u64_to_usize(cnt));
    for i in 0..cnt {
        let at = addr + i * 2 * word;
        let (base, len) = (task.mm.read_ulong(at)?, task.mm.read_ulong(at + word)?);
        if len > isize::MAX as u64 {
            return Err(Errno::EINVAL);
        }
        let p = if out {
            task.buf_out(GuestAddr::new(base), len)?
        } else {
            task.buf_in(GuestAddr::new(base), len)?.cast_mut()
        };
        v.push(libc::iovec { iov_base: p.cast(), iov_len: u64_to_usize(len) });
    }
    Ok(v)
}

/// A guest `struct iovec[cnt]` for the host, each buffer checked as the host copies
/// ([`crate::guest::shaped`]): the array itself is read whole (`EFAULT`) and every length
/// checked (`EINVAL`) first, as `import_iovec` does. `out` means the host writes into the
/// buffers; call [`LazyIovecs::finish`] after the host call.
pub(crate) struct LazyIovecs {
    pub iov: Vec<libc::iovec>,
    bufs: Vec<crate::guest::shaped::HostBuf>,
}

impl LazyIovecs {
    pub(crate) fn new(task: &mut Task, addr: GuestAddr, cnt: u64, out: bool) -> Result<LazyIovecs, Errno> {
        if cnt > UIO_MAXIOV {
            return Err(Errno::EINVAL);
        }
        let word = task.mm.long_bytes();
        let mut raw = Vec::with_capacity(u64_to_usize(cnt));
        for i in 0..cnt {
            let at = addr + i * 2 * word;
            let (base, len) = (task.mm.read_ulong(at)?, task.mm.read_ulong(at + word)?);
            // A 32-bit guest's length is a signed 32-bit `compat_ssize_t` to the kernel.
            let signed_max = if word == 4 { i32::MAX as u64 } else { isize::MAX as u64 };
            if len > signed_max {
                return Err(Errno::EINVAL);
            }
            raw.push((base, len));
        }
        let mut iov = Vec::with_capacity(raw.len());
        let mut bufs = Vec::with_capacity(raw.len());
        for (base, len) in raw {
            let b = if out {
                task.buf_out_lazy(GuestAddr::new(base), len)?
            } else {
                task.buf_in_lazy(GuestAddr::new(base), len)?
            };
            iov.push(libc::iovec { iov_base: b.ptr().cast(), iov_len: u64_to_usize(b.len()) });
            bufs.push(b);
        }
        Ok(LazyIovecs { iov, bufs })
    }

    /// `true` if every buffer is the guest's own memory.
    pub(crate) fn is_direct(&self) -> bool {
        self.bufs.iter().all(crate::guest::shaped::HostBuf::is_direct)
    }

    /// Copies what the host wrote into host copies back into the guest.
    pub(crate) fn finish(&self, task: &mut Task) {
        for b in &self.bufs {
            b.finish(task);
        }
    }
}

/// `readv(int fd, const struct iovec *iov, int iovcnt)` (readv(2)).
pub fn readv(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let l = LazyIovecs::new(cpu.get_data_mut(), a.ptr(1), a.raw(2), true)?;
    let iov = &l.iov;
    let total = iov.iter().map(|v| v.iov_len as u64).sum();
    super::procfs::before_read(cpu.get_data(), a.int(0), None, total)?;
    // SAFETY: every iovec is guest-writable memory or a host copy with its guard.
    let r = host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_readv,
        &[a.int_arg(0), iov.as_ptr() as u64, iov.len() as u64],
    ));
    if let Ok(n) = r {
        super::netlink::after_readv(cpu.get_data(), a.int(0), iov, n);
    }
    l.finish(cpu.get_data_mut());
    r
}

/// Most iovecs a vector call serves without the lock; a longer array goes under it.
const UNLOCKED_IOVECS: usize = 64;

/// A guest `struct iovec iov[cnt]` (`{ void *iov_base; size_t iov_len; }` in the guest's
/// `long` width and byte order) read through `view` as host iovecs into `out`, each buffer
/// inside one span of the view with `need`; returns how many and their total length. `None`
/// for anything [`LazyIovecs::new`] should judge under the lock: no iovecs or more than
/// [`UNLOCKED_IOVECS`], an array or buffer the view cannot answer for (`EFAULT` or a short
/// count there), a length above the signed maximum (`EINVAL`), a total of 0. A zero-length
/// entry passes with a NULL base or one inside a span (Linux ignores its base then, but
/// refuses one past the top of user space).
fn view_iovecs(
    view: &crate::mm::fill_view::FillView,
    addr: u64,
    cnt: u64,
    need: Prot,
    out: &mut [libc::iovec; UNLOCKED_IOVECS],
) -> Option<(usize, u64)> {
    let n = usize::try_from(cnt).ok().filter(|&n| n > 0 && n <= UNLOCKED_IOVECS)?;
    let mut words = [0u64; 2 * UNLOCKED_IOVECS];
    let words = words.get_mut(..2 * n)?;
    view.read_ulongs(addr, words)?;
    // A 32-bit guest's length is a signed 32-bit `compat_ssize_t` to the kernel.
    let signed_max = if view.model().long_bytes == 4 { i32::MAX as u64 } else { isize::MAX as u64 };
    let mut total = 0u64;
    for (slot, entry) in out.iter_mut().zip(words.chunks_exact(2)) {
        let (base, len) = (entry[0], entry[1]);
        if len > signed_max {
            return None;
        }
        let p = match (base, len) {
            (0, 0) => std::ptr::null_mut(),
            (_, 0) => view.host_range(base, 1, Prot::NONE)?,
            _ => view.host_range(base, len, need)?,
        };
        *slot = libc::iovec { iov_base: p.cast(), iov_len: u64_to_usize(len) };
        total = total.checked_add(len)?;
    }
    (total > 0).then_some((n, total))
}

/// A vector transfer without the global guest lock: the host's `nr` (`readv`, `writev`,
/// `preadv`, `pwritev`) on descriptor argument 0 over the iovecs at argument 1, `cnt` at
/// argument 2 ([`view_iovecs`]), `then` the call's remaining arguments; `out` for reads.
/// Reads as [`read_unlocked`] ([`read_view`]), writes as [`write_unlocked`] ([`write_view`],
/// [`file_changed_after`]).
fn vector_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs, nr: libc::c_long, out: bool, then: &[u64]) -> Option<SysResult> {
    let view = ctx.io_view()?;
    let mut iov = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; UNLOCKED_IOVECS];
    let need = if out { Prot::WRITE } else { Prot::READ };
    let (n, total) = view_iovecs(view, a.raw(1), a.raw(2), need, &mut iov)?;
    if out {
        read_view(ctx, a.int(0), total)?;
    } else {
        write_view(ctx, a.int(0), total)?;
        ctx.if_mappings_changed(file_changed_after);
    }
    let mut args = [a.int_arg(0), iov.as_ptr() as u64, n as u64, 0, 0];
    args[3..3 + then.len()].copy_from_slice(then);
    // SAFETY: `n` iovecs over guest memory the view found with `need` (the thread counts as
    // running guest code until the host call, which may wait as one that does not).
    Some(host_ret(ctx.blocking_syscall(nr, &args[..3 + then.len()])))
}

/// [`readv`] without the global guest lock ([`vector_unlocked`]): `ssize_t readv(int fd,
/// const struct iovec *iov, int iovcnt)` with at most 64 iovecs whose buffers lie in plain
/// writable spans of the view; errors the host's (readv(2)).
pub fn readv_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    vector_unlocked(ctx, a, libc::SYS_readv, true, &[])
}

/// `writev(int fd, const struct iovec *iov, int iovcnt)` (writev(2)).
pub fn writev(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let l = LazyIovecs::new(cpu.get_data_mut(), a.ptr(1), a.raw(2), false)?;
    let iov = &l.iov;
    if !l.is_direct() && super::netlink::protocol(cpu.get_data(), a.int(0)).is_some() {
        // Netlink messages are converted whole (and copied whole by the kernel).
        return Err(Errno::EFAULT);
    }
    if let Some(v) = super::netlink::before_writev(cpu.get_data(), a.int(0), iov) {
        // SAFETY: `v` is the converted copy of the guest's netlink messages.
        return host_ret(blocking_syscall(
            cpu.get_data_mut(),
            libc::SYS_write,
            &[a.int_arg(0), v.as_ptr() as u64, v.len() as u64],
        ));
    }
    // SAFETY: every iovec was checked to be guest-readable.
    let r = host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_writev,
        &[a.int_arg(0), iov.as_ptr() as u64, iov.len() as u64],
    ));
    after_file_write(cpu, a.int(0), &r);
    r
}

/// [`writev`] without the global guest lock ([`vector_unlocked`]): buffers in plain readable
/// spans of the view (writev(2)).
pub fn writev_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    vector_unlocked(ctx, a, libc::SYS_writev, false, &[])
}

/// `preadv(int fd, const struct iovec *iov, int iovcnt, unsigned long pos_l, unsigned long pos_h)`;
/// on 64-bit guests `pos_l` is the whole offset.
pub fn preadv(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let l = LazyIovecs::new(cpu.get_data_mut(), a.ptr(1), a.raw(2), true)?;
    let iov = &l.iov;
    let total = iov.iter().map(|v| v.iov_len as u64).sum();
    super::procfs::before_read(cpu.get_data(), a.int(0), Some(a.raw(3)), total)?;
    // SAFETY: checked iovecs or host copies with their guards.
    let r = host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_preadv,
        &[a.int_arg(0), iov.as_ptr() as u64, iov.len() as u64, a.raw(3), 0],
    ));
    l.finish(cpu.get_data_mut());
    r
}

/// [`preadv`] without the global guest lock, as [`readv_unlocked`] (LP64 rows only: ILP32
/// guests pass the offset in a register pair, `super::compat32`; preadv(2)).
pub fn preadv_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    vector_unlocked(ctx, a, libc::SYS_preadv, true, &[a.raw(3), 0])
}

/// `pwritev(int fd, const struct iovec *iov, int iovcnt, unsigned long pos_l, unsigned long pos_h)`.
pub fn pwritev(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let l = LazyIovecs::new(cpu.get_data_mut(), a.ptr(1), a.raw(2), false)?;
    let iov = &l.iov;
    // SAFETY: checked iovecs or host copies with their guards.
    let r = host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_pwritev,
        &[a.int_arg(0), iov.as_ptr() as u64, iov.len() as u64, a.raw(3), 0],
    ));
    after_file_write(cpu, a.int(0), &r);
    r
}

/// [`pwritev`] without the global guest lock, as [`writev_unlocked`] (LP64 rows only).
pub fn pwritev_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    vector_unlocked(ctx, a, libc::SYS_pwritev, false, &[a.raw(3), 0])
}

/// `preadv2(int fd, const struct iovec *iov, int iovcnt, unsigned long pos_l, unsigned long
/// pos_h, int flags)` (64-bit guests: `pos_l` is the offset, -1 for the file position;
/// `RWF_*` flags are the same on every arch). Errors: the host's (`EOPNOTSUPP` for an unknown
/// flag).
pub fn preadv2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let iov = host_iovecs(cpu.get_data_mut(), a.ptr(1), a.raw(2), true)?;
    let args = [a.int_arg(0), iov.as_ptr() as u64, iov.len() as u64, a.raw(3), 0, u64::from(a.uint(5))];
    let n = host_ret(blocking_syscall(cpu.get_data_mut(), libc::SYS_preadv2, &args))?;
    // A socket reads at its position only (offset -1), netlink ones included.
    super::netlink::after_readv(cpu.get_data(), a.int(0), &iov, n);
    Ok(n)
}

/// `pwritev2(int fd, const struct iovec *iov, int iovcnt, unsigned long pos_l, unsigned long
/// pos_h, int flags)`.
pub fn pwritev2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let iov = host_iovecs(cpu.get_data_mut(), a.ptr(1), a.raw(2), false)?;
    let copy = super::netlink::before_writev(cpu.get_data(), a.int(0), &iov);
    let one = copy.as_ref().map(|v| [libc::iovec { iov_base: v.as_ptr().cast_mut().cast(), iov_len: v.len() }]);
    let (p, cnt) = one.as_ref().map_or((iov.as_ptr(), iov.len()), |o| (o.as_ptr(), 1));
    let args = [a.int_arg(0), p as u64, cnt as u64, a.raw(3), 0, u64::from(a.uint(5))];
    // SAFETY: checked iovecs, or one over the converted copy of netlink messages.
    let r = host_ret(blocking_syscall(cpu.get_data_mut(), libc::SYS_pwritev2, &args));
    after_file_write(cpu, a.int(0), &r);
    r
}

/// `lseek(int fd, off_t offset, int whence)` (lseek(2)).
pub fn lseek(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    super::procfs::lseek(a.int(0), a.long(1), a.int(2))
}

/// [`lseek`] without the global guest lock: it reaches nothing the lock protects.
pub fn lseek_unlocked(_ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    Some(super::procfs::lseek(a.int(0), a.long(1), a.int(2)))
}

/// `sendfile(int out_fd, int in_fd, off_t *offset, size_t count)` (sendfile(2)).
/// The `off_t` at `addr` is a guest `long`; `sendfile64` (ILP32) passes a `loff_t`, see
/// [`sendfile64`].
pub fn sendfile(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let r = sendfile_with(cpu, a, false);
    after_file_write(cpu, a.int(0), &r);
    r
}

/// `sendfile64(int out_fd, int in_fd, loff_t *offset, size_t count)` (ILP32 guests).
pub fn sendfile64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let r = sendfile_with(cpu, a, true);
    after_file_write(cpu, a.int(0), &r);
    r
}

fn sendfile_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, loff: bool) -> SysResult {
    let t = cpu.get_data_mut();
    let mut off = match a.raw(2) {
        0 => None,
        p if loff => Some(signed64(t.mm.read_u64(GuestAddr::new(p))?)),
        p => Some(t.mm.read_slong(GuestAddr::new(p))?),
    };
    if a.raw(2) != 0 {
        t.mm.check_writable(a.ptr(2), if loff { 8 } else { t.mm.long_bytes() })?;
    }
    let offp = off.as_mut().map_or(std::ptr::null_mut(), |o| o as *mut i64);
    // SAFETY: `offp` is NULL or a local offset.
    let r = host_ret(blocking_syscall(t, libc::SYS_sendfile, &[a.int_arg(0), a.int_arg(1), offp as u64, a.raw(3)]));
    if let Some(o) = off {
        if loff {
            t.mm.write_u64(a.ptr(2), bits64(o))?;
        } else {
            t.mm.write_ulong(a.ptr(2), bits64(o))?;
        }
    }
    r
}

/// `copy_file_range(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len, unsigned flags)`.
pub fn copy_file_range(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let r = two_offsets_call(cpu.get_data_mut(), a, libc::SYS_copy_file_range);
    after_file_write(cpu, a.int(2), &r);
    r
}

/// A call shaped `(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len,
/// unsigned int flags)` (`copy_file_range`, `splice`): each offset pointer that is not NULL is
/// read (it must also be writable), handed to the host as a local `loff_t`, and written back
/// in the guest's byte order, whatever the call returned. Errors: `EFAULT`, the call's.
pub(crate) fn two_offsets_call(t: &mut Task, a: &SyscallArgs, nr: libc::c_long) -> SysResult {
    let read =
        |p: GuestAddr| if p.is_null() { Ok(None) } else { t.mm.check_writable(p, 8).and(t.mm.read_u64(p)).map(Some) };
    let (mut oi, mut oo) = (read(a.ptr(1))?, read(a.ptr(3))?);
    let pi = oi.as_mut().map_or(std::ptr::null_mut(), |o| o as *mut u64);
    let po = oo.as_mut().map_or(std::ptr::null_mut(), |o| o as *mut u64);
    // The offsets are NULL or local `loff_t`s.
    let r = host_ret(blocking_syscall(
        t,
        nr,
        &[a.int_arg(0), pi as u64, a.int_arg(2), po as u64, a.ulong(4), u64::from(a.uint(5))],
    ));
    for (p, v) in [(a.ptr(1), oi), (a.ptr(3), oo)] {
        if let Some(v) = v {
            t.mm.write_u64(p, v)?;
        }
    }
    r
}

/// `close(int fd)` (close(2)). endgate's own handles ([`super::selfref`]) are not the
/// guest's: `EBADF`.
pub fn close(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if super::selfref::is_own(a.int(0)) {
        return Err(syscalls::Errno::EBADF);
    }
    // SAFETY: closing a descriptor number; the guest owns its descriptors.
    host_ret(i64::from(unsafe { libc::close(a.int(0)) }))
}

/// [`close`] without the global guest lock ([`super::unlocked`]); endgate's own handles are
/// left to [`close`].
pub fn close_unlocked(_ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    if super::selfref::is_own(a.int(0)) {
        return None;
    }
    // SAFETY: closing a descriptor number; the guest owns its descriptors.
    Some(host_ret(i64::from(unsafe { libc::close(a.int(0)) })))
}

/// `close_range(unsigned first, unsigned last, unsigned flags)` (close_range(2)), around
/// endgate's own handles ([`super::selfref`]).
pub fn close_range(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (first, last, flags) = (a.uint(0), a.uint(1), a.uint(2));
    let mut from = first;
    for own in super::selfref::own_fds().into_iter().filter_map(|f| u32::try_from(f).ok()) {
        if own < from || own > last || first > last {
            continue;
        }
        if own > from {
            // SAFETY: integer arguments.
            host_ret(unsafe { libc::syscall(libc::SYS_close_range, from, own - 1, flags) })?;
        }
        from = own.saturating_add(1);
        if own == u32::MAX {
            return Ok(0);
        }
    }
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_close_range, from, last, flags) })
}

/// `dup(int oldfd)` (dup(2)).
pub fn dup(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if super::selfref::is_own(a.int(0)) {
        return Err(syscalls::Errno::EBADF);
    }
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::dup(a.int(0)) }))
}

/// `dup2(int oldfd, int newfd)` (dup(2)); one of endgate's handles at `newfd` moves away
/// first ([`super::selfref::make_room`]).
pub fn dup2(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if super::selfref::is_own(a.int(0)) {
        return Err(syscalls::Errno::EBADF);
    }
    super::selfref::make_room(a.int(1));
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::dup2(a.int(0), a.int(1)) }))
}

/// `dup3(int oldfd, int newfd, int flags)`; `flags` may only hold `O_CLOEXEC` (else `EINVAL`).
pub fn dup3(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = (cpu.get_data().arch.info().open_flags_to_host)(a.raw(2));
    if super::selfref::is_own(a.int(0)) {
        return Err(syscalls::Errno::EBADF);
    }
    super::selfref::make_room(a.int(1));
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::dup3(a.int(0), a.int(1), flags) }))
}

/// fcntl commands (include/uapi/asm-generic/fcntl.h, include/uapi/linux/fcntl.h).
pub(crate) mod cmd {
    pub const F_DUPFD: i32 = 0;
    pub const F_GETFD: i32 = 1;
    pub const F_SETFD: i32 = 2;
    pub const F_GETFL: i32 = 3;
    pub const F_SETFL: i32 = 4;
    pub const F_GETLK: i32 = 5;
    pub const F_SETLK: i32 = 6;
    pub const F_SETLKW: i32 = 7;
    pub const F_GETLK64: i32 = 12;
    pub const F_SETLK64: i32 = 13;
    pub const F_SETLKW64: i32 = 14;
    pub const F_SETOWN: i32 = 8;
    pub const F_GETOWN: i32 = 9;
    pub const F_SETSIG: i32 = 10;
    pub const F_GETSIG: i32 = 11;
    pub const F_SETOWN_EX: i32 = 15;
    pub const F_GETOWN_EX: i32 = 16;
    pub const F_OFD_GETLK: i32 = 36;
    pub const F_OFD_SETLK: i32 = 37;
    pub const F_OFD_SETLKW: i32 = 38;
    pub const F_SETLEASE: i32 = 1024;
    pub const F_GETLEASE: i32 = 1025;
    pub const F_NOTIFY: i32 = 1026;
    pub const F_DUPFD_CLOEXEC: i32 = 1030;
    pub const F_SETPIPE_SZ: i32 = 1031;
    pub const F_GETPIPE_SZ: i32 = 1032;
    pub const F_ADD_SEALS: i32 = 1033;
    pub const F_GET_SEALS: i32 = 1034;
    pub const F_DUPFD_QUERY: i32 = 1027;
    pub const F_CREATED_QUERY: i32 = 1028;
    pub const F_GET_RW_HINT: i32 = 1035;
    pub const F_SET_RW_HINT: i32 = 1036;
    pub const F_GET_FILE_RW_HINT: i32 = 1037;
    pub const F_SET_FILE_RW_HINT: i32 = 1038;
}

/// `fcntl(int fd, int cmd, ...)` (fcntl(2)). File status flags are converted between guest
/// and host values. Errors: `EINVAL` for commands endgate does not know, the host's otherwise.
pub fn fcntl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fcntl_with(cpu, a, FLOCK)
}

/// `fcntl64(int fd, int cmd, ...)` of ILP32 guests: as [`fcntl`], but the lock commands take a
/// `struct flock64`.
pub fn fcntl64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    use cmd::*;
    // F_GETLK/F_SETLK/F_SETLKW keep the 32-bit `struct flock`; their `*64` forms (12-14,
    // include/uapi/asm-generic/fcntl.h) and the OFD locks take `struct flock64`.
    let (c, shape) = match a.int(1) {
        F_GETLK64 => (F_GETLK, FLOCK64),
        F_SETLK64 => (F_SETLK, FLOCK64),
        F_SETLKW64 => (F_SETLKW, FLOCK64),
        c @ (F_OFD_GETLK | F_OFD_SETLK | F_OFD_SETLKW) => (c, FLOCK64),
        c => (c, FLOCK),
    };
    fcntl_with(cpu, &a.with([a.raw(0), bits64(c), a.raw(2), a.raw(3), a.raw(4), a.raw(5)]), shape)
}

fn fcntl_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, flock: &Shape) -> SysResult {
    use cmd::*;
    let t = cpu.get_data_mut();
    let (fd, c, arg) = (a.int(0), (t.arch.info().fcntl_cmd_to_host)(a.int(1)), a.raw(2));
    match c {
        F_GETFL => {
            // SAFETY: integer command.
            let r = host_ret(i64::from(unsafe { libc::fcntl(fd, F_GETFL) }))?;
            Ok((t.arch.info().open_flags_from_host)(int32(r)))
        }
        // SAFETY: integer command and argument.
        F_SETFL => host_ret(i64::from(unsafe { libc::fcntl(fd, F_SETFL, (t.arch.info().open_flags_to_host)(arg)) })),
        F_GETLK | F_SETLK | F_SETLKW | F_OFD_GETLK | F_OFD_SETLK | F_OFD_SETLKW => {
            let mut fl: libc::flock = t.mm.read_shape(GuestAddr::new(arg), flock)?;
            t.mm.check_writable(GuestAddr::new(arg), t.mm.shape_size(flock))?;
            // SAFETY: a local `struct flock`.
            let flp = &mut fl as *mut libc::flock;
            let r = if matches!(c, F_SETLKW | F_OFD_SETLKW) {
                host_ret(blocking_syscall(t, libc::SYS_fcntl, &[bits64(fd), bits64(c), flp as u64]))?
            } else {
                // SAFETY: a local `struct flock`.
                host_ret(i64::from(unsafe { libc::fcntl(fd, c, flp) }))?
            };
            t.mm.write_shape(GuestAddr::new(arg), flock, &fl)?;
            Ok(r)
        }
        F_SETSIG => {
            // The signal is a number in the guest's numbering (0: SIGIO).
            let sig = if arg == 0 { 0 } else { (t.arch.info().signal_to_host)(arg).ok_or(Errno::EINVAL)?.0 };
            // SAFETY: integer command and argument.
            host_ret(i64::from(unsafe { libc::fcntl(fd, F_SETSIG, libc::c_ulong::from(sig)) }))
        }
        F_GETSIG => {
            // SAFETY: integer command.
            let sig = host_ret(i64::from(unsafe { libc::fcntl(fd, F_GETSIG) }))?;
            Ok(if sig == 0 { 0 } else { (t.arch.info().signal_from_host)(crate::signal::Signal(low32(sig))) })
        }
        F_GETOWN_EX | F_SETOWN_EX => {
            // struct f_owner_ex { int type; __kernel_pid_t pid; } (include/uapi/asm-generic/fcntl.h).
            let p = GuestAddr::new(arg);
            let mut ox = [0i32; 2];
            if c == F_SETOWN_EX {
                ox = [t.mm.read_i32(p)?, t.mm.read_i32(p + 4)?];
            } else {
                t.mm.check_writable(p, 8)?;
            }
            // SAFETY: a local struct f_owner_ex.
            host_ret(i64::from(unsafe { libc::fcntl(fd, c, ox.as_mut_ptr()) }))?;
            if c == F_GETOWN_EX {
                t.mm.write_i32(p, ox[0])?;
                t.mm.write_i32(p + 4, ox[1])?;
            }
            Ok(0)
        }
        F_GET_RW_HINT | F_SET_RW_HINT | F_GET_FILE_RW_HINT | F_SET_FILE_RW_HINT => {
            // A `u64 *` write-life hint (include/uapi/linux/fcntl.h `RWH_WRITE_LIFE_*`).
            let p = GuestAddr::new(arg);
            let set = matches!(c, F_SET_RW_HINT | F_SET_FILE_RW_HINT);
            let mut hint = if set { t.mm.read_u64(p)? } else { 0 };
            // SAFETY: a local u64.
            host_ret(i64::from(unsafe { libc::fcntl(fd, c, &mut hint as *mut u64) }))?;
            if !set {
                t.mm.write_u64(p, hint)?;
            }
            Ok(0)
        }
        F_DUPFD | F_DUPFD_CLOEXEC | F_GETFD | F_SETFD | F_SETOWN | F_GETOWN | F_SETLEASE | F_GETLEASE | F_NOTIFY
        | F_SETPIPE_SZ | F_GETPIPE_SZ | F_ADD_SEALS | F_GET_SEALS | F_DUPFD_QUERY | F_CREATED_QUERY => {
            // SAFETY: integer command and argument.
            host_ret(i64::from(unsafe { libc::fcntl(fd, c, arg as libc::c_ulong) }))
        }
        _ => Err(Errno::EINVAL),
    }
}

/// `pipe2(int pipefd[2], int flags)` (pipe(2)).
pub fn pipe2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let flags = (t.arch.info().open_flags_to_host)(a.raw(1));
    let mut fds = [0i32; 2];
    t.buf_out(a.ptr(0), 8)?;
    // SAFETY: writes two ints into a local array.
    host_ret(i64::from(unsafe { libc::pipe2(fds.as_mut_ptr(), flags) }))?;
    t.mm.write_i32(a.ptr(0), fds[0])?;
    t.mm.write_i32(a.ptr(0) + 4, fds[1])?;
    Ok(0)
}

/// `pipe(int pipefd[2])` (x86_64).
pub fn pipe(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    pipe2(cpu, &a.with([a.raw(0), 0, 0, 0, 0, 0]))
}

/// `EINVAL` when `nfds` exceeds `RLIMIT_NOFILE`, which the kernel checks before touching the
/// array (poll(2)).
fn check_nfds(nfds: u64) -> Result<(), Errno> {
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a local out struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } == 0 && nfds > rl.rlim_cur {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// The guest's `events` of each pollfd in the host's numbering; returns the guest's values,
/// which go back unchanged (the kernel writes only `revents`).
fn pollfds_to_host(t: &Task, fds: &mut [libc::pollfd]) -> Vec<i16> {
    let to_host = t.arch.info().poll_events_to_host;
    fds.iter_mut()
        .map(|f| {
            let guest = f.events;
            f.events = to_host(guest);
            guest
        })
        .collect()
}

/// The host's `revents` in the guest's numbering, and the guest's own `events` back.
fn pollfds_from_host(t: &Task, fds: &mut [libc::pollfd], guest_events: &[i16]) {
    let from_host = t.arch.info().poll_events_from_host;
    for (f, &ev) in fds.iter_mut().zip(guest_events) {
        f.events = ev;
        f.revents = from_host(f.revents);
    }
}

/// `poll(struct pollfd *fds, nfds_t nfds, int timeout)` (x86_64; poll(2)).
pub fn poll(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    check_nfds(a.raw(1))?;
    let t = cpu.get_data_mut();
    let mut fds: Vec<libc::pollfd> = t.mm.read_shape_array(a.ptr(0), POLLFD, a.raw(1))?;
    t.mm.check_writable(a.ptr(0), t.mm.shape_size(POLLFD) * a.raw(1))?;
    let guest_events = pollfds_to_host(t, &mut fds);
    // SAFETY: `nfds` local pollfds.
    let n = host_ret(blocking_syscall(t, libc::SYS_poll, &[fds.as_mut_ptr() as u64, a.raw(1), a.int_arg(2)]))?;
    pollfds_from_host(t, &mut fds, &guest_events);
    t.mm.write_shape_array(a.ptr(0), POLLFD, &fds)?;
    Ok(n)
}

/// `ppoll(struct pollfd *fds, nfds_t nfds, struct timespec *tmo, const sigset_t *mask, size_t
/// sigsetsize)` (ppoll(2)). The timeout is updated with the time left, as Linux does; `mask`
/// is the guest's signal mask while it waits (`super::signal::set_temp_mask`).
pub fn ppoll(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    ppoll_with(cpu, a, TIMESPEC)
}

/// `ppoll_time64` of ILP32 guests: the timeout is a `struct __kernel_timespec`.
pub fn ppoll_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    ppoll_with(cpu, a, TIMESPEC64)
}

fn ppoll_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &Shape) -> SysResult {
    check_nfds(a.raw(1))?;
    let t = cpu.get_data_mut();
    let mut fds: Vec<libc::pollfd> = t.mm.read_shape_array(a.ptr(0), POLLFD, a.raw(1))?;
    t.mm.check_writable(a.ptr(0), t.mm.shape_size(POLLFD) * a.raw(1))?;
    let guest_events = pollfds_to_host(t, &mut fds);
    let mut ts = read_timeout(t, a.ptr(2), ts_shape)?;
    let tsp = ts.as_mut().map_or(std::ptr::null_mut(), |v| v as *mut libc::timespec);
    let old = super::signal::set_temp_mask(t, a.ptr(3), a.ulong(4))?;
    let r = if old.is_some() && super::signal::guest_signal_due(t) {
        Err(Errno::EINTR)
    } else {
        // The host thread's mask is the guest's (temporary) one already.
        host_ret(blocking_syscall(t, libc::SYS_ppoll, &[fds.as_mut_ptr() as u64, a.raw(1), tsp as u64, 0, 8]))
    };
    super::signal::end_temp_mask(t, old, &r);
    pollfds_from_host(t, &mut fds, &guest_events);
    t.mm.write_shape_array(a.ptr(0), POLLFD, &fds)?;
    write_timeout(t, a.ptr(2), ts_shape, ts.as_ref())?;
    r
}

/// Reads an optional in/out timeout (NULL is `None`).
fn read_timeout<T: Plain>(t: &Task, addr: GuestAddr, shape: &Shape) -> Result<Option<T>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    t.mm.read_shape(addr, shape).map(Some)
}

/// Writes back the time left of an optional timeout, as Linux does for select and ppoll. A
/// timeout the guest cannot write (read-only memory) is left as it is and the call's result
/// stands (fs/select.c `poll_select_finish`: "sticky").
fn write_timeout<T: Plain>(t: &mut Task, addr: GuestAddr, shape: &Shape, v: Option<&T>) -> Result<(), Errno> {
    if let Some(v) = v {
        let _ = t.mm.write_shape(addr, shape, v);
    }
    Ok(())
}

/// `select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)` (x86_64; select(2)).
pub fn select(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let mut sets = FdSets::read(t, a)?;
    let mut tv = read_timeout::<libc::timeval>(t, a.ptr(4), TIMEVAL)?;
    let tvp = tv.as_mut().map_or(std::ptr::null_mut(), |v| v as *mut libc::timeval);
    let [r, w, e] = sets.ptrs();
    // SAFETY: local fd_sets of at least `nfds` bits and a local timeval.
    let n = host_ret(blocking_syscall(t, libc::SYS_select, &[a.int_arg(0), r as u64, w as u64, e as u64, tvp as u64]));
    write_timeout(t, a.ptr(4), TIMEVAL, tv.as_ref())?;
    let n = n?;
    sets.write(t)?;
    Ok(n)
}

/// `pselect6(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timespec *ts, void *sigmask)`;
/// the signal mask is not applied (see [`ppoll`]).
pub fn pselect6(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    pselect_with(cpu, a, TIMESPEC)
}

/// `pselect6_time64` of ILP32 guests: the timeout is a `struct __kernel_timespec`.
pub fn pselect6_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    pselect_with(cpu, a, TIMESPEC64)
}

fn pselect_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let mut sets = FdSets::read(t, a)?;
    let mut ts = read_timeout::<libc::timespec>(t, a.ptr(4), ts_shape)?;
    let tsp = ts.as_mut().map_or(std::ptr::null_mut(), |v| v as *mut libc::timespec);
    let [r, w, e] = sets.ptrs();
    // The sixth argument points to `{ const sigset_t *ss; size_t ss_len; }` (fs/select.c).
    let (ss, ss_len) = if a.raw(5) == 0 {
        (GuestAddr::NULL, 0)
    } else {
        let lb = t.mm.long_bytes();
        (GuestAddr::new(t.mm.read_ulong(a.ptr(5))?), t.mm.read_ulong(a.ptr(5) + lb)?)
    };
    let old = super::signal::set_temp_mask(t, ss, ss_len)?;
    let n = if old.is_some() && super::signal::guest_signal_due(t) {
        Err(Errno::EINTR)
    } else {
        host_ret(blocking_syscall(t, libc::SYS_pselect6, &[a.int_arg(0), r as u64, w as u64, e as u64, tsp as u64, 0]))
    };
    super::signal::end_temp_mask(t, old, &n);
    write_timeout(t, a.ptr(4), ts_shape, ts.as_ref())?;
    let n = n?;
    sets.write(t)?;
    Ok(n)
}

/// The three `fd_set`s of a select call, copied to host bitmaps. A guest `fd_set` is an array
/// of `unsigned long` in which descriptor `fd` is bit `fd % (8 * sizeof(long))` of word
/// `fd / (8 * sizeof(long))`; words are read in guest byte order and width.
struct FdSets {
    addrs: [u64; 3],
    nfds: u64,
    bits: [Vec<u64>; 3],
}

impl FdSets {
    fn read(t: &Task, a: &SyscallArgs) -> Result<FdSets, Errno> {
        let n = a.int(0);
        if n < 0 {
            return Err(Errno::EINVAL);
        }
        let nfds = u64::from(n.unsigned_abs()); // n >= 0: the same value
        let (wbits, wbytes) = (t.mm.long_bytes() * 8, t.mm.long_bytes());
        let mut sets = FdSets { addrs: [a.raw(1), a.raw(2), a.raw(3)], nfds, bits: Default::default() };
        for (i, &p) in sets.addrs.iter().enumerate() {
            if p == 0 {
                continue;
            }
            let words = nfds.div_ceil(wbits);
            t.mm.check_writable(GuestAddr::new(p), words * wbytes)?;
            let mut host = vec![0u64; u64_to_usize(nfds.div_ceil(64))];
            for j in 0..words {
                let v = t.mm.read_ulong(GuestAddr::new(p + j * wbytes))?;
                let bit = j * wbits;
                host[(bit / 64) as usize] |= v << (bit % 64);
            }
            sets.bits[i] = host;
        }
        Ok(sets)
    }

    fn ptrs(&mut self) -> [*mut u64; 3] {
        let mut out = [std::ptr::null_mut(); 3];
        for (i, b) in self.bits.iter_mut().enumerate() {
            if self.addrs[i] != 0 {
                b.push(0); // never an empty Vec: the host gets a valid pointer even for nfds 0
                out[i] = b.as_mut_ptr();
            }
        }
        out
    }

    fn write(&self, t: &mut Task) -> Result<(), Errno> {
        let (wbits, wbytes) = (t.mm.long_bytes() * 8, t.mm.long_bytes());
        let mask = if wbits == 64 { u64::MAX } else { (1u64 << wbits) - 1 };
        for (i, &p) in self.addrs.iter().enumerate() {
            if p == 0 {
                continue;
            }
            for j in 0..self.nfds.div_ceil(wbits) {
                let bit = j * wbits;
                let v = (self.bits[i][(bit / 64) as usize] >> (bit % 64)) & mask;
                t.mm.write_ulong(GuestAddr::new(p + j * wbytes), v)?;
            }
        }
        Ok(())
    }
}

/// `flock(int fd, int operation)` (flock(2)).
pub fn flock(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(blocking_syscall(cpu.get_data_mut(), libc::SYS_flock, &[a.int_arg(0), a.int_arg(1)]))
}
