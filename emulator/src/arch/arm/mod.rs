//! arm guests (32-bit, EABI, hard-float "armhf", little-endian; ARM and Thumb-2 code).
//!
//! - Trap: `svc #0` (ARM or Thumb) raises unicorn interrupt 2 (QEMU's `EXCP_SWI`) with the PC
//!   already past the `svc`. Number in `r7`, arguments in `r0`-`r5`, result in `r0`. Numbers
//!   from 0xf0000 are the ARM-private calls (`traps::private`), served in the hook.
//! - 64-bit arguments go in aligned register pairs (EABI), see
//!   [`crate::syscall::compat32`].
//! - Thumb: the CPU state bit (CPSR.T) is part of the resume address: [`GuestArch::pc`] gives
//!   the PC with bit 0 set in Thumb state, as `bx` takes it, because unicorn's `emu_start`
//!   sets the state from bit 0 of the start address. An ELF entry with bit 0 set starts in
//!   Thumb state.
//! - TLS: TPIDRURO (CP15 c13, c0, 3), read by `mrc p15, 0, rN, c13, c0, 3` and by
//!   `__kuser_get_tls`; set by the private call `set_tls`.
//! - CPU: Cortex-A15 (ARMv7VE, VFPv4 with 32 D registers, NEON, hardware divide, LPAE), in
//!   User mode with VFP/NEON enabled (CPACR cp10/cp11 full access, FPEXC.EN), as Linux runs
//!   user code; the MMU is off and endgate's virtual TLB supplies the user permissions.
//! - Address space: all of it below 4 GiB. The stack ends at 0xffff0000 (arm64's compat
//!   `TASK_SIZE_32` with the kuser page above it), PIE base 0xaaaaa000 (two thirds of 4 GiB,
//!   arm64's `COMPAT_ELF_ET_DYN_BASE`), and the kuser helpers page at 0xffff0000 ([`kuser`]).
//! - Signals: `signal.rs` builds the kernel's `sigframe` (handlers without `SA_SIGINFO`, which
//!   return through `sigreturn`) and `rt_sigframe`, both with the VFP registers; handlers
//!   without `SA_RESTORER` return through the `[sigpage]` trampolines.

mod abi;
pub mod cpuinfo;
pub mod kuser;
mod signal;
mod traps;
mod vdso;

use crate::guard::Checked;
use crate::guest::InsnRegs;
use capstone::arch::arm::ArmOperandType;
use capstone::arch::ArchDetail;
use capstone::prelude::*;
use unicorn_engine::{Arch, ArmCpuModel, Mode, RegisterARM};

use super::{effective_address, read_regs, Cpu, Entries, GuestArch, SyscallArgs};
use crate::abi::arm_fcntl;
use crate::guest::arch::restart_at_trap;
use crate::guest::info::Engine;
use crate::guest::{ArchInfo, Regs};
use crate::mm::{GuestAddr, Layout};
use crate::signal::Signal;

/// The arm guest.
pub struct Arm;

/// QEMU's exception numbers as unicorn passes them to the interrupt hook
/// (target/arm/cpu.h `EXCP_*`, which aarch64 shares) that the hooks act on.
#[allow(missing_docs)]
pub(crate) mod excp {
    pub const UDEF: u32 = 1;
    pub const SWI: u32 = 2;
    pub const BKPT: u32 = 7;
}

/// The signal each exception raises, on arm and aarch64 (as arch/arm/kernel/traps.c and
/// arch/arm64/kernel/traps.c send them); SIGILL for those not listed.
const EXCP_SIGNALS: [(u32, Signal); 7] = [
    (excp::UDEF, Signal::SIGILL),
    (3, Signal::SIGSEGV), // EXCP_PREFETCH_ABORT
    (4, Signal::SIGSEGV), // EXCP_DATA_ABORT
    (excp::BKPT, Signal::SIGTRAP),
    (17, Signal::SIGILL), // EXCP_NOCP
    (18, Signal::SIGILL), // EXCP_INVSTATE
    (22, Signal::SIGBUS), // EXCP_UNALIGNED
];

/// A32 encodings endgate writes into guest pages (the vDSO, the kuser helpers, the sigpage).
mod a32 {
    /// `svc #0`.
    pub const SVC_0: u32 = 0xef00_0000;
    /// `bx lr`: cond AL, `0001 0010 1111 1111 1111 0001`, Rm = r14.
    pub const BX_LR: u32 = 0xe12f_ff1e;
    /// `udf #0` (A32 `0xe7f000f0`): what unused room holds, so a stray jump is SIGILL.
    pub const UDF: u32 = 0xe7f0_00f0;
}

