//! aarch64's vDSO as endgate builds it: the `LINUX_2.6.39` `__kernel_*` clock functions of
//! Linux's arch/arm64/kernel/vdso/vdso.lds.S, plus endgate's generic `__kernel_vsyscall`
//! (`svc` registers: `x8` number, `x0`-`x5` arguments). AAPCS64: arguments in `x0`-`x2`,
//! result in `x0`.

use crate::gate::{Entry, VdsoSpec};

/// The aarch64 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    symbols: &[
        ("__kernel_clock_gettime", 0, Entry::ClockGettime),
        ("__kernel_gettimeofday", 0, Entry::Gettimeofday),
        ("__kernel_clock_getres", 0, Entry::ClockGetres),
        ("__kernel_vsyscall", 0, Entry::Syscall),
    ],
    versions: &["LINUX_2.6.39"],
    ret: &0xd65f_03c0u32.to_le_bytes(),  // ret
    trap: &0xd400_0001u32.to_le_bytes(), // svc #0
    abi: crate::arch::vdso_call_abi(&super::INFO.regs),
    pc: super::INFO.regs.pc,
    gnu_hash: false,
    ..crate::arch::LINUX_VDSO
};
