//! System calls only i386 has (among endgate's guests): the TLS segment calls, `old_select`,
//! and the 16-bit-id calls that kept the historic numbers, with the rows that put them in
//! i386's table. (`socketcall`, which s390x has too, is [`crate::syscall::socketcall`].)
//!
//! - `set_thread_area`/`get_thread_area`: the GDT's TLS entries, [`crate::arch::i386::gdt`].
//! - `arch_prctl`: `EINVAL` for the FS/GS base codes i386 lacks; the CPUID codes as on x86_64.
//! - `select` at number 82 is `old_select`, which takes a pointer to its five arguments.
//! - `getuid` … `chown` at their pre-2.4 numbers take and return 16-bit ids
//!   ([`crate::syscall::uid16`], as on arm). `vm86` and `vm86old` have no handler and answer
//!   `ENOSYS`; the old forms (`oldstat`, `olduname`, `signal`…) are [`crate::syscall::old`]'s.
//! - `modify_ldt`: the process's LDT, [`crate::arch::i386::gdt`].
//! - `getrlimit` at number 76 is the old call, which caps limits at `0x7fffffff`.

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::arch::i386::gdt;
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::{io, process, SyscallDef};

/// i386's own rows.
pub static ROWS: &[SyscallDef] = &[
    d(Sys::set_thread_area, set_thread_area, &[Hex], RInt),
    d(Sys::get_thread_area, get_thread_area, &[Ptr], RInt),
    d(Sys::modify_ldt, modify_ldt, &[Int, Ptr, ULong], RInt),
    d(Sys::old_select, old_select, &[Ptr], RInt),
    d(Sys::arch_prctl, arch_prctl, &[ArchPrctlCode, Hex], RInt),
    d(Sys::getrlimit, old_getrlimit, &[Rlimit, Ptr], RInt),
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
