//! The gate: endgate's vsyscall page and vDSO.
//!
//! Linux gives user space a page of its own code to call instead of trapping: the vDSO
//! (announced with `AT_SYSINFO_EHDR`), i386's `__kernel_vsyscall` (`AT_SYSINFO`), arm's kuser
//! helpers, x86_64's legacy vsyscall page. Libc looks the vDSO's functions up by name and
//! version and calls them for the clock reads a program makes in loops. For an emulator the
//! same trick saves the trip out of translated code that a trap instruction costs.
//!
//! # How a call is served
//! endgate builds a vDSO ELF image for the guest's arch ([`vdso`]) and maps it read+exec in
//! the top-down mmap area, like Linux. Each exported function is one *return* instruction
//! (x86 `ret`, aarch64 `ret`, s390x `br %r14`…) at its own 16-byte slot. A unicorn code hook
//! covers exactly the slots (`crate::syscall::gate`, the layer above): unicorn checks a code hook's range when it translates,
//! so no other guest code pays for it, and while it is the instance's only code hook unicorn
//! emits a direct call to it instead of its hook-list walk (endgate installs no other). When the guest calls a slot, the hook runs before the
//! return instruction: it reads the arguments from the arch's function-call registers, does
//! the work on the host (a clock read through the host's own vDSO, no system call), writes
//! the result to guest memory and the return register; then the return instruction takes
//! the guest back to its caller. The guest never leaves `emu_start`.
//!
//! Besides the arch's usual vDSO functions, every arch's vDSO exports `__kernel_vsyscall`, a
//! generic system-call entry named after i386's: the number and arguments go in exactly the
//! registers the arch's trap instruction takes, the call returns like a function with the
//! trap's result registers set. On i386 `AT_SYSINFO` points at it and glibc sends every
//! system call through it (`call *%gs:0x10`).
//!
//! # When a call must leave `emu_start`
//! A system call through `__kernel_vsyscall` may need the run loop (`exit`, `execve`,
//! `clone`, `rt_sigreturn`, a signal to deliver). The hook then stops the engine with the
//! program counter at the *landing*: a return instruction that follows a copy of the arch's
//! trap instruction, outside the hooked slots. The run loop resumes there (the call returns
//! to its caller), a signal frame records it as the interrupted program counter, and a call
//! the kernel restarts backs up onto the trap instruction and runs again through the ordinary
//! trap path — the same thing Linux does with the `int $0x80` inside its vDSO.
//!
//! Layout sources: the vDSO symbol names and versions are each arch's
//! `arch/*/kernel/vdso*/vdso.lds.S` (Linux 6.x); the calling conventions are the psABIs.

pub mod vdso;

use syscalls::Errno;

use crate::abi::Endian;
use crate::mm::{AddressSpace, GuestAddr, Prot, VmaName, PAGE_SIZE};

/// What one gate slot does when called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `clock_gettime(clockid_t, struct timespec *)` with the arch's native `time_t` (32-bit
    /// `timespec` on i386/arm's `__vdso_clock_gettime`).
    ClockGettime,
    /// `clock_gettime` with a 64-bit `struct __kernel_timespec` (i386/arm
    /// `__vdso_clock_gettime64`).
    ClockGettime64,
    /// `gettimeofday(struct timeval *, struct timezone *)`.
    Gettimeofday,
    /// `time(time_t *)`.
    Time,
    /// `clock_getres(clockid_t, struct timespec *)`, native `time_t`.
    ClockGetres,
    /// `clock_getres` with a 64-bit `timespec` (i386 `__vdso_clock_getres_time64`).
    ClockGetres64,
    /// `getcpu(unsigned *cpu, unsigned *node, void *cache)`.
    Getcpu,
    /// The generic system-call entry `__kernel_vsyscall` (see the module doc).
    Syscall,
}

impl Entry {
    /// The name the function is exported under after the arch's [`VdsoSpec::prefix`]
    /// (`clock_gettime` of `__vdso_clock_gettime`, `clock_getres_time64` of i386's
    /// `__vdso_clock_getres_time64`); [`Entry::Syscall`] is `__kernel_vsyscall` on every arch.
    pub const fn name(self) -> &'static str {
        match self {
            Entry::ClockGettime => "clock_gettime",
            Entry::ClockGettime64 => "clock_gettime64",
            Entry::Gettimeofday => "gettimeofday",
            Entry::Time => "time",
            Entry::ClockGetres => "clock_getres",
            Entry::ClockGetres64 => "clock_getres_time64",
            Entry::Getcpu => "getcpu",
            Entry::Syscall => "__kernel_vsyscall",
        }
    }
}

/// How a gate function receives its arguments and returns its result.
#[derive(Clone, Copy, Debug)]
pub enum CallAbi {
    /// The first two integer arguments in these registers (unicorn register ids; no gate
    /// function reads a third), the result in `ret`.
    Regs {
        /// Argument registers, in order.
        args: [i32; 2],
        /// Return-value register.
        ret: i32,
    },
    /// i386 cdecl: 4-byte arguments on the stack above the return address (`esp + 4`,
    /// `esp + 8`), the result in `ret` (`eax`); `sp` is `esp`'s register id.
    Stack32 {
        /// Stack-pointer register.
        sp: i32,
        /// Return-value register.
        ret: i32,
    },
}

