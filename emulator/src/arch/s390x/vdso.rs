//! s390x's vDSO as endgate builds it: the `LINUX_2.6.29` `__kernel_*` functions of Linux's
//! arch/s390/kernel/vdso64/vdso.lds.S that read clocks and the CPU number, plus endgate's
//! generic `__kernel_vsyscall` (`svc 0` registers: `r1` number, `r2`-`r7` arguments). The
//! image is big-endian. s390x ELF ABI: arguments in `r2`-`r4`, result in `r2`, return
//! through `r14`.

use crate::gate::{Entry, VdsoSpec};

/// The s390x vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    soname: "linux-vdso64.so.1",
    symbols: &[
        ("__kernel_clock_gettime", 0, Entry::ClockGettime),
        ("__kernel_gettimeofday", 0, Entry::Gettimeofday),
        ("__kernel_clock_getres", 0, Entry::ClockGetres),
        ("__kernel_getcpu", 0, Entry::Getcpu),
        ("__kernel_vsyscall", 0, Entry::Syscall),
    ],
    versions: &["LINUX_2.6.29"],
    ret: &[0x07, 0xfe],  // br %r14
    trap: &[0x0a, 0x00], // svc 0
    abi: crate::arch::vdso_call_abi(&super::INFO.regs),
    pc: super::INFO.regs.pc,
    hash_word: 8,
    ..crate::arch::LINUX_VDSO
};
