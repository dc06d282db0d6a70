//! i386's vDSO as endgate builds it: Linux's arch/x86/entry/vdso/vdso32/vdso32.lds.S names
//! (`LINUX_2.6` clock functions in 32- and 64-bit-time forms, `LINUX_2.5`
//! `__kernel_vsyscall`). `AT_SYSINFO` points at `__kernel_vsyscall`, so glibc makes every
//! system call through it (`call *%gs:0x10`) with the `int $0x80` registers. The clock
//! functions are cdecl: arguments on the stack, result in `eax`.

use unicorn_engine::RegisterX86;

use crate::gate::{CallAbi, Entry, VdsoSpec};

/// The i386 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    soname: "linux-gate.so.1",
    symbols: &[
        ("__kernel_vsyscall", 1, Entry::Syscall),
        ("__vdso_clock_gettime", 0, Entry::ClockGettime),
        ("__vdso_clock_gettime64", 0, Entry::ClockGettime64),
        ("__vdso_gettimeofday", 0, Entry::Gettimeofday),
        ("__vdso_time", 0, Entry::Time),
        ("__vdso_clock_getres", 0, Entry::ClockGetres),
        ("__vdso_clock_getres_time64", 0, Entry::ClockGetres64),
        ("__vdso_getcpu", 0, Entry::Getcpu),
    ],
    versions: &["LINUX_2.6", "LINUX_2.5"],
    ret: &[0xc3],        // ret
    trap: &[0xcd, 0x80], // int $0x80
    abi: CallAbi::Stack32 { sp: RegisterX86::ESP as i32, ret: RegisterX86::EAX as i32 },
    pc: super::INFO.regs.pc,
    at_sysinfo: true,
    ..crate::arch::LINUX_VDSO
};
