//! Clocks, sleeping and interval timers: `clock_gettime`, `clock_getres`, `gettimeofday`,
//! `time`, `nanosleep`, `clock_nanosleep`, `alarm`, `setitimer`, `getitimer`, `pause`, the
//! clock-tuning reads `adjtimex`/`clock_adjtime` (`struct timex`, include/uapi/linux/timex.h),
//! and the `*_time64` forms of ILP32 guests.
//! `struct timespec` and `struct timeval` are two guest `long`s ([`crate::abi::shapes`]);
//! `struct __kernel_timespec` is two 64-bit integers on every arch.

use super::unlocked::Ctx;
use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::{ITIMERVAL, KERNEL_TIMEX, TIMESPEC, TIMESPEC64, TIMEX};
use crate::abi::thunk::{Plain, Shape};
use crate::gate::Entry;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// `clock_gettime(clockid_t clk, struct timespec *tp)`. Errors: `EINVAL` (bad clock), `EFAULT`.
pub fn clock_gettime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    as_vdso_entry(cpu, Entry::ClockGettime, a)
}

/// `clock_gettime64(clockid_t clk, struct __kernel_timespec *tp)` (ILP32 guests).
pub fn clock_gettime64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    as_vdso_entry(cpu, Entry::ClockGettime64, a)
}

/// `clock_getres(clockid_t clk, struct timespec *res)`; `res` may be NULL.
pub fn clock_getres(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    as_vdso_entry(cpu, Entry::ClockGetres, a)
}

/// `clock_getres_time64(clockid_t clk, struct __kernel_timespec *res)` (ILP32 guests).
pub fn clock_getres_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    as_vdso_entry(cpu, Entry::ClockGetres64, a)
}

/// `gettimeofday(struct timeval *tv, struct timezone *tz)`; either may be NULL. The timezone
/// is the host kernel's (`sys_tz`: {0, 0} unless set with settimeofday).
pub fn gettimeofday(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    as_vdso_entry(cpu, Entry::Gettimeofday, a)
}

/// `time(time_t *tloc)`: seconds since the epoch as of the last tick (Linux's
/// `ktime_get_real_seconds`, the coarse realtime clock), also stored at `tloc` (a guest `long`)
/// if not NULL.
pub fn time(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    as_vdso_entry(cpu, Entry::Time, a)
}

/// `getcpu(unsigned *cpu, unsigned *node, struct getcpu_cache *cache)`; `cache` is unused
/// since Linux 2.6.24.
pub fn getcpu(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    as_vdso_entry(cpu, Entry::Getcpu, a)
}

/// Serves a clock call made as a system call with the vDSO's own code
/// ([`super::gate::clock_call`]), so both paths read the same clocks and write the same
/// structs; a store the guest may not make is `EFAULT` here (a SIGSEGV in the vDSO).
fn as_vdso_entry(cpu: &mut Cpu<'_>, entry: Entry, a: &SyscallArgs) -> SysResult {
    match super::gate::clock_call(&mut *cpu.get_data_mut().mm, entry, [a.raw(0), a.raw(1)]) {
        Ok(v) if (-4095..0).contains(&v) => Err(Errno::new(crate::abi::int32(-v))),
        Ok(v) => Ok(crate::abi::bits64(v)),
        Err(_) => Err(Errno::EFAULT),
    }
}

/// [`as_vdso_entry`] without the global guest lock ([`super::unlocked`]): the stores go
/// through the thread's copy of the mappings; one it cannot make (`EFAULT` included) leaves
/// the call to the full handler.
fn as_vdso_entry_unlocked(ctx: &Ctx<'_>, entry: Entry, a: &SyscallArgs) -> Option<SysResult> {
    let mut out = super::gate::Unlocked(ctx.view?);
    match super::gate::clock_call(&mut out, entry, [a.raw(0), a.raw(1)]) {
        Ok(v) if (-4095..0).contains(&v) => Some(Err(Errno::new(crate::abi::int32(-v)))),
        Ok(v) => Some(Ok(crate::abi::bits64(v))),
        Err(_) => None,
    }
}

/// [`clock_gettime`] without the global guest lock.
pub fn clock_gettime_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    as_vdso_entry_unlocked(ctx, Entry::ClockGettime, a)
}

/// [`clock_getres`] without the global guest lock.
pub fn clock_getres_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    as_vdso_entry_unlocked(ctx, Entry::ClockGetres, a)
}

/// [`clock_gettime64`] without the global guest lock.
pub fn clock_gettime64_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    as_vdso_entry_unlocked(ctx, Entry::ClockGettime64, a)
}

/// [`clock_getres_time64`] without the global guest lock.
pub fn clock_getres_time64_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    as_vdso_entry_unlocked(ctx, Entry::ClockGetres64, a)
}

