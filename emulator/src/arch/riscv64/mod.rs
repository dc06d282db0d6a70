//! riscv64 guests (RV64GC, LP64D ABI, little-endian).
//!
//! - Trap: `ecall` raises unicorn interrupt 8 (QEMU's `RISCV_EXCP_U_ECALL`, whatever the
//!   privilege level) and unicorn has already added 4 to the PC when the hook runs: it does so
//!   for *every* RISC-V exception (accel/tcg/cpu-exec.c `cpu_handle_exception`), so the
//!   faulting instruction of any other exception is at PC - 4. Number in `a7`, arguments in
//!   `a0`-`a5`, result in `a0`.
//! - `ebreak` never reaches the interrupt hook: unicorn's `riscv_stop_interrupt` turns it into
//!   an invalid-instruction stop, caught here with an `INSN_INVALID` hook and raised as SIGTRAP.
//! - TLS: `tp` (x4).
//! - Signals: `rt_sigframe` with the D-extension FP state (`signal.rs`); there is no
//!   `SA_RESTORER`, handlers return through `ra` to the sigtramp page (`li a7, 139; ecall`),
//!   as the kernel's vDSO `__vdso_rt_sigreturn`.
//! - CPU: unicorn's SiFive U54 model (RV64GC plus S and U modes), run in U-mode as Linux runs
//!   user code (privileged CSRs such as `mstatus` raise SIGILL), with `mstatus.FS` set so the
//!   F and D instructions work and the counter-enable CSRs set so `rdcycle`/`rdinstret` work.
//!   `rdtime` is SIGILL (no timer source in unicorn); Linux user space can read it.
//! - Address space: Sv39, `TASK_SIZE` 0x40_0000_0000 (256 GiB; arch/riscv/include/asm/pgtable.h
//!   `TASK_SIZE_64` = `PGDIR_SIZE * PTRS_PER_PGD / 2`), PIE base 0x2a_aaaa_a000
//!   (arch/riscv/include/asm/elf.h `ELF_ET_DYN_BASE` = `TASK_SIZE / 3 * 2`, page-aligned).

mod abi;
pub mod cpuinfo;
mod signal;
mod traps;
pub use traps::TIMEBASE_HZ;
mod vdso;

use crate::guard::Checked;
use crate::guest::InsnRegs;
use capstone::arch::riscv::RiscVOperand;
use capstone::arch::ArchDetail;
use capstone::prelude::*;
use unicorn_engine::{Arch, Mode, RegisterRISCV, Riscv64CpuModel};

use super::{effective_address, trap_or_exception, windows_64, Cpu, Entries, GuestArch, SyscallArgs};
use crate::guest::info::Engine;
use crate::guest::{ArchInfo, Regs};
use crate::mm::GuestAddr;
use crate::signal::Signal;

/// The riscv64 guest.
#[derive(Clone, Copy)]
pub struct Riscv64;

/// RISC-V exception causes as unicorn passes them to the interrupt hook (the privileged
/// spec's `mcause` values; target/riscv/cpu_bits.h `RISCV_EXCP_*`) that the hooks act on.
mod excp {
    pub const ILLEGAL_INST: u32 = 0x2;
    pub const BREAKPOINT: u32 = 0x3;
    pub const U_ECALL: u32 = 0x8;
}

/// The signal each exception cause raises, as arch/riscv/kernel/traps.c sends them; SIGILL
/// for the causes not listed.
const CAUSE_SIGNALS: [(u32, Signal); 11] = [
    (0x0, Signal::SIGBUS),  // instruction address misaligned
    (0x1, Signal::SIGSEGV), // instruction access fault
    (excp::ILLEGAL_INST, Signal::SIGILL),
    (excp::BREAKPOINT, Signal::SIGTRAP),
    (0x4, Signal::SIGBUS),  // load address misaligned
    (0x5, Signal::SIGSEGV), // load access fault
    (0x6, Signal::SIGBUS),  // store/AMO address misaligned
    (0x7, Signal::SIGSEGV), // store/AMO access fault
    (0xc, Signal::SIGSEGV), // instruction page fault
    (0xd, Signal::SIGSEGV), // load page fault
    (0xf, Signal::SIGSEGV), // store/AMO page fault
];

/// `mstatus.FS` = Initial (privileged spec 3.1.6.6): the F and D instructions are enabled.
const MSTATUS_FS_INITIAL: u64 = 1 << 13;

