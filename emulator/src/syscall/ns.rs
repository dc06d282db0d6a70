//! Namespaces and the sharing of per-thread state: `unshare` and `setns`, passed to the host;
//! `sethostname` and `setdomainname` in a UTS namespace of the guest's own.
//!
//! A guest thread is a host thread, so the host's answer is the guest's: `CLONE_FILES`,
//! `CLONE_FS` and `CLONE_SYSVSEM` apply to the calling thread, `CLONE_NEWPID` and
//! `CLONE_NEWTIME` to the children it forks afterwards, the other namespaces at once; the
//! flags are the same on every arch (include/uapi/linux/sched.h), and the host checks them
//! (`EINVAL` for unknown bits, `EPERM` without the capability: unshare(2), setns(2)).
//!
//! One difference comes from endgate itself. The kernel refuses `unshare(CLONE_NEWUSER)` (and
//! `CLONE_THREAD`, `CLONE_SIGHAND`, `CLONE_VM`) in a process with more than one thread and
//! `setns` into a user or mount namespace when the thread shares its `fs_struct` (kernel/fork.c
//! `check_unshare_flags`, kernel/user_namespace.c `userns_install`, fs/namespace.c
//! `mntns_install`): `EINVAL`. A guest that made threads and has one left is
//! single-threaded, but endgate's preemption timer thread stays; so before these calls, with
//! one guest thread, endgate ends its timer and waits (up to a second) until the host counts
//! one thread ([`crate::thread::preempt::stop_timer`]). A guest with other threads gets the
//! host's `EINVAL`, as natively.

use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs};

/// `CLONE_*` bits that need a single-threaded caller (directly or through the flags they
/// imply).
const CLONE_VM: u64 = 0x100;
const CLONE_SIGHAND: u64 = 0x800;
const CLONE_THREAD: u64 = 0x10000;
const CLONE_NEWNS: u64 = 0x20000;
const CLONE_NEWUSER: u64 = 0x1000_0000;
/// Every `CLONE_NEW*` flag (time, mount, cgroup, UTS, IPC, user, PID, network).
const CLONE_NEW_ANY: u64 =
    0x80 | 0x2_0000 | 0x0200_0000 | 0x0400_0000 | 0x0800_0000 | 0x1000_0000 | 0x2000_0000 | 0x4000_0000;

/// Before a call the kernel allows only a single-threaded process: with one guest thread,
/// endgate's own helper thread goes (see the module doc).
fn single_threaded_host() {
    if crate::thread::live_threads() != 1 {
        return;
    }
    crate::thread::preempt::stop_timer();
    for _ in 0..1000 {
        // Without a readable /proc there is nothing to wait for.
        if matches!(host_threads(), Some(1) | None) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// The kernel's count of this process's threads (`Threads:` in `/proc/self/status`).
fn host_threads() -> Option<usize> {
    let status = super::selfref::read_proc("self/status")?;
    let text = String::from_utf8_lossy(&status);
    text.lines().find_map(|l| l.strip_prefix("Threads:")).and_then(|n| n.trim().parse().ok())
}

/// `unshare(int flags)` (unshare(2)). Errors: the host's (`EINVAL`, `EPERM`, `ENOSPC`,
/// `EUSERS`, `ENOMEM`).
pub fn unshare(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = a.raw(0);
    if flags & (CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM) != 0 {
        single_threaded_host();
    }
    if flags & CLONE_NEW_ANY != 0 {
        // Before the namespaces change: endgate's handles, and the UTS namespace it started in.
        super::selfref::ensure();
    }
    // SAFETY: an integer argument.
    host_ret(unsafe { libc::syscall(libc::SYS_unshare, flags) })
}

/// `setns(int fd, int nstype)` (setns(2)): `fd` a namespace file or a pidfd. Errors: the
/// host's (`EBADF`, `EINVAL`, `EPERM`).
pub fn setns(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let nstype = u64::from(a.uint(1));
    // 0 accepts any namespace type: a user or mount namespace may be the one.
    if nstype == 0 || nstype & (CLONE_NEWUSER | CLONE_NEWNS) != 0 {
        single_threaded_host();
    }
    super::selfref::ensure();
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_setns, a.int_arg(0), a.int_arg(1)) })
}

/// `sethostname(const char *name, size_t len)`/`setdomainname` (gethostname(2)): in a UTS
/// namespace the guest made (unshare, setns) the name is its own and the host decides; in the
/// namespace endgate started in it would be the host's name, which a guest never changes:
/// `EPERM`, what Linux answers without `CAP_SYS_ADMIN`. Errors: `EINVAL` (`len` above 64),
/// `EFAULT`, the host's.
fn set_uts_name(cpu: &mut Cpu<'_>, a: &SyscallArgs, nr: libc::c_long) -> SysResult {
    let len = a.ulong(1);
    if len > 64 {
        return Err(syscalls::Errno::EINVAL);
    }
    let name = cpu.get_data().mm.read_vec(a.ptr(0), usize::try_from(len).unwrap_or(0))?;
    if !super::selfref::in_own_uts_ns() {
        return Err(syscalls::Errno::EPERM);
    }
    // SAFETY: a buffer of `len` bytes.
    host_ret(unsafe { libc::syscall(nr, name.as_ptr(), len) })
}

/// `sethostname(const char *name, size_t len)`: see [`set_uts_name`].
pub fn sethostname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    set_uts_name(cpu, a, libc::SYS_sethostname)
}

/// `setdomainname(const char *name, size_t len)`: see [`set_uts_name`].
pub fn setdomainname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    set_uts_name(cpu, a, libc::SYS_setdomainname)
}

#[cfg(test)]
mod tests {
    #[test]
    fn clone_flags_are_the_kernels() {
        assert_eq!(super::CLONE_NEWUSER, libc::CLONE_NEWUSER as u64);
        assert_eq!(super::CLONE_NEWNS, libc::CLONE_NEWNS as u64);
        assert_eq!(super::CLONE_THREAD, libc::CLONE_THREAD as u64);
        assert_eq!(super::CLONE_SIGHAND, libc::CLONE_SIGHAND as u64);
        assert_eq!(super::CLONE_VM, libc::CLONE_VM as u64);
        let all = libc::CLONE_NEWNS
            | libc::CLONE_NEWCGROUP
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWUSER
            | libc::CLONE_NEWPID
            | libc::CLONE_NEWNET;
        assert_eq!(super::CLONE_NEW_ANY, u64::try_from(all).unwrap() | 0x80);
    }
}
