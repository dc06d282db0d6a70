//! arm's vDSO as endgate builds it: the `LINUX_2.6` functions of Linux's
//! arch/arm/vdso/vdso.lds.S (32-bit `timespec` and the `__vdso_clock_gettime64` form), plus
//! endgate's generic `__kernel_vsyscall` (`svc` registers: `r7` number, `r0`-`r5`
//! arguments). The slots are A32 code; Thumb callers reach them with `blx`. AAPCS:
//! arguments in `r0`-`r2`, result in `r0`.

use crate::gate::{Entry, VdsoSpec};

/// The arm vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    e_flags: 0x0500_0400, // EF_ARM_EABI_VER5 | EF_ARM_ABI_FLOAT_HARD
    symbols: &[
        ("__vdso_clock_gettime", 0, Entry::ClockGettime),
        ("__vdso_clock_gettime64", 0, Entry::ClockGettime64),
        ("__vdso_gettimeofday", 0, Entry::Gettimeofday),
        ("__vdso_clock_getres", 0, Entry::ClockGetres),
        ("__kernel_vsyscall", 0, Entry::Syscall),
    ],
    versions: &["LINUX_2.6"],
    ret: &0xe12f_ff1eu32.to_le_bytes(),  // bx lr
    trap: &0xef00_0000u32.to_le_bytes(), // svc #0
    abi: crate::arch::vdso_call_abi(&super::INFO.regs),
    pc: super::INFO.regs.pc,
    ..crate::arch::LINUX_VDSO
};
