//! Clocks, sleeping and interval timers: `clock_gettime`, `clock_getres`, `gettimeofday`,
//! `time`, `nanosleep`, `clock_nanosleep`, `alarm`, `setitimer`, `getitimer`, `pause`, and the `*_time64` forms of ILP32 guests.
//! `struct timespec` and `struct timeval` are two guest `long`s ([`crate::abi::shapes`]);
//! `struct __kernel_timespec` is two 64-bit integers on every arch.

use syscalls::Errno;

use super::{as_int, host_ret, SysResult};
use crate::abi::shapes::{ITIMERVAL, TIMESPEC, TIMESPEC64, TIMEVAL};
use crate::abi::thunk::{Plain, Shape};
use crate::guest::{Cpu, SyscallArgs};

/// `clock_gettime(clockid_t clk, struct timespec *tp)`. Errors: `EINVAL` (bad clock), `EFAULT`.
pub fn clock_gettime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gettime(cpu, a, TIMESPEC)
}

/// `clock_gettime64(clockid_t clk, struct __kernel_timespec *tp)` (ILP32 guests).
pub fn clock_gettime64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gettime(cpu, a, TIMESPEC64)
}

fn gettime(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape) -> SysResult {
    let mut ts = libc::timespec::zeroed();
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::clock_gettime(as_int(a.a[0]), &mut ts) }))?;
    cpu.get_data_mut().mm.write_shape(a.a[1], shape, &ts)?;
    Ok(0)
}

/// `clock_getres(clockid_t clk, struct timespec *res)`; `res` may be NULL.
pub fn clock_getres(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    getres(cpu, a, TIMESPEC)
}

/// `clock_getres_time64(clockid_t clk, struct __kernel_timespec *res)` (ILP32 guests).
pub fn clock_getres_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    getres(cpu, a, TIMESPEC64)
}

fn getres(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape) -> SysResult {
    let mut ts = libc::timespec::zeroed();
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::clock_getres(as_int(a.a[0]), &mut ts) }))?;
    if a.a[1] != 0 {
        cpu.get_data_mut().mm.write_shape(a.a[1], shape, &ts)?;
    }
    Ok(0)
}

/// `gettimeofday(struct timeval *tv, struct timezone *tz)`; either may be NULL. The timezone
/// is always {0, 0}, as Linux reports unless set with settimeofday.
pub fn gettimeofday(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut tv = libc::timeval::zeroed();
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) }))?;
    let mm = &mut cpu.get_data_mut().mm;
    if a.a[0] != 0 {
        mm.write_shape(a.a[0], TIMEVAL, &tv)?;
    }
    if a.a[1] != 0 {
        mm.write_u32(a.a[1], 0)?;
        mm.write_u32(a.a[1] + 4, 0)?;
    }
    Ok(0)
}

/// `time(time_t *tloc)`: seconds since the epoch, also stored at `tloc` (a guest `long`) if
/// not NULL.
pub fn time(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: NULL out pointer is allowed.
    let now = unsafe { libc::time(std::ptr::null_mut()) };
    if a.a[0] != 0 {
        cpu.get_data_mut().mm.write_ulong(a.a[0], now as u64)?;
    }
    Ok(now as u64)
}

/// `nanosleep(const struct timespec *req, struct timespec *rem)`. Errors: `EINVAL`, `EFAULT`,
/// `EINTR` (then `rem` holds the time left).
pub fn nanosleep(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    clock_nanosleep(cpu, &SyscallArgs { a: [libc::CLOCK_MONOTONIC as u64, 0, a.a[0], a.a[1], 0, 0], ..*a })
        .map_err(|e| if e == Errno::EOPNOTSUPP { Errno::EINVAL } else { e })
}

/// `clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)`.
pub fn clock_nanosleep(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    nanosleep_with(cpu, a, TIMESPEC)
}

/// `clock_nanosleep_time64(…, const struct __kernel_timespec *req, … *rem)` (ILP32 guests).
pub fn clock_nanosleep_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    nanosleep_with(cpu, a, TIMESPEC64)
}

fn nanosleep_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let req: libc::timespec = t.mm.read_shape(a.a[2], shape)?;
    let mut rem = libc::timespec::zeroed();
    // SAFETY: local structs. clock_nanosleep returns the error number itself.
    let r =
        crate::thread::blocking(|| unsafe { libc::clock_nanosleep(as_int(a.a[0]), as_int(a.a[1]), &req, &mut rem) });
    if r == 0 {
        return Ok(0);
    }
    if r == libc::EINTR && a.a[3] != 0 && as_int(a.a[1]) & libc::TIMER_ABSTIME == 0 {
        t.mm.write_shape(a.a[3], shape, &rem)?;
    }
    Err(Errno::new(r))
}

/// `alarm(unsigned seconds)` (alarm(2)): the host's alarm, so SIGALRM reaches the process as
/// it would natively (its default action ends the guest; handlers are a later step). Returns
/// the seconds left of the previous alarm.
pub fn alarm(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    Ok(u64::from(unsafe { libc::alarm(a.a[0] as u32) }))
}

/// `setitimer(int which, const struct itimerval *new, struct itimerval *old)` (setitimer(2)),
/// served by the host's timers (see [`alarm`] for what their signals do).
pub fn setitimer(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let new: Option<libc::itimerval> = if a.a[1] == 0 { None } else { Some(t.mm.read_shape(a.a[1], ITIMERVAL)?) };
    if a.a[2] != 0 {
        t.mm.check_writable(a.a[2], t.mm.shape_size(ITIMERVAL))?;
    }
    let mut old = libc::itimerval::zeroed();
    let newp = new.as_ref().map_or(std::ptr::null(), |n| n as *const libc::itimerval);
    // SAFETY: local structs (or NULL for `new`).
    host_ret(unsafe { libc::syscall(libc::SYS_setitimer, as_int(a.a[0]), newp, &mut old) })?;
    if a.a[2] != 0 {
        t.mm.write_shape(a.a[2], ITIMERVAL, &old)?;
    }
    Ok(0)
}

/// `getitimer(int which, struct itimerval *cur)` (getitimer(2)).
pub fn getitimer(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut cur = libc::itimerval::zeroed();
    // SAFETY: a local struct.
    host_ret(unsafe { libc::syscall(libc::SYS_getitimer, as_int(a.a[0]), &mut cur) })?;
    cpu.get_data_mut().mm.write_shape(a.a[1], ITIMERVAL, &cur)?;
    Ok(0)
}

/// `pause(void)` (x86_64; pause(2)): sleeps until a signal arrives; returns `EINTR` if the
/// signal does not end the process.
pub fn pause(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    // SAFETY: no arguments.
    host_ret(i64::from(crate::thread::blocking(|| unsafe { libc::pause() })))
}
