//! Guest architectures.
//!
//! Everything one guest architecture changes lives in its own folder, and every folder has the
//! same files, so two arches can be compared file by file (as QEMU's `linux-user/<target>/`):
//! - `mod.rs` — the [`GuestArch`] implementation: unicorn arch/mode and CPU model, initial
//!   registers, the syscall trap hook and register ABI, TLS register, auxv `AT_HWCAP`/`AT_PLATFORM`,
//!   how CPU exceptions become signals;
//! - `abi.rs` — struct layouts and flag values that differ from other arches, each naming the
//!   uapi header it follows;
//! - `vdso.rs` — the arch's vDSO ([`crate::gate`]): its version nodes with the functions each
//!   exports, the return instruction, and what else differs from [`linux_vdso`];
//! - `traps.rs` (where the kernel has them) — instructions the kernel completes for user
//!   space after they trap (arm64's emulated ID-register reads).
//!
//! System calls only one arch has are not here: they are rows and handlers in
//! `crate::syscall::arch::<name>`, which call down into this folder for CPU state (arch code
//! never imports a handler).
//!
//! Generic code never asks "which arch is this?"; it calls a [`GuestArch`] method.

/// The [`crate::guest::ArchInfo::numbers`] function of an arch whose system calls are the
/// `syscalls` crate's table `$table` (`aarch64`, `x86`…): its numbers and names, each name
/// passed through `$rename` where one is given (i386's), made into a table on first use. A
/// macro because each table has a `Sysno` type of its own, with no trait in common.
macro_rules! syscall_numbers {
    ($table:ident) => {
        syscall_numbers!($table, |name| name)
    };
    ($table:ident, $rename:expr) => {
        syscall_numbers!($table, $rename, [])
    };
    // `extra`: numbers the kernel's table has and the crate's lacks, as `(number, name)`.
    ($table:ident, $rename:expr, $extra:expr) => {{
        fn numbers() -> &'static crate::abi::nr::NumberTable {
            static TABLE: std::sync::OnceLock<crate::abi::nr::NumberTable> = std::sync::OnceLock::new();
            TABLE.get_or_init(|| {
                let extra: &[(u64, &'static str)] = &$extra;
                let named = ::syscalls::$table::Sysno::iter()
                    .filter_map(|s| Some((u64::try_from(s.id()).ok()?, ($rename)(s.name()))))
                    .chain(extra.iter().copied());
                crate::abi::nr::NumberTable::new(named)
            })
        }
        numbers
    }};
}

/// The name in the table of i386 or arm (the two that kept the 16-bit-id calls, kernel/uid16.c)
/// of a kernel entry point the `syscalls` crate calls `name`: the calls at their historic
/// numbers that take 16-bit ids become the `…16` members of `Sys` (each arch's syscall table
/// names `sys_getuid16`… there); the `…32` calls that replaced them keep their names and are
/// served by `crate::syscall::compat32`, or, if `Sys` has no member of that name, by the
/// generic call (`setfsuid32` is `setfsuid`).
pub(crate) fn uid16_name(name: &'static str) -> &'static str {
    match name {
        "getuid" => "getuid16",
        "geteuid" => "geteuid16",
        "getgid" => "getgid16",
        "getegid" => "getegid16",
        "setuid" => "setuid16",
        "setgid" => "setgid16",
        "setreuid" => "setreuid16",
        "setregid" => "setregid16",
        "setresuid" => "setresuid16",
        "setresgid" => "setresgid16",
        "getresuid" => "getresuid16",
        "getresgid" => "getresgid16",
        "getgroups" => "getgroups16",
        "setgroups" => "setgroups16",
        "chown" => "chown16",
        "lchown" => "lchown16",
        "fchown" => "fchown16",
        "setfsuid" => "setfsuid16",
        "setfsgid" => "setfsgid16",
        // A `…32` call `Sys` does not name is the generic call.
        _ => match name.strip_suffix("32") {
            Some(base) if crate::abi::nr::Sys::from_name(name).is_none() && uid16_name(base).ends_with("16") => base,
            _ => name,
        },
    }
}

/// The CPU state Linux copies from a thread to the threads it creates that endgate keeps per
/// host thread rather than in the instance: x86's last exception and page-fault address (the
/// `trapno`, `err` and `cr2` of a new thread's signal frames until its own first fault).
/// Nothing on the other arches.
pub(crate) struct ThreadState((u64, u64, u64));

/// The calling thread's [`ThreadState`], for a thread it is creating.
pub(crate) fn thread_state() -> ThreadState {
    ThreadState(x86_64::trap::snapshot())
}

/// Makes `s`, taken by the creating thread, the calling (new) thread's.
pub(crate) fn inherit_thread_state(s: ThreadState) {
    x86_64::trap::restore(s.0);
}

pub mod aarch64;
pub mod arm;
pub mod i386;
pub mod mips64el;
pub mod riscv64;
pub mod s390x;
pub mod x86_64;

use crate::gate::{CallAbi, VdsoSpec};
pub use crate::guest::arch::TCG_BUFFER_BYTES;
pub(crate) use crate::guest::arch::{read_regs, write_regs};
use crate::guest::ArchInfo;
pub use crate::guest::{exception_siginfo_for, ArchTermios, CloneArgs, Cpu, Entries, GuestArch, SyscallArgs};
use crate::mm::{DataModel, Layout};
use crate::signal::Signal;

/// The arch for an ELF `e_machine`, or `None` if endgate cannot run it.
pub fn for_elf_machine(machine: u16, is_64: bool) -> Option<&'static dyn GuestArch> {
    ALL.iter().map(|&(_, a)| a).find(|a| a.info().elf_machine == machine && a.info().is_64bit() == is_64)
}

/// Every guest arch endgate runs, with the name users know it by (Debian's for the 32-bit
/// ones' ABI family; `uname -m` in the guest says [`GuestArch::name`]).
pub static ALL: [(&str, &'static dyn GuestArch); 7] = [
    ("x86_64", &x86_64::X86_64),
    ("aarch64", &aarch64::Aarch64),
    ("riscv64", &riscv64::Riscv64),
    ("arm", &arm::Arm),
    ("i386", &i386::I386),
    ("s390x", &s390x::S390x),
    ("mips64el", &mips64el::Mips64el),
];

/// The address-space windows of a 64-bit arch with room to spare (x86_64, aarch64, riscv64,
/// s390x): 16 GiB from 0 for `ET_EXEC` images and brk, 16 GiB at the PIE base `dyn_base`, and
/// 64 GiB below `task_size` for the stack and the top-down mmap area (the stack's top is
/// `task_size`, Linux's `STACK_TOP` on these arches but s390x).
pub(crate) const fn windows_64(dyn_base: u64, task_size: u64) -> Layout {
    Layout {
        low_len: 16 << 30,
        dyn_base,
        dyn_len: 16 << 30,
        task_size,
        stack_top: task_size,
        top_len: 64 << 30,
        fixed_page: None,
    }
}

/// A vDSO as most arches' kernels link it: `linux-vdso.so.1` with `__vdso_` names, no
/// `e_flags`, no `AT_SYSINFO`, 4-byte `.hash` words and a `.gnu.hash` table. Each slot holds
/// `ret`; the landing holds the row's trap instruction (`regs.trap`). The functions take their
/// first two integer arguments and give their result in the registers the arch's system calls
/// use for them (`regs`: the first two argument registers and the result register; every
/// arch's C ABI but i386's does so). Each `arch/<name>/vdso.rs` completes it
/// (`..linux_vdso(…)`) with its versions and functions and what else differs.
pub(crate) const fn linux_vdso(regs: &crate::guest::Regs, ret: &'static [u8]) -> VdsoSpec {
    VdsoSpec {
        soname: "linux-vdso.so.1",
        e_flags: 0,
        versions: &[],
        prefix: "__vdso_",
        plain_aliases: false,
        ret,
        trap: regs.trap,
        abi: CallAbi::Regs { args: [regs.args[0], regs.args[1]], ret: regs.ret },
        pc: regs.pc,
        at_sysinfo: false,
        hash_word: 4,
        gnu_hash: true,
    }
}

/// [`GuestArch::trap`] of an arch whose system-call trap raises interrupt `trap` (aarch64,
/// riscv64, mips64el): that one is the call in the registers [`GuestArch::syscall_args`]
/// reads; any other goes to `complete` first, which finishes what the kernel completes for
/// user space (arm64's ID-register reads) and returns `true` for those, and otherwise becomes
/// a signal.
#[inline]
pub(crate) fn trap_or_exception<A: GuestArch>(
    arch: &A,
    cpu: &mut Cpu<'_>,
    intno: u32,
    trap: u32,
    entries: Entries,
    complete: fn(&mut Cpu<'_>, u32) -> bool,
) -> Option<SyscallArgs> {
    if intno == trap {
        return Some(arch.syscall_args(cpu));
    }
    if !complete(cpu, intno) {
        (entries.exception)(cpu, intno);
    }
    None
}

/// The signal a CPU exception raises, from the arch's table of rows (exception number as
/// unicorn passes it to the interrupt hook, signal); SIGILL for a number the table lacks.
pub(crate) fn exception_signal_of(table: &[(u32, Signal)], intno: u32) -> Signal {
    table.iter().find(|row| row.0 == intno).map_or(Signal::SIGILL, |row| row.1)
}

/// An effective address as the CPU computes it for a memory operand: `base + index * scale +
/// disp` in wrapping 64-bit arithmetic, where a negative scale or displacement wraps as it does
/// in the CPU's adder; for the arches' `mem_operands` (the exact `si_addr` of a fault).
#[allow(clippy::cast_sign_loss)] // the wrapping conversion is the point
pub(crate) fn effective_address(base: u64, index: u64, scale: i64, disp: i64) -> u64 {
    base.wrapping_add(index.wrapping_mul(scale as u64)).wrapping_add(disp as u64)
}

/// The row arm and i386 complete: [`ArchInfo::GENERIC`] but for what the two 32-bit arches
/// share — 4-byte `long`s and pointers, the old `struct stat` ([`crate::abi::stat32`]; a value
/// it cannot hold is `EOVERFLOW`) and `struct stat64` ([`crate::abi::stat32::STAT64`]), and
/// `struct ipc64_perm` with their 16-bit `__kernel_mode_t`
/// ([`crate::abi::shapes::IPC64_PERM_MODE16`]).
pub(crate) const ILP32: ArchInfo = ArchInfo {
    data_model: DataModel::ILP32_LE,
    write_stat: |out, addr, st| crate::mm::write_struct_to(out, addr, &crate::abi::stat32::Stat::from_host(st)?),
    write_stat64: |mm, addr, st| {
        mm.write_shape(addr, crate::abi::stat32::STAT64, &crate::abi::stat32::stat64_from_host(st))
    },
    ipc_perm: crate::abi::shapes::IPC64_PERM_MODE16,
    ..ArchInfo::GENERIC
};

/// Name of an ELF machine for error messages (include/uapi/linux/elf-em.h).
pub fn elf_machine_name(machine: u16) -> &'static str {
    match machine {
        3 => "i386",
        8 => "mips",
        20 => "ppc",
        21 => "ppc64",
        22 => "s390",
        40 => "arm",
        62 => "x86_64",
        183 => "aarch64",
        243 => "riscv",
        258 => "loongarch",
        _ => "unknown machine",
    }
}

/// The names of the bits set in `hwcap`, in bit order, space-separated: the `Features`-style
/// line of `/proc/cpuinfo`, from the arch's table of `AT_HWCAP` bit names (`""` for a bit the
/// kernel does not name).
pub fn hwcap_names(hwcap: u64, names: &[&str]) -> String {
    let set = names.iter().enumerate().filter(|&(bit, n)| !n.is_empty() && hwcap >> bit & 1 == 1);
    set.map(|(_, n)| *n).collect::<Vec<_>>().join(" ")
}

/// The inverse of [`hwcap_names`]: the `AT_HWCAP` value with the bits named in `set` on, each
/// bit found by its name in the arch's table `names` (bit `i` is `names[i]`). A name the table
/// lacks fails the build (the search runs past the table's end).
pub(crate) const fn hwcap_of(names: &[&str], set: &[&str]) -> u64 {
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        let mut i = 0;
        while i < a.len() && i < b.len() && a[i] == b[i] {
            i += 1;
        }
        i == a.len() && i == b.len()
    }
    let mut hwcap = 0;
    let mut i = 0;
    while i < set.len() {
        let mut bit = 0;
        while !same(names[bit], set[i]) {
            bit += 1;
        }
        hwcap |= 1 << bit;
        i += 1;
    }
    hwcap
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mm::GuestAddr;

    /// Every arch's data row sets the identity fields the generic row leaves as placeholders.
    #[test]
    fn every_row_is_complete() {
        for (user_name, arch) in &ALL {
            let i = arch.info();
            assert!(!i.name.is_empty(), "{user_name}: name");
            assert_ne!(i.elf_machine, 0, "{user_name}: elf_machine");
            assert_ne!(i.layout.task_size, 0, "{user_name}: layout");
            assert!((i.numbers)().number_of(crate::abi::nr::Sys::exit).is_some(), "{user_name}: numbers");
            assert!((i.disassembler)().is_some(), "{user_name}: disassembler");
            assert!(i.vdso.is_some(), "{user_name}: vdso");
            assert!(for_elf_machine(i.elf_machine, i.is_64bit()).is_some_and(|a| std::ptr::eq(a.info(), i)));
        }
    }

    /// Every arch's address-space windows are page-aligned and in order: the low one from 0,
    /// the PIE window above it, the top one ending at `stack_top`, at or below `task_size`.
    #[test]
    fn windows_are_ordered_and_page_aligned() {
        for (user_name, arch) in &ALL {
            let l = arch.info().layout;
            for v in [l.low_len, l.dyn_base, l.dyn_len, l.task_size, l.stack_top, l.top_len] {
                assert_eq!(v % crate::mm::PAGE_SIZE, 0, "{user_name}: {v:#x}");
            }
            assert!(l.low_len <= l.dyn_base, "{user_name}: low window");
            assert!(l.dyn_base + l.dyn_len <= l.stack_top - l.top_len, "{user_name}: PIE window");
            assert!(l.stack_top <= l.task_size, "{user_name}: stack top");
        }
    }

    /// Every arch's PIE base is its kernel's `ELF_ET_DYN_BASE` (arch/*/include/asm/elf.h): two
    /// thirds of the address space, rounded down to a page (arm: of arm64's compat 4 GiB,
    /// `COMPAT_ELF_ET_DYN_BASE`; x86_64: of its 47-bit `DEFAULT_MAP_WINDOW`), on s390x to
    /// 4 GiB and of `STACK_TOP`; i386's is 4 MiB.
    #[test]
    fn pie_base_is_elf_et_dyn_base() {
        let two_thirds = |top: u64, align: u64| (top / 3 * 2) & !(align - 1);
        for (user_name, arch) in &ALL {
            let l = arch.info().layout;
            let want = match *user_name {
                "i386" => 0x40_0000,
                "s390x" => two_thirds(l.stack_top, 1 << 32),
                _ => two_thirds(l.task_size, crate::mm::PAGE_SIZE),
            };
            assert_eq!(l.dyn_base, want, "{user_name}");
        }
    }

    /// Asserts that `arch`'s table numbers each call as `expect` says (its kernel's
    /// syscall*.tbl).
    pub(crate) fn assert_numbers(arch: &dyn GuestArch, expect: &[(u64, crate::abi::nr::Sys)]) {
        let table = (arch.info().numbers)();
        for &(nr, sys) in expect {
            assert_eq!(table.lookup(nr), Some(sys), "{}: {nr}", arch.info().name);
        }
    }

    fn space(arch: &dyn GuestArch) -> crate::mm::AddressSpace {
        let mut mm = crate::mm::AddressSpace::new(arch.info().layout, arch.info().data_model).unwrap();
        mm.map_anon(0x10_0000, 0x1000, crate::mm::Prot::READ | crate::mm::Prot::WRITE, crate::mm::VmaName::Anon)
            .unwrap();
        mm
    }

    /// `siginfo_t` as each uapi header lays it out: `si_code` at 8 (at 4 on MIPS), the union
    /// at 16 on LP64 and 12 on ILP32, `si_value` after two ints, `si_utime` after three; and a
    /// queued `siginfo_t` reads back as written.
    #[test]
    fn siginfo_layout_per_arch() {
        use crate::guest::sigframe::{read_siginfo_rt, write_siginfo};
        use crate::signal::{SigFields, SigInfo};
        for (user_name, arch) in &ALL {
            let mut mm = space(*arch);
            let long = u64::from(arch.info().data_model.long_bytes);
            let chld = SigInfo {
                signo: Signal::SIGCHLD,
                errno: 0,
                code: 2, // CLD_KILLED: si_status is a signal number
                fields: SigFields::Chld { pid: 77, uid: 5, status: 9, utime: 3, stime: 4 },
            };
            write_siginfo(&mut mm, *arch, GuestAddr::new(0x10_0000), &chld).unwrap();
            let code_at = if arch.info().siginfo_code_first { 4 } else { 8 };
            let u = if long == 8 { 16 } else { 12 };
            assert_eq!(mm.read_u32(GuestAddr::new(0x10_0000 + code_at)).unwrap(), 2, "{user_name}: si_code");
            assert_eq!(mm.read_u32(GuestAddr::new(0x10_0000 + u)).unwrap(), 77, "{user_name}: si_pid");
            assert_eq!(
                mm.read_u32(GuestAddr::new(0x10_0000 + u + 8)).unwrap(),
                9,
                "{user_name}: si_status (SIGKILL is 9 everywhere)"
            );
            let t = u + 12u64.next_multiple_of(long);
            assert_eq!(mm.read_ulong(GuestAddr::new(0x10_0000 + t)).unwrap(), 3, "{user_name}: si_utime");
            let rt = SigInfo {
                signo: Signal::SIGUSR1,
                errno: 7,
                code: -1, // SI_QUEUE
                fields: SigFields::Rt { pid: 1234, uid: 99, value: 0xabcd },
            };
            write_siginfo(&mut mm, *arch, GuestAddr::new(0x10_0000), &rt).unwrap();
            assert_eq!(
                read_siginfo_rt(&mm, *arch, GuestAddr::new(0x10_0000)).unwrap(),
                (7, -1, 1234, 99, 0xabcd),
                "{user_name}"
            );
            assert_eq!(
                mm.read_ulong(GuestAddr::new(0x10_0000 + u + 8u64.next_multiple_of(long))).unwrap(),
                0xabcd,
                "{user_name}"
            );
        }
    }

    /// `stack_t` is `{ss_sp, ss_flags, ss_size}`, `{ss_sp, ss_size, ss_flags}` on MIPS.
    #[test]
    fn stack_t_layout_per_arch() {
        use crate::guest::sigframe::{read_stack_t, write_stack_t};
        for (user_name, arch) in &ALL {
            let mut mm = space(*arch);
            let long = u64::from(arch.info().data_model.long_bytes);
            write_stack_t(&mut mm, *arch, GuestAddr::new(0x10_0000), (0x7000, 1, 0x4000)).unwrap();
            let (flags_at, size_at) = if arch.info().stack_t_size_first { (2 * long, long) } else { (long, 2 * long) };
            assert_eq!(mm.read_u32(GuestAddr::new(0x10_0000 + flags_at)).unwrap(), 1, "{user_name}: ss_flags");
            assert_eq!(mm.read_ulong(GuestAddr::new(0x10_0000 + size_at)).unwrap(), 0x4000, "{user_name}: ss_size");
            assert_eq!(
                read_stack_t(&mm, *arch, GuestAddr::new(0x10_0000)).unwrap(),
                (0x7000, 1, 0x4000),
                "{user_name}"
            );
        }
    }
}
