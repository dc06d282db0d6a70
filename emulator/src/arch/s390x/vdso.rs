//! s390x's vDSO as endgate builds it: the `LINUX_2.6.29` `__kernel_*` functions of Linux's
//! arch/s390/kernel/vdso64/vdso.lds.S that read clocks and the CPU number, plus endgate's
//! generic `__kernel_vsyscall` (`svc 0` registers: `r1` number, `r2`-`r7` arguments). The
//! image is big-endian. s390x ELF ABI: arguments in `r2`-`r4`, result in `r2`, return
//! through `r14`.

use unicorn_engine::RegisterS390X;

use crate::gate::{CallAbi, Entry, VdsoSpec};

/// The s390x vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    soname: "linux-vdso64.so.1",
    e_flags: 0,
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
    abi: CallAbi::Regs { args: [RegisterS390X::R2 as i32, RegisterS390X::R3 as i32], ret: RegisterS390X::R2 as i32 },
    pc: RegisterS390X::PC as i32,
    at_sysinfo: false,
    hash_word: 8,
    gnu_hash: true,
};
