//! mips64el's vDSO as endgate builds it: the `LINUX_2.6` clock functions of Linux's
//! arch/mips/vdso/vdso.lds.S, plus endgate's generic `__kernel_vsyscall` (`syscall`
//! registers: `v0` number, `a0`-`a5` arguments; returns `v0` and the `a3` error flag). n64
//! ABI: arguments in `a0`-`a2`, result in `v0`. Each slot is `jr $ra` and its delay slot.

use crate::gate::{Entry, VdsoSpec};

/// `jr $ra` then `nop` in the delay slot, little-endian.
const JR_RA_NOP: [u8; 8] = [0x08, 0x00, 0xe0, 0x03, 0, 0, 0, 0];

/// The mips64el vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    e_flags: 0x8000_0006, // EF_MIPS_ARCH_64R2 | EF_MIPS_CPIC | EF_MIPS_PIC
    symbols: &[
        ("__vdso_clock_gettime", 0, Entry::ClockGettime),
        ("__vdso_gettimeofday", 0, Entry::Gettimeofday),
        ("__vdso_clock_getres", 0, Entry::ClockGetres),
        ("__kernel_vsyscall", 0, Entry::Syscall),
    ],
    versions: &["LINUX_2.6"],
    ret: &JR_RA_NOP,
    trap: &0x0000_000cu32.to_le_bytes(), // syscall
    abi: crate::arch::vdso_call_abi(&super::INFO.regs),
    pc: super::INFO.regs.pc,
    ..crate::arch::LINUX_VDSO
};
