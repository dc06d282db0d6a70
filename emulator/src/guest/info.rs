//! One guest architecture's facts as data: identity, address-space layout, auxv values, struct
//! layouts and the numbering of flags and constants where the arch differs from asm-generic.
//! Each arch folder declares one [`ArchInfo`] static; [`super::GuestArch::info`] hands it out.
//! The MIPS differences (signal numbers, `struct sigaction`, `stack_t`, `siginfo_t` member
//! order, errno, poll bits, socket and ioctl numbers) are values in its row, not methods.
//! `emulator/tests/constants.rs` checks every row's numbering against the arch's own uapi
//! headers (docs/constants.md).
//!
//! A field that converts (`open_flags_to_host`, …) is a plain function pointer: the
//! [`ArchInfo::GENERIC`] row has the asm-generic ones (the x86_64 host's own values, so
//! identity), and an arch names only those that differ: `..ArchInfo::GENERIC`.

use capstone::arch::ArchDetail;
use capstone::{Capstone, RegId};
use syscalls::Errno;

use super::arch::{ArchTermios, CloneArgs, SyscallArgs};
use super::sigframe::Frames;
use crate::abi::nr::NumberTable;
use crate::abi::thunk::Shape;
use crate::gate::VdsoSpec;
use crate::mm::{AddressSpace, DataModel, Endian, GuestAddr, Layout};
use crate::signal::{SigAction, Signal, NSIG};

/// The registers of an arch's system-call ABI and thread state, by unicorn register id. The
/// [`super::GuestArch`] defaults read and write them; an arch overrides a method only where
/// its ABI is more than registers (i386's TLS segment).
pub struct Regs {
    /// Program counter.
    pub pc: i32,
    /// Stack pointer.
    pub sp: i32,
    /// The thread pointer `set_tls` writes (`None`: the arch's own `set_tls`).
    pub tls: Option<i32>,
    /// System-call number.
    pub nr: i32,
    /// The six argument registers, in ABI order.
    pub args: [i32; 6],
    /// Result register.
    pub ret: i32,
    /// A register that flags an error result: 1, with the guest's positive errno in `ret`, or
    /// 0 with the value (MIPS `a3`: arch/mips/kernel/scall64-n64.S). `None`: the result is
    /// `ret` alone, `-errno` on error.
    pub error_flag: Option<i32>,
    /// Bits of `nr` that are the number (s390x: the low 16 of r1 for `svc 0`).
    pub nr_mask: u64,
    /// The arch's system-call trap instruction, as bytes in guest order: the vDSO's landing
    /// holds a copy ([`crate::gate`]), and its length is the
    /// [`super::SyscallArgs::restart_len`] of a call decoded from the registers (s390x's trap
    /// hook sets the length of `EX`/`EXRL` where they ran the `svc`; arm's Thumb `svc` is 2
    /// bytes, which its `restart_syscall` knows).
    pub trap: &'static [u8],
    /// The engine's interrupt number for the trap instruction when the call it makes is all in
    /// the registers above (aarch64's `EXCP_SWI`, i386's vector 0x80): the interrupt hook
    /// decodes that call itself ([`crate::guest::arch::plain_trap`]) instead of asking the arch's `trap`, a
    /// dynamic call and a frame that cost ~7 ns of a trapped `getppid` on arm
    /// (docs/performance.md). `None`: the arch's `trap` decodes every interrupt (s390x's `svc`
    /// carries its number in the instruction; x86_64's calls come through an instruction hook).
    pub trap_intno: Option<u32>,
    /// Numbers the arch's own `trap` serves although they arrive as [`Regs::trap_intno`], as
    /// `(mask, base)`: a number with `nr & mask == base` (arm's private calls, `__ARM_NR_BASE`
    /// 0x0f0000 and up: arch/arm/include/uapi/asm/unistd.h). `None`: none.
    pub private_nrs: Option<(u64, u64)>,
    /// Where the trap instruction carries the call's number itself ([`TrapCode`]); `None`: the
    /// number is in `nr` alone.
    pub trap_code: Option<TrapCode>,
}

