//! i386 guests (32-bit x86, System V i386 ABI; Debian's i386 port is i686 code).
//!
//! - Trap: `int $0x80`, which unicorn reports as interrupt 0x80 with EIP already past the
//!   2-byte instruction (from a helper without leaving translated code since unicorn patch
//!   0022). Number in `eax`, arguments in `ebx ecx edx esi edi ebp`, result in
//!   `eax`. `AT_SYSINFO` points at the vDSO's `__kernel_vsyscall` (the gate, `crate::gate`),
//!   which glibc calls for every system call; a `sysenter` ends the guest with SIGSEGV (see
//!   `install_hooks`).
//! - TLS: a segment. glibc asks `set_thread_area` for a GDT entry and loads `%gs` with its
//!   selector; endgate keeps a real GDT for that (`gdt.rs`). Guest code runs at CPL 3.
//! - CPU: unicorn's `qemu32` model (family 6, PPro features with SSE and SSE2, SSE3), the
//!   x87 control word 0x37f and MXCSR 0x1f80 as the kernel's `fpstate_init_fxstate` sets them.
//! - Address space: `TASK_SIZE` 0xffffe000 (an i386 task on an x86_64 kernel,
//!   `IA32_PAGE_OFFSET`), PIE base 0x400000 (arch/x86/include/asm/elf.h `ELF_ET_DYN_BASE` for
//!   32-bit tasks). The three windows tile the whole space below `TASK_SIZE`, so every address
//!   a 32-bit program can name is mappable; the top-down mmap window reaches down to 256 MiB.
//! - Structs: [`DataModel::ILP32_LE_I386`] (4-byte `long`, 64-bit members 4-byte aligned); the
//!   old `struct stat` shared with arm ([`crate::abi::stat32`]), the packed `struct stat64`
//!   in `abi.rs`; open flags are asm-generic.
//! - Only here: `set_thread_area`/`get_thread_area`, `old_select`, the 16-bit-id calls
//!   (`crate::syscall::arch::i386`); `socketcall` is the shared [`crate::syscall::socketcall`]. `ipc`,
//!   `modify_ldt`, `vm86`, `olduname` answer `ENOSYS`.
//! - `uname -m` and `AT_PLATFORM`: "i686", as a Debian i386 system reports.
//! - Signals: `signal.rs` builds `sigframe_ia32` (handlers without `SA_SIGINFO`, returning
//!   through `sigreturn`) and `rt_sigframe_ia32` with the FSAVE+FXSAVE FP state; handlers
//!   without `SA_RESTORER` return through the sigtramp page (the kernel's vDSO has them).

mod abi;
pub mod gdt;
mod signal;
mod vdso;

use capstone::prelude::*;
use syscalls::Errno;
use unicorn_engine::{Arch, Mode, RegisterX86 as R, X86CpuModel, X86Insn};

use super::{Cpu, Entries, GuestArch, SyscallArgs};
use crate::abi::nr::Sys;
use crate::guest::info::Engine;
use crate::guest::{ArchInfo, Regs};
use crate::mm::{DataModel, GuestAddr, Layout};
use crate::signal::Signal;

/// The i386 guest.
pub struct I386;

/// The interrupt vector of the system-call gate (`IA32_SYSCALL_VECTOR`).
const SYSCALL_VECTOR: u32 = 0x80;
/// `int $0x80`, the system-call instruction: the vDSO's.
const INT_80: [u8; 2] = [0xcd, 0x80];

/// The general-protection exception vector (#GP).
const GP_FAULT: u32 = 13;

/// CR4.OSFXSR and CR4.OSXMMEXCPT (Intel SDM vol. 3, 2.5): the OS saves SSE state and handles
/// SIMD exceptions, which SSE instructions require.
const CR4_OSFXSR_OSXMMEXCPT: u64 = 3 << 9;

