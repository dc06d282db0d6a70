//! epoll and its usual companion: `epoll_create1`, `epoll_ctl`, `epoll_wait`, `epoll_pwait`,
//! `eventfd2`.
//!
//! `struct epoll_event` is `{u32 events; u64 data}`: packed to 12 bytes on x86_64
//! (arch/x86/include/uapi/asm/... `EPOLL_PACKED`), naturally aligned to 16 bytes elsewhere
//! (include/uapi/linux/eventpoll.h). The host is x86_64, so events are converted between the
//! guest's layout and the host's.

use syscalls::Errno;

use super::unlocked::Ctx;
use super::{host_ret, SysResult};
use crate::abi::shapes::EPOLL_EVENT;
use crate::abi::thunk::{self, Field as F, Shape};
use crate::abi::DataModel;
use crate::guest::Task;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// Most events one `epoll_wait` returns (`EP_MAX_EVENTS`: INT_MAX / sizeof(struct epoll_event)).
const EP_MAX_EVENTS: i32 = i32::MAX / 16;

/// x86_64's packed `struct epoll_event` (12 bytes, `data` at offset 4); the other arches use
/// [`EPOLL_EVENT`] under their data model (16 bytes; 12 on i386, whose `u64` is 4-aligned).
static EPOLL_EVENT_PACKED: &Shape = &[F::U32, F::Bytes(8)];

/// The guest's `struct epoll_event` in `raw` (its whole size, [`event_size`]) as the host's.
fn event_from_guest(packed: bool, model: DataModel, raw: &[u8]) -> libc::epoll_event {
    if packed {
        // The host is x86_64 too: its struct is the same packed one.
        let word = |at: usize| raw.get(at..at + 8).and_then(|b| b.try_into().ok()).map_or(0, u64::from_le_bytes);
        return libc::epoll_event { events: crate::abi::low32(word(0)), u64: word(4) };
    }
    let mut v = [0u64; 2];
    // SAFETY: `[u64; 2]` is valid for any byte pattern.
    thunk::convert(EPOLL_EVENT, model, raw, DataModel::HOST, unsafe { thunk::host_bytes_mut(&mut v) });
    libc::epoll_event { events: crate::abi::low32(v[0]), u64: v[1] }
}

/// A host event as the guest's bytes: the first [`event_size`] bytes of the result.
fn event_to_guest(packed: bool, model: DataModel, e: &libc::epoll_event) -> [u8; 16] {
    let (events, value) = (e.events, e.u64);
    let mut b = [0u8; 16];
    if packed {
        b[..4].copy_from_slice(&events.to_le_bytes());
        b[4..12].copy_from_slice(&value.to_le_bytes());
    } else {
        let v = [u64::from(events), value];
        // SAFETY: `[u64; 2]` is integers only.
        thunk::convert(EPOLL_EVENT, DataModel::HOST, unsafe { thunk::host_bytes(&v) }, model, &mut b);
    }
    b
}

/// The bytes of the guest's `struct epoll_event` of `size` bytes that hold its members: the
/// `events` word first, the `data` last; the padding between them (4 bytes where `data` is
/// 8-aligned) is left as it was, as the kernel's `__put_user` of each member leaves it.
fn members(size: usize) -> [std::ops::Range<usize>; 2] {
    [0..4, size - 8..size]
}

/// The size of the guest's `struct epoll_event`: 12 bytes packed (x86_64) or on i386, 16
/// elsewhere.
fn event_size(packed: bool, model: DataModel) -> usize {
    thunk::size_of(if packed { EPOLL_EVENT_PACKED } else { EPOLL_EVENT }, model)
}

fn read_event(t: &Task, addr: GuestAddr) -> Result<libc::epoll_event, Errno> {
    let (packed, model) = (t.arch.info().epoll_packed, t.mm.model());
    let mut raw = [0u8; 16];
    let raw = &mut raw[..event_size(packed, model)];
    t.mm.read_bytes(addr, raw)?;
    Ok(event_from_guest(packed, model, raw))
}

/// `epoll_create1(int flags)` (epoll_create(2)); `EPOLL_CLOEXEC` is `O_CLOEXEC` on every arch.
pub fn epoll_create1(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = (cpu.get_data().arch.info().open_flags_to_host)(a.raw(0));
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::epoll_create1(flags) }))
}

/// `epoll_create(int size)` (x86_64): `size` must be positive, else `EINVAL`.
pub fn epoll_create(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.int(0) <= 0 {
        return Err(Errno::EINVAL);
    }
    epoll_create1(cpu, &a.with([0; 6]))
}

/// `eventfd2(unsigned initval, int flags)` (eventfd(2)); EFD_CLOEXEC/EFD_NONBLOCK are the open
/// flags' values.
pub fn eventfd2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = (cpu.get_data().arch.info().open_flags_to_host)(a.raw(1));
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::eventfd(a.uint(0), flags) }))
}

/// `eventfd(unsigned initval)` (x86_64).
pub fn eventfd(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    eventfd2(cpu, &a.with([a.raw(0), 0, 0, 0, 0, 0]))
}

