//! The interface each guest architecture implements, and the CPU it drives.

use crate::guard::Checked;
use capstone::Capstone;
use syscalls::Errno;
use unicorn_engine::Unicorn;

use super::info::ArchInfo;
use super::Task;
use crate::mm::{AddressSpace, GuestAddr};
use crate::signal::{SigInfo, Signal};

/// A guest CPU: one unicorn instance whose user data is the guest thread's [`Task`].
pub type Cpu<'a> = Unicorn<'a, Task>;

/// A system call as the guest made it, decoded by the arch's trap hook: the arch's number,
/// six raw argument registers and what restarting it takes.
#[derive(Clone, Copy, Debug, Default)]
pub struct SyscallArgs {
    /// The arch's syscall number.
    pub nr: u64,
    /// Argument registers, in ABI order.
    pub a: [u64; 6],
    /// Bytes the program counter goes back to run the trap instruction again (s390x: 2 for
    /// `svc`, 4 or 6 when `EX`/`EXRL` ran it, the kernel's `int_code >> 16`); 0 where the
    /// arch's trap instruction has one length, which [`GuestArch::restart_syscall`] knows.
    pub restart_len: u8,
    /// The guest's `long` is 32 bits (arm, i386): [`SyscallArgs::long`] sign-extends from
    /// bit 31, as the kernel's compat entry points read a `compat_long_t`.
    pub ilp32: bool,
    /// A call made through the vDSO gate's `__kernel_vsyscall` ([`crate::gate`]): the gate's
    /// landing, where the call returns, which stands for the trap instruction's address
    /// (seccomp's `instruction_pointer`); `None` for the arch's own trap instruction.
    pub gate_landing: Option<u64>,
}

/// Typed reads of the argument registers, named after the C type of the parameter in the
/// call's prototype (man section 2). Each reads register `n` (0-based, ABI order) as the
/// kernel does: an `int` is the low 32 bits whatever the register width, a `long` is the
/// guest's word sign-extended. Out-of-range `n` panics (a table bug, caught by `enter`).
impl SyscallArgs {
    /// The register as the trap left it (masked to the guest word): for flag words and
    /// values handed on unchanged.
    #[inline]
    pub fn raw(&self, n: usize) -> u64 {
        self.a[n]
    }
    /// A pointer parameter (`void *`, `const char *`, `struct … *`).
    #[inline]
    pub fn ptr(&self, n: usize) -> GuestAddr {
        GuestAddr::new(self.a[n])
    }
    /// An `int` parameter (a file descriptor, flags, a pid, a signal number): the low 32 bits.
    #[inline]
    pub fn int(&self, n: usize) -> i32 {
        crate::abi::int32(self.a[n])
    }
    /// An `unsigned int` parameter (`mode_t`, `uid_t`, `gid_t`, unsigned flags, a count the
    /// kernel declares `unsigned int`): the low 32 bits.
    #[inline]
    pub fn uint(&self, n: usize) -> u32 {
        crate::abi::low32(self.a[n])
    }
    /// A `long` parameter (`off_t`, `ssize_t`, `time_t`, `loff_t` on LP64): the guest word,
    /// sign-extended on ILP32 guests.
    #[inline]
    pub fn long(&self, n: usize) -> i64 {
        if self.ilp32 {
            i64::from(crate::abi::int32(self.a[n]))
        } else {
            crate::abi::signed64(self.a[n])
        }
    }
    /// An `unsigned long` or `size_t` parameter: the guest word, zero-extended.
    #[inline]
    pub fn ulong(&self, n: usize) -> u64 {
        self.a[n]
    }
    /// A `size_t` length as a host `usize` (the host is 64-bit, so this never truncates).
    #[inline]
    pub fn size(&self, n: usize) -> usize {
        crate::abi::u64_to_usize(self.a[n])
    }
    /// The same call with other argument registers (`open` served as `openat(AT_FDCWD, …)`,
    /// a multiplexer's unpacked arguments).
    #[inline]
    pub fn with(&self, a: [u64; 6]) -> SyscallArgs {
        SyscallArgs { a, ..*self }
    }
    /// An `int` parameter as a host system call argument (`libc::syscall` takes `long`s):
    /// the low 32 bits, sign-extended.
    #[inline]
    pub fn int_arg(&self, n: usize) -> u64 {
        crate::abi::bits64(self.int(n))
    }
}

/// Where an arch's hooks hand over to the layers above: the run loop's exception handling.
/// Passed to [`GuestArch::install_hooks`] and [`GuestArch::trap`], so arch code calls up only
/// through these values, never by naming the modules above it. (System calls go the other
/// way: [`GuestArch::trap`] returns the call, and the dispatcher's hook serves it.)
#[derive(Clone, Copy)]
pub struct Entries {
    /// Turns CPU exception `intno` into a signal for the guest (`crate::task::cpu_exception`).
    pub exception: fn(&mut Cpu<'_>, u32),
}

/// `clone(2)`'s five arguments by meaning, whatever order the arch passes them in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CloneArgs {
    /// `CLONE_*` flags; the low byte is the exit signal (guest numbering).
    pub flags: u64,
    /// New stack pointer for the child (0: the parent's).
    pub newsp: u64,
    /// Guest address `CLONE_PARENT_SETTID` writes the child's tid to.
    pub ptid: u64,
    /// Guest address `CLONE_CHILD_SETTID` writes and `CLONE_CHILD_CLEARTID` clears.
    pub ctid: u64,
    /// The child's thread pointer for `CLONE_SETTLS`.
    pub tls: u64,
}

