//! i386's vDSO as endgate builds it: Linux's arch/x86/entry/vdso/vdso32/vdso32.lds.S names
//! (`LINUX_2.6` clock functions in 32- and 64-bit-time forms, `LINUX_2.5`
//! `__kernel_vsyscall`). `AT_SYSINFO` points at `__kernel_vsyscall`, so glibc makes every
//! system call through it (`call *%gs:0x10`) with the `int $0x80` registers. The clock
//! functions are cdecl: arguments on the stack, result in `eax`.

use unicorn_engine::RegisterX86;

use crate::arch::linux_vdso;
use crate::gate::Entry::*;
use crate::gate::{CallAbi, VdsoSpec};

/// `ret`.
const RET: [u8; 1] = [0xc3];

/// The i386 vDSO: its own soname, `AT_SYSINFO`, cdecl clock functions.
pub static VDSO: VdsoSpec = VdsoSpec {
    soname: "linux-gate.so.1",
    versions: &[
        ("LINUX_2.6", &[ClockGettime, ClockGettime64, Gettimeofday, Time, ClockGetres, ClockGetres64, Getcpu]),
        ("LINUX_2.5", &[Syscall]),
    ],
    abi: CallAbi::Stack32 { sp: RegisterX86::ESP as i32, ret: RegisterX86::EAX as i32 },
    at_sysinfo: true,
    ..linux_vdso(&super::INFO.regs, &RET)
};