/// CPSR bits (Arm ARM B1.3.3; arch/arm/include/uapi/asm/ptrace.h).
mod psr {
    /// `PSR_f`: N Z C V Q, IT[1:0], J.
    pub const F_FIELD: u32 = 0xff00_0000;
    /// `PSR_IT_MASK`: the If-Then state, bits 25-26 and 10-15.
    pub const IT_MASK: u32 = 0x0600_fc00;
    /// E: big-endian data.
    pub const E: u32 = 1 << 9;
    /// A: asynchronous aborts masked.
    pub const A: u32 = 1 << 8;
    /// I: IRQs masked.
    pub const I: u32 = 1 << 7;
    /// F: FIQs masked.
    pub const F: u32 = 1 << 6;
    /// T: Thumb state.
    pub const T: u32 = 1 << 5;
    /// M[4:0].
    pub const MODE_MASK: u32 = 0x1f;
    /// User mode.
    pub const USR_MODE: u32 = 0x10;
}

/// CPACR cp10 and cp11 fields = 0b11: VFP and Advanced SIMD usable at PL0 and PL1.
const CPACR_CP10_CP11_FULL: u64 = 0xf << 20;
/// FPEXC bits: EX (exception pending), EN (the VFP unit is enabled), FP2V (FPINST2 valid).
const FPEXC_EX: u32 = 1 << 31;
const FPEXC_EN: u32 = 1 << 30;
const FPEXC_FP2V: u32 = 1 << 28;

/// One past the highest user address: the kuser page sits right above the stack.
const TASK_SIZE: u64 = kuser::VECTORS_BASE;

const R0: i32 = RegisterARM::R0 as i32;

/// arm's data row.
pub static INFO: ArchInfo = ArchInfo {
    // The trap is `svc` in ARM state; `restart_syscall` knows Thumb's.
    regs: Regs::new(RegisterARM::PC as i32, RegisterARM::SP as i32, Some(RegisterARM::C13_C0_3 as i32))
        .syscall(RegisterARM::R7 as i32, Regs::args_from(R0), R0)
        .trap(&a32::SVC_0.to_le_bytes())
        .trap_intno(excp::SWI)
        .private_nrs(!0xffff, traps::ARM_NR_BASE),
    engine: Engine::new(Arch::ARM, Mode::ARM, Some(ArmCpuModel::CORTEX_A15 as i32)),
    name: "armv7l",
    elf_machine: 40,
    // [0, 2 GiB) low; [0xaaaaa000, +256 MiB) PIE; [0xc0000000, 4 GiB) top, which holds
    // the stack, the top-down mmap area and the kuser page. `task_size` here is the end
    // of the top window; `install_hooks` lowers the address space's TASK_SIZE to
    // 0xffff0000 once the kuser page is mapped.
    layout: Layout {
        low_len: 0x8000_0000,
        dyn_base: 0xaaaa_a000,
        dyn_len: 0x1000_0000,
        task_size: 1 << 32,
        stack_top: 1 << 32,
        top_len: 1 << 30,
        fixed_page: None,
    },
    // AT_HWCAP2 bits (AES, PMULL, SHA1, SHA2, CRC32) are ARMv8 crypto; the A15 has none.
    hwcap: (abi::HWCAP_A15, 0),
    ioctl_to_host: abi::ioctl_to_host,
    // arch/arm/kernel/setup.c: ELF_PLATFORM is "v7" plus the endianness letter.
    platform: Some("v7l"),
    // No AT_MINSIGSTKSZ (the generic row's `None`): arch/arm/include/asm/elf.h has none in
    // ARCH_DLINFO.
    regpairs_aligned: true,
    vdso: Some(&vdso::VDSO),
    numbers: syscall_numbers!(arm, super::uid16_name),
    disassembler: || Capstone::new().arm().mode(arch::arm::ArchMode::Arm).build().ok(),
    mem_operands,
    statfs64_len,
    open_flags_to_host: arm_fcntl::open_flags_to_host,
    open_flags_from_host: arm_fcntl::open_flags_from_host,
    frames: Some(signal::FRAMES),
    shmlba: (4 * crate::mm::PAGE_SIZE, true),
    cpuinfo: Some(cpuinfo::cpuinfo),
    ..super::ILP32
};

