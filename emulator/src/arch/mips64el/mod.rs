//! mips64el guests (MIPS64 release 2, little-endian, n64 ABI, hard float).
//!
//! - CPU: unicorn's `MIPS64R2-generic` model (MIPS64R2 with an FPU and 64 TLB entries, which
//!   stay empty: the virtual TLB's fill hook translates every access, `ll`/`lld` included since
//!   unicorn patch 0005). `Status` gets CU1 and FR (n64 uses 64-bit FP registers, as the kernel
//!   sets for it) and UX/SX/KX (64-bit addressing).
//! - Privilege: the CPU stays in kernel mode (KSU = 0). In user mode unicorn's `rdhwr $29`
//!   (the TLS read every glibc program makes) needs `HWREna`, which unicorn cannot set from
//!   outside, and a trapped `rdhwr` cannot be completed here (see the next point). Kernel mode
//!   reads `UserLocal` directly; the price is that privileged instructions do not raise SIGILL.
//! - Trap: `syscall` raises unicorn interrupt 17 (QEMU's `EXCP_SYSCALL`; from a helper without
//!   leaving translated code since unicorn patch 0020); unicorn has already moved the PC past
//!   it. Number in `v0` ($2; n64 numbers start at 5000), arguments in `a0`-`a5`
//!   ($4-$9), result in `v0` with `a3` ($7) = 0, or a *positive* MIPS errno in `v0` with `a3` = 1.
//!   Host errno values are translated to MIPS ones here (arch/mips/include/uapi/asm/errno.h).
//! - Other exceptions: unicorn replaces the PC with the one after the last `syscall` before the
//!   interrupt hook runs (its `uc->next_pc` fix-up applies to every MIPS exception), so the hook
//!   cannot see which instruction raised it; unicorn patch 0023 keeps the faulting PC for every
//!   exception but `syscall`. A trap (`teq`, `tge`…, `teqi`…) or `break` raises what its code
//!   asks, as Linux's `do_trap_or_bp` sends it ([`trap_signal`]): SIGFPE for codes 6
//!   (overflow) and 7 (GCC's divide-by-zero check `teq rt, $0, 7`), SIGTRAP otherwise. Memory
//!   faults come from the TLB hook and have an exact PC.
//! - A signal delivered while the thread stopped in a branch delay slot: `delay_slot` clears
//!   the engine's delay-slot state (`hflags`) before the handler runs.
//! - TLS: `set_thread_area` writes CP0 `UserLocal`.
//! - Signal frames (n64 `struct rt_sigframe` only) and the `rt_sigreturn` trampoline:
//!   `signal.rs`.
//! - Address space: `TASK_SIZE64` 1 TiB (40 bits, below the model's 42 `SEGBITS`), PIE base
//!   `TASK_SIZE / 3 * 2` (arch/mips/include/asm/elf.h `ELF_ET_DYN_BASE`).

pub mod abi;
pub mod cpuinfo;
mod delay_slot;
mod signal;
mod unaligned;
mod vdso;

use crate::abi::low32;
use crate::guard::Checked;
use crate::guest::InsnRegs;
use capstone::arch::mips::MipsOperand;
use capstone::arch::ArchDetail;
use capstone::prelude::*;
use syscalls::Errno;
use unicorn_engine::{Arch, Mips64CpuModel, Mode, RegisterMIPS};

use super::{effective_address, trap_or_exception, windows_64, ArchTermios, Cpu, Entries, GuestArch, SyscallArgs};
use crate::guest::arch::restart_at_trap;
use crate::guest::info::Engine;
use crate::guest::{ArchInfo, Regs};
use crate::mm::{AddressSpace, GuestAddr};
use crate::signal::{SigAction, Signal};

/// The mips64el guest.
#[derive(Clone, Copy)]
pub struct Mips64el;

/// The MIPS exception `syscall` raises, as unicorn passes it to the interrupt hook (QEMU
/// target/mips/cpu.h `EXCP_SYSCALL`).
const EXCP_SYSCALL: u32 = 17;

/// `break` and the trap instructions (QEMU target/mips/cpu.h `EXCP_BREAK`, `EXCP_TRAP`).
const EXCP_BREAK: u32 = 18;
const EXCP_TRAP: u32 = 22;

/// The address-error exceptions of a misaligned load and store (QEMU target/mips/cpu.h
/// `EXCP_AdEL`, `EXCP_AdES`).
const EXCP_ADEL: u32 = 12;
const EXCP_ADES: u32 = 13;

