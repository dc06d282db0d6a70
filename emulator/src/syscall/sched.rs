//! Scheduling parameters and policies (sched(7); kernel/sched/syscalls.c), passed to the host
//! kernel for the guest's threads (guest tids are host tids): `sched_getparam`,
//! `sched_setparam`, `sched_setscheduler`, `sched_get_priority_min/max`,
//! `sched_rr_get_interval` (and its `_time64` form), `sched_getattr`, `sched_setattr`, `nice`.
//!
//! `struct sched_param` is one `int`; `struct sched_attr` (include/uapi/linux/sched/types.h)
//! is `u32 size, policy; u64 flags; s32 nice; u32 priority; u64 runtime, deadline, period;
//! u32 util_min, util_max` (48 bytes in its first version, 56 in the second), the same on every
//! arch but for byte order: each member is converted on its own.

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::{TIMESPEC, TIMESPEC64};
use crate::abi::thunk::Shape;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// `sched_getparam(pid_t pid, struct sched_param *param)`. Errors: `EINVAL` (NULL or negative
/// pid), `EFAULT`, `ESRCH`.
pub fn sched_getparam(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.raw(1) == 0 {
        return Err(Errno::EINVAL);
    }
    let mut prio = 0i32;
    // SAFETY: a local int for the kernel's struct sched_param.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_getparam, a.int(0), &mut prio) })?;
    cpu.get_data_mut().mm.write_i32(a.ptr(1), prio)?;
    Ok(0)
}

/// The guest's `struct sched_param` at `addr` (NULL: `EINVAL`, as the kernel answers).
fn read_param(cpu: &Cpu<'_>, addr: GuestAddr) -> Result<i32, Errno> {
    if addr.is_null() {
        return Err(Errno::EINVAL);
    }
    cpu.get_data().mm.read_i32(addr)
}

/// `sched_setparam(pid_t pid, const struct sched_param *param)`. Errors: `EINVAL`, `EFAULT`,
/// `EPERM`, `ESRCH`.
pub fn sched_setparam(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let prio = read_param(cpu, a.ptr(1))?;
    // SAFETY: a local struct sched_param.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_setparam, a.int(0), &prio) })
}

/// `sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)`. Errors:
/// `EINVAL`, `EFAULT`, `EPERM`, `ESRCH`.
pub fn sched_setscheduler(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let prio = read_param(cpu, a.ptr(2))?;
    // SAFETY: a local struct sched_param.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_setscheduler, a.int(0), a.int(1), &prio) })
}

/// `sched_get_priority_max(int policy)`. Errors: `EINVAL` for an unknown policy.
pub fn sched_get_priority_max(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: an integer argument.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_get_priority_max, a.int(0)) })
}

/// `sched_get_priority_min(int policy)`. Errors: `EINVAL` for an unknown policy.
pub fn sched_get_priority_min(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: an integer argument.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_get_priority_min, a.int(0)) })
}

/// `sched_rr_get_interval(pid_t pid, struct timespec *tp)`. Errors: `EINVAL`, `EFAULT`, `ESRCH`.
pub fn sched_rr_get_interval(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    rr_interval(cpu, a, TIMESPEC)
}

/// `sched_rr_get_interval_time64(pid_t pid, struct __kernel_timespec *tp)` (ILP32 guests).
pub fn sched_rr_get_interval_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    rr_interval(cpu, a, TIMESPEC64)
}

fn rr_interval(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape) -> SysResult {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a local timespec.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_rr_get_interval, a.int(0), &mut ts) })?;
    cpu.get_data_mut().mm.write_shape(a.ptr(1), shape, &ts)?;
    Ok(0)
}