/// The orders kernel/fork.c takes `clone(2)`'s arguments in, one per kernel configuration; an
/// arch's data row names its own ([`crate::guest::ArchInfo::clone_args`]).
impl CloneArgs {
    /// `(flags, newsp, parent_tid, tls, child_tid)`, `CONFIG_CLONE_BACKWARDS`: arm, i386, MIPS,
    /// aarch64 and riscv (the generic row's).
    pub fn backwards(a: &SyscallArgs) -> CloneArgs {
        CloneArgs { flags: a.a[0], newsp: a.a[1], ptid: a.a[2], tls: a.a[3], ctid: a.a[4] }
    }

    /// `(newsp, flags, parent_tid, child_tid, tls)`, `CONFIG_CLONE_BACKWARDS2`: s390.
    pub fn backwards2(a: &SyscallArgs) -> CloneArgs {
        CloneArgs { newsp: a.a[0], flags: a.a[1], ptid: a.a[2], ctid: a.a[3], tls: a.a[4] }
    }

    /// `(flags, newsp, parent_tid, child_tid, tls)`, the default order: x86_64.
    pub fn default_order(a: &SyscallArgs) -> CloneArgs {
        CloneArgs { flags: a.a[0], newsp: a.a[1], ptid: a.a[2], ctid: a.a[3], tls: a.a[4] }
    }
}

/// An arch's own `struct termios` (TCGETS/TCSETS), where it is not asm-generic's.
#[derive(Clone, Copy)]
pub struct ArchTermios {
    /// Size of the guest struct in bytes.
    pub size: u64,
    /// Guest bytes to the host kernel's struct.
    pub to_host: fn(&[u8]) -> crate::abi::shapes::KernelTermios,
    /// The host kernel's struct to guest bytes (`size` of them).
    pub from_host: fn(&crate::abi::shapes::KernelTermios) -> Vec<u8>,
}

/// What one guest architecture changes. Implementations are zero-sized statics; pick one with
/// [`for_elf_machine`].
pub trait GuestArch: Sync {
    /// The arch's data row: identity, layout, auxv values, struct layouts and numbering.
    fn info(&self) -> &'static ArchInfo;

