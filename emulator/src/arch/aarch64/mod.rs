//! aarch64 guests (LP64, little-endian).
//!
//! - Trap: `svc #0` raises unicorn interrupt 2 (QEMU's EXCP_SWI) with the PC already past the
//!   `svc`. Number in `x8`, arguments in `x0`-`x5`, result in `x0`.
//! - TLS: `TPIDR_EL0`.
//! - Signals: `rt_sigframe` with an `fpsimd_context` record (`signal.rs`); handlers return
//!   through x30 to `sa_restorer` or to the sigtramp page (`mov x8, #139; svc #0`), as the
//!   kernel's vDSO `__kernel_rt_sigreturn`.
//! - CPU: unicorn's `max` (ARMv8.0 plus the v8.1-v8.5 features of `HWCAP_MAX`), at EL0 with the EL1
//!   controls Linux sets for user space (`enter_el0`); the MMU is off and endgate's virtual
//!   TLB supplies the user permissions. ID-register reads trap and are completed as the kernel
//!   does (`traps.rs`).
//! - Address space: 48-bit, `TASK_SIZE` 1<<48, PIE base 0xaaaaaaaaa000
//!   (arch/arm64/include/asm/elf.h `ELF_ET_DYN_BASE` = 2/3 of the 48-bit window).

pub mod cpuinfo;
mod signal;
mod traps;
mod vdso;

use crate::guest::InsnRegs;
use capstone::arch::arm64::Arm64OperandType;
use capstone::arch::ArchDetail;
use capstone::prelude::*;
use unicorn_engine::{Arch, Arm64CpuModel, Mode, RegisterARM64};

use super::arm::excp;
use super::{effective_address, trap_or_exception, windows_64, Cpu, Entries, GuestArch, SyscallArgs};
use crate::abi::arm_fcntl;
use crate::guest::info::Engine;
use crate::guest::{ArchInfo, Regs};
use crate::mm::GuestAddr;
use crate::signal::Signal;

/// The aarch64 guest.
#[derive(Clone, Copy)]
pub struct Aarch64;

/// `AT_HWCAP` bits of arch/arm64/include/uapi/asm/hwcap.h for unicorn's `max` CPU (QEMU 5.0's
/// `aarch64_max_initfn`: ARMv8.0 plus LSE atomics, RDM, the crypto extensions with SHA-3,
/// SHA-512, SM3 and SM4, dot product, FHM, half-precision FP, JSCVT, FCMA, RCPC with its
/// immediate forms, DC CVAP and CVADP, CondM, SB, FRINTTS, RNDR), as Linux derives them from
/// its ID registers (Documentation/arch/arm64/elf_hwcaps.rst). Left out, as features the
/// guest cannot use as Linux provides them: SVE (endgate keeps no SVE state in signal frames,
/// and leaves SVE disabled at EL0), pointer authentication (endgate leaves it disabled, so the
/// `PAC*`/`AUT*` hints are no-ops, as on a CPU without it) and BTI (no guarded pages).
/// `traps.rs` hides the same fields from ID-register reads.
const HWCAP_MAX: u64 = super::hwcap_of(
    cpuinfo::HWCAP_NAMES,
    &[
        "fp", "asimd", "aes", "pmull", "sha1", "sha2", "crc32", "atomics", "fphp", "asimdhp", "cpuid", "asimdrdm",
        "jscvt", "fcma", "lrcpc", "dcpop", "sha3", "sm3", "sm4", "asimddp", "sha512", "asimdfhm", "ilrcpc", "flagm",
        "sb",
    ],
);
/// `AT_HWCAP2` bits for the same CPU: DC CVADP, CondM v8.5, FRINT, RNDR.
const HWCAP2_MAX: u64 = super::hwcap_of(cpuinfo::HWCAP2_NAMES, &["dcpodp", "flagm2", "frint", "rng"]);

const X0: i32 = RegisterARM64::X0 as i32;