/// The registers through which the engine reports a trap instruction that carries the call's
/// number (s390x's `svc I`, unicorn patch 0030): `I` when nonzero is the number (`svc 0`
/// takes it from `nr`), and the program counter has not yet moved past the instruction,
/// whose length (2, or 4 and 6 for an `svc` run by `EX` and `EXRL`) is also the call's
/// restart length (arch/s390x/kernel/entry.S, `__LC_SVC_ILC`).
#[derive(Clone, Copy)]
pub struct TrapCode {
    /// The instruction's number `I`.
    pub code: i32,
    /// The length of the instruction that ran the trap, in bytes.
    pub len: i32,
    /// The program counter to move past it (without the engine's PC write, which would
    /// leave the running block).
    pub pc: i32,
}

impl Regs {
    /// The thread registers by unicorn id — program counter `pc`, stack pointer `sp`, thread
    /// pointer `tls` — with no system-call registers yet: the generic row's placeholder, and
    /// the start of every arch's row, which [`Regs::syscall`] and `trap` complete.
    pub const fn new(pc: i32, sp: i32, tls: Option<i32>) -> Regs {
        Regs {
            pc,
            sp,
            tls,
            nr: 0,
            args: [0; 6],
            ret: 0,
            error_flag: None,
            nr_mask: !0,
            trap: &[],
            trap_intno: None,
            private_nrs: None,
            trap_code: None,
        }
    }

    /// These registers with the system-call ABI's: the number in `nr`, the six arguments in
    /// `args`, the result in `ret`.
    pub const fn syscall(self, nr: i32, args: [i32; 6], ret: i32) -> Regs {
        Regs { nr, args, ret, ..self }
    }

    /// These registers with `flag` the error flag of a system call's result
    /// ([`Regs::error_flag`]).
    pub const fn error_flag(self, flag: i32) -> Regs {
        Regs { error_flag: Some(flag), ..self }
    }

    /// These registers with the system-call trap instruction `trap`, as bytes in guest order.
    pub const fn trap(self, trap: &'static [u8]) -> Regs {
        Regs { trap, ..self }
    }

    /// These registers with `intno` the interrupt of a trap whose call is all in the registers
    /// ([`Regs::trap_intno`]).
    pub const fn trap_intno(self, intno: u32) -> Regs {
        Regs { trap_intno: Some(intno), ..self }
    }

    /// These registers with the numbers `nr & mask == base` left to the arch's `trap`
    /// ([`Regs::private_nrs`]).
    pub const fn private_nrs(self, mask: u64, base: u64) -> Regs {
        Regs { private_nrs: Some((mask, base)), ..self }
    }

    /// These registers with the trap's own number reported in `code` ([`Regs::trap_code`]).
    pub const fn trap_code(self, code: TrapCode) -> Regs {
        Regs { trap_code: Some(code), ..self }
    }

    /// Six argument registers whose unicorn ids are consecutive from `first` (`x0`-`x5`,
    /// `r0`-`r5`, `a0`-`a5`…).
    pub const fn args_from(first: i32) -> [i32; 6] {
        [first, first + 1, first + 2, first + 3, first + 4, first + 5]
    }

    /// The length of the trap instruction, the restart length of a call it made.
    #[inline]
    pub const fn trap_len(&self) -> u8 {
        #[allow(clippy::cast_possible_truncation)] // a trap instruction is 2 or 4 bytes
        let len = self.trap.len() as u8;
        len
    }
}

/// How an arch's unicorn instance is opened (what [`super::GuestArch::new_cpu`] does).
pub struct Engine {
    /// Unicorn's architecture.
    pub arch: unicorn_engine::Arch,
    /// Unicorn's mode (word size, byte order).
    pub mode: unicorn_engine::Mode,
    /// The CPU model set with `ctl_set_cpu_model` (`None`: unicorn's default for `arch`).
    pub cpu_model: Option<i32>,
    /// `true` to set the TLB page size to 4 KiB: QEMU's Arm targets may use 1 KiB TLB pages,
    /// while Linux guests use 4 KiB pages, and a TLB fill per 4 KiB is a quarter of the fills.
    pub page_size_4k: bool,
}