/// The i386 table's name for a kernel entry point: the 16-bit-id calls as on arm
/// ([`crate::arch::uid16_name`]; arch/x86/entry/syscalls/syscall_32.tbl), and 82, which is
/// `sys_old_select`, whose one argument points at the five real ones.
fn i386_name(name: &'static str) -> &'static str {
    match name {
        "select" => "old_select",
        _ => super::uid16_name(name),
    }
}

/// i386's data row.
pub static INFO: ArchInfo = ArchInfo {
    // No TLS register: `set_tls` takes a GDT entry.
    regs: Regs::new(R::EIP as i32, R::ESP as i32, None)
        .syscall(
            R::EAX as i32,
            [R::EBX as i32, R::ECX as i32, R::EDX as i32, R::ESI as i32, R::EDI as i32, R::EBP as i32],
            R::EAX as i32,
        )
        .trap(&INT_80)
        .trap_intno(SYSCALL_VECTOR),
    engine: Engine::new(Arch::X86, Mode::MODE_32, Some(X86CpuModel::QEMU32 as i32)),
    name: "i686",
    elf_machine: 3,
    // x86's LEGACY_MAP_MASK also has MAP_32BIT (0x40) and MAP_ABOVE4G (0x80).
    mmap_validate_flags: crate::abi::MMAP_LEGACY_FLAGS | 0x40 | 0x80,
    mmap_hint_rounds_down: true,
    // 32-bit long and pointers; `long long` and `double` only 4-byte aligned in structs.
    data_model: DataModel::ILP32_LE_I386,
    // [0, 4 MiB) low; [4 MiB, 256 MiB) PIE, and ET_EXEC images at 0x08048000 with their brk
    // heap (glibc's malloc goes on with mmap when brk cannot grow); [256 MiB, TASK_SIZE)
    // stack and top-down mmap, which (as on Linux, where it reaches mmap_min_addr) leaves a
    // program nearly all of its 4 GiB.
    layout: Layout {
        low_len: 0x40_0000,
        dyn_base: 0x40_0000,
        dyn_len: 0x0fc0_0000,
        task_size: 0xffff_e000,
        stack_top: 0xffff_e000,
        top_len: 0xefff_e000,
        fixed_page: None,
    },
    hwcap: (abi::HWCAP_QEMU32, 0),
    platform: Some("i686"),
    // MINSIGSTKSZ of arch/x86/include/uapi/asm/signal.h.
    minsigstksz: Some(2048),
    vdso: Some(&vdso::VDSO),
    numbers: syscall_numbers!(x86, i386_name),
    disassembler: || Capstone::new().x86().mode(arch::x86::ArchMode::Mode32).build().ok(),
    mem_operands: crate::arch::x86_64::mem_operands,
    frames: Some(signal::FRAMES),
    cpuinfo: Some(cpuinfo),
    pkeys: crate::guest::Pkeys::X86,
    seccomp_sigreturn: Sys::sigreturn,
    ..super::ILP32
};

impl GuestArch for I386 {
    fn info(&self) -> &'static ArchInfo {
        &INFO
    }

    fn page_fault_taken(&self, mm: &crate::mm::AddressSpace, f: &crate::mm::Fault, info: &crate::signal::SigInfo) {
        crate::arch::x86_64::trap::page_fault(mm, f, info);
    }

    fn install_hooks(&self, cpu: &mut Cpu<'static>, entries: Entries) -> Result<(), unicorn_engine::uc_error> {
        gdt::install(cpu)?;
        // Unicorn runs `sysenter` as a no-op. Linux returns from it into the vDSO, which
        // endgate does not map, so a `sysenter` has nowhere to return to: the guest ends with
        // SIGSEGV, as such a program does on Linux once the vDSO's landing pad pops garbage.
        cpu.add_insn_sys_hook(X86Insn::SYSENTER, 1, 0, move |cpu| {
            crate::guard::guarded(&"SYSENTER hook", || {
                crate::guest::locked(cpu, |cpu| (entries.exception)(cpu, GP_FAULT));
            })
        })?;
        Ok(())
    }

    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error> {
        cpu.reg_write(R::CR4, CR4_OSFXSR_OSXMMEXCPT)?;
        gdt::enter_user_mode(cpu, entry, sp)?;
        // The kernel's ELF_PLAT_INIT clears every general register; edx = 0 also means "no
        // function for the program to register with atexit" (i386 psABI).
        for r in [R::EAX, R::EBX, R::ECX, R::EDX] {
            cpu.reg_write(r, 0)?;
        }
        for r in [R::ESI, R::EDI, R::EBP] {
            cpu.reg_write(r, 0)?;
        }
        // The FPU state of a new process (fpstate_init_fxstate): x87 control word 0x37f
        // (all exceptions masked, 64-bit precision, round to nearest), every register empty
        // (unicorn's reset marks them valid), MXCSR 0x1f80.
        cpu.reg_write(R::FPCW, 0x37f)?;
        cpu.reg_write(R::FPTAG, 0xffff)?;
        cpu.reg_write(R::MXCSR, 0x1f80)?;
        Ok(())
    }

    /// The GDT: its TLS entries are per thread on Linux, but the creator's are what a new
    /// thread starts with (its `%gs` selects one; `CLONE_SETTLS` then replaces it).
    fn thread_extra(&self, cpu: &Cpu<'_>) -> Vec<u8> {
        gdt::table(cpu)
    }

    fn init_thread(&self, cpu: &mut Cpu<'_>, extra: &[u8]) -> Result<(), unicorn_engine::uc_error> {
        gdt::set_table(cpu, extra)
    }

    /// `tls` is a `struct user_desc *`, as `clone(CLONE_SETTLS)` takes on i386.
    fn set_tls(&self, cpu: &mut Cpu<'_>, tls: u64) -> Result<(), Errno> {
        gdt::set_thread_area(cpu, GuestAddr::new(tls), false).map(|_| ())
    }

    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs> {
        if intno == SYSCALL_VECTOR {
            // The segment loads a call makes (set_thread_area) go through gdt::load_segment,
            // which lets the CPU read the table for them.
            return Some(self.syscall_args(cpu));
        }
        let soft = crate::arch::x86_64::exception_state::clear(cpu);
        crate::arch::x86_64::report_exception(cpu, intno, soft, entries.exception, R::EIP);
        None
    }

    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64> {
        let reg = match name {
            "eip" => R::EIP,
            "cs" => R::CS,
            "ds" => R::DS,
            "es" => R::ES,
            "fs" => R::FS,
            "gs" => R::GS,
            "ss" => R::SS,
            "fs_base" => return gdt::segment_base(cpu, R::FS),
            "gs_base" => return gdt::segment_base(cpu, R::GS),
            _ => crate::arch::x86_64::gpr32(name)?,
        };
        cpu.reg_read(reg).ok()
    }
    /// As on x86_64; an `int n` other than 0x80 has no user gate and raises #GP, hence SIGSEGV.
    fn exception_signal(&self, intno: u32) -> Signal {
        crate::arch::x86_64::exception_signal(intno)
    }
    fn exception_siginfo(&self, intno: u32, pc: u64) -> crate::signal::SigInfo {
        crate::arch::x86_64::x86_exception_siginfo(intno, pc)
    }
    fn invalid_insn_siginfo(&self, cpu: &mut Cpu<'_>, pc: u64) -> crate::signal::SigInfo {
        crate::arch::x86_64::x86_invalid_insn_siginfo(cpu, pc)
    }
}