/// The integer overflow of `add`, `addi`, `dadd`, `sub`, `dsub`… (QEMU target/mips/cpu.h
/// `EXCP_OVERFLOW`): SIGFPE `FPE_INTOVF` at the instruction (arch/mips/kernel/traps.c `do_ov`).
const EXCP_OVERFLOW: u32 = 21;

/// The signal each of the other exceptions raises (numbered as QEMU target/mips/cpu.h
/// `EXCP_*`), as arch/mips/kernel/traps.c sends them; SIGILL for those not listed.
const EXCP_SIGNALS: [(u32, Signal); 16] = [
    (12, Signal::SIGBUS),  // EXCP_AdEL
    (13, Signal::SIGBUS),  // EXCP_AdES
    (14, Signal::SIGSEGV), // EXCP_TLBF
    (15, Signal::SIGBUS),  // EXCP_IBE
    (16, Signal::SIGTRAP), // EXCP_DBp
    (18, Signal::SIGTRAP), // EXCP_BREAK
    (19, Signal::SIGILL),  // EXCP_CpU
    (20, Signal::SIGILL),  // EXCP_RI
    (21, Signal::SIGFPE),  // EXCP_OVERFLOW
    (22, Signal::SIGTRAP), // EXCP_TRAP (by its code: `trap_signal`)
    (23, Signal::SIGFPE),  // EXCP_FPE
    (26, Signal::SIGSEGV), // EXCP_TLBL
    (27, Signal::SIGSEGV), // EXCP_TLBS
    (28, Signal::SIGBUS),  // EXCP_DBE
    (36, Signal::SIGSEGV), // EXCP_TLBXI
    (37, Signal::SIGSEGV), // EXCP_TLBRI
];

/// CP0 `Status` bits (MIPS64 PRA, "Status Register").
mod status {
    pub const CU1: u64 = 1 << 29;
    pub const FR: u64 = 1 << 26;
    pub const KX: u64 = 1 << 7;
    pub const SX: u64 = 1 << 6;
    pub const UX: u64 = 1 << 5;
}

/// `$2` (`v0`) as a unicorn register id; `$n` is `GPR0 + n`.
const GPR0: i32 = RegisterMIPS::R0 as i32;
const V0: i32 = GPR0 + 2;
const A0: i32 = GPR0 + 4;
const A3: i32 = GPR0 + 7;

/// `syscall`, the system-call instruction: the vDSO's and the sigtramp page's.
const SYSCALL: u32 = 0x0000_000c;

/// TLB entries of the `MIPS64R2-generic` model (its Config1.MMUSize is 63), for
/// `/proc/cpuinfo`.
const TLB_ENTRIES: usize = 64;

/// `HWCAP_MIPS_MIPS3D` (arch/mips/include/uapi/asm/hwcap.h).
const HWCAP_MIPS_MIPS3D: u64 = 1 << 5;

/// The signal of a `break` or trap instruction `insn` at `pc`, as Linux sends it
/// (arch/mips/kernel/traps.c `do_bp`, `do_tr`, `do_trap_or_bp`; codes from
/// arch/mips/include/uapi/asm/break.h). The code is `break`'s 20-bit field (bits 6-25, its
/// halves swapped when the upper one is set), a register trap's 10-bit field (bits 6-15), 0
/// for an immediate trap (`teqi`…). Code 6 (`BRK_OVERFLOW`) is SIGFPE `FPE_INTOVF` and 7
/// (`BRK_DIVZERO`) SIGFPE `FPE_INTDIV`, both at `pc`; any other code is SIGTRAP, `TRAP_BRKPT`
/// for `break` and `SI_KERNEL` for a trap.
pub fn trap_signal(insn: u32, pc: u64) -> crate::signal::SigInfo {
    use crate::signal::si_code::FPE_INTOVF;
    use crate::signal::{si_code, SigInfo};
    const SI_KERNEL: i32 = 0x80;
    let opcode = insn >> 26;
    let funct = insn & 0x3f;
    let (code, is_break) = match (opcode, funct) {
        (0, 0x0d) => {
            let c = (insn >> 6) & 0xf_ffff;
            let c = if c >= 1 << 10 { ((c & 0x3ff) << 10) | (c >> 10) } else { c };
            (c, true)
        }
        (0, 0x30..=0x36) => ((insn >> 6) & 0x3ff, false),
        _ => (0, false),
    };
    match code {
        6 => SigInfo::fault(Signal::SIGFPE, FPE_INTOVF, pc),
        7 => SigInfo::fault(Signal::SIGFPE, si_code::FPE_INTDIV, pc),
        _ if is_break => SigInfo::fault(Signal::SIGTRAP, si_code::TRAP_BRKPT, 0),
        _ => SigInfo::fault(Signal::SIGTRAP, SI_KERNEL, 0),
    }
}