impl Engine {
    /// An instance of unicorn's `arch` in `mode` with CPU model `cpu_model` (`None`: unicorn's
    /// default), with 4 KiB TLB pages on QEMU's Arm targets (`page_size_4k`).
    pub const fn new(arch: unicorn_engine::Arch, mode: unicorn_engine::Mode, cpu_model: Option<i32>) -> Engine {
        let page_size_4k = matches!(arch, unicorn_engine::Arch::ARM | unicorn_engine::Arch::ARM64);
        Engine { arch, mode, cpu_model, page_size_4k }
    }
}

/// One guest architecture's data row.
pub struct ArchInfo {
    /// The system-call ABI's registers and the thread-state registers.
    pub regs: Regs,
    /// The unicorn instance the arch runs on.
    pub engine: Engine,
    /// Name as `uname -m` prints it on that arch (`"x86_64"`, `"aarch64"`, `"armv7l"`).
    pub name: &'static str,
    /// The name `uname` gives a process in the `PER_LINUX32` personality (`linux32`), the
    /// arch's `COMPAT_UTS_MACHINE` (arch/*/include/asm/compat.h or elf.h); `None`: `name` still.
    pub compat_name: Option<&'static str>,
    /// ELF `e_machine` value (include/uapi/linux/elf-em.h).
    pub elf_machine: u16,
    /// Byte order, `long` width and 64-bit alignment of the guest's C ABI; an LP64 model
    /// means 64-bit ELF (ELFCLASS64) ([`ArchInfo::is_64bit`]).
    pub data_model: DataModel,
    /// Where the guest address-space windows go.
    pub layout: Layout,
    /// This arch's system-call numbers (built on first use).
    pub numbers: fn() -> &'static NumberTable,
    /// `AT_HWCAP` and `AT_HWCAP2` for the emulated CPU.
    pub hwcap: (u64, u64),
    /// `AT_PLATFORM` string, if the arch's kernel provides one.
    pub platform: Option<&'static str>,
    /// `AT_MINSIGSTKSZ` in bytes, on arches whose kernel provides it.
    pub minsigstksz: Option<u64>,
    /// Stack pointer alignment at process entry, in bytes (fs/binfmt_elf.c `STACK_ROUND`).
    pub stack_align: u64,
    /// A disassembler for fault reports and traces (capstone, in the guest's syntax).
    pub disassembler: fn() -> Option<Capstone>,
    /// The effective addresses of the memory operands of one decoded instruction (capstone's
    /// detail for the arch), for the exact `si_addr` of a fault (`crate::trace::fault`);
    /// `None` when an operand's register cannot be read.
    pub mem_operands: fn(&ArchDetail<'_>, &InsnRegs<'_>) -> Option<Vec<u64>>,
    /// The arch's vDSO image and calling convention ([`crate::gate`]); `None` maps no vDSO
    /// (no `AT_SYSINFO_EHDR`).
    pub vdso: Option<&'static VdsoSpec>,
    /// The arch's `struct stat` written at a guest address from a host stat (the generic row:
    /// asm-generic's, include/uapi/asm-generic/stat.h).
    pub write_stat: fn(&mut dyn crate::mm::GuestWrite, GuestAddr, &libc::stat) -> Result<(), Errno>,
    /// 32-bit guests: the arch's `struct stat64` written from a host stat. Errors: `EFAULT`;
    /// `ENOSYS` on arches without `stat64` (the generic row).
    pub write_stat64: fn(&mut AddressSpace, GuestAddr, &libc::stat) -> Result<(), Errno>,
    /// 32-bit guests: `true` if a 64-bit argument passed in a register pair starts at an
    /// even-numbered argument register (arm EABI, mips o32), `false` if it takes the next two
    /// (i386). See [`crate::syscall::compat32`].
    pub regpairs_aligned: bool,
    /// 32-bit guests: the `struct statfs64` size `statfs64`/`fstatfs64` accept as their `size`
    /// argument, mapped to the size of the kernel's struct (84 bytes on arm and i386); `None`
    /// for any other size (the call fails with `EINVAL`).
    pub statfs64_len: fn(u64) -> Option<u64>,
    /// The arch's `struct statfs` (asm-generic by default).
    pub statfs_shape: &'static Shape,
    /// `/proc/cpuinfo` for `ncpu` processors as the arch's kernel prints it for the guest's
    /// CPU model (`None`: the host's file).
    pub cpuinfo: Option<fn(usize) -> String>,
    /// The host's `POSIX_FADV_*` advice for the guest's (include/uapi/linux/fadvise.h: s390x
    /// numbers `DONTNEED` and `NOREUSE` 6 and 7, the others 4 and 5).
    pub fadvise_to_host: fn(i32) -> i32,
    /// The arch's `struct ipc64_perm` (asm-generic's by default; see `abi::shapes`).
    pub ipc_perm: &'static Shape,
    /// The arch's `struct semid64_ds` after its perm (asm-generic's by default).
    pub semid_ds_tail: &'static Shape,
    /// `SHMLBA`, the alignment of SysV shared-memory attaches in bytes, and whether an
    /// attach at an address not aligned to it fails without `SHM_RND` (`__ARCH_FORCE_SHMLBA`;
    /// otherwise page alignment is enough): arch/*/include/asm/shmparam.h.
    pub shmlba: (u64, bool),
    /// The arch's `MAP_32BIT` mmap flag and the range such mappings go to, if it has one.
    pub map_32bit: Option<(u64, std::ops::Range<u64>)>,
    /// `true` if the arch packs `struct epoll_event` to 12 bytes (x86_64 only).
    pub epoll_packed: bool,
    /// `true` if the kernel's `access_ok` refuses a user range that runs past the top of
    /// user space before a copy starts (`EFAULT`, nothing copied); s390x's has nothing to
    /// check (its user space is an address space of its own: arch/s390/include/asm/uaccess.h),
    /// so a copy there runs until it faults. Only 64-bit guests use it (see
    /// `crate::guest::shaped`).
    pub access_ok_range: bool,
    /// The arch's own `struct termios` and flag values (`None`: asm-generic's).
    pub termios: Option<ArchTermios>,
    /// `clone(2)`'s arguments as the arch passes them: one of kernel/fork.c's orders
    /// ([`CloneArgs::backwards`], the generic row's; [`CloneArgs::backwards2`];
    /// [`CloneArgs::default_order`]).
    pub clone_args: fn(&SyscallArgs) -> CloneArgs,
    /// The signal return seccomp's strict mode lets through with `read`, `write` and `exit`
    /// (asm/seccomp.h `__NR_seccomp_sigreturn`): `rt_sigreturn` (asm-generic), `sigreturn` on
    /// s390x and on i386 (x86's `__NR_seccomp_sigreturn_32` for a 32-bit task).
    pub seccomp_sigreturn: crate::abi::nr::Sys,