    /// Creates the unicorn instance for this arch (CPU model chosen, nothing mapped yet), as
    /// its [`ArchInfo::engine`] says.
    fn new_cpu(&self, task: Task) -> Result<Cpu<'static>, unicorn_engine::uc_error> {
        let e = &self.info().engine;
        let mut cpu = new_engine(e.arch, e.mode, task)?;
        if e.page_size_4k {
            cpu.ctl_set_page_size(u32::try_from(crate::mm::PAGE_SIZE).map_err(|_| unicorn_engine::uc_error::ARG)?)?;
        }
        if let Some(model) = e.cpu_model {
            cpu.ctl_set_cpu_model(model)?;
        }
        Ok(cpu)
    }
    /// Installs the arch's own hooks besides the interrupt hook (which the dispatcher installs
    /// and which asks [`GuestArch::trap`]): other instructions' hooks, the pages and tables
    /// the arch's user space needs. Exceptions they find go to `entries`.
    fn install_hooks(&self, cpu: &mut Cpu<'static>, entries: Entries) -> Result<(), unicorn_engine::uc_error>;
    /// Decodes CPU interrupt `intno` the engine reported (the engine's interrupt hook): the
    /// system call to serve, when it is the arch's system-call trap; otherwise handles it here
    /// (an arch-private trap, an instruction the arch completes, or an exception through
    /// `entries.exception`) and returns `None`.
    ///
    /// The dispatcher serves the returned call inside the hook's own frame: every frame
    /// between translated code and the host's `syscall` instruction costs a mispredicted
    /// return afterwards (docs/performance.md), so the call is returned, not passed up.
    fn trap(&self, cpu: &mut Cpu<'_>, intno: u32, entries: Entries) -> Option<SyscallArgs>;
    /// [`GuestArch::trap`] for a thread running in parallel with others, before it takes the
    /// global guest lock: the system call, if `intno` is the arch's system-call trap and the
    /// call is an ordinary one (not an arch-private trap), decoded as `trap` would, touching
    /// nothing but the registers (`crate::syscall::unlocked` may then serve it without the
    /// lock). `None`: [`GuestArch::trap`] decodes the interrupt, under the lock. Default: the
    /// arch row's plain trap ([`plain_trap`]), if it has one.
    fn trap_unlocked(&self, cpu: &mut Cpu<'_>, intno: u32) -> Option<SyscallArgs> {
        let regs = &self.info().regs;
        if regs.trap_intno != Some(intno) {
            return None;
        }
        let mut args = self.syscall_args(cpu);
        plain_trap(cpu, regs, &mut args).then_some(args)
    }
    /// The instruction whose hook makes system calls instead of an interrupt (x86_64's
    /// `syscall`, which unicorn reports through an instruction hook); the dispatcher hooks it
    /// and reads the call with [`GuestArch::syscall_args`]. Default: none.
    fn syscall_insn(&self) -> Option<unicorn_engine::X86Insn> {
        None
    }
    /// Sets the registers a new process starts with: program counter `entry`, stack `sp`,
    /// everything else as the kernel's `start_thread` leaves it.
    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error>;
    /// The guest program counter.
    fn pc(&self, cpu: &Cpu<'_>) -> u64 {
        cpu.reg(self.info().regs.pc)
    }
    /// Inside the syscall trap hook: the address after the trap instruction, which the kernel
    /// reports as the call's instruction pointer (seccomp's `instruction_pointer` and
    /// `si_call_addr`). Default: the program counter, which the hook sees past the trap.
    fn syscall_ip(&self, cpu: &Cpu<'_>) -> u64 {
        self.pc(cpu)
    }
    /// The address of the instruction at the program counter, as the kernel's
    /// `instruction_pointer(regs)` gives it (arm: without the Thumb bit [`GuestArch::pc`]
    /// carries).
    fn insn_pointer(&self, cpu: &Cpu<'_>) -> u64 {
        self.pc(cpu)
    }
    /// Moves the program counter to the instruction at `addr`, in the instruction set the
    /// thread runs now (arm stays in Thumb or ARM state, as the kernel's
    /// `instruction_pointer_set` leaves the CPSR). Called outside hooks.
    fn set_insn_pointer(&self, cpu: &mut Cpu<'_>, addr: u64) {
        cpu.set_reg(self.info().regs.pc, addr & self.info().word_mask());
    }
    /// Reads the syscall number and the first three arguments from the registers the ABI
    /// names (the rest read as 0 until [`GuestArch::syscall_args_rest`]).
    #[inline]
    fn syscall_args(&self, cpu: &Cpu<'_>) -> SyscallArgs {
        if let Some(pins) = &cpu.get_data().regs.sys {
            return pins.args();
        }
        let (r, word) = (&self.info().regs, self.info().word_mask());
        let v = read_regs(cpu, &[r.nr, r.args[0], r.args[1], r.args[2]]);
        SyscallArgs {
            nr: v[0] & r.nr_mask & word,
            a: [v[1] & word, v[2] & word, v[3] & word, 0, 0, 0],
            restart_len: r.trap_len(),
            ilp32: word != !0,
            gate_landing: None,
        }
    }
    /// Reads arguments 4 to 6 into `args` (only for calls that take them: reading registers
    /// is a measurable part of a syscall's cost).
    #[inline]
    fn syscall_args_rest(&self, cpu: &Cpu<'_>, args: &mut SyscallArgs) {
        let (r, word) = (&self.info().regs, self.info().word_mask());
        let v = match &cpu.get_data().regs.sys {
            Some(pins) => pins.rest.read(),
            None => read_regs(cpu, &[r.args[3], r.args[4], r.args[5]]),
        };
        for (slot, x) in args.a[3..].iter_mut().zip(v) {
            *slot = x & word;
        }
    }
    /// Writes a syscall result (a value, or `-errno` as a two's-complement `u64`), with the
    /// error flag where the arch has one ([`super::info::Regs::error_flag`]).
    #[inline]
    fn set_syscall_ret(&self, cpu: &mut Cpu<'_>, ret: u64) {
        if let Some(pins) = &cpu.get_data().regs.sys {
            return pins.set_ret(ret);
        }
        let info = self.info();
        let [v, flag] = result_words(ret, info.word_mask(), info.regs.error_flag.is_some(), info.errno_from_host);
        match info.regs.error_flag {
            Some(reg) => write_regs(cpu, &[info.regs.ret, reg], &[v, flag]),
            None => write_regs(cpu, &[info.regs.ret], &[v]),
        }
    }
    /// The return register as a syscall result (sign-extended from the arch's word; `-errno`
    /// in the host's numbering), as [`GuestArch::set_syscall_ret`] would have written it.
    fn syscall_ret(&self, cpu: &Cpu<'_>) -> u64 {
        let info = self.info();
        let [v] = read_regs(cpu, &[info.regs.ret]);
        if let Some(reg) = info.regs.error_flag {
            let [flag] = read_regs(cpu, &[reg]);
            if flag != 0 {
                return crate::abi::bits64(-i64::from((info.errno_to_host)(crate::abi::int32(v))));
            }
        }
        if info.word_mask() == !0 {
            v
        } else {
            crate::abi::bits64(i64::from(crate::abi::int32(v)))
        }
    }
    /// Sets the thread pointer register (TLS).
    fn set_tls(&self, cpu: &mut Cpu<'_>, tls: u64) -> Result<(), Errno> {
        let Some(reg) = self.info().regs.tls else { return Err(Errno::EINVAL) };
        cpu.reg_write(reg, tls & self.info().word_mask()).map_err(|_| Errno::EINVAL)
    }
    /// Sets the guest stack pointer (a new thread's stack, `clone`'s `newsp`).
    fn set_stack_pointer(&self, cpu: &mut Cpu<'_>, sp: u64) -> Result<(), unicorn_engine::uc_error> {
        cpu.reg_write(self.info().regs.sp, sp & self.info().word_mask())
    }
    /// State of `cpu`'s instance outside the CPU registers that a new thread's instance must
    /// copy from its creator's (i386: the GDT, which holds the TLS segments); taken on the
    /// creator's thread, handed to [`GuestArch::init_thread`]. Default: none.
    fn thread_extra(&self, _cpu: &Cpu<'_>) -> Vec<u8> {
        Vec::new()
    }
    /// Completes a new thread's fresh instance after its registers were copied from the
    /// creator's and its stack pointer set: the per-instance state [`GuestArch::init_regs`]
    /// set up for the first thread that is not a register (i386's GDT), and
    /// `extra` from [`GuestArch::thread_extra`]. Registers keep their values. Default: nothing.
    fn init_thread(&self, _cpu: &mut Cpu<'_>, _extra: &[u8]) -> Result<(), unicorn_engine::uc_error> {
        Ok(())
    }

    /// The disassembler for the code at `pc` as [`GuestArch::pc`] gives it, and the address of
    /// the instruction's first byte (they differ on arm, where bit 0 of `pc` means Thumb).
    fn disassembler_at(&self, pc: u64) -> Option<(Capstone, u64)> {
        (self.info().disassembler)().map(|cs| (cs, pc))
    }

    /// The guest stack pointer.
    fn stack_pointer(&self, cpu: &Cpu<'_>) -> u64 {
        cpu.reg(self.info().regs.sp)
    }
    /// Reads a register by its capstone name (`"rax"`, `"x3"`, `"sp"`, `"fs_base"`).
    fn read_reg_by_name(&self, cpu: &Cpu<'_>, name: &str) -> Option<u64>;
    /// The signal a CPU exception raises (unicorn interrupt number `intno`).
    fn exception_signal(&self, intno: u32) -> Signal;
    /// The `siginfo` of the signal a CPU exception raises at `pc`. The default gives the
    /// kernel's usual codes: SIGFPE `FPE_INTDIV`, SIGILL `ILL_ILLOPN`, SIGTRAP `TRAP_BRKPT`,
    /// SIGBUS `BUS_ADRALN` with `si_addr` = `pc`, and SIGSEGV `SI_KERNEL` (0x80) with
    /// `si_addr` 0 (a protection fault that is not a page fault).
    fn exception_siginfo(&self, intno: u32, pc: u64) -> SigInfo {
        exception_siginfo_for(self.exception_signal(intno), pc)
    }
    /// The `siginfo` of an instruction the CPU refused as undefined, at `pc` (`cpu` stopped
    /// there): SIGILL `ILL_ILLOPC` (the kernel's undefined-instruction trap on most arches).
    fn invalid_insn_siginfo(&self, _cpu: &mut Cpu<'_>, pc: u64) -> SigInfo {
        SigInfo::fault(Signal::SIGILL, crate::signal::si_code::ILL_ILLOPC, pc)
    }
    /// The `siginfo` of a CPU exception at `pc` where the kernel looks at the faulting
    /// instruction first (MIPS's address-error exception, which Linux completes by emulating
    /// the misaligned load or store); `None` when the exception was completed so (the guest
    /// goes on at the PC this left). [`GuestArch::exception_siginfo`] elsewhere.
    fn exception_info(&self, _cpu: &mut Cpu<'_>, intno: u32, pc: u64) -> Option<SigInfo> {
        Some(self.exception_siginfo(intno, pc))
    }
    /// The address a memory access at `va` reaches: `va` itself, or on arm64, whose Linux runs
    /// user code with the top byte ignored (TCR_EL1.TBI0), `va` without its tag in bits 56-63
    /// when bit 55 is clear (a user address).
    fn untag(&self, va: u64) -> u64 {
        va
    }
    /// The signal a data access the address space refused raises, given the generic one
    /// (`info`: SIGSEGV `SEGV_MAPERR` or `SEGV_ACCERR` at the access's address) and the refused
    /// page: x86-64 sends something else for a non-canonical address and the vsyscall page.
    fn data_fault(&self, _page: u64, info: SigInfo) -> SigInfo {
        info
    }
    /// Called with the signal a refused access raises (`info`, after [`GuestArch::data_fault`])
    /// and the refusal `f`, for what the arch's signal frame says about the fault beyond the
    /// `siginfo`: x86's `trapno` and page-fault error code. Nothing elsewhere.
    fn page_fault_taken(&self, _mm: &AddressSpace, _f: &crate::mm::Fault, _info: &SigInfo) {}
    /// The `si_addr` a handler sees for a memory fault at `addr`: the address itself, or on
    /// s390x its page (the CPU's translation-exception identification names only the page,
    /// arch/s390/mm/fault.c).
    fn fault_si_addr(&self, addr: u64) -> u64 {
        addr
    }
    /// Builds the frame for a signal handler on the guest stack, as the arch's kernel lays it
    /// out (siginfo and ucontext for `rt` frames, the old sigframe where the arch has one and
    /// `SA_SIGINFO` is clear), and points the registers at the handler: its arguments, a
    /// return address that reaches `rt_sigreturn` (`sa_restorer` or a trampoline), the stack
    /// pointer. Called outside hooks, so plain register writes take effect. Errors: `EFAULT`
    /// (the stack cannot hold the frame: the guest dies by SIGSEGV); `ENOSYS` (the arch has
    /// no frames yet: the guest dies by the signal). Default: the row's [`ArchInfo::frames`].
    fn setup_frame(&self, cpu: &mut Cpu<'_>, req: &crate::signal::FrameRequest) -> Result<(), Errno> {
        self.info().frames.map_or(Err(Errno::ENOSYS), |f| (f.setup_frame)(cpu, req))
    }
    /// Machine code of the signal-return trampolines, for arches whose kernel returns from a
    /// handler without `SA_RESTORER` through code of its own (the vDSO's
    /// `__kernel_rt_sigreturn`, arm's sigpage): `rt_sigreturn` at offset 0 and, where the arch
    /// has an old frame, `sigreturn` at [`crate::guest::sigframe::SIGTRAMP_OLD`]. endgate maps it
    /// read+exec once per process at [`crate::guest::Task::sigtramp`]; `None`: no page.
    /// Default: the row's [`ArchInfo::frames`].
    fn sigtramp_code(&self) -> Option<Vec<u8>> {
        self.info().frames.and_then(|f| f.sigtramp_code).map(|code| code())
    }
    /// Restores the registers saved by [`GuestArch::setup_frame`] from the frame the stack
    /// pointer is at when the guest's `rt_sigreturn` (`rt`) or `sigreturn` trapped, and the
    /// alternate stack from `uc_stack`; returns the saved signal mask (host-numbered).
    /// Errors: `EFAULT` (unreadable frame: the guest dies by SIGSEGV). Default: the row's
    /// [`ArchInfo::frames`].
    fn restore_frame(&self, cpu: &mut Cpu<'_>, rt: bool) -> Result<u64, Errno> {
        self.info().frames.map_or(Err(Errno::ENOSYS), |f| (f.restore_frame)(cpu, rt))
    }
    /// Makes the thread execute again the system call whose arguments were `args`, which just
    /// returned (after the trap, with its result written): the program counter goes back to
    /// the trap instruction and the number and argument registers the result overwrote get
    /// their values back. Called outside hooks. Default: [`restart_at_trap`], the trap
    /// `args.restart_len` bytes before the program counter.
    fn restart_syscall(&self, cpu: &mut Cpu<'_>, args: &SyscallArgs) {
        let trap = self.pc(cpu).wrapping_sub(u64::from(args.restart_len));
        restart_at_trap(self.info(), cpu, args, trap);
    }
    /// Reads a guest `sigset_t` as a host-numbered mask (bit `n-1` for host signal `n`).
    fn read_sigset(&self, mm: &AddressSpace, addr: GuestAddr) -> Result<u64, Errno> {
        mm.read_u64(addr)
    }
    /// Writes a host-numbered mask as a guest `sigset_t`.
    fn write_sigset(&self, mm: &mut AddressSpace, addr: GuestAddr, mask: u64) -> Result<(), Errno> {
        mm.write_u64(addr, mask)
    }
}

/// Puts the program counter on `trap`, the trap instruction of the system call `args` that
/// just returned, and gives the result register the value it had before the call: the number
/// where the result overwrote it (x86's `orig_ax`, MIPS `v0`), the first argument otherwise
/// (the kernel's `orig_x0`, `ARM_ORIG_r0`, `orig_gpr2`, `orig_a0`); the other argument
/// registers are unchanged by a call. `trap` is a program counter as [`GuestArch::pc`] gives
/// it (arm's carries the Thumb bit, which unicorn's PC write takes as `bx` does).
pub fn restart_at_trap(info: &ArchInfo, cpu: &mut Cpu<'_>, args: &SyscallArgs, trap: u64) {
    let (r, word) = (&info.regs, info.word_mask());
    let orig = if r.ret == r.nr { args.nr } else { args.a[0] };
    write_regs(cpu, &[r.pc, r.ret], &[trap & word, orig & word]);
}

/// Size of each unicorn instance's TCG translation buffer, in bytes (unicorn's default is
/// 1 GiB of address space per instance; 64 MiB holds the hot code of large programs).
pub const TCG_BUFFER_BYTES: u32 = 64 << 20;

/// Opens a unicorn instance for `arch`/`mode` with `task` as its user data and sets its TCG
/// translation buffer to [`TCG_BUFFER_BYTES`] — which must come before any other call on
/// a new instance (unicorn 2.1.5 has no Rust wrapper for it).
fn new_engine(
    arch: unicorn_engine::Arch,
    mode: unicorn_engine::Mode,
    task: Task,
) -> Result<Cpu<'static>, unicorn_engine::uc_error> {
    use unicorn_engine::unicorn_const::{uc_ctl, ControlType};
    let cpu = Cpu::new_with_data(arch, mode, task)?;
    let ctl = ControlType(ControlType::TCG_BUFFER_SIZE.0 | ControlType::IO_WRITE.0);
    // SAFETY: a live handle; UC_CTL_TCG_BUFFER_SIZE takes one uint32_t argument.
    let r: Result<(), _> = unsafe { uc_ctl(cpu.get_handle(), ctl, TCG_BUFFER_BYTES) }.into();
    r.map(|()| cpu)
}

/// Where one instance keeps its general-purpose registers (unicorn patch 0014,
/// `uc_reg_ptr`), so that the system-call path and the gate read and write them as plain
/// memory instead of a call into the engine per batch (a third of a vDSO call's overhead went
/// to that API). Each [`Task`]'s is made for its own instance by [`RegPtrs::of`]; a copied
/// task starts with none (every read then goes through the API).
#[derive(Debug, Default)]
pub struct RegPtrs {
    /// Indexed by unicorn register id: the host address of the register's storage and its
    /// width in bytes (4 or 8), or width 0 for a register the engine does not serve this way.
    slots: Box<[(usize, u8)]>,
    /// Whether the guest's registers are 32 bits wide (arm, i386). i386's live in 8-byte
    /// slots whose upper half 32-bit code keeps zero: values are read as their low 32 bits and
    /// written zero-extended to the whole slot.
    narrow: bool,
    /// The system-call ABI's registers, looked up once: every trapped or gated call reads and
    /// writes them (a table walk per register cost 2-3 ns of each call).
    pub sys: Option<SyscallPins>,
}

/// Where the system-call ABI's registers are kept ([`RegPtrs::sys`]), with the arch's
/// masks, so that reading a call needs no call of the arch's methods.
#[derive(Clone, Copy, Debug)]
pub struct SyscallPins {
    /// The number and the first three arguments.
    first: PinnedRegs<4>,
    /// Arguments 4 to 6.
    pub rest: PinnedRegs<3>,
    /// The result register.
    ret: PinnedRegs<1>,
    /// The error flag's register, where the arch has one ([`super::info::Regs::error_flag`]).
    flag: Option<PinnedRegs<1>>,
    /// The arch's errno numbering, for a flagged error.
    errno_from_host: fn(i32) -> i32,
    /// The bits of the number register that are the number, within the guest's word.
    nr_mask: u64,
    /// The guest's word.
    word: u64,
    /// The trap instruction's length ([`SyscallArgs::restart_len`]).
    restart_len: u8,
}

impl SyscallPins {
    /// The call in the registers, as [`GuestArch::syscall_args`] reads it.
    #[inline(always)]
    pub fn args(&self) -> SyscallArgs {
        let [nr, a0, a1, a2] = self.first.read();
        let word = self.word;
        SyscallArgs {
            nr: nr & self.nr_mask,
            a: [a0 & word, a1 & word, a2 & word, 0, 0, 0],
            restart_len: self.restart_len,
            ilp32: word != !0,
            gate_landing: None,
        }
    }

    /// Writes the result `ret` (a value, or `-errno`), as [`GuestArch::set_syscall_ret`].
    #[inline(always)]
    pub fn set_ret(&self, ret: u64) {
        match self.flag {
            None => self.ret.write(&[ret & self.word]),
            Some(flag) => {
                let [v, f] = result_words(ret, self.word, true, self.errno_from_host);
                self.ret.write(&[v]);
                flag.write(&[f]);
            }
        }
    }
}

/// The highest errno a system call returns (Linux's `MAX_ERRNO`, include/linux/err.h).
const MAX_ERRNO: u64 = 4095;

/// The result register's and the error flag's values for the result `ret` (a value, or
/// `-errno` in the host's numbering): with a `flagged` ABI an error is the guest's positive
/// errno and flag 1, anything else the value and flag 0; without, `ret` as it is.
#[inline(always)]
fn result_words(ret: u64, word: u64, flagged: bool, errno_from_host: fn(i32) -> i32) -> [u64; 2] {
    if flagged && ret != 0 && ret.wrapping_neg() <= MAX_ERRNO {
        let e = errno_from_host(crate::abi::int32(ret.wrapping_neg()));
        [crate::abi::bits64(i64::from(e)) & word, 1]
    } else {
        [ret & word, 0]
    }
}

/// The system call in `cpu`'s registers ([`GuestArch::syscall_args`] without a call of the
/// arch's method where the registers are pinned).
#[inline(always)]
pub fn syscall_args(cpu: &Cpu<'_>, arch: &dyn GuestArch) -> SyscallArgs {
    match &cpu.get_data().regs.sys {
        Some(pins) => pins.args(),
        None => arch.syscall_args(cpu),
    }
}

/// Completes `args`, read from the registers for the arch row's plain trap
/// ([`super::info::Regs::trap_intno`]): the number from the instruction where it carries one
/// (the program counter then moves past it: [`super::info::TrapCode`]). `false`, with nothing
/// changed in the engine: a number the arch's own [`GuestArch::trap`] serves
/// ([`super::info::Regs::private_nrs`]). Works on `args` in place: a call built in one frame and
/// returned to another was copied with loads that stalled on its stores (docs/performance.md).
#[inline(always)]
pub fn plain_trap(cpu: &mut Cpu<'_>, regs: &super::Regs, args: &mut SyscallArgs) -> bool {
    let mut next_pc = None;
    if let Some(c) = regs.trap_code {
        let [pc, code, len] = read_regs(cpu, &[c.pc, c.code, c.len]);
        if code != 0 {
            args.nr = code;
        }
        args.restart_len = crate::abi::low8(len);
        next_pc = Some((c.pc, pc.wrapping_add(len)));
    }
    if regs.private_nrs.is_some_and(|(mask, base)| args.nr & mask == base) {
        return false;
    }
    if let Some((reg, pc)) = next_pc {
        write_regs(cpu, &[reg], &[pc]);
    }
    true
}

/// Writes a system call's result ([`GuestArch::set_syscall_ret`] without a call of the arch's
/// method where the registers are pinned).
#[inline(always)]
pub fn set_syscall_ret(cpu: &mut Cpu<'_>, arch: &dyn GuestArch, ret: u64) {
    // By reference: a copy of the pins (some 200 bytes) made after the host call cost 0.8 ns
    // of a gated call (docs/performance.md).
    match &cpu.get_data().regs.sys {
        Some(pins) => pins.set_ret(ret),
        None => arch.set_syscall_ret(cpu, ret),
    }
}

/// Unicorn register ids searched by [`RegPtrs::of`] (every arch's general-purpose registers
/// have ids below this).
const REG_ID_LIMIT: i32 = 512;

impl RegPtrs {
    /// The registers `cpu`'s engine serves through `uc_reg_ptr`.
    pub fn of(cpu: &Cpu<'_>) -> RegPtrs {
        let mut slots = Vec::new();
        for id in 0..REG_ID_LIMIT {
            let mut ptr = std::ptr::null_mut();
            let mut size = 0usize;
            // SAFETY: a live handle; `ptr` and `size` are valid outputs.
            let r = unsafe { unicorn_engine::uc_reg_ptr(cpu.get_handle(), id, &mut ptr, &mut size) };
            if r == unicorn_engine::unicorn_const::uc_error::OK && (size == 4 || size == 8) && !ptr.is_null() {
                let i = usize::try_from(id).unwrap_or(0);
                slots.resize(i + 1, (0, 0));
                slots[i] = (ptr as usize, u8::try_from(size).unwrap_or(0));
            }
        }
        let mut ptrs = RegPtrs {
            slots: slots.into_boxed_slice(),
            narrow: !cpu.get_data().arch.info().data_model.is_64bit(),
            sys: None,
        };
        let info = cpu.get_data().arch.info();
        let (r, word) = (&info.regs, info.word_mask());
        let flag = match r.error_flag {
            Some(reg) => ptrs.pin(&[reg]).map(Some),
            None => Some(None),
        };
        if let (Some(first), Some(rest), Some(ret), Some(flag)) = (
            ptrs.pin(&[r.nr, r.args[0], r.args[1], r.args[2]]),
            ptrs.pin(&[r.args[3], r.args[4], r.args[5]]),
            ptrs.pin(&[r.ret]),
            flag,
        ) {
            let (nr_mask, restart_len, errno_from_host) = (r.nr_mask & word, r.trap_len(), info.errno_from_host);
            ptrs.sys = Some(SyscallPins { first, rest, ret, flag, errno_from_host, nr_mask, word, restart_len });
        }
        ptrs
    }

    /// Where register `id` is kept, if the engine said.
    #[inline]
    fn slot(&self, id: i32) -> Option<(usize, u8)> {
        usize::try_from(id).ok().and_then(|i| self.slots.get(i)).copied().filter(|s| s.1 != 0)
    }

    /// The registers `ids`, if every one of them is served.
    #[inline]
    fn read<const N: usize>(&self, ids: &[i32; N]) -> Option<[u64; N]> {
        self.pin(ids).map(|p| p.read())
    }

    /// Writes the registers `ids` if every one of them is served; `false` (nothing written)
    /// otherwise. A 4-byte register takes the low half of its value.
    #[inline]
    fn write<const N: usize>(&self, ids: &[i32; N], vals: &[u64; N]) -> bool {
        self.pin(ids).map(|p| p.write(vals)).is_some()
    }

    /// Where the registers `ids` are kept, if every one of them is served: for a hook that
    /// reads and writes the same registers on every call (the gate's clock entries), looked
    /// up once when the hook is installed.
    #[inline]
    pub fn pin<const N: usize>(&self, ids: &[i32; N]) -> Option<PinnedRegs<N>> {
        let mut slots = [(0usize, 0u8); N];
        for (s, &id) in slots.iter_mut().zip(ids) {
            *s = self.slot(id)?;
        }
        Some(PinnedRegs { slots, narrow: self.narrow })
    }
}

/// `N` registers' storage in one instance's CPU state ([`RegPtrs::pin`]): host address and
/// width (4 or 8) of each. Valid as long as that instance lives, and only read or written by
/// the thread that runs it while the engine is stopped in one of its hooks (the engine keeps
/// them in host registers while it runs translated code).
#[derive(Clone, Copy, Debug)]
pub struct PinnedRegs<const N: usize> {
    /// Host address and width of each register's storage.
    slots: [(usize, u8); N],
    /// As [`RegPtrs`]'s.
    narrow: bool,
}

impl<const N: usize> PinnedRegs<N> {
    /// The registers' values (a 4-byte register zero-extended).
    #[inline(always)]
    pub fn read(&self) -> [u64; N] {
        let mut vals = [0u64; N];
        for (v, &(addr, width)) in vals.iter_mut().zip(&self.slots) {
            // SAFETY: `uc_reg_ptr` gave this address of an aligned integer of `width` bytes in
            // the engine's CPU state, which lives as long as the instance (the type's
            // contract); the engine does not run while the thread that runs it is here.
            *v = unsafe {
                if width == 8 {
                    std::ptr::read(addr as *const u64)
                } else {
                    u64::from(std::ptr::read(addr as *const u32))
                }
            };
            if self.narrow {
                *v = u64::from(crate::abi::low32(*v));
            }
        }
        vals
    }

    /// Writes the registers (a 4-byte register takes the low half of its value).
    #[inline(always)]
    pub fn write(&self, vals: &[u64; N]) {
        for (&(addr, width), &v) in self.slots.iter().zip(vals) {
            let v = if self.narrow { u64::from(crate::abi::low32(v)) } else { v };
            // SAFETY: as in `read`; the engine reads the register back from there.
            unsafe {
                if width == 8 {
                    std::ptr::write(addr as *mut u64, v);
                } else {
                    std::ptr::write(addr as *mut u32, crate::abi::low32(v));
                }
            }
        }
    }
}

/// Reads `N` registers: as plain memory where the engine serves them ([`RegPtrs`]), otherwise
/// in one call into the engine (cheaper than `N` calls on the syscall path). Inlined, so that
/// the values stay in host registers: returned through memory, they were stored as words and
/// read back as 16-byte vectors by the caller's masking, a store-forwarding stall that was half
/// of the trap hook's own time (`perf annotate`, aarch64 getppid).
#[inline(always)]
pub fn read_regs<const N: usize>(cpu: &Cpu<'_>, ids: &[i32; N]) -> [u64; N] {
    if let Some(v) = cpu.get_data().regs.read(ids) {
        return v;
    }
    read_regs_engine(cpu, ids)
}

/// [`read_regs`] for registers the engine does not serve as memory.
#[cold]
#[inline(never)]
fn read_regs_engine<const N: usize>(cpu: &Cpu<'_>, ids: &[i32; N]) -> [u64; N] {
    let mut vals = [0u64; N];
    let mut ptrs: [*mut std::ffi::c_void; N] = [std::ptr::null_mut(); N];
    for (p, v) in ptrs.iter_mut().zip(vals.iter_mut()) {
        *p = (v as *mut u64).cast();
    }
    let count = i32::try_from(N).expect("a handful of registers");
    // SAFETY: a live handle; each pointer addresses a u64, the size of every register read here.
    let r = unsafe {
        unicorn_engine::unicorn_const::uc_reg_read_batch(cpu.get_handle(), ids.as_ptr(), ptrs.as_mut_ptr(), count)
    };
    crate::guard::check("uc_reg_read_batch", r);
    vals
}

/// Writes `N` registers: as plain memory where the engine serves them ([`RegPtrs`]),
/// otherwise in one call into the engine.
#[inline]
pub fn write_regs<const N: usize>(cpu: &mut Cpu<'_>, ids: &[i32; N], vals: &[u64; N]) {
    if cpu.get_data().regs.write(ids, vals) {
        return;
    }
    let mut ptrs: [*mut std::ffi::c_void; N] = [std::ptr::null_mut(); N];
    for (p, v) in ptrs.iter_mut().zip(vals.iter()) {
        *p = (v as *const u64).cast_mut().cast();
    }
    let count = i32::try_from(N).expect("a handful of registers");
    // SAFETY: a live handle; each pointer addresses a u64 the engine only reads.
    let r = unsafe {
        unicorn_engine::unicorn_const::uc_reg_write_batch(cpu.get_handle(), ids.as_ptr(), ptrs.as_ptr(), count)
    };
    crate::guard::check("uc_reg_write_batch", r);
}

/// The `siginfo` of a CPU exception that raises `sig` at `pc`, with the `si_code` Linux's trap
/// handlers use for it (`SI_KERNEL` and no address for SIGSEGV from a general protection
/// fault); what [`GuestArch::exception_siginfo`] gives unless an arch says otherwise.
pub fn exception_siginfo_for(sig: Signal, pc: u64) -> SigInfo {
    use crate::signal::si_code::*;
    let (code, addr) = match sig {
        Signal::SIGFPE => (FPE_INTDIV, pc),
        Signal::SIGILL => (ILL_ILLOPN, pc),
        Signal::SIGTRAP => (TRAP_BRKPT, pc),
        Signal::SIGBUS => (BUS_ADRALN, pc),
        _ => (0x80, 0),
    };
    SigInfo::fault(sig, code, addr)
}
