//! Clocks, sleeping and interval timers: `clock_gettime`, `clock_getres`, `gettimeofday`,
//! `time`, `nanosleep`, `clock_nanosleep`, `alarm`, `setitimer`, `getitimer`, `pause`. `struct timespec` and `struct timeval` are two guest words each (64-bit
//! on LP64 guests), written through the endian-aware accessors.

use syscalls::Errno;

use super::{as_int, host_ret, SysResult};
use crate::arch::{Cpu, SyscallArgs};
use crate::mm::AddressSpace;

fn write_pair(mm: &mut AddressSpace, addr: u64, a: i64, b: i64) -> Result<(), Errno> {
    mm.write_u64(addr, a as u64)?;
    mm.write_u64(addr + 8, b as u64)
}

fn read_timespec(mm: &AddressSpace, addr: u64) -> Result<libc::timespec, Errno> {
    Ok(libc::timespec { tv_sec: mm.read_u64(addr)? as i64, tv_nsec: mm.read_u64(addr + 8)? as i64 })
}

/// `clock_gettime(clockid_t clk, struct timespec *tp)`. Errors: `EINVAL` (bad clock), `EFAULT`.
pub fn clock_gettime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::clock_gettime(as_int(a.a[0]), &mut ts) }))?;
    write_pair(&mut cpu.get_data_mut().mm, a.a[1], ts.tv_sec, ts.tv_nsec)?;
    Ok(0)
}

/// `clock_getres(clockid_t clk, struct timespec *res)`; `res` may be NULL.
pub fn clock_getres(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::clock_getres(as_int(a.a[0]), &mut ts) }))?;
    if a.a[1] != 0 {
        write_pair(&mut cpu.get_data_mut().mm, a.a[1], ts.tv_sec, ts.tv_nsec)?;
    }
    Ok(0)
}

/// `gettimeofday(struct timeval *tv, struct timezone *tz)`; either may be NULL. The timezone
/// is always {0, 0}, as Linux reports unless set with settimeofday.
pub fn gettimeofday(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut tv = libc::timeval { tv_sec: 0, tv_usec: 0 };
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::gettimeofday(&mut tv, std::ptr::null_mut()) }))?;
    let mm = &mut cpu.get_data_mut().mm;
    if a.a[0] != 0 {
        write_pair(mm, a.a[0], tv.tv_sec, tv.tv_usec)?;
    }
    if a.a[1] != 0 {
        mm.write_u32(a.a[1], 0)?;
        mm.write_u32(a.a[1] + 4, 0)?;
    }
    Ok(0)
}

/// `time(time_t *tloc)` (x86_64): seconds since the epoch, also stored at `tloc` if not NULL.
pub fn time(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: NULL out pointer is allowed.
    let now = unsafe { libc::time(std::ptr::null_mut()) };
    if a.a[0] != 0 {
        cpu.get_data_mut().mm.write_u64(a.a[0], now as u64)?;
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
    let t = cpu.get_data_mut();
    let req = read_timespec(&t.mm, a.a[2])?;
    let mut rem = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: local structs. clock_nanosleep returns the error number itself.
    let r = unsafe { libc::clock_nanosleep(as_int(a.a[0]), as_int(a.a[1]), &req, &mut rem) };
    if r == 0 {
        return Ok(0);
    }
    if r == libc::EINTR && a.a[3] != 0 && as_int(a.a[1]) & libc::TIMER_ABSTIME == 0 {
        write_pair(&mut t.mm, a.a[3], rem.tv_sec, rem.tv_nsec)?;
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

/// Size of `struct itimerval` on LP64 guests, in bytes (two timevals).
const ITIMERVAL_SIZE: u64 = 32;

/// `setitimer(int which, const struct itimerval *new, struct itimerval *old)` (setitimer(2)),
/// served by the host's timers (see [`alarm`] for what their signals do).
pub fn setitimer(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let new = t.buf_in_opt(a.a[1], ITIMERVAL_SIZE)?;
    let old = t.buf_out_opt(a.a[2], ITIMERVAL_SIZE)?;
    // SAFETY: NULL or checked guest itimervals in the host layout.
    host_ret(unsafe { libc::syscall(libc::SYS_setitimer, as_int(a.a[0]), new, old) })
}

/// `getitimer(int which, struct itimerval *cur)` (getitimer(2)).
pub fn getitimer(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let cur = cpu.get_data_mut().buf_out(a.a[1], ITIMERVAL_SIZE)?;
    // SAFETY: a checked guest itimerval in the host layout.
    host_ret(unsafe { libc::syscall(libc::SYS_getitimer, as_int(a.a[0]), cur) })
}

/// `pause(void)` (x86_64; pause(2)): sleeps until a signal arrives; returns `EINTR` if the
/// signal does not end the process.
pub fn pause(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    // SAFETY: no arguments.
    host_ret(i64::from(unsafe { libc::pause() }))
}