/// Effective addresses of an A32/T32 instruction's memory operands: base + index * scale +
/// displacement, in the 32-bit address space. The NEON structure loads and stores (`vld1`…
/// `vst4`) have no displacement: capstone reports their alignment (`[r3:64]`) there. A
/// register-list transfer (`ldm`/`stm`, `vldm`/`vstm`, `push`/`pop`, `vpush`/`vpop`) has no
/// memory operand: its addresses are each register's slot, lowest first (Arm ARM, LDM/STM
/// addressing modes), so the first one on the faulting page is the fault address the CPU
/// reports.
fn mem_operands(detail: &ArchDetail<'_>, r: &InsnRegs<'_>) -> Option<Vec<u64>> {
    let ArchDetail::ArmDetail(d) = detail else { return Some(Vec::new()) };
    let ops: Vec<_> = d.operands().collect();
    let m = r.mnemonic;
    let structure =
        (m.starts_with("vld") || m.starts_with("vst")) && m.as_bytes().get(3).is_some_and(u8::is_ascii_digit);
    let mems: Vec<_> =
        ops.iter().filter_map(|op| if let ArmOperandType::Mem(m) = op.op_type { Some(m) } else { None }).collect();
    if mems.is_empty() {
        return register_list_slots(&ops, r);
    }
    mems.into_iter()
        .map(|mem| {
            let (base, index) = ((r.reg)(mem.base())?, (r.reg)(mem.index())?);
            let disp = if structure { 0 } else { mem.disp().into() };
            Some(effective_address(base, index, mem.scale().into(), disp) & 0xffff_ffff)
        })
        .collect()
}

/// The slot addresses of a register-list transfer ([`mem_operands`]), lowest first; empty for
/// any other instruction without a memory operand.
fn register_list_slots(ops: &[capstone::arch::arm::ArmOperand], r: &InsnRegs<'_>) -> Option<Vec<u64>> {
    let m = r.mnemonic.split('.').next().unwrap_or("");
    // Some(true): a push (the slots end at sp); Some(false): a pop; None: base register first.
    let stack = match m {
        "push" | "vpush" => Some(true),
        "pop" | "vpop" => Some(false),
        _ if m.starts_with("ldm") || m.starts_with("stm") || m.starts_with("vldm") || m.starts_with("vstm") => None,
        _ => return Some(Vec::new()),
    };
    let regs: Vec<RegId> =
        ops.iter().filter_map(|op| if let ArmOperandType::Reg(id) = op.op_type { Some(id) } else { None }).collect();
    // push/pop name only the list (the base is sp); the others name the base first.
    let (base, list) = match stack {
        Some(_) => ((r.by_name)("sp")?, &regs[..]),
        None => ((r.reg)(*regs.first()?)?, regs.get(1..)?),
    };
    // D registers move 8 bytes each, S and core registers 4.
    let size: u64 = if list.first().and_then(|&id| (r.name)(id)).is_some_and(|n| n.starts_with('d')) { 8 } else { 4 };
    let total = size * list.len() as u64;
    let lowest = match stack {
        Some(true) => base.wrapping_sub(total),
        Some(false) => base,
        None if m.ends_with("db") || m.ends_with("fd") && m.starts_with("stm") => base.wrapping_sub(total),
        None if m.ends_with("da") => base.wrapping_sub(total).wrapping_add(4),
        None if m.ends_with("ib") => base.wrapping_add(4),
        None => base,
    };
    Some((0..list.len() as u64).map(|i| lowest.wrapping_add(i * size) & 0xffff_ffff).collect())
}

fn statfs64_len(size: u64) -> Option<u64> {
    // The kernel's `sys_statfs64_wrapper` (arch/arm/kernel/entry-common.S) accepts 88,
    // the EABI `sizeof` of glibc's unpacked struct, for the 84-byte packed one.
    match size {
        84 | 88 => Some(84),
        _ => None,
    }
}

