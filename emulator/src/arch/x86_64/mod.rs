//! x86_64 guests (System V LP64 ABI).
//!
//! - Trap: the `syscall` instruction, caught with a UC_HOOK_INSN hook. Inside the hook RIP
//!   still points at the `syscall`; unicorn adds its 2 bytes afterwards. Number in `rax`,
//!   arguments in `rdi rsi rdx r10 r8 r9`, result in `rax`; `rcx` and `r11` are left as they
//!   were (the ABI says the kernel destroys them; see `set_syscall_ret`).
//! - TLS: the FS base, set by `arch_prctl(ARCH_SET_FS)`.
//! - CPU: QEMU's `Haswell` model (unicorn's default for 64-bit x86) with what TCG in unicorn's
//!   QEMU 5 does not implement filtered out: x86-64-v2 (SSSE3, SSE4.1/4.2, POPCNT, CMPXCHG16B,
//!   LAHF) plus MOVBE, BMI1/2, AES, PCLMULQDQ, RDRAND, FSGSBASE, ERMS; no AVX, AVX2 or FMA.
//! - Address space: 47-bit, `TASK_SIZE` 0x7ffffffff000, PIE base 0x555555554000
//!   (arch/x86/include/asm/elf.h `ELF_ET_DYN_BASE`).

pub mod abi;
pub mod cpuinfo;
pub(crate) mod exception_state;
mod gdt;
mod signal;
mod vdso;
pub mod vsyscall;

use crate::guest::InsnRegs;
use capstone::arch::x86::X86OperandType;
use capstone::arch::ArchDetail;
use capstone::prelude::*;
use unicorn_engine::{Arch, Mode, RegisterX86 as R, X86CpuModel, X86Insn};

use super::{effective_address, windows_64, CloneArgs, Cpu, Entries, GuestArch, SyscallArgs};
use crate::guest::info::Engine;
use crate::guest::{ArchInfo, Regs};
use crate::mm::{GuestAddr, Layout};
use crate::signal::Signal;

/// The x86_64 guest.
pub struct X86_64;

/// `CPUID.1:EDX` of that model as TCG filters it (fpu de pse tsc msr pae mce cx8 apic sep mtrr
/// pge mca cmov pat pse36 clflush mmx fxsr sse sse2), which Linux passes as `AT_HWCAP` on x86.
const HWCAP_HASWELL_TCG: u64 = 0x078b_fbfd;

/// `syscall` (0f 05) and `ret` (c3): the vDSO's and the vsyscall page's code.
const SYSCALL: [u8; 2] = [0x0f, 0x05];
const RET: u8 = 0xc3;

/// x86_64's data row.
pub static INFO: ArchInfo = ArchInfo {
    // Number in rax, arguments in rdi rsi rdx r10 r8 r9, result in rax (rcx and r11 as
    // they were: docs/ARCHITECTURE.md). The number is eax's: the kernel's `do_syscall_64`
    // takes it as an `int` (arch/x86/entry/syscall_64.c), so `syscall(SYS_getpid | 1 << 32)`
    // is getpid.
    regs: Regs {
        nr_mask: 0xffff_ffff,
        ..Regs::new(R::RIP as i32, R::RSP as i32, Some(R::FS_BASE as i32))
            .syscall(
                R::RAX as i32,
                [R::RDI as i32, R::RSI as i32, R::RDX as i32, R::R10 as i32, R::R8 as i32, R::R9 as i32],
                R::RAX as i32,
            )
            .trap(&SYSCALL)
    },
    // Unicorn's default 64-bit model, named.
    engine: Engine::new(Arch::X86, Mode::MODE_64, Some(X86CpuModel::HASWELL as i32)),
    name: "x86_64",
    compat_name: Some("i686"),
    elf_machine: 62,
    layout: Layout { fixed_page: Some(vsyscall::VSYSCALL_ADDR), ..windows_64(0x5555_5555_4000, 0x7fff_ffff_f000) },
    hwcap: (HWCAP_HASWELL_TCG, 0),
    platform: Some("x86_64"),
    // MINSIGSTKSZ of arch/x86/include/uapi/asm/signal.h.
    minsigstksz: Some(2048),
    // MAP_32BIT (arch/x86/include/uapi/asm/mman.h) places a mapping in [1 GiB, 2 GiB), the
    // range arch/x86/kernel/sys_x86_64.c searches for it.
    map_32bit: Some((0x40, 0x4000_0000..0x8000_0000)),
    // x86's LEGACY_MAP_MASK also has MAP_32BIT (0x40) and MAP_ABOVE4G (0x80).
    mmap_validate_flags: crate::abi::MMAP_LEGACY_FLAGS | 0x40 | 0x80,
    mmap_hint_rounds_down: true,
    epoll_packed: true,
    vdso: Some(&vdso::VDSO),
    numbers: syscall_numbers!(x86_64),
    disassembler: || Capstone::new().x86().mode(arch::x86::ArchMode::Mode64).build().ok(),
    mem_operands,
    clone_args: CloneArgs::default_order,
    write_stat: abi::write_stat,
    frames: Some(signal::FRAMES),
    semid_ds_tail: crate::abi::shapes::SEMID64_DS_TAIL_X86_64,
    cpuinfo: Some(cpuinfo::cpuinfo),
    pkeys: crate::guest::Pkeys::X86,
    ..ArchInfo::GENERIC
};