/// `svc #0`, the system-call instruction, and `ret` (A64 encodings): the vDSO's and the
/// sigtramp page's code.
const SVC_0: u32 = 0xd400_0001;
const RET: u32 = 0xd65f_03c0;

/// aarch64's data row.
pub static INFO: ArchInfo = ArchInfo {
    regs: Regs::new(RegisterARM64::PC as i32, RegisterARM64::SP as i32, Some(RegisterARM64::TPIDR_EL0 as i32))
        .syscall(X0 + 8, Regs::args_from(X0), X0)
        .trap(&SVC_0.to_le_bytes())
        .trap_intno(excp::SWI),
    engine: Engine::new(Arch::ARM64, Mode::ARM, Some(Arm64CpuModel::MAX as i32)),
    name: "aarch64",
    compat_name: Some("armv8l"),
    elf_machine: 183,
    layout: windows_64(0xaaaa_aaaa_a000, 1 << 48),
    hwcap: (HWCAP_MAX, HWCAP2_MAX),
    platform: Some("aarch64"),
    // MINSIGSTKSZ of arch/arm64/include/uapi/asm/signal.h.
    minsigstksz: Some(5120),
    vdso: Some(&vdso::VDSO),
    numbers: syscall_numbers!(aarch64),
    disassembler: || Capstone::new().arm64().mode(arch::arm64::ArchMode::Arm).build().ok(),
    mem_operands,
    frames: Some(signal::FRAMES),
    open_flags_to_host: arm_fcntl::open_flags_to_host,
    open_flags_from_host: arm_fcntl::open_flags_from_host,
    cpuinfo: Some(cpuinfo::cpuinfo),
    pkeys: crate::guest::Pkeys::Arm64,
    ..ArchInfo::GENERIC
};

/// Effective addresses of an A64 instruction's memory operands: base + index + displacement.
fn mem_operands(detail: &ArchDetail<'_>, r: &InsnRegs<'_>) -> Option<Vec<u64>> {
    let ArchDetail::Arm64Detail(d) = detail else { return Some(Vec::new()) };
    let mems = d.operands().filter_map(|op| if let Arm64OperandType::Mem(m) = op.op_type { Some(m) } else { None });
    mems.map(|m| Some(effective_address((r.reg)(m.base())?, (r.reg)(m.index())?, 1, m.disp().into()))).collect()
}

impl GuestArch for Aarch64 {
    fn info(&self) -> &'static ArchInfo {
        &INFO
    }
    fn untag(&self, va: u64) -> u64 {
        if va & 1 << 55 == 0 {
            va & ((1 << 56) - 1)
        } else {
            va
        }
    }

    fn install_hooks(&self, _cpu: &mut Cpu<'static>, _entries: Entries) -> Result<(), unicorn_engine::uc_error> {
        Ok(())
    }

    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs> {
        trap_or_exception(self, cpu, intno, excp::SWI, entries, |cpu, intno| {
            intno == excp::UDEF && traps::emulate_id_mrs(cpu)
        })
    }

    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error> {
        enter_el0(cpu)?;
        cpu.reg_write(RegisterARM64::SP, sp.get())?;
        cpu.reg_write(RegisterARM64::PC, entry.get())?;
        // x0 = 0: no function for the program to register with atexit.
        cpu.reg_write(RegisterARM64::X0, 0)?;
        Ok(())
    }

    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64> {
        let reg: i32 = match name {
            "sp" | "wsp" => RegisterARM64::SP as i32,
            "x29" | "fp" | "w29" => RegisterARM64::X29 as i32,
            "x30" | "lr" | "w30" => RegisterARM64::X30 as i32,
            "xzr" | "wzr" => return Some(0),
            _ => {
                let n: i32 = name.strip_prefix('x').or_else(|| name.strip_prefix('w'))?.parse().ok()?;
                if !(0..=28).contains(&n) {
                    return None;
                }
                RegisterARM64::X0 as i32 + n
            }
        };
        let v = cpu.reg_read(reg).ok()?;
        Some(if name.starts_with('w') { v & 0xffff_ffff } else { v })
    }
    /// As on arm: QEMU's target/arm raises the same exceptions for both.
    fn exception_signal(&self, intno: u32) -> Signal {
        super::arm::exception_signal(intno)
    }
}

