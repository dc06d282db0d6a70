//! System calls only i386 has (among endgate's guests): the TLS segment calls, `old_select`,
//! and the 16-bit-id calls that kept the historic numbers. (`socketcall`, which s390x has
//! too, is [`crate::syscall::socketcall`].)
//!
//! - `set_thread_area`/`get_thread_area`: see [`super::gdt`].
//! - `select` at number 82 is `old_select`, which takes a pointer to its five arguments.
//! - `getuid` … `chown` at their pre-2.4 numbers take and return 16-bit ids (the kernel's
//!   `sys_getuid16` family, kernel/uid16.c); the `*32` calls are the real ones and are served
//!   by the generic handlers. `ipc`, `modify_ldt`, `vm86`, `vm86old`, `olduname` and
//!   `oldolduname` have no handler and answer `ENOSYS`.

use syscalls::Errno;

use super::gdt;
use crate::abi::nr::Sys;
use crate::abi::stat32::{high2low, low2high};
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::syscall::{fs, host_ret, io, process};

/// `set_thread_area(struct user_desc *u_info)`.
pub fn set_thread_area(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gdt::set_thread_area(cpu, a.a[0], true)
}

/// `get_thread_area(struct user_desc *u_info)`.
pub fn get_thread_area(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    gdt::get_thread_area(cpu, a.a[0])
}

/// `old_select(struct sel_arg_struct *arg)` (the i386 `select`, number 82; fs/select.c
/// `sys_old_select`): reads `{n, inp, outp, exp, tvp}` as five 32-bit words and runs
/// `select` with them. Errors: `EFAULT` for a bad `arg`, and `select`'s own.
pub fn old_select(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut w = [0u64; 6];
    let mm = &cpu.get_data().mm;
    for (i, slot) in w.iter_mut().enumerate().take(5) {
        *slot = u64::from(mm.read_u32(a.a[0] + 4 * i as u64)?);
    }
    io::select(cpu, &SyscallArgs { nr: a.nr, a: w })
}

/// The 16-bit-id calls: `getuid16`-style getters narrow the 32-bit id (`high2lowuid`: ids
/// above 65535 read as 65534), setters widen their arguments (`low2highuid`: 0xffff means
/// "unchanged", -1) and run the generic call. Errors: the generic call's.
pub fn uid16(cpu: &mut Cpu<'_>, sys: Sys, a: &SyscallArgs) -> Option<SysResult> {
    let wide = |idx: &[usize]| {
        let mut w = *a;
        for &i in idx {
            w.a[i] = u64::from(low2high(a.a[i]));
        }
        w
    };
    let narrow = |r: SysResult| r.map(|v| u64::from(high2low(v as u32)));
    Some(match sys {
        Sys::getuid16 => narrow(process::getuid(cpu, a)),
        Sys::geteuid16 => narrow(process::geteuid(cpu, a)),
        Sys::getgid16 => narrow(process::getgid(cpu, a)),
        Sys::getegid16 => narrow(process::getegid(cpu, a)),
        Sys::setuid16 => process::setuid(cpu, &wide(&[0])),
        Sys::setgid16 => process::setgid(cpu, &wide(&[0])),
        Sys::setreuid16 => process::setreuid(cpu, &wide(&[0, 1])),
        Sys::setregid16 => process::setregid(cpu, &wide(&[0, 1])),
        Sys::setresuid16 => process::setresuid(cpu, &wide(&[0, 1, 2])),
        Sys::setresgid16 => process::setresgid(cpu, &wide(&[0, 1, 2])),
        Sys::chown16 => fs::chown(cpu, &wide(&[1, 2])),
        Sys::lchown16 => fs::lchown(cpu, &wide(&[1, 2])),
        Sys::fchown16 => fs::fchown(cpu, &wide(&[1, 2])),
        Sys::getresuid16 | Sys::getresgid16 => getres16(cpu, sys == Sys::getresuid16, a),
        Sys::getgroups16 => getgroups16(cpu, a),
        Sys::setgroups16 => setgroups16(cpu, a),
        _ => return None,
    })
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
        mm.write_bytes(a.a[i], &high2low(id).to_le_bytes())?;
    }
    Ok(0)
}

/// Most supplementary groups a process has (`NGROUPS_MAX`, include/uapi/linux/limits.h).
const NGROUPS_MAX: usize = 65536;

/// `getgroups16(int size, old_gid_t *list)`. Errors: `EINVAL` (negative size, or fewer slots
/// than groups), `EFAULT`.
fn getgroups16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let size = a.a[0] as u32 as i32;
    if size < 0 {
        return Err(Errno::EINVAL);
    }
    let mut groups = vec![0 as libc::gid_t; NGROUPS_MAX];
    // SAFETY: `groups` has NGROUPS_MAX slots, the most the kernel returns.
    let n = host_ret(i64::from(unsafe { libc::getgroups(NGROUPS_MAX as i32, groups.as_mut_ptr()) }))? as usize;
    if size == 0 {
        return Ok(n as u64);
    }
    if (size as usize) < n {
        return Err(Errno::EINVAL);
    }
    let bytes: Vec<u8> = groups[..n].iter().flat_map(|&g| high2low(g).to_le_bytes()).collect();
    cpu.get_data_mut().mm.write_bytes(a.a[1], &bytes)?;
    Ok(n as u64)
}

/// `setgroups16(int size, const old_gid_t *list)`. Errors: `EINVAL`, `EFAULT`, the host's
/// `EPERM`.
fn setgroups16(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let size = a.a[0] as u32 as usize;
    if size > NGROUPS_MAX {
        return Err(Errno::EINVAL);
    }
    let raw = cpu.get_data().mm.read_vec(a.a[1], size * 2)?;
    let groups: Vec<libc::gid_t> =
        raw.chunks_exact(2).map(|c| low2high(u64::from(u16::from_le_bytes([c[0], c[1]])))).collect();
    // SAFETY: `groups` holds `size` gid_t values.
    host_ret(unsafe { libc::syscall(libc::SYS_setgroups, size, groups.as_ptr()) })
}