/// i386's `/proc/cpuinfo`: x86's, from the CPUID of its own engine ([`super::x86_64::cpuinfo`]).
fn cpuinfo(ncpu: usize) -> String {
    super::x86_64::cpuinfo::x86_cpuinfo(ncpu, INFO.engine.mode, INFO.engine.cpu_model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_tile_the_address_space() {
        let l = I386.info().layout;
        assert_eq!(l.low_len, l.dyn_base);
        assert_eq!(l.dyn_base + l.dyn_len, l.task_size - l.top_len);
        assert_eq!(l.task_size, 0xffff_e000);
        assert!(gdt::GDT_LINEAR >= l.task_size);
    }

    #[test]
    fn numbers_follow_syscall_32_tbl() {
        use crate::arch::tests::assert_numbers;
        // An old form keeps its number beside the call that replaced it: the calls that took
        // 16-bit ids as `…16` (the `…32` ones keep their names), the `socketcall` and
        // one-struct `select` multiplexers beside the direct calls.
        let replaced = [
            (24, Sys::getuid16, 199, Sys::getuid32),
            (182, Sys::chown16, 212, Sys::chown32),
            (81, Sys::setgroups16, 206, Sys::setgroups32),
            (102, Sys::socketcall, 359, Sys::socket),
            (82, Sys::old_select, 142, Sys::_newselect),
        ];
        for (old, old_sys, new, new_sys) in replaced {
            assert_numbers(&I386, &[(old, old_sys), (new, new_sys)]);
        }
        assert_numbers(&I386, &[(4, Sys::write), (243, Sys::set_thread_area)]);
        assert_eq!((I386.info().numbers)().number_of(Sys::newfstatat), None);
    }
}