/// Effective addresses of an x86 instruction's memory operands: segment base (`fs`/`gs`, the
/// TLS segments) + base + index * scale + displacement. i386 shares it.
pub fn mem_operands(detail: &ArchDetail<'_>, r: &InsnRegs<'_>) -> Option<Vec<u64>> {
    let ArchDetail::X86Detail(d) = detail else { return Some(Vec::new()) };
    let mems = d.operands().filter_map(|op| if let X86OperandType::Mem(m) = op.op_type { Some(m) } else { None });
    mems.map(|m| {
        let seg = match (r.name)(m.segment()).as_deref() {
            Some("fs") => (r.by_name)("fs_base")?,
            Some("gs") => (r.by_name)("gs_base")?,
            _ => 0,
        };
        let (base, index) = ((r.reg)(m.base())?, (r.reg)(m.index())?);
        Some(seg.wrapping_add(effective_address(base, index, m.scale().into(), m.disp())))
    })
    .collect()
}

/// Where the x86_64 engine sees the LDT (linear and physical): kernel-half addresses no guest
/// mapping or instruction reaches but the CPU's own descriptor reads.
pub const LDT_LINEAR: u64 = 0xffff_ffff_fe00_0000;

impl GuestArch for X86_64 {
    fn info(&self) -> &'static ArchInfo {
        &INFO
    }

    fn install_hooks(&self, cpu: &mut Cpu<'static>, _entries: Entries) -> Result<(), unicorn_engine::uc_error> {
        vsyscall::map(&mut cpu.get_data_mut().mm).map_err(|_| unicorn_engine::uc_error::NOMEM)?;
        // The process's LDT (`modify_ldt`), as i386's: linear and physical LDT_LINEAR, which
        // no guest mapping reaches (it lies in the kernel half, below the vsyscall page).
        crate::arch::i386::gdt::install_ldt(cpu, LDT_LINEAR, LDT_LINEAR, true)?;
        gdt::install(cpu)?;
        Ok(())
    }

    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs> {
        // System calls come through the `syscall` instruction's hook; every interrupt is an
        // exception.
        let soft = exception_state::clear(cpu);
        report_exception(cpu, intno, soft, entries.exception, R::RIP);
        None
    }

    fn syscall_insn(&self) -> Option<X86Insn> {
        Some(X86Insn::SYSCALL)
    }

    /// Inside the hook RIP is still on the 2-byte `syscall`.
    fn syscall_ip(&self, cpu: &Cpu<'_>) -> u64 {
        self.pc(cpu).wrapping_add(2)
    }

    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error> {
        gdt::enter_user_mode(cpu, entry, sp)?;
        // rdx = 0: no function for the program to register with atexit (ELF x86_64 psABI).
        cpu.reg_write(R::RDX, 0)?;
        // The FPU state a new process gets from the kernel (fpstate_init_fxstate): x87 control
        // word 0x37f (all exceptions masked, 64-bit precision, round to nearest) and MXCSR
        // 0x1f80. Unicorn starts with both 0, which means single precision x87 arithmetic.
        cpu.reg_write(R::FPCW, 0x37f)?;
        cpu.reg_write(R::MXCSR, 0x1f80)?;
        Ok(())
    }

    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64> {
        let reg = match name {
            "rip" => R::RIP,
            "fs_base" => R::FS_BASE,
            "gs_base" => R::GS_BASE,
            _ => gpr64(name)?,
        };
        cpu.reg_read(reg).ok()
    }
    fn exception_siginfo(&self, intno: u32, pc: u64) -> crate::signal::SigInfo {
        if vsyscall::exception_in_page(pc) {
            // Linux's vsyscall emulation sends SIGSEGV (SI_KERNEL) for a misaligned call.
            return crate::signal::SigInfo::fault(Signal::SIGSEGV, 0x80, 0);
        }
        x86_exception_siginfo(intno, pc)
    }
    fn exception_signal(&self, intno: u32) -> Signal {
        exception_signal(intno)
    }
    fn invalid_insn_siginfo(&self, cpu: &mut Cpu<'_>, pc: u64) -> crate::signal::SigInfo {
        x86_invalid_insn_siginfo(cpu, pc)
    }
    fn page_fault_taken(&self, mm: &crate::mm::AddressSpace, f: &crate::mm::Fault, info: &crate::signal::SigInfo) {
        trap::page_fault(mm, f, info);
    }
    fn data_fault(&self, page: u64, info: crate::signal::SigInfo) -> crate::signal::SigInfo {
        let top = page >> 47; // bits 47-63: all clear or all set in a canonical address
        if top != 0 && top != 0x1_ffff {
            // A non-canonical address is no page fault but a general-protection fault:
            // SIGSEGV, SI_KERNEL, si_addr 0 (arch/x86/kernel/traps.c, exc_general_protection).
            crate::signal::SigInfo::fault(Signal::SIGSEGV, 0x80, 0)
        } else if page == vsyscall::VSYSCALL_ADDR {
            // The vsyscall page is execute-only (vsyscall=xonly): a data access finds no
            // mapping there (SEGV_MAPERR), as the page is in no VMA.
            crate::signal::SigInfo { code: crate::signal::si_code::SEGV_MAPERR, ..info }
        } else {
            info
        }
    }
}

