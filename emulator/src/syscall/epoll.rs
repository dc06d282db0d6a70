//! epoll and its usual companion: `epoll_create1`, `epoll_ctl`, `epoll_wait`, `epoll_pwait`,
//! `eventfd2`.
//!
//! `struct epoll_event` is `{u32 events; u64 data}`: packed to 12 bytes on x86_64
//! (arch/x86/include/uapi/asm/... `EPOLL_PACKED`), naturally aligned to 16 bytes elsewhere
//! (include/uapi/linux/eventpoll.h). The host is x86_64, so events are converted between the
//! guest's layout and the host's.

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::EPOLL_EVENT;
use crate::abi::thunk::{Field as F, Shape};
use crate::guest::Task;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// Most events one `epoll_wait` returns (`EP_MAX_EVENTS`: INT_MAX / sizeof(struct epoll_event)).
const EP_MAX_EVENTS: i32 = i32::MAX / 16;

/// x86_64's packed `struct epoll_event` (12 bytes, `data` at offset 4); the other arches use
/// [`EPOLL_EVENT`] under their data model (16 bytes; 12 on i386, whose `u64` is 4-aligned).
static EPOLL_EVENT_PACKED: &Shape = &[F::U32, F::Bytes(8)];

fn shape(t: &Task) -> &'static Shape {
    if t.arch.info().epoll_packed {
        EPOLL_EVENT_PACKED
    } else {
        EPOLL_EVENT
    }
}

fn read_event(t: &Task, addr: GuestAddr) -> Result<libc::epoll_event, Errno> {
    if t.arch.info().epoll_packed {
        // The host is x86_64 too: its struct is the same packed one.
        let mut b = [0u8; 12];
        t.mm.read_bytes(addr, &mut b)?;
        let data = u64::from_le_bytes(b[4..12].try_into().unwrap_or_default());
        return Ok(libc::epoll_event { events: u32::from_le_bytes([b[0], b[1], b[2], b[3]]), u64: data });
    }
    let v: [u64; 2] = t.mm.read_shape(addr, EPOLL_EVENT)?;
    Ok(libc::epoll_event { events: crate::abi::low32(v[0]), u64: v[1] })
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
    let size = t.mm.shape_size(shape(t));
    // Linux only range-checks the array here (`access_ok`) and writes it when events come:
    // with nothing ready a bad array is never touched.
    let span = size * u64::from(max);
    if a.ptr(1).get().checked_add(span).is_none_or(|end| end > t.mm.task_size) {
        return Err(Errno::EFAULT);
    }
    let mut evs = vec![libc::epoll_event { events: 0, u64: 0 }; max as usize];
    let old = super::signal::set_temp_mask(t, a.ptr(4), a.ulong(5))?;
    let r = if old.is_some() && super::signal::guest_signal_due(t) {
        Err(Errno::EINTR)
    } else {
        // The host thread's mask is the guest's (temporary) one already.
        let (ep, evp) = (a.int_arg(0), evs.as_mut_ptr() as u64);
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
    for (i, e) in evs.iter().take(crate::abi::u64_to_usize(n)).enumerate() {
        let at = a.ptr(1) + i as u64 * size;
        let (events, value) = (e.events, e.u64);
        let w = if packed {
            let mut b = [0u8; 12];
            b[..4].copy_from_slice(&events.to_le_bytes());
            b[4..].copy_from_slice(&value.to_le_bytes());
            t.mm.write_bytes(at, &b)
        } else {
            t.mm.write_shape(at, EPOLL_EVENT, &[u64::from(events), value])
        };
        // As fs/eventpoll.c `ep_send_events`: EFAULT if the first event cannot be written,
        // else the events written so far.
        if let Err(e) = w {
            return if i == 0 { Err(e) } else { Ok(i as u64) };
        }
    }
    Ok(n)
}

/// `epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)` (x86_64).
pub fn epoll_wait(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    epoll_pwait(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), a.raw(3), 0, 0]))
}