/// `nice(int inc)` (the old call of arm, i386 and s390x): 0, or `EPERM` when raising the
/// priority is not allowed.
pub fn nice(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // getpriority's raw value is 20 - nice; setpriority clamps as sys_nice does.
    // SAFETY: integer arguments.
    let raw = host_ret(unsafe { libc::syscall(libc::SYS_getpriority, libc::PRIO_PROCESS, 0) })?;
    let now = 20 - crate::abi::signed64(raw);
    let inc = i64::from(a.int(0)).clamp(-40, 40);
    let new = (now + inc).clamp(-20, 19);
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_setpriority, libc::PRIO_PROCESS, 0, crate::abi::int32(new)) })
}

/// The members of `struct sched_attr`, in order, by byte width.
const SCHED_ATTR: [usize; 10] = [4, 4, 8, 4, 4, 8, 8, 8, 4, 4];
/// `SCHED_ATTR_SIZE_VER1`: the struct with the utilization clamps.
const SCHED_ATTR_MAX: usize = 56;

/// Puts each member of a `struct sched_attr` in `b` (its first `b.len()` bytes) into the other
/// byte order.
fn swap_attr(b: &mut [u8]) {
    let mut at = 0;
    for w in SCHED_ATTR {
        if at + w > b.len() {
            break;
        }
        b[at..at + w].reverse();
        at += w;
    }
}

/// `sched_getattr(pid_t pid, struct sched_attr *attr, unsigned int size, unsigned int flags)`.
/// Errors: `EINVAL`, `EFAULT`, `ESRCH`, `E2BIG`.
pub fn sched_getattr(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let size = (a.uint(2) as usize).min(SCHED_ATTR_MAX);
    let mut b = [0u8; SCHED_ATTR_MAX];
    let p = if a.raw(1) == 0 { std::ptr::null_mut() } else { b.as_mut_ptr() };
    // SAFETY: a local buffer of `SCHED_ATTR_MAX` >= `size` bytes (or NULL, refused by the host).
    host_ret(unsafe {
        libc::syscall(libc::SYS_sched_getattr, a.int(0), p, u32::try_from(size).map_err(|_| Errno::EINVAL)?, a.uint(3))
    })?;
    let t = cpu.get_data_mut();
    let got = (u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as usize).min(size);
    if t.mm.endian() != crate::mm::Endian::HOST {
        swap_attr(&mut b[..got]);
    }
    t.mm.write_bytes(a.ptr(1), &b[..got])?;
    Ok(0)
}

/// `sched_setattr(pid_t pid, struct sched_attr *attr, unsigned int flags)`: the size is the
/// struct's first member. Errors: `EINVAL`, `EFAULT`, `E2BIG`, `EPERM`, `ESRCH`, `EBUSY`.
pub fn sched_setattr(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    if a.raw(1) == 0 {
        return Err(Errno::EINVAL);
    }
    let size = t.mm.read_u32(a.ptr(1))? as usize;
    // The kernel treats 0 as the first version's 48 bytes; more than it knows must be zeros.
    let len = if size == 0 { 48 } else { size.min(SCHED_ATTR_MAX) };
    let mut b = [0u8; SCHED_ATTR_MAX];
    b[..len].copy_from_slice(&t.mm.read_vec(a.ptr(1), len)?);
    if t.mm.endian() != crate::mm::Endian::HOST {
        swap_attr(&mut b[..len]);
    }
    // Larger than a page, or nonzero past what the kernel knows: E2BIG (kernel/sched/syscalls.c
    // sched_copy_attr).
    if size > 4096
        || size > SCHED_ATTR_MAX
            && t.mm.read_vec(a.ptr(1) + SCHED_ATTR_MAX as u64, size - SCHED_ATTR_MAX)?.iter().any(|&x| x != 0)
    {
        return Err(Errno::E2BIG);
    }
    // The host reads what was checked and copied: at most the struct it knows.
    b[..4].copy_from_slice(&u32::try_from(size.min(SCHED_ATTR_MAX)).map_err(|_| Errno::E2BIG)?.to_ne_bytes());
    // SAFETY: a local struct sched_attr of `len` bytes.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_setattr, a.int(0), b.as_ptr(), a.uint(2)) })
}