impl GuestArch for Arm {
    fn info(&self) -> &'static ArchInfo {
        &INFO
    }

    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs> {
        if intno != excp::SWI {
            (entries.exception)(cpu, intno);
            return None;
        }
        // The number (r7) read with the arguments, as plain memory.
        let args = self.syscall_args(cpu);
        if args.nr & !0xffff != traps::ARM_NR_BASE {
            return Some(args);
        }
        private_trap(cpu, args.nr, entries);
        None
    }

    fn install_hooks(&self, cpu: &mut Cpu<'static>, _entries: Entries) -> Result<(), unicorn_engine::uc_error> {
        let mm = &mut cpu.get_data_mut().mm;
        // Once per process: a new thread's instance shares the first one's address space.
        if mm.vma_at(kuser::VECTORS_BASE).is_none() {
            kuser::map_vectors_page(mm).map_err(|_| unicorn_engine::uc_error::NOMEM)?;
            mm.task_size = TASK_SIZE;
            mm.stack_top = TASK_SIZE;
        }
        // Unicorn stops at YIELD (EXCP_YIELD, reported as an invalid instruction with the PC
        // after it); Linux runs it as a hint. Spin loops use it (Go's `procyield`).
        cpu.add_insn_invalid_hook(move |cpu| {
            crate::guard::guarded(&"invalid-instruction hook", || {
                crate::guest::locked(cpu, |cpu| {
                    let pc = cpu.reg(RegisterARM::PC);
                    let thumb = cpu.reg(RegisterARM::CPSR) & u64::from(psr::T) != 0;
                    let mm = &cpu.get_data().mm;
                    if thumb {
                        // T1 `yield` 0xbf10, or T2 `yield.w` 0xf3af 0x8001.
                        mm.read_u16(GuestAddr::new(pc.wrapping_sub(2))).is_ok_and(|h| h == 0xbf10)
                            || (mm.read_u16(GuestAddr::new(pc.wrapping_sub(4))).is_ok_and(|h| h == 0xf3af)
                                && mm.read_u16(GuestAddr::new(pc.wrapping_sub(2))).is_ok_and(|h| h == 0x8001))
                    } else {
                        // A1 `yield`, any condition: cond 0010 0000 1111 0000 0000 0001.
                        mm.read_u32(GuestAddr::new(pc.wrapping_sub(4))).is_ok_and(|w| w & 0x0fff_ffff == 0x0320_f001)
                    }
                })
            })
        })?;
        Ok(())
    }

    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error> {
        // VFP/NEON on before leaving the privileged mode unicorn starts in (SVC).
        let cpacr = cpu.reg_read(RegisterARM::C1_C0_2)?;
        cpu.reg_write(RegisterARM::C1_C0_2, cpacr | CPACR_CP10_CP11_FULL)?;
        cpu.reg_write(RegisterARM::FPEXC, u64::from(FPEXC_EN))?;
        cpu.reg_write(RegisterARM::FPSCR, 0)?;
        let thumb = if entry.get() & 1 != 0 { psr::T } else { 0 };
        // User mode, interrupts unmasked, little-endian data, NZCVQ clear.
        cpu.reg_write(RegisterARM::CPSR, u64::from(psr::USR_MODE | thumb))?;
        cpu.reg_write(RegisterARM::C13_C0_3, 0)?;
        cpu.reg_write(RegisterARM::SP, sp.get())?;
        // Bit 0 of the PC selects Thumb state in unicorn's PC write, as in `bx`.
        cpu.reg_write(RegisterARM::PC, entry.get())?;
        // r0 = 0: no function for the program to register with atexit
        // (arch/arm/include/asm/elf.h `ELF_PLAT_INIT`).
        cpu.reg_write(RegisterARM::R0, 0)?;
        Ok(())
    }

    #[inline]
    fn pc(&self, cpu: &Cpu<'_>) -> u64 {
        let [pc, cpsr] = read_regs(cpu, &[RegisterARM::PC as i32, RegisterARM::CPSR as i32]);
        (pc & 0xffff_fffe) | u64::from(cpsr & u64::from(psr::T) != 0)
    }

    /// The address without the Thumb bit, as the kernel's `instruction_pointer` gives it.
    fn syscall_ip(&self, cpu: &Cpu<'_>) -> u64 {
        self.pc(cpu) & !1
    }

    fn insn_pointer(&self, cpu: &Cpu<'_>) -> u64 {
        self.pc(cpu) & !1
    }

    fn set_insn_pointer(&self, cpu: &mut Cpu<'_>, addr: u64) {
        // Unicorn takes bit 0 of a PC write as the Thumb state, as `bx` does.
        let thumb = self.pc(cpu) & 1;
        cpu.set_reg(RegisterARM::PC as i32, (addr & 0xffff_fffe) | thumb);
    }

    fn disassembler_at(&self, pc: u64) -> Option<(Capstone, u64)> {
        if pc & 1 == 0 {
            return (self.info().disassembler)().map(|cs| (cs, pc));
        }
        let cs = Capstone::new().arm().mode(arch::arm::ArchMode::Thumb);
        cs.build().ok().map(|cs| (cs, pc & !1))
    }

    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64> {
        let n: i32 = match name {
            "sb" => 9,
            "sl" => 10,
            "fp" => 11,
            "ip" => 12,
            "sp" => 13,
            "lr" => 14,
            "pc" => return cpu.reg_read(RegisterARM::PC).ok(),
            _ => {
                let n: i32 = name.strip_prefix('r')?.parse().ok()?;
                if !(0..=14).contains(&n) {
                    return None;
                }
                n
            }
        };
        let reg = match n {
            13 => RegisterARM::SP as i32,
            14 => RegisterARM::LR as i32,
            _ => RegisterARM::R0 as i32 + n,
        };
        cpu.reg_read(reg).ok()
    }
    /// Back to the `svc`: 4 bytes in ARM state, 2 in Thumb (bit 0 of [`GuestArch::pc`]).
    fn restart_syscall(&self, cpu: &mut Cpu<'_>, args: &SyscallArgs) {
        let pc = self.pc(cpu);
        let trap = pc.wrapping_sub(if pc & 1 != 0 { 2 } else { 4 });
        restart_at_trap(&INFO, cpu, args, trap);
    }
    fn exception_signal(&self, intno: u32) -> Signal {
        exception_signal(intno)
    }
}