/// Puts the CPU where Linux runs user code: EL0, with the EL1 controls the kernel sets for
/// user space, so that privileged instructions fault as they do natively while what Linux
/// allows at EL0 works. Unicorn starts at EL1 with these controls off.
/// - CPACR_EL1.FPEN = 0b11: FP/SIMD usable at EL0.
/// - SCTLR_EL1: UCI (cache maintenance by VA, for JITs), UCT (`mrs ctr_el0`, read by glibc's
///   memcpy selection), DZE (`dc zva`, used by memset), nTWI/nTWE (`wfi`/`wfe` do not trap).
/// - CNTKCTL_EL1.EL0VCTEN: `cntvct_el0`/`cntfrq_el0` readable at EL0.
///
/// Values: Arm ARM D19 (SCTLR_EL1, CPACR_EL1, CNTKCTL_EL1); Linux arch/arm64/include/asm/sysreg.h
/// `INIT_SCTLR_EL1_MMU_ON` for the user-visible bits.
fn enter_el0(cpu: &mut Cpu<'_>) -> Result<(), unicorn_engine::uc_error> {
    use unicorn_engine::RegisterARM64CP;
    const SCTLR_DZE: u64 = 1 << 14;
    const SCTLR_UCT: u64 = 1 << 15;
    const SCTLR_NTWI: u64 = 1 << 16;
    const SCTLR_NTWE: u64 = 1 << 18;
    const SCTLR_UCI: u64 = 1 << 26;
    const CNTKCTL_EL0VCTEN: u64 = 1 << 1;
    cpu.reg_write(RegisterARM64::CPACR_EL1, 3 << 20)?;
    // PSTATE = EL0t with DAIF clear; unicorn recomputes its cached TB flags only on a
    // CP-register write, so the SCTLR write below comes after it.
    cpu.reg_write(RegisterARM64::PSTATE, 0)?;
    let mut cntkctl = RegisterARM64CP::new().op0(3).op1(0).crn(14).crm(1).op2(0);
    cpu.reg_read_arm64_coproc(&mut cntkctl)?;
    cpu.reg_write_arm64_coproc(&cntkctl.val(cntkctl.val | CNTKCTL_EL0VCTEN))?;
    let mut sctlr = RegisterARM64CP::new().op0(3).op1(0).crn(1).crm(0).op2(0);
    cpu.reg_read_arm64_coproc(&mut sctlr)?;
    // Pointer authentication off (EnIA, EnIB, EnDA, EnDB clear): its hint-space instructions
    // (`paciasp`, `autiasp` in every function of a `-mbranch-protection` build) are no-ops, as
    // on a CPU without it, and cost no helper call.
    const SCTLR_PAUTH: u64 = 1 << 31 | 1 << 30 | 1 << 27 | 1 << 13;
    let value = (sctlr.val | SCTLR_DZE | SCTLR_UCT | SCTLR_NTWI | SCTLR_NTWE | SCTLR_UCI) & !SCTLR_PAUTH;
    cpu.reg_write_arm64_coproc(&sctlr.val(value))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_flags_round_trip() {
        let a = Aarch64;
        // O_RDONLY|O_DIRECTORY|O_CLOEXEC as aarch64 glibc passes it for opendir().
        let guest = 0o2_000_000 | arm_fcntl::O_DIRECTORY;
        let host = (a.info().open_flags_to_host)(guest);
        assert_eq!(host, libc::O_DIRECTORY | libc::O_CLOEXEC);
        assert_eq!((a.info().open_flags_from_host)(host), guest);
        // F_GETFL on a 64-bit host reports the kernel's O_LARGEFILE (0o100000), which must not
        // turn into arm64's O_NOFOLLOW (also 0o100000).
        assert_eq!((a.info().open_flags_from_host)(0o100000 | libc::O_RDWR), arm_fcntl::O_LARGEFILE | 2);
    }
}