/// mips64el's data row.
pub static INFO: ArchInfo = ArchInfo {
    // n64: a4 and a5 are $8 and $9; the result in v0 with a3 the error flag.
    regs: Regs::new(RegisterMIPS::PC as i32, RegisterMIPS::SP as i32, Some(RegisterMIPS::CP0_USERLOCAL as i32))
        .syscall(V0, Regs::args_from(A0), V0)
        .error_flag(A3)
        .trap(&SYSCALL.to_le_bytes())
        .trap_intno(EXCP_SYSCALL),
    engine: Engine::new(
        Arch::MIPS,
        Mode(Mode::MIPS64.0 | Mode::LITTLE_ENDIAN.0),
        Some(Mips64CpuModel::MIPS64R2_GENERIC as i32),
    ),
    // A 64-bit MIPS kernel's UTS_MACHINE (arch/mips/Makefile).
    name: "mips64",
    compat_name: Some("mips"),
    elf_machine: 8,
    // TASK_SIZE64 of a 4 KiB-page kernel (arch/mips/include/asm/processor.h): 1 TiB; the PIE
    // base is two thirds of it. (`ll`/`lld` need no CPU TLB entries: unicorn patch 0005.)
    layout: windows_64(0xaa_aaaa_a000, 1 << 40),
    // arch/mips/include/uapi/asm/hwcap.h has bits only for R6, MSA, CRC32 and the ASEs
    // (MIPS16, MDMX, MIPS3D, SmartMIPS, DSP…). Of these the model has MIPS-3D, which Linux
    // finds in the FPU's FIR.3D bit (arch/mips/kernel/cpu-probe.c).
    hwcap: (HWCAP_MIPS_MIPS3D, 0),
    // No AT_PLATFORM (the generic row's `None`): Linux sets `__elf_platform` only for a few
    // vendor cores (Octeon, Loongson); and no AT_MINSIGSTKSZ.
    // arch/mips/include/uapi/asm/signal.h: no sa_restorer (and read_sigaction above).
    has_sa_restorer: false,
    nsig: 128,
    sigset_size: 16,
    termios: Some(ArchTermios {
        size: abi::TERMIOS_SIZE,
        to_host: abi::termios_to_host,
        from_host: abi::termios_from_host,
    }),
    sol_socket: abi::SOL_SOCKET,
    siginfo_code_first: true,
    stack_t_size_first: true,
    vdso: Some(&vdso::VDSO),
    // The crate's n64 table lacks number 5450, which arch/mips/kernel/syscalls/syscall_n64.tbl
    // gives set_mempolicy_home_node as every arch's table does (450 + the n64 base).
    numbers: syscall_numbers!(mips64, |name| name, [(5450, "set_mempolicy_home_node")]),
    disassembler: || {
        Capstone::new().mips().mode(arch::mips::ArchMode::Mips64).endian(capstone::Endian::Little).build().ok()
    },
    mem_operands,
    frames: Some(signal::FRAMES),
    errno_from_host: abi::errno_from_host,
    errno_to_host: abi::errno_to_host,
    poll_events_to_host: abi::poll_events_to_host,
    poll_events_from_host: abi::poll_events_from_host,
    open_flags_to_host: abi::open_flags_to_host,
    open_flags_from_host: abi::open_flags_from_host,
    rlimit_resource_to_host: abi::rlimit_to_host,
    signal_to_host,
    signal_from_host,
    // arch/mips/include/uapi/asm/signal.h
    guest_only_signals: &[(7, "SIGEMT")],
    sigmask_how_to_generic: abi::sigmask_how_to_generic,
    read_sigaction,
    write_sigaction,
    mmap_flags_to_generic: abi::mmap_flags_to_generic,
    mmap_validate_flags: abi::MMAP_LEGACY_FLAGS,
    prot_sem: abi::PROT_SEM,
    fcntl_cmd_to_host: abi::fcntl_cmd_to_host,
    ioctl_to_host: abi::ioctl_to_host,
    socket_type_to_host: abi::socket_type_to_host,
    socket_type_from_host: abi::socket_type_from_host,
    sockopt_to_host: abi::sockopt_to_host,
    sa_nocld_to_host,
    si_code_from_host,
    si_code_to_host,
    write_stat: |out, addr, st| crate::mm::write_struct_to(out, addr, &abi::Stat::from_host(st)),
    shmlba: (0x40000, true),
    cpuinfo: Some(cpuinfo::cpuinfo),
    ..ArchInfo::GENERIC
};

