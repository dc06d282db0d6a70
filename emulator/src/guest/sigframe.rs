//! Pieces every arch's signal frame shares: `siginfo_t`, the `uc_stack` member of
//! `ucontext`, and the frame's place on the stack. The arch-specific parts (register save
//! areas, trampolines) are in `arch/<name>/signal.rs`.

use syscalls::Errno;

use super::GuestArch;
use crate::mm::AddressSpace;
use crate::signal::{AltStack, SigFields, SigInfo, Signal, SS_DISABLE, SS_ONSTACK};

/// Offset of the old `sigreturn` trampoline in the sigtramp page.
pub const SIGTRAMP_OLD: u64 = 0x40;

/// Maps the arch's signal-return trampolines ([`crate::guest::GuestArch::sigtramp_code`]) on a
/// read+exec page placed like the vDSO (top-down in the mmap area) and returns its address;
/// 0 when the arch needs none. Errors: `ENOMEM`.
pub fn map_sigtramp(mm: &mut AddressSpace, arch: &dyn GuestArch) -> Result<u64, Errno> {
    let Some(code) = arch.sigtramp_code() else { return Ok(0) };
    let page = crate::mm::PAGE_SIZE;
    let addr = mm.find_free(page).ok_or(Errno::ENOMEM)?;
    mm.map_anon(addr, page, crate::mm::Prot::READ | crate::mm::Prot::EXEC, crate::mm::VmaName::Gate("[sigpage]"))?;
    mm.poke_bytes(addr, &code)?;
    Ok(addr)
}

/// Size of `siginfo_t` in bytes on every arch (`SI_MAX_SIZE`).
pub const SIGINFO_SIZE: u64 = 128;

/// Writes `info` as the guest's `siginfo_t` at `addr` (include/uapi/asm-generic/siginfo.h;
/// MIPS puts `si_code` before `si_errno` and numbers some codes differently). The union starts at the first `long`-aligned
/// offset after the three ints: 16 on LP64, 12 on ILP32. Signal numbers (the signal itself,
/// a child's killing signal) are converted to the guest's numbering. Errors: `EFAULT`.
pub fn write_siginfo(mm: &mut AddressSpace, arch: &dyn GuestArch, addr: u64, info: &SigInfo) -> Result<(), Errno> {
    mm.write_bytes(addr, &[0u8; SIGINFO_SIZE as usize])?;
    let signo = (arch.info().signal_from_host)(info.signo) as u32;
    mm.write_u32(addr, signo)?;
    let code = (arch.info().si_code_from_host)(info.code);
    if arch.info().siginfo_code_first {
        mm.write_u32(addr + 4, code as u32)?;
        mm.write_u32(addr + 8, info.errno as u32)?;
    } else {
        mm.write_u32(addr + 4, info.errno as u32)?;
        mm.write_u32(addr + 8, code as u32)?;
    }
    let long = mm.long_bytes();
    let u = addr + 12u64.next_multiple_of(long);
    match info.fields {
        SigFields::Kill { pid, uid } => {
            mm.write_u32(u, pid as u32)?;
            mm.write_u32(u + 4, uid)?;
        }
        SigFields::Rt { pid, uid, value } => {
            mm.write_u32(u, pid as u32)?;
            mm.write_u32(u + 4, uid)?;
            mm.write_ulong(u + 8u64.next_multiple_of(long), value)?;
        }
        SigFields::Timer { tid, overrun, value } => {
            mm.write_u32(u, tid as u32)?;
            mm.write_u32(u + 4, overrun as u32)?;
            mm.write_ulong(u + 8u64.next_multiple_of(long), value)?;
        }
        SigFields::Chld { pid, uid, status, utime, stime } => {
            use crate::signal::si_code::{CLD_DUMPED, CLD_KILLED, CLD_STOPPED, CLD_TRAPPED};
            let status = match info.code {
                CLD_KILLED | CLD_DUMPED | CLD_STOPPED | CLD_TRAPPED => {
                    (arch.info().signal_from_host)(Signal(status as u32)) as i32
                }
                _ => status,
            };
            mm.write_u32(u, pid as u32)?;
            mm.write_u32(u + 4, uid)?;
            mm.write_u32(u + 8, status as u32)?;
            let t = u + 12u64.next_multiple_of(long);
            mm.write_ulong(t, utime as u64)?;
            mm.write_ulong(t + long, stime as u64)?;
        }
        SigFields::Fault { addr: a } => mm.write_ulong(u, a)?,
        SigFields::Poll { band, fd } => {
            mm.write_ulong(u, band as u64)?;
            mm.write_u32(u + long, fd as u32)?;
        }
    }
    Ok(())
}

/// Size in bytes of the guest's `stack_t` (3 longs' room: 24 on LP64, 12 on ILP32).
pub fn stack_t_size(mm: &AddressSpace) -> u64 {
    3 * mm.long_bytes()
}

/// Writes the `uc_stack` member of a signal frame: the thread's alternate stack, with
/// `SS_ONSTACK` when `sp` (the stack pointer the handler starts with) is on it. Layout
/// `{ss_sp, ss_flags, ss_size}` (`{ss_sp, ss_size, ss_flags}` on MIPS). Errors: `EFAULT`.
pub fn write_uc_stack(
    mm: &mut AddressSpace,
    arch: &dyn GuestArch,
    addr: u64,
    st: &AltStack,
    sp: u64,
) -> Result<(), Errno> {
    let flags = if st.flags & SS_DISABLE != 0 {
        SS_DISABLE
    } else if st.contains(sp) {
        SS_ONSTACK
    } else {
        0
    };
    let long = mm.long_bytes();
    mm.write_ulong(addr, st.sp)?;
    if arch.info().stack_t_size_first {
        mm.write_ulong(addr + long, st.size)?;
        mm.write_u32(addr + 2 * long, flags)?;
    } else {
        mm.write_u32(addr + long, flags)?;
        mm.write_ulong(addr + 2 * long, st.size)?;
    }
    Ok(())
}

/// Reads a frame's `uc_stack` back as the alternate stack `rt_sigreturn` restores (the
/// kernel's `restore_altstack`); `None` when it is not readable or not a valid setting (the
/// kernel then keeps the current one).
pub fn read_uc_stack(mm: &AddressSpace, arch: &dyn GuestArch, addr: u64) -> Option<AltStack> {
    let long = mm.long_bytes();
    let sp = mm.read_ulong(addr).ok()?;
    let (size, flags) = if arch.info().stack_t_size_first {
        (mm.read_ulong(addr + long).ok()?, mm.read_u32(addr + 2 * long).ok()?)
    } else {
        (mm.read_ulong(addr + 2 * long).ok()?, mm.read_u32(addr + long).ok()?)
    };
    let flags = flags & !SS_ONSTACK;
    (flags & !(SS_DISABLE | (1 << 31)) == 0).then_some(AltStack { sp, flags, size })
}

/// Rounds `sp` down to a multiple of `align` (a power of two).
#[inline]
pub fn align_down(sp: u64, align: u64) -> u64 {
    sp & !(align - 1)
}