    // Signals.
    /// The guest kernel's `_NSIG`: its highest signal number (64; 128 on MIPS).
    pub nsig: u64,
    /// `sizeof(sigset_t)` the kernel accepts in `rt_sig*` calls, in bytes.
    pub sigset_size: u64,
    /// `true` if the arch defines `SA_RESTORER`, so its `struct sigaction` has an
    /// `sa_restorer` member before `sa_mask` (include/uapi/asm-generic/signal.h); riscv does not.
    pub has_sa_restorer: bool,
    /// Reads the kernel's `struct sigaction` at an address on arches whose layout is not the
    /// generic one (`None`: use [`crate::abi::shapes::SIGACTION`]); the mask comes back
    /// host-numbered.
    pub read_sigaction: fn(&AddressSpace, GuestAddr) -> Option<Result<SigAction, Errno>>,
    /// Writes a sigaction (host-numbered mask) as the arch's own `struct sigaction` (`None`:
    /// the generic layout applies).
    pub write_sigaction: fn(&mut AddressSpace, GuestAddr, &SigAction) -> Option<Result<(), Errno>>,
    /// `true` if the arch's `siginfo_t` has `si_code` before `si_errno` (MIPS,
    /// arch/mips/include/uapi/asm/siginfo.h) rather than `si_signo, si_errno, si_code`.
    pub siginfo_code_first: bool,
    /// `true` if the arch's `stack_t` is `{ss_sp, ss_size, ss_flags}` (MIPS) rather than
    /// `{ss_sp, ss_flags, ss_size}`.
    pub stack_t_size_first: bool,
    /// The arch's signal frames (`arch/<name>/signal.rs`); `None`: the arch has none yet.
    pub frames: Option<Frames>,

