//! POSIX per-process timers (`timer_create` and friends) and timer file descriptors
//! (`timerfd_*`), served by the host kernel's own timers.
//!
//! A POSIX timer's expiry is a host signal, sent by the host kernel to the process
//! (`SIGEV_SIGNAL`) or to one thread (`SIGEV_THREAD_ID`; guest tids are host tids): it reaches
//! the guest's handler like any other signal, with `si_code` `SI_TIMER` and the timer's
//! `si_value` ([`crate::signal::SigFields::Timer`]). glibc's `SIGEV_THREAD` timers are built
//! on `SIGEV_THREAD_ID` in the guest's libc, so the kernel never sees them.
//!
//! The guest's `struct sigevent` (include/uapi/asm-generic/siginfo.h) is `sigev_value` (a
//! pointer-sized union), `sigev_signo`, `sigev_notify`, then the union whose first member is
//! the target tid: offsets 0, 8, 12, 16 on LP64 and 0, 4, 8, 12 on ILP32.

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::{ITIMERSPEC, ITIMERSPEC64};
use crate::abi::thunk::Shape;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// `SIGEV_NONE` and `SIGEV_THREAD_ID` (asm-generic/siginfo.h).
const SIGEV_NONE: i32 = 1;
const SIGEV_THREAD_ID: i32 = 4;
/// `SIGEV_THREAD` (asm-generic/siginfo.h).
pub(crate) const SIGEV_THREAD: i32 = 2;

/// The host's `struct sigevent` as the kernel reads it (x86_64: value, signo, notify, tid).
#[repr(C)]
pub(crate) struct HostSigevent {
    /// `sigev_value`.
    pub value: u64,
    /// `sigev_signo` (host numbering).
    pub signo: i32,
    /// `sigev_notify`.
    pub notify: i32,
    /// `sigev_notify_thread_id`.
    pub tid: i32,
    _pad: [i32; 11],
}

/// `timer_create(clockid_t clock, struct sigevent *sevp, timer_t *id)` (timer_create(2)).
/// The signal is converted to the host's number; a NULL `sevp` means SIGALRM with the timer id
/// as value, as in the kernel. Errors: `EINVAL` (bad signal, clock or notify), `EFAULT`, the
/// host's `EAGAIN`.
pub fn timer_create(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let clock = a.int(0);
    // The kernel's order (kernel/time/posix-timers.c): the sigevent is copied first (EFAULT),
    // then the clock is checked (EINVAL), and the id is stored last (EFAULT, the timer
    // deleted again), so a bad clock with a bad id pointer is EINVAL.
    let sev = read_sigevent(t, a.ptr(1))?;
    let mut id: i32 = 0;
    let sevp = sev.as_ref().map_or(std::ptr::null(), |s| s as *const HostSigevent);
    // SAFETY: a local sigevent (or NULL) and a local id.
    host_ret(unsafe { libc::syscall(libc::SYS_timer_create, clock, sevp, &mut id) })?;
    if let Err(e) = cpu.get_data_mut().mm.write_i32(a.ptr(2), id) {
        // As the kernel does when it cannot store the id: the timer goes again.
        // SAFETY: the timer just created.
        unsafe { libc::syscall(libc::SYS_timer_delete, id) };
        return Err(e);
    }
    Ok(0)
}

/// The guest's `struct sigevent` at `addr` as the host's (`None` for NULL), its signal in the
/// host's numbering. Errors: `EFAULT`, `EINVAL` (a signal the host lacks).
pub(crate) fn read_sigevent(t: &crate::guest::Task, addr: GuestAddr) -> Result<Option<HostSigevent>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    let mm = &t.mm;
    let long = mm.long_bytes();
    let value = mm.read_ulong(addr)?;
    let signo = u64::from(mm.read_u32(addr + long)?);
    let notify = mm.read_i32(addr + long + 4)?;
    let tid = mm.read_i32(addr + long + 8)?;
    let signo = match notify & !SIGEV_THREAD_ID {
        SIGEV_NONE => 0,
        // `mq_notify`'s netlink form: `sigev_signo` is a socket, which the kernel checks
        // (`timer_create` refuses the kind with EINVAL).
        SIGEV_THREAD => crate::abi::int32(signo),
        _ => (t.arch.info().signal_to_host)(signo).ok_or(Errno::EINVAL)?.as_c_int(),
    };
    Ok(Some(HostSigevent { value, signo, notify, tid, _pad: [0; 11] }))
}