/// x86's eight general registers by name: i386's 32-bit ones, and their x86_64 widenings.
const GPRS: [(&str, R, &str, R); 8] = [
    ("eax", R::EAX, "rax", R::RAX),
    ("ebx", R::EBX, "rbx", R::RBX),
    ("ecx", R::ECX, "rcx", R::RCX),
    ("edx", R::EDX, "rdx", R::RDX),
    ("esi", R::ESI, "rsi", R::RSI),
    ("edi", R::EDI, "rdi", R::RDI),
    ("ebp", R::EBP, "rbp", R::RBP),
    ("esp", R::ESP, "rsp", R::RSP),
];

/// The 32-bit general registers by name (i386's, and the low halves on x86_64).
pub(crate) fn gpr32(name: &str) -> Option<R> {
    GPRS.iter().find(|g| g.0 == name).map(|g| g.1)
}

/// x86_64's general registers by name: the 64-bit ones (`rax`…, `r8`-`r15`) and the 32-bit
/// low halves of the first eight.
fn gpr64(name: &str) -> Option<R> {
    const R8_R15: [R; 8] = [R::R8, R::R9, R::R10, R::R11, R::R12, R::R13, R::R14, R::R15];
    if let Some(n) = name.strip_prefix('r').and_then(|n| n.parse::<usize>().ok()) {
        return R8_R15.get(n.checked_sub(8)?).copied();
    }
    GPRS.iter().find(|g| g.2 == name).map(|g| g.3).or_else(|| gpr32(name))
}