/// `epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)` (epoll_ctl(2)); `event`
/// may be NULL for `EPOLL_CTL_DEL`.
pub fn epoll_ctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    // EPOLL_CTL_DEL reads no event (fs/eventpoll.c `ep_op_has_event`).
    let mut ev = if a.raw(3) == 0 || a.int(1) == libc::EPOLL_CTL_DEL { None } else { Some(read_event(t, a.ptr(3))?) };
    let p = ev.as_mut().map_or(std::ptr::null_mut(), |e| e as *mut libc::epoll_event);
    // SAFETY: `p` is NULL or a local event.
    host_ret(i64::from(unsafe { libc::epoll_ctl(a.int(0), a.int(1), a.int(2), p) }))
}

/// [`epoll_ctl`] without the global guest lock ([`super::unlocked`]): the event read through
/// the thread's view.
pub fn epoll_ctl_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let mut ev = if a.raw(3) == 0 || a.int(1) == libc::EPOLL_CTL_DEL {
        None
    } else {
        let view = ctx.view?;
        let (packed, model) = (ctx.arch.info().epoll_packed, view.model());
        let mut raw = [0u8; 16];
        let raw = &mut raw[..event_size(packed, model)];
        view.read_bytes(a.raw(3), raw)?;
        Some(event_from_guest(packed, model, raw))
    };
    let p = ev.as_mut().map_or(std::ptr::null_mut(), |e| e as *mut libc::epoll_event);
    // SAFETY: `p` is NULL or a local event.
    Some(host_ret(i64::from(unsafe { libc::epoll_ctl(a.int(0), a.int(1), a.int(2), p) })))
}

/// Most events [`epoll_pwait_unlocked`] asks for; a larger array goes under the lock.
const UNLOCKED_MAX_EVENTS: usize = 128;

/// [`epoll_pwait`] without the global guest lock, for a call that does not wait (`timeout`
/// 0, no signal mask: Go's scheduler polls so) into an array inside one plain writable span of
/// the thread's view; `None` (serve it under the lock) for anything else, before the host is
/// asked.
pub fn epoll_pwait_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let view = ctx.view?;
    let max = usize::try_from(a.int(2)).ok().filter(|m| (1..=UNLOCKED_MAX_EVENTS).contains(m))?;
    if a.int(3) != 0 || a.raw(4) != 0 {
        return None;
    }
    let (packed, model) = (ctx.arch.info().epoll_packed, view.model());
    let size = event_size(packed, model);
    let base = view.host_range(a.raw(1), (size * max) as u64, crate::mm::Prot::WRITE)?;
    let mut evs = [libc::epoll_event { events: 0, u64: 0 }; UNLOCKED_MAX_EVENTS];
    // SAFETY: `evs` holds `max` events; a zero timeout never waits.
    let r = host_ret(i64::from(unsafe { libc::epoll_wait(a.int(0), evs.as_mut_ptr(), a.int(2), 0) }));
    let Ok(n) = r else { return Some(r) };
    for (i, e) in evs.iter().take(crate::abi::u64_to_usize(n)).enumerate() {
        let b = event_to_guest(packed, model, e);
        // SAFETY: the view found the whole array guest-writable at `base`; this thread runs
        // guest code, so nothing takes it away meanwhile; a host fault (a file page another
        // process truncated away) fails the copy.
        // SAFETY: as above, for each member's bytes.
        let stored = members(size).into_iter().all(|m| unsafe {
            crate::mm::safe_copy::copy(base.add(i * size + m.start), b[m.clone()].as_ptr(), m.len()).is_ok()
        });
        if !stored {
            // As fs/eventpoll.c `ep_send_events`: EFAULT if the first event cannot be
            // written, else the events written so far.
            return Some(if i == 0 { Err(Errno::EFAULT) } else { Ok(i as u64) });
        }
    }
    Some(Ok(n))
}

/// `epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout, const
/// sigset_t *mask, size_t sigsetsize)` (epoll_wait(2)): `timeout` in milliseconds, `mask`
/// the guest's signal mask while it waits (`super::signal::set_temp_mask`). Errors: `EINVAL`
/// for `maxevents <= 0` or a bad `sigsetsize`, `EFAULT`, `EINTR`, the host's.
pub fn epoll_pwait(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    wait_events(cpu, a, Timeout::Millis(a.int(3)))
}

/// `epoll_pwait2(int epfd, struct epoll_event *events, int maxevents, const struct timespec
/// *timeout, const sigset_t *sigmask, size_t sigsetsize)`: as [`epoll_pwait`] with a
/// nanosecond timeout, a `struct __kernel_timespec` on every arch (NULL: wait forever).
pub fn epoll_pwait2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let ts = if a.raw(3) == 0 {
        None
    } else {
        Some(cpu.get_data().mm.read_shape::<libc::timespec>(a.ptr(3), crate::abi::shapes::TIMESPEC64)?)
    };
    wait_events(cpu, a, Timeout::Spec(ts))
}