    // Numbers some arches number differently (MIPS). The generic row has the values of
    // include/uapi/asm-generic, which are the x86_64 host's: identity.
    /// Guest signal number to endgate's (the host's) numbering; `None` if the host has no
    /// such signal.
    pub signal_to_host: fn(u64) -> Option<Signal>,
    /// Host signal number to the guest's; 0 if the guest has no such signal.
    pub signal_from_host: fn(Signal) -> u64,
    /// Signals the guest's kernel has and the host's does not, by guest number and name
    /// (MIPS `SIGEMT` 7); endgate can name them but not deliver them.
    pub guest_only_signals: &'static [(u64, &'static str)],
    /// A guest `rt_sigprocmask` `how` as the generic value (`SIG_BLOCK` 0, `SIG_UNBLOCK` 1,
    /// `SIG_SETMASK` 2); anything else stays out of that range.
    pub sigmask_how_to_generic: fn(u64) -> u64,
    /// The host's `SA_NOCLDSTOP`/`SA_NOCLDWAIT` bits for a guest `sa_flags` (asm-generic: 1
    /// and 2; MIPS: 1 and 0x10000).
    pub sa_nocld_to_host: fn(u64) -> i32,
    /// A host `si_code` in the guest's numbering (MIPS numbers `SI_ASYNCIO`, `SI_TIMER` and
    /// `SI_MESGQ` -2, -3, -4 where asm-generic has -4, -2, -3).
    pub si_code_from_host: fn(i32) -> i32,
    /// A guest `si_code` in the host's numbering (the inverse of `si_code_from_host`).
    pub si_code_to_host: fn(i32) -> i32,
    /// A host errno in the guest's numbering (MIPS numbers 35 and up its own way,
    /// arch/mips/include/uapi/asm/errno.h); the arch's syscall return path applies it.
    pub errno_from_host: fn(i32) -> i32,
    /// A guest errno in the host's numbering (the inverse of `errno_from_host`, for the errno a
    /// guest's seccomp filter returns); a number with no host errno stays as it is.
    pub errno_to_host: fn(i32) -> i32,
    /// Guest `poll` event bits (`struct pollfd` `events`) to the host's (MIPS's
    /// `POLLWRNORM` is `POLLOUT` and its `POLLWRBAND` 0x100: arch/mips/include/uapi/asm/poll.h).
    pub poll_events_to_host: fn(i16) -> i16,
    /// Host `poll` event bits (`revents`) to the guest's.
    pub poll_events_from_host: fn(i16) -> i16,
    /// Guest `open` flags (O_*) to the host's; unknown bits are kept as they are.
    pub open_flags_to_host: fn(u64) -> i32,
    /// Host `open` flags to the guest's (for `fcntl(F_GETFL)`).
    pub open_flags_from_host: fn(i32) -> u64,
    /// The arch's `PROT_SEM` (asm-generic 0x8, MIPS 0x10: arch/mips/include/uapi/asm/mman.h),
    /// which `mprotect` accepts and ignores.
    pub prot_sem: u64,
    /// Guest `mmap` flags to the generic values (`MAP_ANONYMOUS` 0x20…).
    pub mmap_flags_to_generic: fn(u64) -> u64,
    /// The `mmap` flags, in the arch's own numbering, that `MAP_SHARED_VALIDATE` accepts for
    /// a file: the kernel's `LEGACY_MAP_MASK` (include/linux/mman.h) built from the arch's
    /// uapi values; any other bit is `EOPNOTSUPP`.
    pub mmap_validate_flags: u64,
    /// An `mmap` hint that is not page-aligned is rounded down (x86's
    /// `arch_get_unmapped_area`: `addr &= PAGE_MASK`), not up as the generic and the other
    /// arches' code does (`PAGE_ALIGN(addr)`, mm/mmap.c, arch/s390/mm/mmap.c…).
    pub mmap_hint_rounds_down: bool,
    /// A guest `fcntl` command to the host's.
    pub fcntl_cmd_to_host: fn(i32) -> i32,
    /// A guest `ioctl` request to the host's (terminal requests differ on MIPS).
    pub ioctl_to_host: fn(u64) -> u64,
    /// The host's `RLIMIT_*` number for the guest's.
    pub rlimit_resource_to_host: fn(i32) -> i32,
    /// A guest socket `type` argument (type plus `SOCK_NONBLOCK`/`SOCK_CLOEXEC`) to the host's.
    pub socket_type_to_host: fn(i32) -> i32,
    /// A host socket type (`SO_TYPE` answer) to the guest's.
    pub socket_type_from_host: fn(i32) -> i32,
    /// The arch's `SOL_SOCKET` (also the `cmsg_level` of `SCM_RIGHTS` messages).
    pub sol_socket: i32,
    /// A guest `(level, optname)` socket option to the host's.
    pub sockopt_to_host: fn(i32, i32) -> (i32, i32),
    /// What the arch's Linux makes of the protection-key calls on a CPU without the keys,
    /// which every guest CPU is.
    pub pkeys: Pkeys,
}

