//! mips64el's vDSO as endgate builds it: the `LINUX_2.6` clock functions of Linux's
//! arch/mips/vdso/vdso.lds.S, plus endgate's generic `__kernel_vsyscall` (`syscall`
//! registers: `v0` number, `a0`-`a5` arguments; returns `v0` and the `a3` error flag). n64
//! ABI: arguments in `a0`-`a2`, result in `v0`. Each slot is `jr $ra` and its delay slot.

use crate::arch::linux_vdso;
use crate::gate::Entry::*;
use crate::gate::VdsoSpec;

/// `jr $ra` then `nop` in the delay slot, little-endian.
const JR_RA_NOP: [u8; 8] = [0x08, 0x00, 0xe0, 0x03, 0, 0, 0, 0];

/// The mips64el vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    e_flags: 0x8000_0006, // EF_MIPS_ARCH_64R2 | EF_MIPS_CPIC | EF_MIPS_PIC
    versions: &[("LINUX_2.6", &[ClockGettime, Gettimeofday, ClockGetres, Syscall])],
    ..linux_vdso(&super::INFO.regs, &JR_RA_NOP)
};
