//! aarch64's vDSO as endgate builds it: the `LINUX_2.6.39` `__kernel_*` clock functions of
//! Linux's arch/arm64/kernel/vdso/vdso.lds.S, plus endgate's generic `__kernel_vsyscall`
//! (`svc` registers: `x8` number, `x0`-`x5` arguments). AAPCS64: arguments in `x0`-`x2`,
//! result in `x0`.

use crate::arch::linux_vdso;
use crate::gate::Entry::*;
use crate::gate::VdsoSpec;

/// The aarch64 vDSO, with a `.hash` table only, as the kernel links it.
pub static VDSO: VdsoSpec = VdsoSpec {
    versions: &[("LINUX_2.6.39", &[ClockGettime, Gettimeofday, ClockGetres, Syscall])],
    prefix: "__kernel_",
    gnu_hash: false,
    ..linux_vdso(&super::INFO.regs, &super::RET.to_le_bytes())
};
