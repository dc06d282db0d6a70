//! x86_64's vDSO as endgate builds it: the names and version of Linux's
//! arch/x86/entry/vdso/vdso.lds.S (each `__vdso_*` function with its plain-named alias), plus
//! endgate's generic `__kernel_vsyscall` (`syscall` registers). Functions take the SysV
//! AMD64 argument registers `rdi`, `rsi`, `rdx` and return in `rax`.

use unicorn_engine::RegisterX86;

use crate::gate::{CallAbi, Entry, VdsoSpec};

/// The x86_64 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    soname: "linux-vdso.so.1",
    e_flags: 0,
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
    abi: CallAbi::Regs { args: [RegisterX86::RDI as i32, RegisterX86::RSI as i32], ret: RegisterX86::RAX as i32 },
    pc: RegisterX86::RIP as i32,
    at_sysinfo: false,
    hash_word: 4,
    gnu_hash: true,
};