/// The exception being reported as a signal on x86_64 and i386: its vector and error code, for
/// the signal frame's `trapno` and `err` (what Linux keeps in `thread.trap_nr` and
/// `thread.error_code` for the frame; Intel SDM vol. 3 table 6-1).
pub(crate) mod trap {
    use crate::signal::Signal;
    use std::cell::Cell;

    thread_local! {
        /// The signal the last exception is about to raise, until its frame takes it.
        static LAST: Cell<Option<Signal>> = const { Cell::new(None) };
        static LAST_CR2: Cell<u64> = const { Cell::new(0) };
        /// The last exception's vector and error code.
        static LAST_EXC: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    }

    /// Records the exception (vector `trapno`, `err`) that is about to raise `sig`.
    pub(crate) fn record(sig: Signal, trapno: u64, err: u64) {
        LAST.with(|l| l.set(Some(sig)));
        LAST_EXC.with(|l| l.set((trapno, err)));
    }

    /// The recorded exception of `sig`, taken (the frame builder, for a fault's signal).
    pub(crate) fn take(sig: Signal) -> Option<(u64, u64)> {
        LAST.with(Cell::take).filter(|&l| l == sig).map(|_| last_exception())
    }

    /// Page-fault error code bits (arch/x86/include/asm/trap_pf.h, Intel SDM vol. 3 4.7):
    /// the page was present (a protection fault), a write, from user mode, an instruction
    /// fetch.
    const PF_PROT: u64 = 1;
    const PF_WRITE: u64 = 2;
    const PF_USER: u64 = 4;
    const PF_INSTR: u64 = 0x10;

    /// Records the page fault (vector 14) behind a refused access `f` and its signal `info`,
    /// with the error code Linux's `do_user_addr_fault` puts in the frame's `err`: user mode,
    /// write or instruction fetch as the access was, and the present bit when the page had a
    /// present page-table entry: a guest page with some permission whose host page is
    /// mapped in (`/proc/self/pagemap`'s present bit; endgate keeps one host page per guest
    /// page, so this is the kernel's entry for the guest page), or an address at or above
    /// x86_64's user space (0x7ffffffff000 on: the kernel's own pages, present but not the
    /// user's). `PROT_NONE` and unmapped pages, and pages past the end of a file, have none.
    /// A non-canonical address is a general-protection fault instead ([`super::X86_64`]'s
    /// `data_fault` made it `SI_KERNEL`): vector 13, error 0.
    pub(crate) fn page_fault(mm: &crate::mm::AddressSpace, f: &crate::mm::Fault, info: &crate::signal::SigInfo) {
        use crate::mm::Prot;
        /// x86_64's TASK_SIZE_MAX: the last user page is left unmapped (arch/x86/include/asm/page_64.h).
        const KERNEL_HALF: u64 = 0x7fff_ffff_f000;
        if info.code == crate::signal::si_code::SI_KERNEL {
            record(info.signo, 13, 0);
            return;
        }
        let mut err = PF_USER;
        if f.access == Prot::WRITE {
            err |= PF_WRITE;
        } else if f.access == Prot::EXEC {
            err |= PF_INSTR;
        }
        let with_prot = mm.vma_at(f.page).is_some_and(|(_, v)| v.prot != Prot::NONE);
        let host = mm.to_host(f.page, 4096).filter(|_| f.mapped && !f.bus && with_prot);
        if mm.long_bytes() == 8 && f.page >= KERNEL_HALF {
            err |= PF_PROT;
        } else if let Some(host) = host {
            if f.access == Prot::EXEC {
                // Linux's access_error does not look at VM_EXEC: a fetch from a readable page
                // that is not present maps it and runs again, and the present page's NX bit
                // then faults (so the page is present afterwards, as here once read).
                // SAFETY: one byte of a host page of a guest window that the guest may read.
                let _ = unsafe { host.read_volatile() };
                err |= PF_PROT;
            } else if present(host) {
                err |= PF_PROT;
            }
        }
        if let crate::signal::SigFields::Fault { addr } = info.fields {
            LAST_CR2.with(|c| c.set(addr));
        }
        record(info.signo, 14, err);
    }

