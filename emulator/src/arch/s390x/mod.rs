//! s390x guests (z/Architecture, LP64, big-endian).
//!
//! - Trap: `svc I` raises unicorn interrupt 2 (QEMU's `EXCP_SVC`) with the PSW address still
//!   *on* the `svc` (QEMU's `op_svc` saves it before the hook runs, from a helper without
//!   leaving translated code since unicorn patch 0021; unicorn adds nothing for s390x), and
//!   the immediate and instruction length stay in unicorn's private CPU state. The hook
//!   decodes them from the instruction (`traps.rs`; `svc` run by `EX`/`EXRL` included, which
//!   still raises the exception), moves the PSW past the instruction and serves the call.
//!   Number: the immediate, or the low 16 bits of `r1` when the immediate is 0 (glibc and musl
//!   always use `svc 0`; arch/s390/kernel/syscall.c `__do_syscall`); arguments `r2`-`r7`;
//!   result `r2`.
//! - Program checks raise interrupt 3 (`EXCP_PGM`), also with the PSW on the instruction,
//!   which is where Linux reports it (`si_addr` is the PSW address minus the instruction
//!   length the check stored). Unicorn does not pass the program-interruption code; the hook
//!   recovers as much as the signal needs (`traps.rs`) and hands that code to
//!   [`crate::task::cpu_exception`]. Refused memory accesses do not come here: they stop the
//!   engine through the TLB fill hook and become SIGSEGV with the page address, as s390 Linux
//!   reports it (the translation-exception identification holds only the page).
//! - TLS: access registers `a0` (high 32 bits) and `a1` (low 32 bits) of the thread pointer.
//! - CPU: unicorn's "qemu" model (QEMU 5.0's TCG feature set on a z13 GA2 base, machine type
//!   0x2964): z196's facilities that Debian's `-march=z196` code needs (distinct operands,
//!   high word, load/store on condition, population count, interlocked access), STFLE, MSA,
//!   and the vector facility; no DFP and no transactional execution. The PSW is in problem
//!   state with DAT on, 64-bit addressing, primary space, key 0 (Linux `PSW_USER_BITS` with
//!   `PSW_MASK_EA | PSW_MASK_BA`; the I/O, external and machine-check masks are left off, as
//!   nothing raises those here), so privileged instructions are SIGILL; CR0 has the AFP and
//!   vector controls on, as Linux sets them for user space. Unicorn 2.1.5's `STFLE` stores no
//!   facility bits (its `prepare_stfl` is compiled out) and reports 256 doublewords with cc 0,
//!   so programs see an empty facility list: glibc's ifuncs then take their baseline variants
//!   where they test facility bits, and the vector ones where they test `HWCAP_S390_VXRS`.
//! - Unicorn stores the data-exception code into the lowcore at guest physical 0x90 (as the
//!   CPU does); the host pages behind guest page 0 are made writable for it (`init_regs`).
//! - Address space: the stack and the top-down mmap area end at 2^42 (a new mm's three-level
//!   page tables, `_REGION2_SIZE`: `STACK_TOP`), PIE base 0x2aa_0000_0000
//!   (arch/s390/include/asm/elf.h `ELF_ET_DYN_BASE` = `STACK_TOP / 3 * 2` rounded down to 4
//!   GiB); a mapping may go anywhere below `TASK_SIZE_MAX` = 2^64 - 4096 (`-PAGE_SIZE`,
//!   arch/s390/include/asm/processor.h: a hint or `MAP_FIXED` above 2^42 makes the kernel
//!   upgrade the page tables to four levels, 2^53, or five, `crst_table_upgrade` in
//!   arch/s390/mm/pgalloc.c). endgate gives such a mapping a window of its own; loads there
//!   take the engine's TLB (the flat direct loads cover 2^42).
//! - `mmap` is `old_mmap` (one pointer to six longs) and `statfs` has s390's layout:
//!   `crate::syscall::arch::s390x`. `socketcall` is the shared [`crate::syscall::socketcall`].
//! - Signal frames (`struct sigframe`, `struct rt_sigframe`) and the `svc 173`/`svc 119`
//!   return trampolines: `signal.rs`. A restarted call goes back by the length of the
//!   instruction that ran its `svc`, which the trap hook puts in the call's `SyscallArgs::restart_len`.

