//! s390x's vDSO as endgate builds it: the `LINUX_2.6.29` `__kernel_*` functions of Linux's
//! arch/s390/kernel/vdso64/vdso.lds.S that read clocks and the CPU number, plus endgate's
//! generic `__kernel_vsyscall` (`svc 0` registers: `r1` number, `r2`-`r7` arguments). The
//! image is big-endian. s390x ELF ABI: arguments in `r2`-`r4`, result in `r2`, return
//! through `r14`.

use crate::arch::linux_vdso;
use crate::gate::Entry::*;
use crate::gate::VdsoSpec;

/// `br %r14`.
const BR_R14: [u8; 2] = [0x07, 0xfe];

/// The s390x vDSO: its own soname, and 8-byte `.hash` words.
pub static VDSO: VdsoSpec = VdsoSpec {
    soname: "linux-vdso64.so.1",
    versions: &[("LINUX_2.6.29", &[ClockGettime, Gettimeofday, ClockGetres, Getcpu, Syscall])],
    prefix: "__kernel_",
    hash_word: 8,
    ..linux_vdso(&super::INFO.regs, &BR_R14)
};
