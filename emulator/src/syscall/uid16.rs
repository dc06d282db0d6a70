//! The 16-bit-id calls (kernel/uid16.c) that i386 and arm keep at their historic numbers
//! (`getuid` 24, `chown` 182…, each arch's syscall table names them `sys_getuid16`…); the
//! `…32` calls that replaced them are the real ones and are served by the generic handlers.
//! Getters narrow the 32-bit id (`high2lowuid`: ids above 65535 read as 65534), setters widen
//! their arguments (`low2highuid`: 0xffff means "unchanged", -1) and run the generic call.
//! `crate::arch::uid16_name` gives the numbers these names.

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::abi::stat32::{high2low, low2high};
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::{fs, host_ret, process, SyscallDef};

/// The rows of the 16-bit-id calls.
pub static ROWS: &[SyscallDef] = &[
    d(Sys::getuid16, getuid16, &[], RInt),
    d(Sys::geteuid16, geteuid16, &[], RInt),
    d(Sys::getgid16, getgid16, &[], RInt),
    d(Sys::getegid16, getegid16, &[], RInt),
    d(Sys::setuid16, setuid16, &[Int], RInt),
    d(Sys::setgid16, setgid16, &[Int], RInt),
    d(Sys::setreuid16, setreuid16, &[Int, Int], RInt),
    d(Sys::setregid16, setregid16, &[Int, Int], RInt),
    d(Sys::setresuid16, setresuid16, &[Int, Int, Int], RInt),
    d(Sys::setresgid16, setresgid16, &[Int, Int, Int], RInt),
    d(Sys::getresuid16, getresuid16, &[Ptr, Ptr, Ptr], RInt),
    d(Sys::getresgid16, getresgid16, &[Ptr, Ptr, Ptr], RInt),
    d(Sys::getgroups16, getgroups16, &[Int, Ptr], RInt),
    d(Sys::setgroups16, setgroups16, &[Int, Ptr], RInt),
    d(Sys::chown16, chown16, &[Str, Int, Int], RInt),
    d(Sys::lchown16, lchown16, &[Str, Int, Int], RInt),
    d(Sys::fchown16, fchown16, &[Fd, Int, Int], RInt),
    d(Sys::setfsuid16, setfsuid16, &[Int], RInt),
    d(Sys::setfsgid16, setfsgid16, &[Int], RInt),
];

/// `a` with the 16-bit ids at `idx` widened (`low2highuid`).
fn widened(a: &SyscallArgs, idx: &[usize]) -> SyscallArgs {
    let mut w = *a;
    for &i in idx {
        w.a[i] = u64::from(low2high(a.a[i]));
    }
    w
}

/// A 32-bit id result narrowed (`high2lowuid`).
fn narrowed(r: SysResult) -> SysResult {
    r.map(|v| u64::from(high2low(crate::abi::low32(v))))
}