    /// The address of the calling thread's last page fault: the frame's `cr2` for every
    /// signal, as Linux's `thread.cr2`, which only a page fault sets.
    pub(crate) fn last_cr2() -> u64 {
        LAST_CR2.with(Cell::get)
    }

    /// The calling thread's last exception (vector, error code): the frame's `trapno` and
    /// `err` for a signal that no exception raised, as Linux's `thread.trap_nr` and
    /// `thread.error_code`, which stay from the last one.
    pub(crate) fn last_exception() -> (u64, u64) {
        LAST_EXC.with(Cell::get)
    }

    /// The calling thread's [`last_exception`] and [`last_cr2`], for a thread it creates.
    pub(crate) fn snapshot() -> (u64, u64, u64) {
        let (t, e) = last_exception();
        (t, e, last_cr2())
    }

    /// Takes over a creating thread's [`snapshot`].
    pub(crate) fn restore(s: (u64, u64, u64)) {
        LAST_EXC.with(|l| l.set((s.0, s.1)));
        LAST_CR2.with(|c| c.set(s.2));
    }

    /// Whether the host page at `host` has a present page-table entry (`/proc/self/pagemap`,
    /// bit 63 of the page's 64-bit entry; Documentation/admin-guide/mm/pagemap.rst).
    fn present(host: *mut u8) -> bool {
        use std::os::unix::fs::FileExt;
        let Ok(f) = std::fs::File::open("/proc/self/pagemap") else { return false };
        let mut e = [0u8; 8];
        let at = (host as u64 / 4096) * 8;
        f.read_exact_at(&mut e, at).is_ok() && u64::from_ne_bytes(e) >> 63 != 0
    }

    /// The `trapno` a fault's signal has when no exception was recorded: a page fault's 14
    /// for SIGSEGV and SIGBUS, else the vector that raises the signal.
    pub(crate) fn infer(sig: Signal) -> u64 {
        match sig {
            Signal::SIGSEGV | Signal::SIGBUS => 14,
            Signal::SIGILL => 6,
            Signal::SIGTRAP => 3,
            _ => 0,
        }
    }
}

/// The interrupt hook's report of exception `intno` (x86_64, i386); `soft`: raised by an `int`
/// instruction (`int N`, `int3`, `into`; [`exception_state::clear`] tells), which leaves the PC
/// after itself. Linux's IDT opens only vectors 3 (`int3`, `int $3`: SIGTRAP `SI_KERNEL`,
/// `do_int3_user`) and 4 (`into`, `int $4`: SIGSEGV, trapno 4) to `int` from user mode (0x80,
/// the i386 system call, is served before this); any other `int N`, and every vector from 32 up
/// (which no CPU exception uses), is a general-protection fault on the instruction: SIGSEGV
/// `SI_KERNEL`, trapno 13, the error code naming the IDT entry (`N << 3 | 2`). So `int $0` is
/// SIGSEGV where a division by zero, the CPU's vector 0, is SIGFPE.
pub(crate) fn report_exception(cpu: &mut Cpu<'_>, intno: u32, soft: bool, exception: fn(&mut Cpu<'_>, u32), pc_reg: R) {
    /// #GP.
    const GP: u32 = 13;
    if intno >= 32 || (soft && intno != 3 && intno != 4) {
        use crate::guard::Checked;
        let pc = cpu.reg(pc_reg);
        cpu.set_reg(pc_reg, pc.wrapping_sub(2));
        trap::record(Signal::SIGSEGV, u64::from(GP), (u64::from(intno) << 3) | 2);
        exception(cpu, if intno >= 32 { intno } else { GP });
    } else {
        trap::record(exception_signal(intno), u64::from(intno), 0);
        exception(cpu, intno);
    }
}

/// The `siginfo` of exception `intno` at `pc` on x86 (see [`report_exception`]).
pub(crate) fn x86_exception_siginfo(intno: u32, pc: u64) -> crate::signal::SigInfo {
    if intno == 3 {
        return crate::signal::SigInfo::fault(Signal::SIGTRAP, 0x80, 0);
    }
    if intno == 1 {
        // The CPU's own debug trap is the trap flag's single step (no debug registers here):
        // `TRAP_TRACE` at the next instruction (`exc_debug_user`, DR6.BS).
        return crate::signal::SigInfo::fault(Signal::SIGTRAP, crate::signal::si_code::TRAP_TRACE, pc);
    }
    super::exception_siginfo_for(exception_signal(intno), pc)
}

