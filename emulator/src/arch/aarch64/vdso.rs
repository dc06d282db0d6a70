//! aarch64's vDSO as endgate builds it: the `LINUX_2.6.39` `__kernel_*` clock functions of
//! Linux's arch/arm64/kernel/vdso/vdso.lds.S, plus endgate's generic `__kernel_vsyscall`
//! (`svc` registers: `x8` number, `x0`-`x5` arguments). AAPCS64: arguments in `x0`-`x2`,
//! result in `x0`.

use unicorn_engine::RegisterARM64;

use crate::gate::{CallAbi, Entry, VdsoSpec};

/// The aarch64 vDSO.
pub static VDSO: VdsoSpec = VdsoSpec {
    soname: "linux-vdso.so.1",
    e_flags: 0,
    symbols: &[
        ("__kernel_clock_gettime", 0, Entry::ClockGettime),
        ("__kernel_gettimeofday", 0, Entry::Gettimeofday),
        ("__kernel_clock_getres", 0, Entry::ClockGetres),
        ("__kernel_vsyscall", 0, Entry::Syscall),
    ],
    versions: &["LINUX_2.6.39"],
    ret: &0xd65f_03c0u32.to_le_bytes(),  // ret
    trap: &0xd400_0001u32.to_le_bytes(), // svc #0
    abi: CallAbi::Regs { args: [RegisterARM64::X0 as i32, RegisterARM64::X1 as i32], ret: RegisterARM64::X0 as i32 },
    pc: RegisterARM64::PC as i32,
    at_sysinfo: false,
    hash_word: 4,
    gnu_hash: false,
};
