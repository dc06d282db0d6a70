//! riscv64's vDSO as endgate builds it: the `LINUX_4.15` clock and `getcpu` functions of
//! Linux's arch/riscv/kernel/vdso/vdso.lds.S, plus endgate's generic `__kernel_vsyscall`
//! (`ecall` registers: `a7` number, `a0`-`a5` arguments). `__vdso_flush_icache` is left
//! out, so glibc's `__riscv_flush_icache` makes the system call. Arguments in `a0`-`a2`,
//! result in `a0`.

use crate::gate::{Entry, VdsoSpec};

/// The riscv64 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    e_flags: 0x5, // EF_RISCV_RVC | EF_RISCV_FLOAT_ABI_DOUBLE, as the kernel's
    symbols: &[
        ("__vdso_clock_gettime", 0, Entry::ClockGettime),
        ("__vdso_gettimeofday", 0, Entry::Gettimeofday),
        ("__vdso_clock_getres", 0, Entry::ClockGetres),
        ("__vdso_getcpu", 0, Entry::Getcpu),
        ("__kernel_vsyscall", 0, Entry::Syscall),
    ],
    versions: &["LINUX_4.15"],
    ret: &0x0000_8067u32.to_le_bytes(),  // ret (jalr x0, 0(ra))
    trap: &0x0000_0073u32.to_le_bytes(), // ecall
    abi: crate::arch::vdso_call_abi(&super::INFO.regs),
    pc: super::INFO.regs.pc,
    ..crate::arch::LINUX_VDSO
};