/// [`gettimeofday`] without the global guest lock.
pub fn gettimeofday_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    as_vdso_entry_unlocked(ctx, Entry::Gettimeofday, a)
}

/// [`getcpu`] without the global guest lock.
pub fn getcpu_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    as_vdso_entry_unlocked(ctx, Entry::Getcpu, a)
}

/// [`time`] without the global guest lock.
pub fn time_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    as_vdso_entry_unlocked(ctx, Entry::Time, a)
}

/// `nanosleep(const struct timespec *req, struct timespec *rem)`. Errors: `EINVAL`, `EFAULT`,
/// `EINTR` (then `rem` holds the time left).
pub fn nanosleep(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    clock_nanosleep(cpu, &a.with([libc::CLOCK_MONOTONIC as u64, 0, a.raw(0), a.raw(1), 0, 0])).map_err(|e| {
        if e == Errno::EOPNOTSUPP {
            Errno::EINVAL
        } else {
            e
        }
    })
}

/// `clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)`.
pub fn clock_nanosleep(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    nanosleep_with(cpu, a, TIMESPEC)
}

/// `clock_nanosleep_time64(…, const struct __kernel_timespec *req, … *rem)` (ILP32 guests).
pub fn clock_nanosleep_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    nanosleep_with(cpu, a, TIMESPEC64)
}

/// [`nanosleep`] without the global guest lock ([`super::unlocked`]), when no time left
/// would have to be written after a signal (`rem` NULL).
pub fn nanosleep_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let a = a.with([libc::CLOCK_MONOTONIC as u64, 0, a.raw(0), a.raw(1), 0, 0]);
    sleep_unlocked(ctx, &a, TIMESPEC).map(|r| r.map_err(|e| if e == Errno::EOPNOTSUPP { Errno::EINVAL } else { e }))
}

/// [`clock_nanosleep`] without the global guest lock, as [`nanosleep_unlocked`].
pub fn clock_nanosleep_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    sleep_unlocked(ctx, a, TIMESPEC)
}

/// [`clock_nanosleep_time64`] without the global guest lock, as [`nanosleep_unlocked`].
pub fn clock_nanosleep_time64_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    sleep_unlocked(ctx, a, TIMESPEC64)
}

/// [`nanosleep_with`] through the thread's copy of the mappings, for a sleep that writes
/// nothing afterwards (no `rem`, or an absolute one); the sleep through
/// [`Ctx::blocking_syscall`].
fn sleep_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs, shape: &Shape) -> Option<SysResult> {
    if a.raw(3) != 0 && a.int(1) & libc::TIMER_ABSTIME == 0 {
        return None;
    }
    let req: libc::timespec = ctx.view?.read_shape(a.raw(2), shape)?;
    let args = [a.int_arg(0), a.int_arg(1), &req as *const libc::timespec as u64, 0];
    Some(host_ret(ctx.blocking_syscall(libc::SYS_clock_nanosleep, &args)))
}

fn nanosleep_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let req: libc::timespec = t.mm.read_shape(a.ptr(2), shape)?;
    let mut rem = libc::timespec::zeroed();
    let r = super::blocking_syscall(
        t,
        libc::SYS_clock_nanosleep,
        &[a.int_arg(0), a.int_arg(1), &req as *const libc::timespec as u64, &mut rem as *mut libc::timespec as u64],
    );
    if r == 0 {
        return Ok(0);
    }
    // SAFETY: glibc's thread-local errno, as blocking_syscall left it.
    let r = unsafe { *libc::__errno_location() };
    if r == libc::EINTR && a.raw(3) != 0 && a.int(1) & libc::TIMER_ABSTIME == 0 {
        t.mm.write_shape(a.ptr(3), shape, &rem)?;
    }
    Err(Errno::new(r))
}

/// `alarm(unsigned seconds)` (alarm(2)): the host's alarm, so SIGALRM reaches the process as
/// it would natively (its default action ends the guest; handlers are a later step). Returns
/// the seconds left of the previous alarm.
pub fn alarm(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    Ok(u64::from(unsafe { libc::alarm(a.uint(0)) }))
}

/// `setitimer(int which, const struct itimerval *new, struct itimerval *old)` (setitimer(2)),
/// served by the host's timers (see [`alarm`] for what their signals do).
pub fn setitimer(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let new: Option<libc::itimerval> = if a.raw(1) == 0 { None } else { Some(t.mm.read_shape(a.ptr(1), ITIMERVAL)?) };
    if a.raw(2) != 0 {
        t.mm.check_writable(a.ptr(2), t.mm.shape_size(ITIMERVAL))?;
    }
    let mut old = libc::itimerval::zeroed();
    let newp = new.as_ref().map_or(std::ptr::null(), |n| n as *const libc::itimerval);
    // SAFETY: local structs (or NULL for `new`).
    host_ret(unsafe { libc::syscall(libc::SYS_setitimer, a.int(0), newp, &mut old) })?;
    if a.raw(2) != 0 {
        t.mm.write_shape(a.ptr(2), ITIMERVAL, &old)?;
    }
    Ok(0)
}

