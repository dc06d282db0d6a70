//! arm's vDSO as endgate builds it: the `LINUX_2.6` functions of Linux's
//! arch/arm/vdso/vdso.lds.S (32-bit `timespec` and the `__vdso_clock_gettime64` form), plus
//! endgate's generic `__kernel_vsyscall` (`svc` registers: `r7` number, `r0`-`r5`
//! arguments). The slots are A32 code; Thumb callers reach them with `blx`. AAPCS:
//! arguments in `r0`-`r2`, result in `r0`.

use super::a32;
use crate::arch::linux_vdso;
use crate::gate::Entry::*;
use crate::gate::VdsoSpec;

/// The arm vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    e_flags: 0x0500_0400, // EF_ARM_EABI_VER5 | EF_ARM_ABI_FLOAT_HARD
    versions: &[("LINUX_2.6", &[ClockGettime, ClockGettime64, Gettimeofday, ClockGetres, Syscall])],
    ..linux_vdso(&super::INFO.regs, &a32::BX_LR.to_le_bytes())
};
