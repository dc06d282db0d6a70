//! The ARM-private calls 0xf0001-0xf0006 (`__ARM_NR_BASE` + n,
//! arch/arm/include/uapi/asm/unistd.h), served by [`private`] straight from the trap hook, as
//! the kernel's `arm_syscall` (arch/arm/kernel/traps.c) serves them outside the syscall table.

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterARM;

use crate::guest::Cpu;

/// `__ARM_NR_BASE`: the private calls are numbered from here.
pub const ARM_NR_BASE: u64 = 0x0f_0000;

/// The private calls (arch/arm/include/uapi/asm/unistd.h).
mod nr {
    pub const BREAKPOINT: u64 = super::ARM_NR_BASE + 1;
    pub const CACHEFLUSH: u64 = super::ARM_NR_BASE + 2;
    pub const USR26: u64 = super::ARM_NR_BASE + 3;
    pub const USR32: u64 = super::ARM_NR_BASE + 4;
    pub const SET_TLS: u64 = super::ARM_NR_BASE + 5;
    pub const GET_TLS: u64 = super::ARM_NR_BASE + 6;
}

/// strace's name for private call `nr` (strace's `ARM_` names, linux/arm/syscallent.h).
pub fn private_name(nr: u64) -> &'static str {
    match nr {
        nr::BREAKPOINT => "ARM_breakpoint",
        nr::CACHEFLUSH => "ARM_cacheflush",
        nr::USR26 => "ARM_usr26",
        nr::USR32 => "ARM_usr32",
        nr::SET_TLS => "ARM_set_tls",
        nr::GET_TLS => "ARM_get_tls",
        _ => "ARM_unknown",
    }
}

/// Numbers `0xf0000..=0xf07ff` answer `-ENOSYS` when unknown (the kernel's rule, so a program
/// can probe for a feature); higher private numbers raise SIGILL.
const PRIVATE_ENOSYS_LAST: u64 = 0x7ff;

/// What a private call asks of the trap hook.
pub enum Private {
    /// Write this value (a result or `-errno`) to r0 and carry on.
    Ret(u64),
    /// Stop the guest with this CPU exception's signal (SIGTRAP for `breakpoint`, SIGILL for
    /// calls this CPU does not have).
    Exception(u32),
}

/// Serves ARM-private call `nr` (r7 in `0xf0000..0x100000`):
/// - `breakpoint()`: SIGTRAP, as for a `bkpt` instruction;
/// - `cacheflush(start, end, flags)`: drops translated code for `[start, end)`, so code the
///   guest wrote runs as written; `EINVAL` for `end < start` or nonzero flags, `EFAULT` if
///   the range is not mapped;
/// - `usr26()`, `usr32()`: SIGILL: 26-bit mode needs `HWCAP_26BIT`, which no ARMv7 CPU has;
/// - `set_tls(value)`: TPIDRURO = value, 0;
/// - `get_tls()`: TPIDRURO.
pub fn private(cpu: &mut Cpu<'_>, nr: u64, undef: u32) -> Private {
    let r0 = cpu.reg(RegisterARM::R0);
    let err = |e: Errno| Private::Ret(crate::abi::bits64(-i64::from(e.into_raw())));
    match nr {
        nr::BREAKPOINT => Private::Exception(super::excp::BKPT),
        nr::CACHEFLUSH => {
            let end = cpu.reg(RegisterARM::R1);
            let flags = cpu.reg(RegisterARM::R2);
            if end < r0 || flags != 0 {
                return err(Errno::EINVAL);
            }
            let mm = &mut cpu.get_data_mut().mm;
            if end > r0 && mm.check_mapped(r0, end - r0).is_err() {
                return err(Errno::EFAULT);
            }
            mm.invalidate.code.push((crate::mm::page_floor(r0), crate::mm::page_ceil(end).unwrap_or(end)));
            crate::guest::apply_invalidate(cpu);
            Private::Ret(0)
        }
        nr::USR26 | nr::USR32 => Private::Exception(undef),
        nr::SET_TLS => match cpu.reg_write(RegisterARM::C13_C0_3, r0) {
            Ok(()) => Private::Ret(0),
            Err(_) => err(Errno::EINVAL),
        },
        nr::GET_TLS => Private::Ret(cpu.reg(RegisterARM::C13_C0_3)),
        _ if nr - ARM_NR_BASE <= PRIVATE_ENOSYS_LAST => err(Errno::ENOSYS),
        _ => Private::Exception(undef),
    }
}