/// The `siginfo` of an instruction x86 does not have (#UD, x86_64 and i386): SIGILL
/// `ILL_ILLOPN` at the instruction, trapno 6 (`exc_invalid_op`). Unicorn ends the run this
/// way for `int $6` too (vector 6 goes to its invalid-instruction path, with the PC still on
/// the `int`), which Linux answers as any `int N` it does not open: a general-protection fault
/// ([`report_exception`]).
pub(crate) fn x86_invalid_insn_siginfo(cpu: &mut Cpu<'_>, pc: u64) -> crate::signal::SigInfo {
    /// `int1` (`icebp`): one byte after any prefixes.
    const ICEBP: u8 = 0xf1;
    let long = cpu.get_data().mm.long_bytes() == 8;
    // Legacy prefixes (and REX on x86_64), at most the 15 bytes of an instruction.
    let prefix = |b: u8| {
        matches!(b, 0x26 | 0x2e | 0x36 | 0x3e | 0x64 | 0x65 | 0x66 | 0x67 | 0xf0 | 0xf2 | 0xf3)
            || (long && b & 0xf0 == 0x40)
    };
    let mut buf = [0u8; 15];
    // Up to the end of the page (the next one may be unmapped).
    let page_left = crate::abi::u64_to_usize(crate::mm::PAGE_SIZE - pc % crate::mm::PAGE_SIZE);
    let bytes = &mut buf[..page_left.min(15)];
    let read = cpu.get_data().mm.read_bytes(GuestAddr::new(pc), bytes).is_ok();
    let n = bytes.iter().take_while(|&&b| prefix(b)).count();
    if read && n < bytes.len() && bytes[n] == ICEBP {
        // Unicorn ends the run at it as undefined; on the CPU it is a debug trap (#DB, vector
        // 1) after the instruction: SIGTRAP `TRAP_BRKPT` with si_addr and the PC past it
        // (arch/x86/kernel/traps.c `exc_debug_user`).
        use crate::guard::Checked;
        let next = pc.wrapping_add(n as u64 + 1);
        cpu.set_reg(if long { R::RIP } else { R::EIP }, next);
        trap::record(Signal::SIGTRAP, 1, 0);
        return crate::signal::SigInfo::fault(Signal::SIGTRAP, crate::signal::si_code::TRAP_BRKPT, next);
    }
    if exception_state::clear(cpu) {
        trap::record(Signal::SIGSEGV, 13, (6 << 3) | 2);
        return crate::signal::SigInfo::fault(Signal::SIGSEGV, 0x80, 0);
    }
    trap::record(Signal::SIGILL, 6, 0);
    crate::signal::SigInfo::fault(Signal::SIGILL, crate::signal::si_code::ILL_ILLOPN, pc)
}

/// The signal an x86 exception vector raises (Intel SDM vol. 3 table 6-1; the signals Linux's
/// traps.c sends), on x86_64 and i386.
pub(crate) fn exception_signal(intno: u32) -> Signal {
    match intno {
        0 | 16 | 19 => Signal::SIGFPE,
        1 | 3 => Signal::SIGTRAP,
        6 => Signal::SIGILL,
        17 => Signal::SIGBUS,
        _ => Signal::SIGSEGV,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_names() {
        for (name, r) in [("rax", R::RAX), ("rsp", R::RSP), ("r8", R::R8), ("r15", R::R15), ("eax", R::EAX)] {
            assert_eq!(gpr64(name), Some(r), "{name}");
        }
        for name in ["r7", "r16", "rip", "ax", ""] {
            assert_eq!(gpr64(name), None, "{name}");
        }
        assert_eq!(gpr32("edi"), Some(R::EDI));
        assert_eq!(gpr32("rdi"), None);
    }
}