/// What one arch's vDSO looks like; each arch's `vdso.rs` declares its own.
#[derive(Debug)]
pub struct VdsoSpec {
    /// `DT_SONAME` of the image (`linux-vdso.so.1`, i386 `linux-gate.so.1`).
    pub soname: &'static str,
    /// ELF `e_flags` (arm EABI version and float ABI, MIPS ABI bits; 0 elsewhere).
    pub e_flags: u32,
    /// The version nodes the arch's linker script defines (`LINUX_2.6`), each with the
    /// functions it exports, in symbol order.
    pub versions: &'static [(&'static str, &'static [Entry])],
    /// What the exported names start with: `__vdso_`, or `__kernel_` (aarch64, s390x);
    /// [`Entry::Syscall`] is `__kernel_vsyscall` whatever the prefix.
    pub prefix: &'static str,
    /// `true` if each function is exported under its plain name too (`clock_gettime` beside
    /// `__vdso_clock_gettime`; x86_64). The alias shares the function's slot.
    pub plain_aliases: bool,
    /// The return instruction each slot holds, as bytes in guest order.
    pub ret: &'static [u8],
    /// The arch's system-call trap instruction, as bytes in guest order (its row's
    /// `Regs::trap`); the landing is right after a copy of it.
    pub trap: &'static [u8],
    /// How the clock functions take their arguments.
    pub abi: CallAbi,
    /// The program-counter register (unicorn id), for moving a stopped call to the landing.
    pub pc: i32,
    /// `true` if the auxv carries `AT_SYSINFO` (the address of `__kernel_vsyscall`; i386).
    pub at_sysinfo: bool,
    /// Size in bytes of one SysV `.hash` word: 4, but 8 on s390x (its ELF ABI's
    /// `Elf_Symndx` is 64 bits wide).
    pub hash_word: usize,
    /// `true` to add a `.gnu.hash` table besides `.hash`, as the arch's kernel links its vDSO
    /// (`--hash-style=both`); aarch64's has `.hash` only.
    pub gnu_hash: bool,
}

impl VdsoSpec {
    /// The exported symbols in order: name, version node (an index into `versions`), what it
    /// does.
    pub fn symbols(&self) -> Vec<(String, usize, Entry)> {
        let mut v = Vec::new();
        for (version, (_, entries)) in self.versions.iter().enumerate() {
            for &e in *entries {
                if e == Entry::Syscall {
                    v.push((e.name().to_string(), version, e));
                    continue;
                }
                v.push((format!("{}{}", self.prefix, e.name()), version, e));
                if self.plain_aliases {
                    v.push((e.name().to_string(), version, e));
                }
            }
        }
        v
    }
}

/// Distance between two slots in bytes.
pub const SLOT: u64 = 16;

/// The gate as mapped into one process: where it is and what each slot does.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    /// Guest address of the vDSO image (`AT_SYSINFO_EHDR`); 0 when the arch has none.
    pub base: u64,
    /// First guest address of the hooked slots.
    pub slots: u64,
    /// What each slot does, in slot order.
    pub entries: Vec<Entry>,
    /// Guest address of the landing (see the module doc).
    pub landing: u64,
    /// Guest address of `__kernel_vsyscall` (i386 `AT_SYSINFO`).
    pub vsyscall: u64,
    /// The arch's description the image was built from (calling convention, PC register,
    /// whether `AT_SYSINFO` is announced); `None` when the arch has no vDSO.
    pub spec: Option<&'static VdsoSpec>,
}

impl Gate {
    /// The auxv entries announcing the gate: `AT_SYSINFO` (i386) and `AT_SYSINFO_EHDR`.
    pub fn auxv(&self) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        if self.spec.is_some_and(|s| s.at_sysinfo) && self.vsyscall != 0 {
            v.push((crate::abi::at::AT_SYSINFO, self.vsyscall));
        }
        if self.base != 0 {
            v.push((crate::abi::at::AT_SYSINFO_EHDR, self.base));
        }
        v
    }

    /// The inclusive guest range the code hook covers (empty when there is no gate).
    pub fn hook_range(&self) -> Option<(u64, u64)> {
        let n = self.entries.len() as u64;
        (n > 0).then(|| (self.slots, self.slots + n * SLOT - 1))
    }
}

/// The distinct entries of `spec`, in the order of their first symbol: slot `i` serves
/// entry `i` (aliases of one function share its slot).
pub fn slot_entries(spec: &VdsoSpec) -> Vec<Entry> {
    let mut v: Vec<Entry> = Vec::new();
    for &(_, entries) in spec.versions {
        for &e in entries {
            if !v.contains(&e) {
                v.push(e);
            }
        }
    }
    v
}

/// Builds the vDSO `spec` describes (for ELF machine `elf_machine`, 64-bit or not, in byte
/// order `endian`), maps it read+exec at the top of the mmap area (as `[vdso]`) and returns
/// where its parts are; a default (empty) [`Gate`] if the arch has no vDSO (`spec` is `None`).
/// Errors: `ENOMEM` when the address space has no room.
pub fn map(
    mm: &mut AddressSpace,
    spec: Option<&'static VdsoSpec>,
    elf_machine: u16,
    is_64bit: bool,
    endian: Endian,
) -> Result<Gate, Errno> {
    let Some(spec) = spec else { return Ok(Gate::default()) };
    let image = vdso::build(spec, elf_machine, is_64bit, endian);
    let len = crate::mm::page_ceil(image.bytes.len() as u64).ok_or(Errno::ENOMEM)?;
    let base = mm.find_free(len).ok_or(Errno::ENOMEM)?;
    mm.map_anon(base, len, Prot::READ | Prot::EXEC, VmaName::Gate("[vdso]"))?;
    mm.poke_bytes(GuestAddr::new(base), &image.bytes)?;
    debug_assert!(len >= PAGE_SIZE);
    let entries = slot_entries(spec);
    let vsyscall =
        entries.iter().position(|e| *e == Entry::Syscall).map_or(0, |i| base + image.slots + i as u64 * SLOT);
    Ok(Gate { base, slots: base + image.slots, entries, landing: base + image.landing, vsyscall, spec: Some(spec) })
}
