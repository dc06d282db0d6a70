//! Process file descriptors (pidfd_open(2), pidfd_send_signal(2), pidfd_getfd(2)) and
//! `kcmp(2)`, served by the host kernel: guest pids are host pids, so a pidfd names the
//! same process natively and under endgate. `CLONE_PIDFD` is `clone`'s
//! ([`super::fork`]); `waitid(P_PIDFD, …)` is `waitid`'s.
//!
//! Converted: `PIDFD_NONBLOCK` (it is `O_NONBLOCK`, whose value is the arch's), the signal
//! number and the queued `siginfo_t` of `pidfd_send_signal`, and `kcmp`'s
//! `struct kcmp_epoll_slot` (three `__u32`s, in the guest's byte order).

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs};

/// `pidfd_open(pid_t pid, unsigned int flags)`. Errors: the host's (`EINVAL`, `ESRCH`,
/// `EMFILE`).
pub fn pidfd_open(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = (cpu.get_data().arch.info().open_flags_to_host)(u64::from(a.uint(1)));
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_pidfd_open, a.int(0), flags) })
}

/// `pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags)`: as
/// `rt_sigqueueinfo` when `info` is given, as `kill` otherwise. Errors: `EINVAL` (a signal
/// the host lacks), `EFAULT`, the host's (`EBADF`, `EPERM`, `ESRCH`).
pub fn pidfd_send_signal(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let sig = super::signal::sent_signal(t, a.uint(1))?;
    let info = if a.raw(2) == 0 {
        None
    } else {
        // kernel/signal.c `copy_siginfo_from_user_any`: the info must name the signal sent.
        if u64::from(t.mm.read_u32(a.ptr(2))?) != u64::from(a.uint(1)) {
            return Err(Errno::EINVAL);
        }
        Some(super::signal::read_queued_siginfo(t, a.ptr(2), sig)?)
    };
    let ip = info.as_ref().map_or(std::ptr::null(), |i| i as *const libc::siginfo_t);
    // SAFETY: a local siginfo (or NULL); integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_pidfd_send_signal, a.int(0), sig.as_c_int(), ip, a.uint(3)) })
}

/// `pidfd_getfd(int pidfd, int targetfd, unsigned int flags)`: a copy of another process's
/// descriptor. Errors: the host's (`EBADF`, `EPERM`, `ESRCH`).
pub fn pidfd_getfd(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_pidfd_getfd, a.int(0), a.int(1), a.uint(2)) })
}

/// `KCMP_EPOLL_TFD` (include/uapi/linux/kcmp.h): `idx2` points to a `kcmp_epoll_slot`.
const KCMP_EPOLL_TFD: i32 = 7;

/// `kcmp(pid_t pid1, pid_t pid2, int type, unsigned long idx1, unsigned long idx2)`: 0 equal,
/// 1 or 2 ordered, 3 different. Errors: `EFAULT`, the host's (`EBADF`, `EINVAL`, `EPERM`,
/// `ESRCH`).
pub fn kcmp(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut slot = [0u32; 3];
    let mut idx2 = a.ulong(4);
    if a.int(2) == KCMP_EPOLL_TFD {
        let mm = &cpu.get_data().mm;
        for (i, v) in slot.iter_mut().enumerate() {
            *v = mm.read_u32(a.ptr(4) + 4 * i as u64)?;
        }
        idx2 = slot.as_ptr() as u64;
    }
    // SAFETY: integer arguments, or a local slot.
    host_ret(unsafe { libc::syscall(libc::SYS_kcmp, a.int(0), a.int(1), a.int(2), a.ulong(3), idx2) })
}