pub mod abi;
pub mod cpuinfo;
mod signal;
mod traps;
mod vdso;

use crate::guard::Checked;
use capstone::prelude::*;
use syscalls::Errno;
use unicorn_engine::{Arch, Mode, RegisterS390X, S390xCpuModel};

use super::{windows_64, CloneArgs, Cpu, Entries, GuestArch, SyscallArgs};
use crate::guest::info::Engine;
use crate::guest::info::TrapCode;
use crate::guest::{ArchInfo, Regs};
use crate::mm::{DataModel, GuestAddr, Layout};
use crate::signal::Signal;
use traps::pgm;

/// One past the highest address a mapping may reach (arch/s390/include/asm/processor.h
/// `TASK_SIZE_MAX`, `-PAGE_SIZE`: five-level page tables cover all 2^64 bytes).
const TASK_SIZE_MAX: u64 = 0u64.wrapping_sub(crate::mm::PAGE_SIZE);

/// The s390x guest.
pub struct S390x;

/// QEMU's interrupt classes as unicorn passes them to the interrupt hook
/// (target/s390x/cpu.h `EXCP_*`).
mod excp {
    pub const SVC: u32 = 2;
    pub const PGM: u32 = 3;
}

/// PSW mask bits (Principles of Operation, "Program-Status Word"; QEMU target/s390x/cpu.h;
/// arch/s390/include/asm/ptrace.h, 64-bit values).
mod psw {
    /// Dynamic address translation.
    pub const DAT: u64 = 0x0400_0000_0000_0000;
    /// Problem state (user mode).
    pub const PSTATE: u64 = 0x0001_0000_0000_0000;
    /// Address-space control.
    pub const ASC: u64 = 0x0000_C000_0000_0000;
    /// Home-space mode, which user space may not select.
    pub const ASC_HOME: u64 = 0x0000_C000_0000_0000;
    /// Extended addressing (EA) and basic addressing (BA) together: 64-bit mode.
    pub const EA: u64 = 0x0000_0001_0000_0000;
    pub const BA: u64 = 0x0000_0000_8000_0000;
    /// Runtime instrumentation.
    pub const RI: u64 = 0x0000_0080_0000_0000;
    /// `PSW_MASK_USER`: the bits user space may set (ASC, condition code, program mask,
    /// addressing mode).
    pub const USER: u64 = 0x0000_FF01_8000_0000;
    /// `PSW_USER_BITS`: DAT, I/O, external and machine-check masks, problem state, key 0,
    /// primary space — what the kernel shows user space besides the user bits.
    pub const USER_BITS: u64 = 0x0705_0000_0000_0000;
}

/// The `svc` opcode byte, followed by the immediate (`S390_SYSCALL_OPCODE`): `svc N` is
/// `SVC | N`, the system-call instruction of the vDSO and the sigtramp page.
const SVC: u16 = 0x0a00;

/// CR0 bits Linux sets for user space: additional floating-point registers and the vector
/// facility (QEMU target/s390x/cpu.h `CR0_AFP`, `CR0_VECTOR`).
const CR0_AFP: u64 = 0x0004_0000;
const CR0_VECTOR: u64 = 0x0002_0000;

/// Bytes of the prefix area (lowcore) at guest physical address 0. Unicorn stores into it on
/// data and vector exceptions (the DXC/VXC at 0x90, target/s390x/excp_helper.c) as the CPU
/// does, and endgate's guest physical addresses are its guest virtual ones, so those stores
/// land on the host pages behind guest page 0.
const LOWCORE_LEN: u64 = 8192;