/// Effective addresses of a MIPS instruction's memory operands: base + displacement.
fn mem_operands(detail: &ArchDetail<'_>, r: &InsnRegs<'_>) -> Option<Vec<u64>> {
    let ArchDetail::MipsDetail(d) = detail else { return Some(Vec::new()) };
    let mems = d.operands().filter_map(|op| if let MipsOperand::Mem(m) = op { Some(m) } else { None });
    mems.map(|m| Some(effective_address((r.reg)(m.base())?, 0, 0, m.disp()))).collect()
}

fn signal_to_host(sig: u64) -> Option<Signal> {
    abi::signal_to_host(sig).map(Signal)
}

fn signal_from_host(sig: Signal) -> u64 {
    abi::signal_from_host(sig.0)
}

/// MIPS `struct sigaction` (arch/mips/include/uapi/asm/signal.h): `unsigned int sa_flags`,
/// then `sa_handler` at 8, then the 128-bit `sa_mask` at 16; no restorer.
fn read_sigaction(mm: &AddressSpace, addr: GuestAddr) -> Option<Result<SigAction, Errno>> {
    let read = || {
        Ok(SigAction {
            flags: u64::from(mm.read_u32(addr)?),
            handler: mm.read_u64(addr + 8)?,
            restorer: 0,
            mask: Mips64el.read_sigset(mm, addr + 16)?,
        })
    };
    Some(read())
}

fn write_sigaction(mm: &mut AddressSpace, addr: GuestAddr, act: &SigAction) -> Option<Result<(), Errno>> {
    let mut write = || {
        mm.write_u32(addr, low32(act.flags))?;
        mm.write_u32(addr + 4, 0)?;
        mm.write_u64(addr + 8, act.handler)?;
        Mips64el.write_sigset(mm, addr + 16, act.mask)
    };
    Some(write())
}

/// arch/mips/include/uapi/asm/signal.h: `SA_NOCLDSTOP` 1, `SA_NOCLDWAIT` 0x10000.
fn sa_nocld_to_host(flags: u64) -> i32 {
    (flags & 1) as i32 | if flags & 0x10000 != 0 { libc::SA_NOCLDWAIT } else { 0 }
}

/// arch/mips/include/uapi/asm/siginfo.h: `SI_ASYNCIO` -2, `SI_TIMER` -3, `SI_MESGQ` -4.
fn si_code_from_host(code: i32) -> i32 {
    match code {
        -2 => -3,
        -3 => -4,
        -4 => -2,
        c => c,
    }
}

fn si_code_to_host(code: i32) -> i32 {
    match code {
        -3 => -2,
        -4 => -3,
        -2 => -4,
        c => c,
    }
}