/// How an arch's Linux answers `pkey_alloc`, `pkey_free` and `pkey_mprotect` when the CPU has
/// no protection keys (each arch's asm/pkeys.h, include/linux/pkeys.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pkeys {
    /// No `ARCH_HAS_PKEYS`: key 0 is always allocated, no key can be allocated or freed.
    Generic,
    /// x86 (x86_64 and i386 on a 64-bit kernel) without OSPKE: one key, 0, taken as the
    /// execute-only key and never usable; the first `pkey_alloc` takes it and fails with
    /// `EINVAL`, later ones find none.
    X86,
    /// arm64 without POE: key 0 reserved in the allocation map (so it can be used and freed),
    /// none to allocate.
    Arm64,
}

/// Register values for evaluating an instruction's memory operands.
pub struct InsnRegs<'a> {
    /// A register by capstone id: 0 (no register) reads 0, x86_64's `rip` the next
    /// instruction's address.
    pub reg: &'a dyn Fn(RegId) -> Option<u64>,
    /// A register by the arch's name for it ([`super::GuestArch::read_reg_by_name`]).
    pub by_name: &'a dyn Fn(&str) -> Option<u64>,
    /// Capstone's name of a register id.
    pub name: &'a dyn Fn(RegId) -> Option<String>,
    /// The instruction's mnemonic as capstone writes it (`stmdb`, `vst1.8`, `amoadd.d`): for
    /// the forms whose operands do not spell out their addresses.
    pub mnemonic: &'a str,
}

impl ArchInfo {
    /// The byte order of guest data.
    #[inline]
    pub fn endian(&self) -> Endian {
        self.data_model.endian
    }

    /// `true` for a 64-bit guest: ELFCLASS64 and the LP64 data model.
    #[inline]
    pub fn is_64bit(&self) -> bool {
        self.data_model.is_64bit()
    }

    /// The bits of a register that are a guest `long` (32 on ILP32 guests, whose engine
    /// registers may be wider).
    #[inline]
    pub fn word_mask(&self) -> u64 {
        if self.data_model.long_bytes == 8 {
            !0
        } else {
            0xffff_ffff
        }
    }

    /// The arch's `AUDIT_ARCH_*` value (include/uapi/linux/audit.h): its ELF machine with
    /// `__AUDIT_ARCH_64BIT` for a 64-bit ABI and `__AUDIT_ARCH_LE` for little-endian, as
    /// seccomp filters see it in `seccomp_data.arch` (x86_64 0xc000003e, i386 0x40000003, s390x
    /// 0x80000016, mips64el n64 `AUDIT_ARCH_MIPSEL64` 0xc0000008).
    pub fn audit_arch(&self) -> u32 {
        let bits64 = if self.is_64bit() { 0x8000_0000 } else { 0 };
        let le = if self.endian() == Endian::Little { 0x4000_0000 } else { 0 };
        u32::from(self.elf_machine) | bits64 | le
    }