/// `getitimer(int which, struct itimerval *cur)` (getitimer(2)).
pub fn getitimer(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut cur = libc::itimerval::zeroed();
    // SAFETY: a local struct.
    host_ret(unsafe { libc::syscall(libc::SYS_getitimer, a.int(0), &mut cur) })?;
    cpu.get_data_mut().mm.write_shape(a.ptr(1), ITIMERVAL, &cur)?;
    Ok(0)
}

/// `pause(void)` (x86_64; pause(2)): sleeps until a signal arrives; returns `EINTR` if the
/// signal does not end the process.
pub fn pause(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    // SAFETY: no arguments.
    host_ret(super::blocking_syscall(cpu.get_data_mut(), libc::SYS_pause, &[]))
}

/// `modes` bits of `struct timex` (include/uapi/linux/timex.h) that decide whether a call
/// only reads: with `ADJ_ADJTIME` (the old `adjtime(3)` form) and `ADJ_OFFSET_READONLY` it
/// reads the offset left to apply (`ADJ_OFFSET_SS_READ`) unless `ADJ_SETOFFSET` steps the
/// clock too; without `ADJ_ADJTIME` any bit changes the clock.
const ADJ_ADJTIME: u32 = 0x8000;
const ADJ_OFFSET_READONLY: u32 = 0x2000;
const ADJ_SETOFFSET: u32 = 0x0100;
/// `ADJ_OFFSET_SINGLESHOT | ADJ_OFFSET_READONLY`.
const ADJ_OFFSET_SS_READ: u32 = 0xa001;

/// `adjtimex(struct timex *buf)` (adjtimex(2)): `clock_adjtime(CLOCK_REALTIME, buf)`.
pub fn adjtimex(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    timex_call(cpu, None, a.ptr(0), TIMEX)
}

/// `clock_adjtime(clockid_t clk, struct timex *buf)` (clock_adjtime(2)).
pub fn clock_adjtime(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    timex_call(cpu, Some(a.int(0)), a.ptr(1), TIMEX)
}

/// `clock_adjtime64(clockid_t clk, struct __kernel_timex *buf)` (ILP32 guests: 64-bit
/// members, [`KERNEL_TIMEX`]).
pub fn clock_adjtime64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    timex_call(cpu, Some(a.int(0)), a.ptr(1), KERNEL_TIMEX)
}

/// The `struct timex` calls: a call that only reads (`modes` 0, or `ADJ_ADJTIME` with
/// `ADJ_OFFSET_READONLY`, which Linux lets any process make) goes to the host, the struct
/// converted both ways, and returns the clock state (`TIME_OK`…). A call that would change a
/// clock is refused with `EPERM`, the answer of a process without `CAP_SYS_TIME`
/// (kernel/time/timekeeping.c `timekeeping_validate_timex`), as `settimeofday` and
/// `clock_settime` are (`super::unserved`): the guest never sets the host's clocks. The
/// clock's own errors come first, from a read of it: `EINVAL` for no such clock,
/// `EOPNOTSUPP` for one that cannot be adjusted. Errors: those, `EPERM`, `EFAULT`.
fn timex_call(cpu: &mut Cpu<'_>, clock: Option<i32>, buf: GuestAddr, shape: &Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let mut tx: libc::timex = t.mm.read_shape(buf, shape)?;
    let host = |tx: &mut libc::timex| -> SysResult {
        // SAFETY: a local struct timex; integer clock id.
        host_ret(unsafe {
            match clock {
                Some(clk) => libc::syscall(libc::SYS_clock_adjtime, clk, tx as *mut libc::timex),
                None => libc::syscall(libc::SYS_adjtimex, tx as *mut libc::timex),
            }
        })
    };
    let modes = tx.modes;
    let adjtime_read = modes & ADJ_ADJTIME != 0 && modes & ADJ_OFFSET_READONLY != 0 && modes & ADJ_SETOFFSET == 0;
    if modes != 0 && !adjtime_read {
        let mut probe = libc::timex { modes: 0, ..tx };
        host(&mut probe)?;
        return Err(Errno::EPERM);
    }
    // Only the read itself reaches the host, whatever other bits came with it.
    tx.modes = if adjtime_read { ADJ_OFFSET_SS_READ } else { 0 };
    let state = host(&mut tx)?;
    tx.modes = modes;
    t.mm.write_shape(buf, shape, &tx)?;
    Ok(state)
}