/// `ebreak` and `c.ebreak` encodings (unprivileged spec, chapters 2.8 and 16.5).
const EBREAK: u32 = 0x0010_0073;
const C_EBREAK: u16 = 0x9002;

const A0: i32 = RegisterRISCV::A0 as i32;

/// `ecall`, the system-call instruction, and `ret` (`jalr x0, 0(ra)`): the vDSO's and the
/// sigtramp page's code.
const ECALL: u32 = 0x0000_0073;
const RET: u32 = 0x0000_8067;

/// riscv64's data row.
pub static INFO: ArchInfo = ArchInfo {
    regs: Regs::new(RegisterRISCV::PC as i32, RegisterRISCV::SP as i32, Some(RegisterRISCV::TP as i32))
        .syscall(RegisterRISCV::A7 as i32, Regs::args_from(A0), A0)
        .trap(&ECALL.to_le_bytes())
        .trap_intno(excp::U_ECALL),
    engine: Engine::new(Arch::RISCV, Mode::RISCV64, Some(Riscv64CpuModel::SIFIVE_U54 as i32)),
    name: "riscv64",
    compat_name: Some("riscv32"),
    elf_machine: 243,
    // [0, 16 GiB) low; [0x2a_aaaa_a000, 0x2e_aaaa_a000) PIE; [0x30_0000_0000, TASK_SIZE) top.
    layout: windows_64(0x2a_aaaa_a000, 0x40_0000_0000),
    hwcap: (abi::HWCAP_RV64GC, 0),
    // No AT_PLATFORM and no AT_MINSIGSTKSZ (the generic row's `None`s):
    // arch/riscv/include/asm/elf.h defines no ELF_PLATFORM and has no AT_MINSIGSTKSZ in
    // ARCH_DLINFO.
    has_sa_restorer: false,
    vdso: Some(&vdso::VDSO),
    numbers: syscall_numbers!(riscv64),
    disassembler,
    mem_operands,
    frames: Some(signal::FRAMES),
    cpuinfo: Some(cpuinfo::cpuinfo),
    ..ArchInfo::GENERIC
};

fn disassembler() -> Option<Capstone> {
    Capstone::new()
        .riscv()
        .mode(arch::riscv::ArchMode::RiscV64)
        .extra_mode([arch::riscv::ArchExtraMode::RiscVC].into_iter())
        .build()
        .ok()
}

/// Effective addresses of a RISC-V instruction's memory operands. Capstone gives `lw a0,
/// 8(sp)` a memory operand, but compressed loads and stores (`c.sw a1, 4(a0)`) as register,
/// immediate, register: imm + reg pairs count too.
fn mem_operands(detail: &ArchDetail<'_>, r: &InsnRegs<'_>) -> Option<Vec<u64>> {
    let ArchDetail::RiscVDetail(d) = detail else { return Some(Vec::new()) };
    let ops: Vec<RiscVOperand> = d.operands().collect();
    let mut out = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        match (op, ops.get(i + 1)) {
            (RiscVOperand::Mem(m), _) => out.push(effective_address((r.reg)(m.base())?, 0, 0, m.disp())),
            (RiscVOperand::Imm(disp), Some(RiscVOperand::Reg(base))) => {
                out.push(effective_address((r.reg)(*base)?, 0, 0, *disp))
            }
            _ => {}
        }
    }
    // The atomics (`amoadd.d rd, rs2, (rs1)`, `lr.w rd, (rs1)`, `sc.d rd, rs2, (rs1)`): capstone
    // gives the address register as a plain register, the last operand.
    let m = r.mnemonic;
    if out.is_empty() && (m.starts_with("amo") || m.starts_with("lr.") || m.starts_with("sc.")) {
        if let Some(RiscVOperand::Reg(base)) = ops.last() {
            out.push((r.reg)(*base)?);
        }
    }
    Some(out)
}