/// The signal an exception of QEMU's target/arm raises, on arm and aarch64.
pub(crate) fn exception_signal(intno: u32) -> Signal {
    super::exception_signal_of(&EXCP_SIGNALS, intno)
}

/// An ARM-private system call (`__ARM_NR_BASE` + n, see [`traps`]), served by the arch
/// ([`traps::private`]) and shown under `--strace`.
#[cold]
#[inline(never)]
fn private_trap(cpu: &mut Cpu<'_>, nr: u64, entries: Entries) {
    let r0 = cpu.reg(RegisterARM::R0);
    let result = traps::private(cpu, nr, excp::UDEF);
    if cpu.get_data().opts.strace {
        let name = traps::private_name(nr);
        match result {
            traps::Private::Ret(v) => crate::tlog!("{name}({r0:#x}) = {}", crate::abi::int32(v)),
            traps::Private::Exception(_) => crate::tlog!("{name}({r0:#x}) = ?"),
        }
    }
    match result {
        traps::Private::Ret(v) => cpu.set_reg(RegisterARM::R0, v & 0xffff_ffff),
        traps::Private::Exception(e) => (entries.exception)(cpu, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_historic_id_numbers_take_16_bit_ids() {
        use crate::abi::nr::Sys;
        use crate::arch::tests::assert_numbers;
        // arch/arm/tools/syscall.tbl: 24 is sys_getuid16, 199 getuid32; 182 sys_chown16, 212
        // chown32; 16 sys_lchown16, 198 lchown32.
        assert_numbers(&Arm, &[(24, Sys::getuid16), (199, Sys::getuid32), (182, Sys::chown16), (212, Sys::chown32)]);
        assert_numbers(&Arm, &[(16, Sys::lchown16), (198, Sys::lchown32), (138, Sys::setfsuid16)]);
    }

    #[test]
    fn layout_is_below_4_gib_and_holds_the_kuser_page() {
        let l = Arm.info().layout;
        assert!(l.task_size <= 1 << 32);
        assert!(l.task_size - l.top_len < kuser::VECTORS_BASE);
    }

    #[test]
    fn open_flags_round_trip() {
        let a = Arm;
        // O_RDONLY|O_LARGEFILE|O_DIRECTORY|O_CLOEXEC as 32-bit glibc passes it for opendir().
        let guest = 0o2_000_000 | arm_fcntl::O_DIRECTORY | arm_fcntl::O_LARGEFILE;
        let host = (a.info().open_flags_to_host)(guest);
        assert_eq!(host, libc::O_DIRECTORY | libc::O_CLOEXEC | 0o100000);
        assert_eq!((a.info().open_flags_from_host)(host), guest);
    }
}
