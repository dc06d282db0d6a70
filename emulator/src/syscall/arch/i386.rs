//! System calls only i386 has (among endgate's guests): the TLS segment calls, `old_select`,
//! and the 16-bit-id calls that kept the historic numbers, with the rows that put them in
//! i386's table. (`socketcall`, which s390x has too, is [`crate::syscall::socketcall`].)
//!
//! - `set_thread_area`/`get_thread_area`: the GDT's TLS entries, [`crate::arch::i386::gdt`].
//! - `arch_prctl`: `EINVAL` for the FS/GS base codes i386 lacks; the CPUID codes as on x86_64.
//! - `select` at number 82 is `old_select`, which takes a pointer to its five arguments.
//! - `getuid` … `chown` at their pre-2.4 numbers take and return 16-bit ids (the kernel's
//!   `sys_getuid16` family, kernel/uid16.c); the `*32` calls are the real ones and are served
//!   by the generic handlers. `vm86` and `vm86old` have no handler and answer `ENOSYS`; the
//!   old forms (`oldstat`, `olduname`, `signal`…) are [`crate::syscall::old`]'s.
//! - `modify_ldt`: the process's LDT, [`crate::arch::i386::gdt`].
//! - `getrlimit` at number 76 is the old call, which caps limits at `0x7fffffff`.

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::abi::stat32::{high2low, low2high};
use crate::arch::i386::gdt;
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::{fs, host_ret, io, process, SyscallDef};

/// i386's own rows.
pub static ROWS: &[SyscallDef] = &[
    d(Sys::set_thread_area, set_thread_area, &[Hex], RInt),
    d(Sys::get_thread_area, get_thread_area, &[Ptr], RInt),
    d(Sys::modify_ldt, modify_ldt, &[Int, Ptr, ULong], RInt),
    d(Sys::old_select, old_select, &[Ptr], RInt),
    d(Sys::arch_prctl, arch_prctl, &[Hex, Hex], RInt),
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
    d(Sys::getrlimit, old_getrlimit, &[Int, Ptr], RInt),
];

/// `getrlimit` at i386's number 76 is the kernel's `sys_old_getrlimit` (kernel/sys.c): limits
/// above `0x7fffffff`, `RLIM_INFINITY` among them, read as `0x7fffffff` (`ugetrlimit`, 191, is
/// the one that gives `~0UL`).
fn old_getrlimit(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    process::getrlimit(cpu, a)?;
    let mm = &mut cpu.get_data_mut().mm;
    for at in [a.ptr(1), a.ptr(1) + 4] {
        if mm.read_u32(at)? > 0x7fff_ffff {
            mm.write_u32(at, 0x7fff_ffff)?;
        }
    }
    Ok(0)
}

/// `arch_prctl(int code, unsigned long addr)`: i386 has no FS/GS base codes (`EINVAL`); the
/// CPUID-faulting codes are answered as on x86_64.
fn arch_prctl(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    super::x86_64::cpuid_codes(a.raw(0))
}

/// `set_thread_area(struct user_desc *u_info)`.
fn set_thread_area(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gdt::set_thread_area(cpu, a.ptr(0), true)
}

/// `get_thread_area(struct user_desc *u_info)`.
fn get_thread_area(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gdt::get_thread_area(cpu, a.ptr(0))
}

/// `modify_ldt(int func, void *ptr, unsigned long bytecount)` (modify_ldt(2),
/// arch/x86/kernel/ldt.c): 0 reads the LDT, 1 and 0x11 write an entry (old and new form), 2
/// reads the zeroed default LDT; other functions `ENOSYS`. See [`gdt::read_ldt`],
/// [`gdt::write_ldt`], [`gdt::read_default_ldt`].
pub(super) fn modify_ldt(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (ptr, count) = (a.ptr(1), a.ulong(2));
    match a.int(0) {
        0 => gdt::read_ldt(cpu, ptr, count),
        1 => gdt::write_ldt(cpu, ptr, count, true),
        2 => gdt::read_default_ldt(cpu, ptr, count),
        0x11 => gdt::write_ldt(cpu, ptr, count, false),
        _ => Err(Errno::ENOSYS),
    }
}

/// `old_select(struct sel_arg_struct *arg)` (the i386 `select`, number 82; fs/select.c
/// `sys_old_select`): reads `{n, inp, outp, exp, tvp}` as five 32-bit words and runs
/// `select` with them. Errors: `EFAULT` for a bad `arg`, and `select`'s own.
fn old_select(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut w = [0u64; 6];
    let mm = &cpu.get_data().mm;
    for (i, slot) in w.iter_mut().enumerate().take(5) {
        *slot = u64::from(mm.read_u32(a.ptr(0) + 4 * i as u64)?);
    }
    io::select(cpu, &a.with(w))
}

/// The 16-bit-id calls: `getuid16`-style getters narrow the 32-bit id (`high2lowuid`: ids
/// above 65535 read as 65534), setters widen their arguments (`low2highuid`: 0xffff means
/// "unchanged", -1) and run the generic call. Errors: the generic call's.
fn widened(a: &SyscallArgs, idx: &[usize]) -> SyscallArgs {
    let mut w = *a;
    for &i in idx {
        w.a[i] = u64::from(low2high(a.a[i]));
    }
    w
}

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
/// `setfsuid16(old_uid_t fsuid)`: the previous fsuid, narrowed.
fn setfsuid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    narrowed(process::setfsuid(cpu, &widened(a, &[0])))
}
/// `setfsgid16(old_gid_t fsgid)`: the previous fsgid, narrowed.
fn setfsgid16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    narrowed(process::setfsgid(cpu, &widened(a, &[0])))
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
        mm.write_bytes(a.ptr(i), &high2low(id).to_le_bytes())?;
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