/// How long an epoll wait may last.
enum Timeout {
    /// `epoll_wait`'s milliseconds (-1: forever).
    Millis(i32),
    /// `epoll_pwait2`'s timespec (`None`: forever).
    Spec(Option<libc::timespec>),
}

fn wait_events(cpu: &mut Cpu<'_>, a: &SyscallArgs, timeout: Timeout) -> SysResult {
    let max = a.int(2);
    if max <= 0 || max > EP_MAX_EVENTS {
        return Err(Errno::EINVAL);
    }
    let max = max.unsigned_abs(); // 1..=EP_MAX_EVENTS: the same value
    let t = cpu.get_data_mut();
    let packed = t.arch.info().epoll_packed;
    let size = event_size(packed, t.mm.model()) as u64;
    // Linux only range-checks the array here (`access_ok`) and writes it when events come:
    // with nothing ready a bad array is never touched.
    let span = size * u64::from(max);
    if a.ptr(1).get().checked_add(span).is_none_or(|end| end > t.mm.task_size) {
        return Err(Errno::EFAULT);
    }
    // The kernel hands out only the events it can store and keeps the others queued
    // (fs/eventpoll.c `ep_send_events` puts an event whose copy faulted back): so ask the host
    // for no more than the array's writable part holds, and with none, only wait for the
    // instance to have one (`EFAULT` then, the event still queued).
    let room = t.mm.writable_prefix(a.ptr(1).get(), span) / size;
    let take = u32::try_from(room).unwrap_or(u32::MAX).min(max);
    let mut evs = vec![libc::epoll_event { events: 0, u64: 0 }; take.max(1) as usize];
    let old = super::signal::set_temp_mask(t, a.ptr(4), a.ulong(5))?;
    let r = if old.is_some() && super::signal::guest_signal_due(t) {
        Err(Errno::EINTR)
    } else if take == 0 {
        wait_ready(t, a.int(0), &timeout).and_then(|ready| if ready { Err(Errno::EFAULT) } else { Ok(0) })
    } else {
        // The host thread's mask is the guest's (temporary) one already.
        let (ep, evp, max) = (a.int_arg(0), evs.as_mut_ptr() as u64, take);
        host_ret(match &timeout {
            Timeout::Millis(ms) => {
                super::blocking_syscall(t, libc::SYS_epoll_wait, &[ep, evp, u64::from(max), crate::abi::bits64(*ms)])
            }
            Timeout::Spec(ts) => {
                let tp = ts.as_ref().map_or(0, |x| x as *const libc::timespec as u64);
                super::blocking_syscall(t, libc::SYS_epoll_pwait2, &[ep, evp, u64::from(max), tp, 0, 8])
            }
        })
    };
    super::signal::end_temp_mask(t, old, &r);
    let n = r?;
    let model = t.mm.model();
    for (i, e) in evs.iter().take(crate::abi::u64_to_usize(n)).enumerate() {
        let at = a.ptr(1) + i as u64 * size;
        let b = event_to_guest(packed, model, e);
        // As fs/eventpoll.c `ep_send_events`: EFAULT if the first event cannot be written,
        // else the events written so far.
        let stored = members(crate::abi::u64_to_usize(size))
            .into_iter()
            .try_for_each(|m| t.mm.write_bytes(at + m.start as u64, &b[m]));
        if let Err(e) = stored {
            return if i == 0 { Err(e) } else { Ok(i as u64) };
        }
    }
    Ok(n)
}

/// For an epoll wait whose array can take no event: waits as the wait would for epoll
/// instance `epfd` to have an event ready, without taking it (`ppoll` on the instance, which
/// is readable while it has one); `true` if one is. Errors: `EBADF` for a descriptor that is
/// not open, `EINVAL` for one that is no epoll instance (as `epoll_wait` checks first),
/// `EINTR`.
fn wait_ready(t: &mut Task, epfd: i32, timeout: &Timeout) -> Result<bool, Errno> {
    match super::selfref::fd_kind(epfd) {
        None => return Err(Errno::EBADF),
        Some(k) if k.as_os_str().as_encoded_bytes() != b"anon_inode:[eventpoll]" => return Err(Errno::EINVAL),
        Some(_) => {}
    }
    let ts = match timeout {
        Timeout::Millis(ms) if *ms < 0 => None,
        Timeout::Millis(ms) => {
            Some(libc::timespec { tv_sec: i64::from(*ms / 1000), tv_nsec: i64::from(*ms % 1000) * 1_000_000 })
        }
        Timeout::Spec(ts) => *ts,
    };
    let mut pfd = libc::pollfd { fd: epfd, events: libc::POLLIN, revents: 0 };
    let tp = ts.as_ref().map_or(0, |x| x as *const libc::timespec as u64);
    // The host thread's mask is the guest's (temporary) one already: no mask of ppoll's own.
    let n = host_ret(super::blocking_syscall(t, libc::SYS_ppoll, &[(&raw mut pfd) as u64, 1, tp, 0, 8]))?;
    Ok(n > 0)
}

/// `epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)` (x86_64).
pub fn epoll_wait(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    epoll_pwait(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), a.raw(3), 0, 0]))
}