const R2: i32 = RegisterS390X::R2 as i32;

/// s390x's data row.
pub static INFO: ArchInfo = ArchInfo {
    // `svc 0` (and `__kernel_vsyscall`) take the number from r1; the trap hook puts a
    // nonzero `svc` immediate in its place. Restarting backs up over the 2-byte `svc`.
    // No TLS register: `set_tls` splits the pointer over a0 and a1.
    regs: Regs {
        nr_mask: 0xffff,
        ..Regs::new(RegisterS390X::PC as i32, RegisterS390X::R15 as i32, None)
            .syscall(RegisterS390X::R1 as i32, Regs::args_from(R2), R2)
            .trap(&SVC.to_be_bytes())
            .trap_intno(excp::SVC)
            .trap_code(TrapCode { code: traps::SVC_CODE, len: traps::SVC_ILEN, pc: traps::SVC_PSW_ADDR })
    },
    engine: Engine::new(Arch::S390X, Mode::BIG_ENDIAN, Some(S390xCpuModel::QEMU as i32)),
    name: "s390x",
    compat_name: Some("s390"),
    elf_machine: 22,
    data_model: DataModel::LP64_BE,
    // [0, 16 GiB) low; [0x2aa_0000_0000, +16 GiB) PIE; [STACK_TOP - 64 GiB, STACK_TOP) top;
    // mappings up to TASK_SIZE_MAX.
    layout: Layout { task_size: TASK_SIZE_MAX, ..windows_64(0x2aa_0000_0000, 1 << 42) },
    hwcap: (abi::HWCAP_QEMU_Z13, 0),
    // arch/s390/kernel/processor.c names the platform by machine type; 0x2964 is "z13".
    platform: Some("z13"),
    // No AT_MINSIGSTKSZ (the generic row's `None`): arch/s390/include/asm/elf.h has none in
    // ARCH_DLINFO. The stack at entry is 16-byte aligned, the generic row's: the s390x ELF
    // ABI needs 8, but the kernel's `STACK_ROUND` (fs/binfmt_elf.c) gives 16.
    vdso: Some(&vdso::VDSO),
    numbers: syscall_numbers!(s390x),
    disassembler: || Capstone::new().sysz().mode(arch::sysz::ArchMode::Default).build().ok(),
    clone_args: CloneArgs::backwards2,
    write_stat: |out, addr, st| crate::mm::write_struct_to(out, addr, &abi::Stat::from_host(st)),
    frames: Some(signal::FRAMES),
    ipc_perm: crate::abi::shapes::IPC64_PERM_S390X,
    fadvise_to_host: abi::fadvise_to_host,
    ioctl_to_host: abi::ioctl_to_host,
    cpuinfo: Some(cpuinfo::cpuinfo),
    seccomp_sigreturn: crate::abi::nr::Sys::sigreturn,
    access_ok_range: false,
    ..ArchInfo::GENERIC
};