impl GuestArch for Riscv64 {
    fn info(&self) -> &'static ArchInfo {
        &INFO
    }

    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs> {
        trap_or_exception(self, cpu, intno, excp::U_ECALL, entries, |cpu, intno| {
            let pc = cpu.reg(RegisterRISCV::PC);
            if intno == excp::ILLEGAL_INST && traps::emulate_rdtime(cpu, GuestAddr::new(pc.wrapping_sub(4))) {
                return true;
            }
            // Point the PC back at the faulting instruction (see the module doc).
            cpu.set_reg(RegisterRISCV::PC, pc.wrapping_sub(4));
            false
        })
    }

    fn install_hooks(&self, cpu: &mut Cpu<'static>, entries: Entries) -> Result<(), unicorn_engine::uc_error> {
        cpu.add_insn_invalid_hook(move |cpu| {
            crate::guard::guarded(&"invalid-instruction hook", || {
                crate::guest::locked(cpu, |cpu| {
                    // Called for ebreak (PC still on it) and unicorn's internal end-of-run exception.
                    let pc = cpu.reg(RegisterRISCV::PC);
                    let mm = &cpu.get_data().mm;
                    let mut half = [0u8; 2];
                    let is_ebreak = mm.read_bytes(GuestAddr::new(pc), &mut half).is_ok()
                        && (u16::from_le_bytes(half) == C_EBREAK
                            || mm.read_u32(GuestAddr::new(pc)).is_ok_and(|i| i == EBREAK));
                    if !is_ebreak {
                        return false;
                    }
                    (entries.exception)(cpu, excp::BREAKPOINT);
                    true
                })
            })
        })?;
        Ok(())
    }

    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error> {
        let mstatus = cpu.reg_read(RegisterRISCV::MSTATUS)?;
        cpu.reg_write(RegisterRISCV::MSTATUS, mstatus | MSTATUS_FS_INITIAL)?;
        // CY, TM, IR enabled below M-mode, so user code can read `cycle` and `instret`.
        // `rdtime` still raises SIGILL: unicorn's CPU has no timer source for `time`.
        cpu.reg_write(RegisterRISCV::MCOUNTEREN, 7)?;
        cpu.reg_write(RegisterRISCV::SCOUNTEREN, 7)?;
        cpu.reg_write(RegisterRISCV::FCSR, 0)?;
        // U-mode (unicorn's PRIV encoding: 0 = U, 1 = S, 3 = M).
        cpu.reg_write(RegisterRISCV::PRIV, 0)?;
        cpu.reg_write(RegisterRISCV::SP, sp.get())?;
        cpu.reg_write(RegisterRISCV::PC, entry.get())?;
        // a0 = 0: no function for the program to register with atexit
        // (arch/riscv/include/asm/elf.h `ELF_PLAT_INIT`).
        cpu.reg_write(RegisterRISCV::A0, 0)?;
        Ok(())
    }

    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64> {
        if name == "pc" {
            return cpu.reg_read(RegisterRISCV::PC).ok();
        }
        match xreg(name)? {
            0 => Some(0),
            n => cpu.reg_read(RegisterRISCV::X0 as i32 + n).ok(),
        }
    }
    fn exception_signal(&self, intno: u32) -> Signal {
        super::exception_signal_of(&CAUSE_SIGNALS, intno)
    }
}

/// The number of the integer register `name`: `x0`-`x31`, or its ABI name (RISC-V psABI,
/// Register Convention).
fn xreg(name: &str) -> Option<i32> {
    let n = match name {
        "zero" => 0,
        "ra" => 1,
        "sp" => 2,
        "gp" => 3,
        "tp" => 4,
        "fp" => 8,
        _ => {
            let (prefix, rest) = name.split_at_checked(1)?;
            let i: i32 = rest.parse().ok()?;
            match (prefix, i) {
                ("x", 0..=31) => i,
                ("t", 0..=2) => 5 + i,
                ("t", 3..=6) => 28 + i - 3,
                ("s", 0..=1) => 8 + i,
                ("s", 2..=11) => 18 + i - 2,
                ("a", 0..=7) => 10 + i,
                _ => return None,
            }
        }
    };
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_flags_are_asm_generic() {
        let a = Riscv64;
        let f = libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOFOLLOW;
        assert_eq!((a.info().open_flags_to_host)(crate::abi::bits64(f)), f);
        assert_eq!((a.info().open_flags_from_host)(f), crate::abi::bits64(f));
    }

    #[test]
    fn register_names() {
        let names = [("zero", 0), ("ra", 1), ("sp", 2), ("fp", 8), ("x31", 31), ("t2", 7), ("t3", 28)];
        let abi = [("s1", 9), ("s2", 18), ("s11", 27), ("a0", 10), ("a7", 17), ("t6", 31)];
        for (name, n) in names.into_iter().chain(abi) {
            assert_eq!(xreg(name), Some(n), "{name}");
        }
        for name in ["", "x32", "a8", "t7", "s12", "pc", "q0"] {
            assert_eq!(xreg(name), None, "{name}");
        }
    }
}
