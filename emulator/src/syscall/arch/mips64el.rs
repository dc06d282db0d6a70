//! System calls only MIPS has: `set_thread_area` (the TLS pointer, read back with
//! `rdhwr $3, $29`), `cacheflush` (arch/mips/mm/cache.c) and `sysmips`; and MIPS's forms of `statfs`
//! and `fstatfs`, whose `struct statfs` orders its members differently from the host's (a
//! shape cannot reorder), and of `pipe`, which returns both descriptors in registers. The rows
//! put them in mips64el's table, over the generic ones.

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
    d(Sys::sysmips, sysmips, &[Int, Hex, Hex], RInt),
    d(Sys::pipe, pipe, &[], RInt),
];

/// `sysmips` commands (arch/mips/include/uapi/asm/sysmips.h).
const FLUSH_CACHE: i64 = 3;
const MIPS_FIXADE: i64 = 7;
const MIPS_ATOMIC_SET: i64 = 2001;

/// `sysmips(long cmd, long arg1, long arg2)` (arch/mips/kernel/syscall.c):
/// - `MIPS_ATOMIC_SET(addr, new)`: stores the low 32 bits of `new` at the aligned word `addr`
///   and returns the word it held, sign-extended, as the kernel's `ll`/`sc` loop does (all guest
///   threads run under one lock, so the exchange is atomic for them). `EINVAL` for an unaligned
///   or non-user address, `EFAULT` for an unmapped one. (A previous value of -4095..-1 reads as
///   an error here; the kernel returns it with `a3` clear.)
/// - `MIPS_FIXADE(flags)`: `EINVAL` for bits other than 1 (fix up) and 2 (log) address errors,
///   else 0; the engine's handling of misaligned accesses does not change.
/// - `FLUSH_CACHE`: drops the translations of every executable mapping, 0.
/// - anything else: `EINVAL`.
fn sysmips(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    match a.long(0) {
        MIPS_ATOMIC_SET => {
            let (addr, new) = (a.ulong(1), a.ulong(2));
            let t = cpu.get_data_mut();
            if addr % 4 != 0 || addr.checked_add(4).is_none_or(|end| end > t.mm.task_size) {
                return Err(Errno::EINVAL);
            }
            let at = crate::mm::GuestAddr::new(addr);
            let old = t.mm.read_u32(at)?;
            t.mm.check_writable(at, 4)?;
            t.mm.write_u32(at, u32::try_from(new & 0xffff_ffff).unwrap_or(0))?;
            t.mm.note_host_write(addr, 4);
            Ok(u64::from_ne_bytes(i64::from(i32::from_ne_bytes(old.to_ne_bytes())).to_ne_bytes()))
        }
        MIPS_FIXADE => {
            if a.ulong(1) & !3 != 0 {
                return Err(Errno::EINVAL);
            }
            Ok(0)
        }
        FLUSH_CACHE => {
            let t = cpu.get_data_mut();
            let top = t.mm.task_size;
            t.mm.drop_code(0, top);
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}

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

/// `pipe(void)` as MIPS has it (arch/mips/kernel/syscall.c, `sysm_pipe`): no argument; the
/// read end is the result (`v0`) and the write end goes in `v1`. Errors: the host's
/// (`EMFILE`, `ENFILE`).
fn pipe(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    use crate::guard::Checked as _;
    let mut fds = [0i32; 2];
    // SAFETY: writes two ints into a local array.
    host_ret(i64::from(unsafe { libc::pipe2(fds.as_mut_ptr(), 0) }))?;
    cpu.set_reg(
        unicorn_engine::RegisterMIPS::V1 as i32,
        u64::from(crate::abi::low32(crate::abi::bits64(i64::from(fds[1])))),
    );
    Ok(u64::from(crate::abi::low32(crate::abi::bits64(i64::from(fds[0])))))
}