impl GuestArch for Mips64el {
    fn info(&self) -> &'static ArchInfo {
        &INFO
    }

    fn install_hooks(&self, _cpu: &mut Cpu<'static>, _entries: Entries) -> Result<(), unicorn_engine::uc_error> {
        Ok(())
    }

    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs> {
        trap_or_exception(self, cpu, intno, EXCP_SYSCALL, entries, |_, _| false)
    }

    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error> {
        // Kernel mode (KSU 0, ERL/EXL/BEV clear), FPU on with 64-bit registers, 64-bit
        // addressing in every segment.
        cpu.reg_write(RegisterMIPS::CP0_STATUS, status::CU1 | status::FR | status::KX | status::SX | status::UX)?;
        delay_slot::locate_hflags(cpu);
        // ELF_PLAT_INIT (arch/mips/include/asm/elf.h) zeroes every GPR; v0 = 0 tells _start
        // there is no rtld_fini to register.
        for r in 1..32 {
            cpu.reg_write(GPR0 + r, 0)?;
        }
        cpu.reg_write(RegisterMIPS::SP, sp.get())?;
        cpu.reg_write(RegisterMIPS::PC, entry.get())?;
        // $25 (t9) holds the entry address in PIC code that computes gp from it.
        cpu.reg_write(GPR0 + 25, entry.get())?;
        Ok(())
    }

    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64> {
        let name = name.strip_prefix('$').unwrap_or(name);
        let n: i32 = match name {
            "zero" => 0,
            "at" => 1,
            "gp" => 28,
            "sp" => 29,
            "fp" | "s8" => 30,
            "ra" => 31,
            "pc" => return cpu.reg_read(RegisterMIPS::PC).ok(),
            _ => {
                if let Ok(i) = name.parse::<i32>() {
                    i
                } else {
                    let (prefix, rest) = name.split_at(1);
                    let i: i32 = rest.parse().ok()?;
                    // n64 register names (MIPS n64 ABI: $8-$11 are a4-a7).
                    match (prefix, i) {
                        ("v", 0..=1) => 2 + i,
                        ("a", 0..=7) => 4 + i,
                        ("t", 0..=3) => 12 + i,
                        ("s", 0..=7) => 16 + i,
                        ("t", 8..=9) => 24 + i - 8,
                        ("k", 0..=1) => 26 + i,
                        _ => return None,
                    }
                }
            }
        };
        if !(0..32).contains(&n) {
            return None;
        }
        cpu.reg_read(GPR0 + n).ok()
    }
    fn exception_signal(&self, intno: u32) -> Signal {
        super::exception_signal_of(&EXCP_SIGNALS, intno)
    }
    fn exception_info(&self, cpu: &mut Cpu<'_>, intno: u32, pc: u64) -> Option<crate::signal::SigInfo> {
        if intno == EXCP_OVERFLOW {
            return Some(crate::signal::SigInfo::fault(Signal::SIGFPE, crate::signal::si_code::FPE_INTOVF, pc));
        }
        if matches!(intno, EXCP_BREAK | EXCP_TRAP) {
            let mut word = [0u8; 4];
            if cpu.get_data().mm.read_bytes(crate::mm::GuestAddr::new(pc), &mut word).is_ok() {
                return Some(trap_signal(u32::from_le_bytes(word), pc));
            }
        }
        if matches!(intno, EXCP_ADEL | EXCP_ADES) {
            match unaligned::complete(cpu, pc) {
                unaligned::Outcome::Done => return None,
                unaligned::Outcome::Signal(info) => return Some(info),
                unaligned::Outcome::Kept => {}
            }
        }
        Some(self.exception_siginfo(intno, pc))
    }

    /// Back to the `syscall` (4 bytes) with the number in `v0` and `a3` as they were (the
    /// result overwrote both; the kernel keeps the original `a3` for this).
    fn restart_syscall(&self, cpu: &mut Cpu<'_>, args: &SyscallArgs) {
        let trap = self.pc(cpu).wrapping_sub(u64::from(args.restart_len));
        restart_at_trap(&INFO, cpu, args, trap);
        cpu.set_reg(A3, args.a[3]);
    }

    fn read_sigset(&self, mm: &AddressSpace, addr: GuestAddr) -> Result<u64, Errno> {
        Ok(abi::sigset_to_host([mm.read_u64(addr)?, mm.read_u64(addr + 8)?]))
    }
    fn write_sigset(&self, mm: &mut AddressSpace, addr: GuestAddr, mask: u64) -> Result<(), Errno> {
        let w = abi::sigset_from_host(mask);
        mm.write_u64(addr, w[0])?;
        mm.write_u64(addr + 8, w[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::nr::Sys;

    #[test]
    fn traps_signal_by_their_code() {
        let sig = |insn: u32| {
            let i = trap_signal(insn, 0x1000);
            (i.signo, i.code)
        };
        // teq $a0, $zero, 7 (GCC's divide-by-zero check): SIGFPE FPE_INTDIV.
        assert_eq!(sig(4 << 21 | 7 << 6 | 0x34), (Signal::SIGFPE, 1));
        // tne $a0, $a1, 6: SIGFPE FPE_INTOVF.
        assert_eq!(sig(4 << 21 | 5 << 16 | 6 << 6 | 0x36), (Signal::SIGFPE, 2));
        // teqi $a0, 0 and teq with code 0: SIGTRAP SI_KERNEL.
        assert_eq!(sig(1 << 26 | 4 << 21 | 0x0c << 16), (Signal::SIGTRAP, 0x80));
        assert_eq!(sig(4 << 21 | 0x34), (Signal::SIGTRAP, 0x80));
        // break 7 as gas encodes it (code in bits 16-25): SIGFPE; break 0: SIGTRAP TRAP_BRKPT.
        assert_eq!(sig(0x0007_000d), (Signal::SIGFPE, 1));
        assert_eq!(sig(0x0000_000d), (Signal::SIGTRAP, 1));
        assert_eq!(
            trap_signal(0x0007_000d, 0x1000).fields,
            crate::signal::SigInfo::fault(Signal::SIGFPE, 1, 0x1000).fields
        );
    }

    #[test]
    fn n64_numbers() {
        // arch/mips/kernel/syscalls/syscall_n64.tbl
        crate::arch::tests::assert_numbers(
            &Mips64el,
            &[(5001, Sys::write), (5058, Sys::exit), (5242, Sys::set_thread_area)],
        );
    }
}
