//! x86_64's vDSO as endgate builds it: the names and version of Linux's
//! arch/x86/entry/vdso/vdso.lds.S (each `__vdso_*` function with its plain-named alias), plus
//! endgate's generic `__kernel_vsyscall` (`syscall` registers). Functions take the SysV
//! AMD64 argument registers `rdi`, `rsi`, `rdx` and return in `rax`.

use crate::arch::linux_vdso;
use crate::gate::Entry::*;
use crate::gate::VdsoSpec;

/// The x86_64 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    versions: &[("LINUX_2.6", &[ClockGettime, Gettimeofday, Time, Getcpu, ClockGetres, Syscall])],
    plain_aliases: true,
    ..linux_vdso(&super::INFO.regs, &[super::RET])
};
