//! System calls only MIPS has: `set_thread_area` (the TLS pointer, read back with
//! `rdhwr $3, $29`) and `cacheflush` (arch/mips/mm/cache.c); and MIPS's forms of `statfs`
//! and `fstatfs`, whose `struct statfs` orders its members differently from the host's (a
//! shape cannot reorder). The rows put them in mips64el's table, over the generic ones.

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::arch::mips64el::abi::Statfs;
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::syscall::path::host_path;
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::{host_ret, SyscallDef};

/// mips64el's own rows.
pub static ROWS: &[SyscallDef] = &[
    d(Sys::set_thread_area, set_thread_area, &[Hex], RInt),
    d(Sys::cacheflush, cacheflush, &[Hex, ULong, Int], RInt),
    d(Sys::statfs, statfs, &[Str, Ptr], RInt),
    d(Sys::fstatfs, fstatfs, &[Fd, Ptr], RInt),
];

/// `set_thread_area(unsigned long addr)`: CP0 UserLocal (arch/mips/kernel/syscall.c).
fn set_thread_area(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let arch = cpu.get_data().arch;
    arch.set_tls(cpu, a.raw(0)).map(|()| 0)
}

/// `cacheflush(void *addr, int nbytes, int cache)`: drops translations of code in the range,
/// as a store into code would. Like Linux (arch/mips/mm/cache.c `sys_cacheflush`), `cache` is
/// not looked at and nothing is flushed for `nbytes` 0. Errors: `EFAULT` for a range that is
/// not user address space (the kernel's `access_ok`; unmapped pages inside it are fine).
fn cacheflush(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (addr, bytes) = (a.raw(0), a.raw(1));
    if bytes == 0 {
        return Ok(0);
    }
    let t = cpu.get_data_mut();
    if addr.checked_add(bytes).is_none_or(|end| end > t.mm.task_size) {
        return Err(Errno::EFAULT);
    }
    t.mm.note_host_write(addr, bytes);
    Ok(0)
}

/// `statfs(const char *path, struct statfs *buf)` with MIPS's `struct statfs`.
fn statfs(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    statfs_either(cpu, Sys::statfs, a)
}

/// `fstatfs(int fd, struct statfs *buf)` with MIPS's `struct statfs`.
fn fstatfs(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    statfs_either(cpu, Sys::fstatfs, a)
}

fn statfs_either(cpu: &mut Cpu<'_>, sys: Sys, a: &SyscallArgs) -> SysResult {
    // SAFETY: plain C struct of integers.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if sys == Sys::statfs {
        let path = host_path(cpu.get_data(), a.ptr(0))?;
        // SAFETY: NUL-terminated path; a local statfs.
        host_ret(unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), &mut st) })?;
    } else {
        // SAFETY: a local statfs.
        host_ret(unsafe { libc::syscall(libc::SYS_fstatfs, a.int(0), &mut st) })?;
    }
    cpu.get_data_mut().mm.write_struct(a.ptr(1), &Statfs::from_host(&st))?;
    Ok(0)
}
