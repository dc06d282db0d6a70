//! The interface each guest architecture implements, and the CPU it drives.

use capstone::Capstone;
use syscalls::Errno;
use unicorn_engine::Unicorn;

use super::{SysResult, Task};
use crate::abi::nr::{NumberTable, Sys};
use crate::mm::{AddressSpace, DataModel, Endian, GuestAddr, Layout};
use crate::signal::{SigAction, SigInfo, Signal, NSIG};

/// A guest CPU: one unicorn instance whose user data is the guest thread's [`Task`].
pub type Cpu<'a> = Unicorn<'a, Task>;

/// A system call as the guest made it: the arch's number and six raw argument registers.
#[derive(Clone, Copy, Debug, Default)]
pub struct SyscallArgs {
    /// The arch's syscall number.
    pub nr: u64,
    /// Argument registers, in ABI order.
    pub a: [u64; 6],
}

/// Where an arch's hooks hand over to the layers above: the dispatcher and the run loop's
/// exception handling. Passed to [`GuestArch::install_hooks`], so arch code calls up only
/// through these values, never by naming the modules above it.
#[derive(Clone, Copy)]
pub struct Entries {
    /// Serves the system call the registers describe (`crate::syscall::enter`); `true` if it
    /// stopped the engine.
    pub syscall: fn(&mut Cpu<'_>) -> bool,
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
    /// Name as `uname -m` prints it on that arch (`"x86_64"`, `"aarch64"`).
    fn name(&self) -> &'static str;
    /// ELF `e_machine` value (include/uapi/linux/elf-em.h).
    fn elf_machine(&self) -> u16;
    /// `true` for 64-bit ELF (ELFCLASS64) and LP64 ABI.
    fn is_64bit(&self) -> bool;
    /// Byte order of data.
    fn endian(&self) -> Endian;
    /// Byte order, `long` width and 64-bit alignment of the guest's C ABI. The default follows
    /// [`GuestArch::is_64bit`] and [`GuestArch::endian`] with 8-byte-aligned 64-bit members;
    /// i386 overrides it.
    fn data_model(&self) -> DataModel {
        DataModel { endian: self.endian(), long_bytes: if self.is_64bit() { 8 } else { 4 }, align64: 8 }
    }
    /// Where the guest address-space windows go.
    fn layout(&self) -> Layout;
    /// This arch's system-call numbers.
    fn numbers(&self) -> &'static NumberTable;

    /// Creates the unicorn instance for this arch (CPU model chosen, nothing mapped yet).
    fn new_cpu(&self, task: Task) -> Result<Cpu<'static>, unicorn_engine::uc_error>;
    /// Installs the syscall trap hook and the exception hook, which call `entries`.
    fn install_hooks(&self, cpu: &mut Cpu<'static>, entries: Entries) -> Result<(), unicorn_engine::uc_error>;
    /// Sets the registers a new process starts with: program counter `entry`, stack `sp`,
    /// everything else as the kernel's `start_thread` leaves it.
    fn init_regs(&self, cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), unicorn_engine::uc_error>;
    /// The guest program counter.
    fn pc(&self, cpu: &Cpu<'_>) -> u64;
    /// Reads the syscall number and the first three arguments from the registers the ABI
    /// names (the rest read as 0 until [`GuestArch::syscall_args_rest`]).
    fn syscall_args(&self, cpu: &Cpu<'_>) -> SyscallArgs;
    /// Reads arguments 4 to 6 into `args` (only for calls that take them: reading registers
    /// is a measurable part of a syscall's cost).
    fn syscall_args_rest(&self, cpu: &Cpu<'_>, args: &mut SyscallArgs);
    /// Writes a syscall result (a value, or `-errno` as a two's-complement `u64`).
    fn set_syscall_ret(&self, cpu: &mut Cpu<'_>, ret: u64);
    /// Sets the thread pointer register (TLS).
    fn set_tls(&self, cpu: &mut Cpu<'_>, tls: u64) -> Result<(), Errno>;
    /// Sets the guest stack pointer (a new thread's stack, `clone`'s `newsp`).
    fn set_stack_pointer(&self, cpu: &mut Cpu<'_>, sp: u64) -> Result<(), unicorn_engine::uc_error>;
    /// State of `cpu`'s instance outside the CPU registers that a new thread's instance must
    /// copy from its creator's (i386: the GDT, which holds the TLS segments); taken on the
    /// creator's thread, handed to [`GuestArch::init_thread`]. Default: none.
    fn thread_extra(&self, _cpu: &Cpu<'_>) -> Vec<u8> {
        Vec::new()
    }
    /// Completes a new thread's fresh instance after its registers were copied from the
    /// creator's and its stack pointer set: the per-instance state [`GuestArch::init_regs`]
    /// set up for the first thread that is not a register (mips64el's wired TLB entries), and
    /// `extra` from [`GuestArch::thread_extra`]. Registers keep their values. Default: nothing.
    fn init_thread(&self, _cpu: &mut Cpu<'_>, _extra: &[u8]) -> Result<(), unicorn_engine::uc_error> {
        Ok(())
    }

    /// The arch's vDSO image and calling convention ([`crate::gate`]); `None` maps no vDSO
    /// (no `AT_SYSINFO_EHDR`). Default: none.
    fn vdso(&self) -> Option<&'static crate::gate::VdsoSpec> {
        None
    }
    /// Serves a system call made through the gate's `__kernel_vsyscall`, whose registers are
    /// as the arch's trap instruction would find them (per-arch trap state, such as s390x's
    /// `svc` immediate, reads as for the register form). Returns `true` if it stopped the
    /// engine, as `enter` (the dispatcher, [`Entries::syscall`]) does. Default: `enter(cpu)`.
    fn gate_syscall(&self, cpu: &mut Cpu<'_>, enter: fn(&mut Cpu<'_>) -> bool) -> bool {
        enter(cpu)
    }

    /// `AT_HWCAP` and `AT_HWCAP2` for the emulated CPU.
    fn hwcap(&self) -> (u64, u64);
    /// `AT_PLATFORM` string, if the arch's kernel provides one.
    fn platform(&self) -> Option<&'static str>;
    /// `AT_MINSIGSTKSZ` in bytes, on arches whose kernel provides it.
    fn minsigstksz(&self) -> Option<u64>;
    /// A disassembler for fault reports and traces.
    fn disassembler(&self) -> Option<Capstone>;
    /// The disassembler for the code at `pc` as [`GuestArch::pc`] gives it, and the address of
    /// the instruction's first byte (they differ on arm, where bit 0 of `pc` means Thumb).
    fn disassembler_at(&self, pc: u64) -> Option<(Capstone, u64)> {
        self.disassembler().map(|cs| (cs, pc))
    }
    /// Stack pointer alignment at process entry, in bytes.
    fn stack_align(&self) -> u64 {
        16
    }

    /// The arch's `struct stat` written at `addr` from a host stat.
    fn write_stat(&self, mm: &mut AddressSpace, addr: GuestAddr, st: &libc::stat) -> Result<(), Errno>;
    /// 32-bit guests: `true` if a 64-bit argument passed in a register pair starts at an
    /// even-numbered argument register (arm EABI, mips o32), `false` if it takes the next two
    /// (i386). See [`crate::syscall::compat32`].
    fn regpairs_aligned(&self) -> bool {
        false
    }
    /// 32-bit guests: the arch's `struct stat64` written at `addr` from a host stat. Errors:
    /// `EFAULT`; `ENOSYS` on arches without `stat64`.
    fn write_stat64(&self, _mm: &mut AddressSpace, _addr: GuestAddr, _st: &libc::stat) -> Result<(), Errno> {
        Err(Errno::ENOSYS)
    }
    /// 32-bit guests: the `struct statfs64` size `statfs64`/`fstatfs64` accept as their `size`
    /// argument, mapped to the size of the kernel's struct (84 bytes on arm and i386); `None`
    /// for any other size (the call fails with `EINVAL`).
    fn statfs64_len(&self, size: u64) -> Option<u64> {
        (size == crate::abi::stat32::STATFS64_SIZE).then_some(size)
    }
    /// Guest `open` flags (O_*) to the host's; unknown bits are kept as they are.
    fn open_flags_to_host(&self, flags: u64) -> i32;
    /// Host `open` flags to the guest's (for `fcntl(F_GETFL)`).
    fn open_flags_from_host(&self, flags: i32) -> u64;
    /// The arch's `MAP_32BIT` mmap flag and the range such mappings go to, if it has one.
    fn map_32bit(&self) -> Option<(u64, std::ops::Range<u64>)> {
        None
    }
    /// `true` if the arch defines `SA_RESTORER`, so its `struct sigaction` has an
    /// `sa_restorer` member before `sa_mask` (include/uapi/asm-generic/signal.h); riscv does not.
    fn has_sa_restorer(&self) -> bool {
        true
    }
    /// The host's `RLIMIT_*` number for the guest's (they differ only on MIPS).
    fn rlimit_resource_to_host(&self, resource: i32) -> i32 {
        resource
    }
    /// The arch's `struct statfs` (asm-generic by default; s390x has its own).
    fn statfs_shape(&self) -> &'static crate::abi::thunk::Shape {
        crate::abi::shapes::STATFS
    }
    /// `true` if the arch packs `struct epoll_event` to 12 bytes (x86_64 only).
    fn epoll_packed(&self) -> bool {
        false
    }
    /// Generic calls whose arguments or structs take another form on this arch (s390x's
    /// one-pointer `mmap`): the dispatcher sends them to [`GuestArch::arch_syscall`] and
    /// traces them with the formats of [`crate::syscall::table::ARCH_VARIANTS`].
    fn arch_variants(&self) -> &'static [Sys] {
        &[]
    }
    /// Handles a call only this arch has, or its form of one of [`GuestArch::arch_variants`];
    /// `None` if `sys` is not one of them.
    fn arch_syscall(&self, cpu: &mut Cpu<'_>, sys: Sys, args: &SyscallArgs) -> Option<SysResult>;
    /// The guest stack pointer (by the capstone name of the arch's stack register: `sp`,
    /// `rsp`, `esp`, `r15` on s390x).
    fn stack_pointer(&self, cpu: &Cpu<'_>) -> u64 {
        ["sp", "rsp", "esp", "r15"].iter().find_map(|n| self.read_reg_by_name(cpu, n)).unwrap_or(0)
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
    /// no frames yet: the guest dies by the signal).
    fn setup_frame(&self, _cpu: &mut Cpu<'_>, _req: &crate::signal::FrameRequest) -> Result<(), Errno> {
        Err(Errno::ENOSYS)
    }
    /// Machine code of the signal-return trampolines, for arches whose kernel returns from a
    /// handler without `SA_RESTORER` through code of its own (the vDSO's
    /// `__kernel_rt_sigreturn`, arm's sigpage): `rt_sigreturn` at offset 0 and, where the arch
    /// has an old frame, `sigreturn` at [`crate::guest::sigframe::SIGTRAMP_OLD`]. endgate maps it
    /// read+exec once per process at [`crate::guest::Task::sigtramp`]; `None`: no page.
    fn sigtramp_code(&self) -> Option<Vec<u8>> {
        None
    }
    /// Restores the registers saved by [`GuestArch::setup_frame`] from the frame the stack
    /// pointer is at when the guest's `rt_sigreturn` (`rt`) or `sigreturn` trapped, and the
    /// alternate stack from `uc_stack`; returns the saved signal mask (host-numbered).
    /// Errors: `EFAULT` (unreadable frame: the guest dies by SIGSEGV).
    fn restore_frame(&self, _cpu: &mut Cpu<'_>, _rt: bool) -> Result<u64, Errno> {
        Err(Errno::ENOSYS)
    }
    /// Makes the thread execute again the system call whose arguments were `args`, which just
    /// returned (after the trap, with its result written): the program counter goes back to
    /// the trap instruction and the number and argument registers the result overwrote get
    /// their values back. Called outside hooks.
    fn restart_syscall(&self, _cpu: &mut Cpu<'_>, _args: &SyscallArgs) {}
    /// Called by the TLB fill hook after every fill of a data page (`fetch` false) or a code
    /// page (MIPS repairs engine state there).
    fn after_tlb_fill(&self, _cpu: &Cpu<'_>, _fetch: bool) {}

    // Constants some arches number differently (MIPS). The defaults are the values of
    // include/uapi/asm-generic, which are the x86_64 host's: identity.

    /// Guest signal number to endgate's (the host's) numbering; `None` if the host has no
    /// such signal.
    fn signal_to_host(&self, sig: u64) -> Option<Signal> {
        (1..=u64::from(NSIG)).contains(&sig).then_some(Signal(sig as u32))
    }
    /// Host signal number to the guest's; 0 if the guest has no such signal.
    fn signal_from_host(&self, sig: Signal) -> u64 {
        u64::from(sig.0)
    }
    /// The guest kernel's `_NSIG`: its highest signal number (64; 128 on MIPS).
    fn nsig(&self) -> u64 {
        u64::from(NSIG)
    }
    /// `sizeof(sigset_t)` the kernel accepts in `rt_sig*` calls, in bytes.
    fn sigset_size(&self) -> u64 {
        8
    }
    /// Reads a guest `sigset_t` as a host-numbered mask (bit `n-1` for host signal `n`).
    fn read_sigset(&self, mm: &AddressSpace, addr: GuestAddr) -> Result<u64, Errno> {
        mm.read_u64(addr)
    }
    /// Writes a host-numbered mask as a guest `sigset_t`.
    fn write_sigset(&self, mm: &mut AddressSpace, addr: GuestAddr, mask: u64) -> Result<(), Errno> {
        mm.write_u64(addr, mask)
    }
    /// A guest `rt_sigprocmask` `how` as the generic value (`SIG_BLOCK` 0, `SIG_UNBLOCK` 1,
    /// `SIG_SETMASK` 2); anything else stays out of that range.
    fn sigmask_how_to_generic(&self, how: u64) -> u64 {
        how
    }
    /// Reads the kernel's `struct sigaction` at `addr` on arches whose layout is not the
    /// generic one (`None`: use [`crate::abi::shapes::SIGACTION`]); the mask comes back
    /// host-numbered.
    fn read_sigaction(&self, _mm: &AddressSpace, _addr: GuestAddr) -> Option<Result<SigAction, Errno>> {
        None
    }
    /// Writes `act` (host-numbered mask) as the arch's own `struct sigaction` (`None`: the
    /// generic layout applies).
    fn write_sigaction(&self, _mm: &mut AddressSpace, _addr: GuestAddr, _act: &SigAction) -> Option<Result<(), Errno>> {
        None
    }
    /// Guest `mmap` flags to the generic values (`MAP_ANONYMOUS` 0x20…).
    fn mmap_flags_to_generic(&self, flags: u64) -> u64 {
        flags
    }
    /// A guest `fcntl` command to the host's.
    fn fcntl_cmd_to_host(&self, cmd: i32) -> i32 {
        cmd
    }
    /// A guest `ioctl` request to the host's (terminal requests differ on MIPS).
    fn ioctl_to_host(&self, req: u64) -> u64 {
        req
    }
    /// A guest socket `type` argument (type plus `SOCK_NONBLOCK`/`SOCK_CLOEXEC`) to the host's.
    fn socket_type_to_host(&self, ty: i32) -> i32 {
        ty
    }
    /// A host socket type (`SO_TYPE` answer) to the guest's.
    fn socket_type_from_host(&self, ty: i32) -> i32 {
        ty
    }
    /// The arch's own `struct termios` and flag values (`None`: asm-generic's).
    fn termios(&self) -> Option<ArchTermios> {
        None
    }
    /// The arch's `SOL_SOCKET` (also the `cmsg_level` of `SCM_RIGHTS` messages).
    fn sol_socket(&self) -> i32 {
        libc::SOL_SOCKET
    }
    /// A guest `(level, optname)` socket option to the host's.
    fn sockopt_to_host(&self, level: i32, name: i32) -> (i32, i32) {
        (level, name)
    }
    /// `clone(2)`'s arguments as the arch passes them. The default is the order of
    /// `CONFIG_CLONE_BACKWARDS` (kernel/fork.c), which arm, i386, MIPS, aarch64 and riscv use:
    /// `(flags, newsp, parent_tid, tls, child_tid)`; x86_64 passes `(flags, newsp, parent_tid,
    /// child_tid, tls)` and s390 (`CONFIG_CLONE_BACKWARDS2`) `(newsp, flags, parent_tid,
    /// child_tid, tls)`.
    fn clone_args(&self, a: &SyscallArgs) -> CloneArgs {
        CloneArgs { flags: a.a[0], newsp: a.a[1], ptid: a.a[2], tls: a.a[3], ctid: a.a[4] }
    }
    /// `true` if the arch's `siginfo_t` has `si_code` before `si_errno` (MIPS,
    /// arch/mips/include/uapi/asm/siginfo.h) rather than `si_signo, si_errno, si_code`.
    fn siginfo_code_first(&self) -> bool {
        false
    }
    /// The host's `SA_NOCLDSTOP`/`SA_NOCLDWAIT` bits for a guest `sa_flags` (asm-generic: 1
    /// and 2; MIPS: 1 and 0x10000).
    fn sa_nocld_to_host(&self, flags: u64) -> i32 {
        (flags & 3) as i32
    }
    /// A host `si_code` in the guest's numbering (MIPS numbers `SI_ASYNCIO`, `SI_TIMER` and
    /// `SI_MESGQ` -2, -3, -4 where asm-generic has -4, -2, -3).
    fn si_code_from_host(&self, code: i32) -> i32 {
        code
    }
    /// A guest `si_code` in the host's numbering (the inverse of
    /// [`GuestArch::si_code_from_host`]).
    fn si_code_to_host(&self, code: i32) -> i32 {
        code
    }
    /// `true` if the arch's `stack_t` is `{ss_sp, ss_size, ss_flags}` (MIPS) rather than
    /// `{ss_sp, ss_flags, ss_size}`.
    fn stack_t_size_first(&self) -> bool {
        false
    }
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