impl GuestArch for S390x {
    fn info(&self) -> &'static ArchInfo {
        &INFO
    }

    fn install_hooks(&self, _cpu: &mut Cpu<'static>, _entries: Entries) -> Result<(), unicorn_engine::uc_error> {
        Ok(())
    }

    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs> {
        match intno {
            // The row's coded trap: `svc I` with I != 0 carries the number, `svc 0` takes it
            // from r1; the PSW moves past the instruction.
            excp::SVC => {
                let mut args = self.syscall_args(cpu);
                crate::guest::arch::plain_trap(cpu, &INFO.regs, &mut args);
                return Some(args);
            }
            excp::PGM => {
                let pc = cpu.reg(RegisterS390X::PC);
                let code = traps::program_check_code(cpu, GuestAddr::new(pc));
                (entries.exception)(cpu, code);
            }
            // External, I/O and machine-check interrupts are never enabled (see init_regs).
            _ => (entries.exception)(cpu, pgm::OPERATION),
        }
        None
    }

    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error> {
        // The host pages behind the lowcore become writable (they are a PROT_NONE reservation
        // like all unmapped guest memory), or unicorn's lowcore stores would crash endgate. The
        // guest still cannot reach them: no mapping covers them (`MMAP_MIN_ADDR`), so its own
        // accesses are refused by the TLB fill hook.
        if let Some(p) = cpu.get_data().mm.to_host(0, LOWCORE_LEN) {
            // SAFETY: the first pages of endgate's own reservation for the low window; no Rust
            // reference points into them.
            unsafe {
                libc::mprotect(p.cast(), crate::abi::u64_to_usize(LOWCORE_LEN), libc::PROT_READ | libc::PROT_WRITE)
            };
        }
        let cr0 = cpu.reg_read(RegisterS390X::CR0)?;
        cpu.reg_write(RegisterS390X::CR0, cr0 | CR0_AFP | CR0_VECTOR)?;
        cpu.reg_write(RegisterS390X::FPC, 0)?;
        // arch/s390/include/asm/processor.h `start_thread`: PSW, then r15 = stack pointer.
        cpu.reg_write(RegisterS390X::PSWM, psw::DAT | psw::PSTATE | psw::EA | psw::BA)?;
        cpu.reg_write(RegisterS390X::PC, entry.get())?;
        cpu.reg_write(RegisterS390X::R15, sp.get())?;
        // r14 = 0: no function for the program to register with atexit
        // (arch/s390/include/asm/elf.h `ELF_PLAT_INIT`).
        cpu.reg_write(RegisterS390X::R14, 0)?;
        cpu.reg_write(RegisterS390X::A0, 0)?;
        cpu.reg_write(RegisterS390X::A1, 0)?;
        Ok(())
    }

    fn set_tls(&self, cpu: &mut Cpu<'_>, tls: u64) -> Result<(), Errno> {
        cpu.reg_write(RegisterS390X::A0, tls >> 32).map_err(|_| Errno::EINVAL)?;
        cpu.reg_write(RegisterS390X::A1, tls & 0xffff_ffff).map_err(|_| Errno::EINVAL)
    }

    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64> {
        // Capstone names the general registers "r0".."r15" (printed with a '%').
        let name = name.trim_start_matches('%');
        if name == "pc" {
            return cpu.reg_read(RegisterS390X::PC).ok();
        }
        let i: i32 = name.strip_prefix('r').unwrap_or(name).parse().ok()?;
        if !(0..16).contains(&i) {
            return None;
        }
        cpu.reg_read(RegisterS390X::R0 as i32 + i).ok()
    }
    fn fault_si_addr(&self, addr: u64) -> u64 {
        addr & !(crate::mm::PAGE_SIZE - 1)
    }
    fn exception_signal(&self, code: u32) -> Signal {
        // `code` is a program-interruption code (see the module doc); signals as
        // arch/s390/kernel/traps.c raises them.
        match code {
            pgm::DATA | pgm::VECTOR_PROCESSING | pgm::FIXPT_DIVIDE | pgm::FIXPT_OVERFLOW => Signal::SIGFPE,
            pgm::PROTECTION | pgm::ADDRESSING | pgm::SEGMENT_TRANS | pgm::PAGE_TRANS => Signal::SIGSEGV,
            pgm::OPERATION | pgm::PRIVILEGED | pgm::EXECUTE | pgm::SPECIFICATION => Signal::SIGILL,
            _ => Signal::SIGILL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_checks_to_signals() {
        assert_eq!(S390x.exception_signal(pgm::OPERATION), Signal::SIGILL);
        assert_eq!(S390x.exception_signal(pgm::PRIVILEGED), Signal::SIGILL);
        assert_eq!(S390x.exception_signal(pgm::FIXPT_DIVIDE), Signal::SIGFPE);
        assert_eq!(S390x.exception_signal(pgm::ADDRESSING), Signal::SIGSEGV);
    }
}