/// `getuid16(void)`.
fn getuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    narrowed(process::getuid(cpu, a))
}
/// `geteuid16(void)`.
fn geteuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    narrowed(process::geteuid(cpu, a))
}
/// `getgid16(void)`.
fn getgid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    narrowed(process::getgid(cpu, a))
}
/// `getegid16(void)`.
fn getegid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    narrowed(process::getegid(cpu, a))
}
/// `setuid16(old_uid_t uid)`.
fn setuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setuid(cpu, &widened(a, &[0]))
}
/// `setgid16(old_gid_t gid)`.
fn setgid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setgid(cpu, &widened(a, &[0]))
}
/// `setreuid16(old_uid_t ruid, old_uid_t euid)`.
fn setreuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setreuid(cpu, &widened(a, &[0, 1]))
}
/// `setregid16(old_gid_t rgid, old_gid_t egid)`.
fn setregid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setregid(cpu, &widened(a, &[0, 1]))
}
/// `setresuid16(old_uid_t ruid, old_uid_t euid, old_uid_t suid)`.
fn setresuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setresuid(cpu, &widened(a, &[0, 1, 2]))
}
/// `setresgid16(old_gid_t rgid, old_gid_t egid, old_gid_t sgid)`.
fn setresgid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setresgid(cpu, &widened(a, &[0, 1, 2]))
}
/// `chown16(const char *path, old_uid_t owner, old_gid_t group)`.
fn chown16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fs::chown(cpu, &widened(a, &[1, 2]))
}
/// `lchown16(const char *path, old_uid_t owner, old_gid_t group)`.
fn lchown16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fs::lchown(cpu, &widened(a, &[1, 2]))
}
/// `fchown16(int fd, old_uid_t owner, old_gid_t group)`.
fn fchown16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fs::fchown(cpu, &widened(a, &[1, 2]))
}
/// `setfsuid16(old_uid_t fsuid)`: the previous fsuid, whole (kernel/uid16.c returns
/// `__sys_setfsuid`'s result as it is).
fn setfsuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setfsuid(cpu, &widened(a, &[0]))
}
/// `setfsgid16(old_gid_t fsgid)`: the previous fsgid, whole.
fn setfsgid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::setfsgid(cpu, &widened(a, &[0]))
}
/// `getresuid16(old_uid_t *ruid, old_uid_t *euid, old_uid_t *suid)`.
fn getresuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    getres16(cpu, true, a)
}
/// `getresgid16(old_gid_t *rgid, old_gid_t *egid, old_gid_t *sgid)`.
fn getresgid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    getres16(cpu, false, a)
}

/// `getresuid16(old_uid_t *ruid, old_uid_t *euid, old_uid_t *suid)` and `getresgid16`.
fn getres16(cpu: &mut Cpu<'_>, uid: bool, a: &SyscallArgs) -> SysResult {
    let (mut r, mut e, mut s) = (0, 0, 0);
    // SAFETY: local out values.
    let ret = unsafe {
        if uid {
            libc::getresuid(&mut r, &mut e, &mut s)
        } else {
            libc::getresgid(&mut r, &mut e, &mut s)
        }
    };
    host_ret(i64::from(ret))?;
    let mm = &mut cpu.get_data_mut().mm;
    for (i, id) in [r, e, s].into_iter().enumerate() {
        mm.write_u16(a.ptr(i), high2low(id))?;
    }
    Ok(0)
}

/// Most supplementary groups a process has (`NGROUPS_MAX`, include/uapi/linux/limits.h).
const NGROUPS_MAX: usize = 65536;

/// `getgroups16(int size, old_gid_t *list)`. Errors: `EINVAL` (negative size, or fewer slots
/// than groups), `EFAULT`.
fn getgroups16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let Ok(size) = usize::try_from(a.int(0)) else {
        return Err(Errno::EINVAL);
    };
    let mut groups = vec![0 as libc::gid_t; NGROUPS_MAX];
    let max = libc::c_int::try_from(NGROUPS_MAX).map_err(|_| Errno::EINVAL)?;
    // SAFETY: `groups` has NGROUPS_MAX slots, the most the kernel returns.
    let n = crate::abi::u64_to_usize(host_ret(i64::from(unsafe { libc::getgroups(max, groups.as_mut_ptr()) }))?);
    if size == 0 {
        return Ok(n as u64);
    }
    if size < n {
        return Err(Errno::EINVAL);
    }
    let bytes: Vec<u8> = groups[..n].iter().flat_map(|&g| high2low(g).to_le_bytes()).collect();
    cpu.get_data_mut().mm.write_bytes(a.ptr(1), &bytes)?;
    Ok(n as u64)
}

/// `setgroups16(int size, const old_gid_t *list)`. Errors: `EINVAL`, `EFAULT`, the host's
/// `EPERM`.
fn setgroups16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let size = a.uint(0) as usize;
    if size > NGROUPS_MAX {
        return Err(Errno::EINVAL);
    }
    let raw = cpu.get_data().mm.read_vec(a.ptr(1), size * 2)?;
    let groups: Vec<libc::gid_t> =
        raw.chunks_exact(2).map(|c| low2high(u64::from(u16::from_le_bytes([c[0], c[1]])))).collect();
    // SAFETY: `groups` holds `size` gid_t values.
    host_ret(unsafe { libc::syscall(libc::SYS_setgroups, size, groups.as_ptr()) })
}