fn settime(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape, nr: libc::c_long) -> SysResult {
    let t = cpu.get_data_mut();
    let new: libc::itimerspec = t.mm.read_shape(a.ptr(2), shape)?;
    if a.raw(3) != 0 {
        t.mm.check_writable(a.ptr(3), t.mm.shape_size(shape))?;
    }
    let mut old: libc::itimerspec = unsafe_zeroed();
    let oldp = if a.raw(3) != 0 { &mut old as *mut libc::itimerspec } else { std::ptr::null_mut() };
    // SAFETY: local structs; integer arguments.
    host_ret(unsafe { libc::syscall(nr, a.int(0), a.int(1), &new, oldp) })?;
    if a.raw(3) != 0 {
        t.mm.write_shape(a.ptr(3), shape, &old)?;
    }
    Ok(0)
}

fn gettime(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape, nr: libc::c_long) -> SysResult {
    let mut cur: libc::itimerspec = unsafe_zeroed();
    // SAFETY: a local struct.
    host_ret(unsafe { libc::syscall(nr, a.int(0), &mut cur) })?;
    cpu.get_data_mut().mm.write_shape(a.ptr(1), shape, &cur)?;
    Ok(0)
}

fn unsafe_zeroed() -> libc::itimerspec {
    // SAFETY: itimerspec is plain integers.
    unsafe { std::mem::zeroed() }
}

/// `timer_settime(timer_t id, int flags, const struct itimerspec *new, struct itimerspec *old)`.
/// Errors: `EINVAL`, `EFAULT`.
pub fn timer_settime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    settime(cpu, a, ITIMERSPEC, libc::SYS_timer_settime)
}

/// `timer_settime64` of ILP32 guests: `struct __kernel_itimerspec`.
pub fn timer_settime64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    settime(cpu, a, ITIMERSPEC64, libc::SYS_timer_settime)
}

/// `timer_gettime(timer_t id, struct itimerspec *cur)`. Errors: `EINVAL`, `EFAULT`.
pub fn timer_gettime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gettime(cpu, a, ITIMERSPEC, libc::SYS_timer_gettime)
}

/// `timer_gettime64` of ILP32 guests.
pub fn timer_gettime64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gettime(cpu, a, ITIMERSPEC64, libc::SYS_timer_gettime)
}

/// `timer_getoverrun(timer_t id)`. Errors: `EINVAL`.
pub fn timer_getoverrun(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: an integer argument.
    host_ret(unsafe { libc::syscall(libc::SYS_timer_getoverrun, a.int(0)) })
}

/// `timer_delete(timer_t id)`. Errors: `EINVAL`.
pub fn timer_delete(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: an integer argument.
    host_ret(unsafe { libc::syscall(libc::SYS_timer_delete, a.int(0)) })
}

/// `timerfd_create(int clock, int flags)`: `TFD_NONBLOCK`/`TFD_CLOEXEC` are the guest's
/// `O_NONBLOCK`/`O_CLOEXEC` values. Reading the descriptor gives the expiry count as a host
/// `u64` (big-endian guests see it byte-swapped, as with `eventfd`). Errors: `EINVAL`, the
/// host's `EMFILE`.
pub fn timerfd_create(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags =
        (cpu.get_data().arch.info().open_flags_to_host)(a.raw(1) & 0xffff_ffff) & (libc::O_NONBLOCK | libc::O_CLOEXEC);
    if a.int(1)
        & !(crate::abi::int32((cpu.get_data().arch.info().open_flags_from_host)(libc::O_NONBLOCK | libc::O_CLOEXEC)))
        != 0
    {
        return Err(Errno::EINVAL);
    }
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_timerfd_create, a.int(0), flags) })
}

/// `timerfd_settime(int fd, int flags, const struct itimerspec *new, struct itimerspec *old)`.
/// Errors: `EBADF`, `EINVAL`, `EFAULT`.
pub fn timerfd_settime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    settime(cpu, a, ITIMERSPEC, libc::SYS_timerfd_settime)
}

/// `timerfd_settime64` of ILP32 guests.
pub fn timerfd_settime64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    settime(cpu, a, ITIMERSPEC64, libc::SYS_timerfd_settime)
}

/// `timerfd_gettime(int fd, struct itimerspec *cur)`. Errors: `EBADF`, `EINVAL`, `EFAULT`.
pub fn timerfd_gettime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gettime(cpu, a, ITIMERSPEC, libc::SYS_timerfd_gettime)
}

/// `timerfd_gettime64` of ILP32 guests.
pub fn timerfd_gettime64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gettime(cpu, a, ITIMERSPEC64, libc::SYS_timerfd_gettime)
}
