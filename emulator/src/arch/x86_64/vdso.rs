//! x86_64's vDSO as endgate builds it: the names and version of Linux's
//! arch/x86/entry/vdso/vdso.lds.S (each `__vdso_*` function with its plain-named alias), plus
//! endgate's generic `__kernel_vsyscall` (`syscall` registers). Functions take the SysV
//! AMD64 argument registers `rdi`, `rsi`, `rdx` and return in `rax`.

use crate::gate::{Entry, VdsoSpec};

/// The x86_64 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    symbols: &[
        ("__vdso_clock_gettime", 0, Entry::ClockGettime),
        ("clock_gettime", 0, Entry::ClockGettime),
        ("__vdso_gettimeofday", 0, Entry::Gettimeofday),
        ("gettimeofday", 0, Entry::Gettimeofday),
        ("__vdso_time", 0, Entry::Time),
        ("time", 0, Entry::Time),
        ("__vdso_getcpu", 0, Entry::Getcpu),
        ("getcpu", 0, Entry::Getcpu),
        ("__vdso_clock_getres", 0, Entry::ClockGetres),
        ("clock_getres", 0, Entry::ClockGetres),
        ("__kernel_vsyscall", 0, Entry::Syscall),
    ],
    versions: &["LINUX_2.6"],
    ret: &[0xc3],        // ret
    trap: &[0x0f, 0x05], // syscall
    abi: crate::arch::vdso_call_abi(&super::INFO.regs),
    pc: super::INFO.regs.pc,
    ..crate::arch::LINUX_VDSO
};
