//! riscv64's vDSO as endgate builds it: the `LINUX_4.15` clock and `getcpu` functions of
//! Linux's arch/riscv/kernel/vdso/vdso.lds.S, plus endgate's generic `__kernel_vsyscall`
//! (`ecall` registers: `a7` number, `a0`-`a5` arguments). `__vdso_flush_icache` is left
//! out, so glibc's `__riscv_flush_icache` makes the system call. Arguments in `a0`-`a2`,
//! result in `a0`.

use crate::arch::linux_vdso;
use crate::gate::Entry::*;
use crate::gate::VdsoSpec;

/// The riscv64 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    e_flags: 0x5, // EF_RISCV_RVC | EF_RISCV_FLOAT_ABI_DOUBLE, as the kernel's
    versions: &[("LINUX_4.15", &[ClockGettime, Gettimeofday, ClockGetres, Getcpu, Syscall])],
    ..linux_vdso(&super::INFO.regs, &super::RET.to_le_bytes())
};