    /// The asm-generic row that arches complete: every conversion is asm-generic's, and the
    /// identity fields are placeholders each arch sets (a test checks that none is left).
    pub const GENERIC: ArchInfo = ArchInfo {
        regs: Regs::new(0, 0, None),
        engine: Engine::new(unicorn_engine::Arch::X86, unicorn_engine::Mode::MODE_64, None),
        name: "",
        compat_name: None,
        elf_machine: 0,
        data_model: DataModel::LP64_LE,
        layout: Layout {
            low_len: 0,
            dyn_base: 0,
            dyn_len: 0,
            task_size: 0,
            stack_top: 0,
            top_len: 0,
            fixed_page: None,
        },
        numbers: no_numbers,
        hwcap: (0, 0),
        platform: None,
        minsigstksz: None,
        stack_align: 16,
        disassembler: || None,
        mem_operands: |_, _| Some(Vec::new()),
        vdso: None,
        write_stat: |out, addr, st| crate::mm::write_struct_to(out, addr, &crate::abi::generic::Stat::from_host(st)),
        write_stat64: |_, _, _| Err(Errno::ENOSYS),
        regpairs_aligned: false,
        statfs64_len: |size| (size == crate::abi::stat32::STATFS64_SIZE).then_some(size),
        statfs_shape: crate::abi::shapes::STATFS,
        fadvise_to_host: |advice| advice,
        cpuinfo: None,
        ipc_perm: crate::abi::shapes::IPC64_PERM,
        semid_ds_tail: crate::abi::shapes::SEMID64_DS_TAIL,
        shmlba: (crate::mm::PAGE_SIZE, false),
        map_32bit: None,
        epoll_packed: false,
        access_ok_range: true,
        termios: None,
        clone_args: CloneArgs::backwards,
        seccomp_sigreturn: crate::abi::nr::Sys::rt_sigreturn,
        nsig: NSIG as u64,
        sigset_size: 8,
        has_sa_restorer: true,
        read_sigaction: |_, _| None,
        write_sigaction: |_, _, _| None,
        siginfo_code_first: false,
        stack_t_size_first: false,
        frames: None,
        signal_to_host: |sig| u32::try_from(sig).ok().filter(|s| (1..=NSIG).contains(s)).map(Signal),
        signal_from_host: |sig| u64::from(sig.0),
        guest_only_signals: &[],
        sigmask_how_to_generic: |how| how,
        sa_nocld_to_host: |flags| (flags & 3) as i32,
        si_code_from_host: |code| code,
        si_code_to_host: |code| code,
        errno_from_host: |e| e,
        errno_to_host: |e| e,
        poll_events_to_host: |ev| ev,
        poll_events_from_host: |ev| ev,
        open_flags_to_host: |flags| crate::abi::int32(flags),
        open_flags_from_host: |flags| u64::from(crate::abi::low32(flags)),
        prot_sem: 0x8,
        mmap_flags_to_generic: |flags| flags,
        mmap_validate_flags: crate::abi::MMAP_LEGACY_FLAGS,
        mmap_hint_rounds_down: false,
        fcntl_cmd_to_host: |cmd| cmd,
        ioctl_to_host: |req| req,
        rlimit_resource_to_host: |r| r,
        socket_type_to_host: |ty| ty,
        socket_type_from_host: |ty| ty,
        sol_socket: libc::SOL_SOCKET,
        sockopt_to_host: |level, name| (level, name),
        pkeys: Pkeys::Generic,
    };
}

/// The generic row's number table: empty (every arch names its own).
fn no_numbers() -> &'static NumberTable {
    static EMPTY: std::sync::OnceLock<NumberTable> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| NumberTable::new(std::iter::empty()))
}
