//! System calls only x86_64 has, with the rows that put them in x86_64's table.

use syscalls::Errno;
use unicorn_engine::RegisterX86;

use crate::abi::nr::Sys;
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::SyscallDef;
use arch_prctl::*;

/// `arch_prctl` codes (arch/x86/include/uapi/asm/prctl.h).
pub mod arch_prctl {
    /// Set the GS base.
    pub const ARCH_SET_GS: u64 = 0x1001;
    /// Set the FS base (TLS).
    pub const ARCH_SET_FS: u64 = 0x1002;
    /// Read the FS base.
    pub const ARCH_GET_FS: u64 = 0x1003;
    /// Read the GS base.
    pub const ARCH_GET_GS: u64 = 0x1004;
    /// Whether `cpuid` runs (1) or faults.
    pub const ARCH_GET_CPUID: u64 = 0x1011;
    /// Makes `cpuid` fault (0) or run (1); needs CPUID faulting.
    pub const ARCH_SET_CPUID: u64 = 0x1012;
}

/// x86_64's own rows.
pub static ROWS: &[SyscallDef] = &[
    d(Sys::arch_prctl, arch_prctl, &[ArchPrctlCode, Hex], RInt),
    d(Sys::map_shadow_stack, crate::syscall::mm::map_shadow_stack, &[Ptr, ULong, Hex], RInt),
    d(Sys::modify_ldt, modify_ldt, &[Int, Ptr, ULong], RInt),
];

/// `modify_ldt(int func, void *ptr, unsigned long bytecount)` (arch/x86/kernel/ldt.c): the
/// process's LDT, as on i386 ([`crate::syscall::arch::i386`]); the x86_64 engine loads
/// segments from it. Linux returns the result as an `unsigned int` ("the ABI expects int"), so
/// a 64-bit caller sees an error as a large positive number (-EINVAL as 4294967274), which is
/// what the guest gets.
fn modify_ldt(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let r = super::i386::modify_ldt(cpu, a);
    let v: i64 = match r {
        Ok(v) => i64::try_from(v).unwrap_or(i64::MAX),
        Err(e) => -i64::from(e.into_raw()),
    };
    Ok(u64::from(u32::from_ne_bytes(i32::try_from(v).unwrap_or(i32::MAX).to_ne_bytes())))
}

/// `arch_prctl(int code, unsigned long addr)`: sets or reads the FS/GS base, and answers the
/// CPUID-faulting codes ([`cpuid_codes`]). Errors: `EINVAL` for other codes (no CET is
/// emulated), `EFAULT` for a bad `addr` on GET. See arch_prctl(2).
fn arch_prctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (code, addr) = (a.raw(0), a.raw(1));
    let reg = match code {
        ARCH_SET_FS | ARCH_GET_FS => RegisterX86::FS_BASE,
        ARCH_SET_GS | ARCH_GET_GS => RegisterX86::GS_BASE,
        _ => return cpuid_codes(code),
    };
    match code {
        ARCH_SET_FS | ARCH_SET_GS => {
            cpu.reg_write(reg, addr).map_err(|_| Errno::EINVAL)?;
        }
        _ => {
            let v = cpu.reg_read(reg).map_err(|_| Errno::EINVAL)?;
            cpu.get_data_mut().mm.write_u64(GuestAddr::new(addr), v)?;
        }
    }
    Ok(0)
}

/// `ARCH_GET_CPUID` (0x1011) and `ARCH_SET_CPUID` (0x1012), which i386 has too
/// (arch/x86/kernel/process.c `do_arch_prctl_common`): `cpuid` is always allowed (1), and
/// turning it off needs CPUID faulting, which the emulated CPU lacks (`ENODEV`, as Linux on
/// such a CPU). Other codes: `EINVAL`.
pub fn cpuid_codes(code: u64) -> SysResult {
    match code {
        ARCH_GET_CPUID => Ok(1),
        ARCH_SET_CPUID => Err(Errno::ENODEV),
        _ => Err(Errno::EINVAL),
    }
}
