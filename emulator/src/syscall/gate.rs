//! The gate's code hook: what happens when the guest calls a vDSO slot.
//!
//! The clock functions are answered here without a host system call: the host's own vDSO
//! (through `libc::clock_gettime`) reads the clock, and the result goes straight into guest
//! memory in the guest's layout and byte order. As with Linux's vDSO, these calls never show
//! under `--strace`. Results follow the vDSO's contract: 0, or a negative errno in the
//! return register (`-EINVAL` for a clock the host refuses). A pointer the guest cannot write
//! raises SIGSEGV at that address with the program counter in the vDSO, as the store in
//! Linux's vDSO would (`SEGV_MAPERR`, or `SEGV_ACCERR` for a mapped page without write
//! permission); a handler that fixes the page and returns makes the call run again.
//!
//! `__kernel_vsyscall` runs the ordinary dispatcher ([`crate::syscall::serve_locked`], inlined
//! here as in the trap's hook); when the call stops the engine, the program
//! counter moves to the landing (see [`crate::gate`]).
//!
//! While threads run in parallel, the hook serves the clock entries without the global guest
//! lock when it can ([`clock_unlocked`]) and leaves `__kernel_vsyscall`'s call to
//! `serve_locked`, which takes the lock only for a call that needs it
//! (`crate::syscall::unlocked`).

use crate::abi::DataModel;
use crate::guard::Checked;
use crate::guest::{Cpu, PinnedRegs};
use crate::mm::fill_view::FillView;
use crate::mm::{AddressSpace, Endian, GuestAddr, Prot};

use crate::gate::{CallAbi, Entry};

/// The code hook's work at `slot` (installed by [`install_hook`], which finds the slot).
/// Inlined into the hook, so that a
/// system call through `__kernel_vsyscall` has no frame of its own live across the host call
/// (see [`super::install_trap_hooks`]).
#[inline(always)]
fn on_slot(cpu: &mut Cpu<'_>, slot: &Slot) {
    let Slot { entry, spec, .. } = *slot;
    if entry == Entry::Syscall {
        serve_syscall(cpu, slot, super::serve_locked);
        return;
    }
    let abi = spec.abi;
    let args = call_args(cpu, abi);
    let result = match clock_call(&mut *cpu.get_data_mut().mm, entry, args) {
        // Linux's vDSO makes the system call for this clock: a pointer it cannot write is the
        // call's EFAULT, not a fault of the store.
        Err(_) if answered_by_syscall(entry, args[0]) => Ok(-i64::from(libc::EFAULT)),
        r => r,
    };
    match result {
        Ok(ret) => {
            let reg = match abi {
                CallAbi::Regs { ret, .. } | CallAbi::Stack32 { ret, .. } => ret,
            };
            crate::arch::write_regs(cpu, &[reg], &[crate::abi::bits64(ret)]);
        }
        Err(BadStore { addr, mapped, bus }) => {
            use crate::signal::si_code::{BUS_ADRERR, SEGV_ACCERR, SEGV_MAPERR};
            use crate::signal::Signal;
            let (sig, code) = match (bus, mapped) {
                (true, _) => (Signal::SIGBUS, BUS_ADRERR),
                (false, true) => (Signal::SIGSEGV, SEGV_ACCERR),
                (false, false) => (Signal::SIGSEGV, SEGV_MAPERR),
            };
            let t = cpu.get_data_mut();
            let info = crate::signal::SigInfo::fault(sig, code, addr);
            // As a store of the guest's own: the arch may say otherwise (x86_64's
            // non-canonical addresses are general-protection faults).
            let info = if bus { info } else { t.arch.data_fault(crate::mm::page_floor(addr), info) };
            t.sync_fault = Some(info);
            // The program counter stays on the slot (unicorn synced it before the hook).
            cpu.stop();
        }
    }
}

/// `__kernel_vsyscall`'s call at `slot`, served by `serve` (the dispatcher, with or without
/// the global guest lock's handling); a call that stops the engine leaves the slot for the
/// landing.
#[inline(always)]
fn serve_syscall(cpu: &mut Cpu<'_>, slot: &Slot, serve: impl FnOnce(&mut Cpu<'_>, &mut super::SyscallArgs) -> bool) {
    let arch = cpu.get_data().arch;
    let mut args = crate::guest::arch::syscall_args(cpu, arch);
    args.gate_landing = Some(slot.landing);
    if serve(cpu, &mut args) {
        cpu.set_reg(slot.spec.pc, slot.landing);
    }
}

/// Whether Linux's vDSO answers `entry` for clock `clock` by making the system call: its
/// `clock_gettime` and `clock_getres` read the high-resolution clocks (`CLOCK_REALTIME`,
/// `CLOCK_MONOTONIC`, `CLOCK_BOOTTIME`, `CLOCK_TAI`), the coarse ones and
/// `CLOCK_MONOTONIC_RAW` themselves and fall back to the system call for any other (the
/// CPU-time clocks, the alarm clocks, a process's or a descriptor's clock:
/// lib/vdso/gettimeofday.c, `VDSO_HRES`, `VDSO_COARSE`, `VDSO_RAW`).
fn answered_by_syscall(entry: Entry, clock: u64) -> bool {
    let own = matches!(
        crate::abi::int32(clock),
        libc::CLOCK_REALTIME
            | libc::CLOCK_MONOTONIC
            | libc::CLOCK_MONOTONIC_RAW
            | libc::CLOCK_REALTIME_COARSE
            | libc::CLOCK_MONOTONIC_COARSE
            | libc::CLOCK_BOOTTIME
            | libc::CLOCK_TAI
    );
    matches!(entry, Entry::ClockGettime | Entry::ClockGettime64 | Entry::ClockGetres | Entry::ClockGetres64) && !own
}

/// [`on_slot`] for a clock entry without the global guest lock, for a thread running guest
/// code in parallel with others (most calls of a multi-threaded program that reads the clock
/// often, such as Go's scheduler, which otherwise queued for the lock each time): the
/// arguments are read and the results stored through the thread's copy of the mappings
/// ([`Unlocked`]). `false`: not served (a system call, a stale copy, a store or stack read it
/// cannot answer for); [`on_slot`] serves it under the lock.
#[inline]
fn clock_unlocked(cpu: &mut Cpu<'_>, slot: &Slot) -> bool {
    let t = cpu.get_data();
    let Some(view) = t.fill_view.as_ref() else { return false };
    let (entry, abi) = (slot.entry, slot.spec.abi);
    if entry == Entry::Syscall || !view.current() {
        return false;
    }
    let args = match abi {
        CallAbi::Regs { args, .. } => crate::arch::read_regs(cpu, &args),
        CallAbi::Stack32 { sp, .. } => {
            let [esp] = crate::arch::read_regs(cpu, &[sp]);
            let Some(p) = view.host_range(esp.wrapping_add(4) & 0xffff_ffff, 8, Prot::READ) else { return false };
            let mut b = [0u8; 8];
            // SAFETY: the view checked the 8 bytes are guest-readable; this thread runs guest
            // code, so nothing takes them away meanwhile; a host fault fails the copy.
            if unsafe { crate::mm::safe_copy::copy(b.as_mut_ptr(), p, 8) }.is_err() {
                return false;
            }
            stack_words(b, view.model().endian)
        }
    };
    let result = clock_call(&mut Unlocked(view), entry, args);
    crate::guest::after_rwx_store(cpu);
    let Ok(ret) = result else { return false };
    let reg = match abi {
        CallAbi::Regs { ret, .. } | CallAbi::Stack32 { ret, .. } => ret,
    };
    crate::arch::write_regs(cpu, &[reg], &[crate::abi::bits64(ret)]);
    true
}

/// Where a clock entry's arguments and result are, looked up once per instance when the hook
/// is installed: the argument registers (`Regs`) or the stack pointer twice (`Stack32`), and
/// the result register.
#[derive(Clone, Copy)]
struct ClockRegs {
    /// The two argument registers, or `esp` twice.
    args: PinnedRegs<2>,
    /// The result register.
    ret: PinnedRegs<1>,
    /// Whether the arguments are on the stack (i386).
    stack: bool,
}

impl ClockRegs {
    /// `cpu`'s registers for `abi`, if its engine serves them as memory.
    fn of(cpu: &Cpu<'_>, abi: CallAbi) -> Option<ClockRegs> {
        let regs = &cpu.get_data().regs;
        let (args, ret, stack) = match abi {
            CallAbi::Regs { args, ret } => (args, ret, false),
            CallAbi::Stack32 { sp, ret } => ([sp, sp], ret, true),
        };
        Some(ClockRegs { args: regs.pin(&args)?, ret: regs.pin(&[ret])?, stack })
    }
}

/// `clock_gettime` (either entry form) in its common case, in a thread that runs alone: the
/// `timespec` lies in the writable, non-executable mapping the address space found last
/// ([`AddressSpace::plain_store_hint`]; the caller's stack, call after call). The same call as
/// [`on_slot`]'s, with the registers read and written where `regs` says and without the
/// general path's checks and notes (together 6-8 ns of a 45 ns vDSO clock read on x86_64).
/// `false`: nothing was done (another entry, another mapping, a clock the host refuses, a
/// store that faulted); [`on_slot`] serves the call.
#[inline(always)]
fn clock_gettime_hinted(cpu: &Cpu<'_>, entry: Entry, regs: &ClockRegs) -> bool {
    if !matches!(entry, Entry::ClockGettime | Entry::ClockGettime64) {
        return false;
    }
    let t = cpu.get_data();
    let model = t.mm.model();
    let width = if entry == Entry::ClockGettime64 { 8 } else { usize::from(model.long_bytes) };
    let [clock, ts_addr] = if regs.stack { stack_args(&t.mm, regs.args.read()[0]) } else { regs.args.read() };
    let Some(p) = t.mm.plain_store_hint(ts_addr, 2 * width as u64) else { return false };
    let Ok(ts) = host_clock(crate::abi::int32(clock), false) else { return false };
    let words = pair_words(ts.tv_sec, ts.tv_nsec, width, model.endian);
    // SAFETY: `plain_store_hint` found the bytes at `p` guest-writable; a host fault (a file
    // page another process truncated away) fails the store, and `on_slot` finds the signal.
    let stored = unsafe {
        if width == 8 {
            crate::mm::safe_copy::store_words(p, words)
        } else {
            crate::mm::safe_copy::store_words(p, [words[0]])
        }
    };
    if stored.is_err() {
        return false;
    }
    regs.ret.write(&[0]);
    true
}

/// A store the guest's memory refuses: the first byte's address, and whether its page is
/// mapped (without write permission, or `bus`: a file's page past the end of the file) or not
/// mapped at all.
#[derive(Debug)]
pub(crate) struct BadStore {
    addr: u64,
    mapped: bool,
    bus: bool,
}

/// The first two arguments of a C call into a slot (`getcpu`'s third, the unused cache, is
/// never read).
#[inline]
fn call_args(cpu: &Cpu<'_>, abi: CallAbi) -> [u64; 2] {
    match abi {
        CallAbi::Regs { args, .. } => crate::arch::read_regs(cpu, &args),
        CallAbi::Stack32 { sp, .. } => {
            let [esp] = crate::arch::read_regs(cpu, &[sp]);
            stack_args(&cpu.get_data().mm, esp)
        }
    }
}

/// The first two 4-byte arguments of an i386 C call, on the stack above the return address
/// at `esp`, in one read (one range check); zeros where the guest may not read them.
#[inline]
fn stack_args(mm: &AddressSpace, esp: u64) -> [u64; 2] {
    let at = GuestAddr::new(esp.wrapping_add(4) & 0xffff_ffff);
    let b = match mm.host_range(at, 8, crate::mm::Prot::READ) {
        // SAFETY: `host_range` checked that the 8 bytes at `p` are guest-readable.
        Ok(p) => unsafe { p.cast::<[u8; 8]>().read_unaligned() },
        Err(_) => [0; 8],
    };
    stack_words(b, mm.endian())
}

/// Where a clock entry's results go: the address space, under the global guest lock, or the
/// thread's own copy of the mappings without it ([`Unlocked`]).
pub(crate) trait ClockOut {
    /// The guest's data model.
    fn model(&self) -> DataModel;
    /// Stores `bytes` (4, 8 or 16 of them) at guest `addr`, or says which store failed.
    fn store(&mut self, addr: GuestAddr, bytes: &[u8]) -> Result<(), BadStore>;
}

impl ClockOut for AddressSpace {
    #[inline]
    fn model(&self) -> DataModel {
        AddressSpace::model(self)
    }

    #[inline]
    fn store(&mut self, addr: GuestAddr, bytes: &[u8]) -> Result<(), BadStore> {
        let len = bytes.len() as u64;
        let p = self.host_range(addr, len, Prot::WRITE).map_err(|_| bad_store(self, addr.get(), len))?;
        // SAFETY: `host_range` checked that the `len` bytes at `p` are guest-writable.
        unsafe { store_at(p, bytes) }.map_err(|_| bad_store(self, addr.get(), len))?;
        self.note_host_write(addr.get(), len);
        Ok(())
    }
}

/// A thread's copy of the mappings ([`crate::mm::fill_view`]), for a clock entry served
/// without the global guest lock while other threads run guest code: a store it cannot
/// answer for (a stale view, a page outside its plain spans, a host fault) fails, and the
/// entry is served again under the lock, which finds the guest's signal.
pub(crate) struct Unlocked<'a>(pub(crate) &'a FillView);

impl ClockOut for Unlocked<'_> {
    #[inline]
    fn model(&self) -> DataModel {
        self.0.model()
    }

    #[inline]
    fn store(&mut self, addr: GuestAddr, bytes: &[u8]) -> Result<(), BadStore> {
        let refused = BadStore { addr: addr.get(), mapped: false, bus: false };
        let p = self.0.host_range(addr.get(), bytes.len() as u64, Prot::WRITE).ok_or(refused)?;
        // SAFETY: the view checked that the bytes at `p` are guest-writable, and this thread
        // runs guest code, so no change that takes the page away completes meanwhile.
        unsafe { store_at(p, bytes) }.map_err(|_| BadStore { addr: addr.get(), mapped: false, bus: false })
    }
}

/// Stores `bytes` (4, 8 or 16) at host `p` in fixed-size moves (not a call of memmove), so
/// that the store survives a file page another process truncated away.
///
/// # Safety
/// `p` must address `bytes.len()` bytes of guest memory the guest may write.
#[inline]
unsafe fn store_at(p: *mut u8, bytes: &[u8]) -> Result<(), crate::mm::safe_copy::Faulted> {
    use crate::mm::safe_copy::{copy, store_words};
    let word = |i: usize| u64::from_ne_bytes(<[u8; 8]>::try_from(&bytes[i..i + 8]).unwrap_or_default());
    // SAFETY: the caller's.
    unsafe {
        match bytes.len() {
            16 => store_words(p, [word(0), word(8)]),
            8 => store_words(p, [word(0)]),
            n => copy(p, bytes.as_ptr(), n),
        }
    }
}

/// Two signed integers `a`, `b` of `width` bytes each (4 or 8) in `endian` order (a
/// `timespec`, `timeval` or `timezone`), as the words whose native bytes are their bytes: two
/// words, or one (the first) for 4-byte members. Built in registers, for
/// [`crate::mm::safe_copy::store_words`] (the vDSO clock's short path) and [`write_pair`].
#[inline(always)]
fn pair_words(a: i64, b: i64, width: usize, endian: Endian) -> [u64; 2] {
    let order = |v: u64| if endian == Endian::Little { v.to_le() } else { v.to_be() };
    if width == 8 {
        return [order(crate::abi::bits64(a)), order(crate::abi::bits64(b))];
    }
    let (a, b) =
        (u64::from(crate::abi::low32(crate::abi::bits64(a))), u64::from(crate::abi::low32(crate::abi::bits64(b))));
    // Read as one word in `endian` order, the first member comes first in memory.
    [order(if endian == Endian::Little { a | b << 32 } else { a << 32 | b }), 0]
}

/// The first two 32-bit stack arguments of an i386 C call, from their 8 bytes in `endian` order.
#[inline]
fn stack_words(b: [u8; 8], endian: Endian) -> [u64; 2] {
    let word = |i: usize| {
        let w = [b[i], b[i + 1], b[i + 2], b[i + 3]];
        u64::from(if endian == Endian::Little { u32::from_le_bytes(w) } else { u32::from_be_bytes(w) })
    };
    [word(0), word(4)]
}

/// Serves a clock or CPU entry with arguments `a`; returns the C result (0 or `-errno`;
/// `time`'s seconds), or the store the guest's memory refused.
#[inline(always)]
pub(crate) fn clock_call(mm: &mut impl ClockOut, entry: Entry, a: [u64; 2]) -> Result<i64, BadStore> {
    let long = usize::from(mm.model().long_bytes);
    let clock = crate::abi::int32(a[0]);
    let r = match entry {
        Entry::ClockGettime | Entry::ClockGettime64 => host_clock(clock, false).and_then(|ts| {
            let width = if entry == Entry::ClockGettime64 { 8 } else { long };
            write_pair(mm, GuestAddr::new(a[1]), ts.tv_sec, ts.tv_nsec, width).map(|()| 0).map_err(Failure::from)
        }),
        Entry::ClockGetres | Entry::ClockGetres64 => host_clock(clock, true).and_then(|ts| {
            let width = if entry == Entry::ClockGetres64 { 8 } else { long };
            if a[1] == 0 {
                return Ok(0);
            }
            write_pair(mm, GuestAddr::new(a[1]), ts.tv_sec, ts.tv_nsec, width).map(|()| 0).map_err(Failure::from)
        }),
        Entry::Gettimeofday => gettimeofday(mm, GuestAddr::new(a[0]), GuestAddr::new(a[1]), long),
        // Linux's time() (vDSO and system call alike) gives the seconds of the last tick.
        Entry::Time => host_clock(libc::CLOCK_REALTIME_COARSE, false).and_then(|ts| {
            if a[0] != 0 {
                write_word(mm, GuestAddr::new(a[0]), ts.tv_sec, long)?;
            }
            Ok(ts.tv_sec)
        }),
        Entry::Getcpu => getcpu(mm, GuestAddr::new(a[0]), GuestAddr::new(a[1])),
        Entry::Syscall => Err(Failure::Errno(libc::ENOSYS)),
    };
    match r {
        Ok(v) => Ok(v),
        Err(Failure::Errno(e)) => Ok(-i64::from(e)),
        Err(Failure::Store(b)) => Err(b),
    }
}

/// Why a clock entry did not complete: the host refused (`-errno` for the guest), or a store.
enum Failure {
    Errno(i32),
    Store(BadStore),
}

impl From<BadStore> for Failure {
    fn from(b: BadStore) -> Self {
        Failure::Store(b)
    }
}

/// `clock_gettime` (or `clock_getres`) on the host, through its vDSO for the common clocks.
#[inline]
fn host_clock(clock: i32, res: bool) -> Result<libc::timespec, Failure> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to fill; any clock id is safe to ask about.
    let r = unsafe {
        if res {
            // The system call: the host C library's answers 0 for some ids the kernel
            // refuses (16 and up: `EINVAL`).
            i32::from(libc::syscall(libc::SYS_clock_getres, clock, &mut ts) != 0).wrapping_neg()
        } else if let Some(f) = host_vdso_clock() {
            // The kernel's result: 0 or -errno.
            return match f(clock, &mut ts) {
                0 => Ok(ts),
                e => Err(Failure::Errno(e.checked_neg().filter(|&e| e > 0).unwrap_or(libc::EINVAL))),
            };
        } else {
            libc::clock_gettime(clock, &mut ts)
        }
    };
    if r == 0 {
        Ok(ts)
    } else {
        Err(Failure::Errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINVAL)))
    }
}

/// The host vDSO's `clock_gettime`: the C calling convention, and the system call's result
/// (0, or `-errno` from its fallback system call; no `errno`).
type ClockFn = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int;

/// The host vDSO's `__vdso_clock_gettime` (x86_64's `LINUX_2.6` name), found once in the image
/// the kernel announced with `AT_SYSINFO_EHDR`. Called directly it saves the C library's
/// wrapper, about 1 ns of a vDSO clock read. `None` without a vDSO or without the symbol: the
/// C library's `clock_gettime` then.
#[inline]
fn host_vdso_clock() -> Option<ClockFn> {
    static FOUND: std::sync::OnceLock<Option<ClockFn>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(find_host_vdso_clock)
}

/// See [`host_vdso_clock`]: the dynamic symbol table through the vDSO's `PT_DYNAMIC`, read
/// from a copy of its first `PT_LOAD`'s file bytes (which start at offset 0 and hold the ELF
/// and program headers), without its section headers (which lie past that segment).
fn find_host_vdso_clock() -> Option<ClockFn> {
    use goblin::elf::{header::header64, program_header::PT_LOAD, Elf};
    // SAFETY: getauxval has no preconditions.
    let base = usize::try_from(unsafe { libc::getauxval(libc::AT_SYSINFO_EHDR) }).ok().filter(|&b| b != 0)?;
    // SAFETY: the kernel maps the vDSO's ELF header at `base`.
    let ehdr = unsafe { std::slice::from_raw_parts(base as *const u8, header64::SIZEOF_EHDR) };
    let h = Elf::parse_header(ehdr).ok()?;
    let phoff = usize::try_from(h.e_phoff).ok()?;
    if h.e_ident[goblin::elf::header::EI_CLASS] != goblin::elf::header::ELFCLASS64
        || phoff + usize::from(h.e_phnum) * usize::from(h.e_phentsize) > 4096
    {
        return None;
    }
    // SAFETY: the vDSO's first page (its headers) is mapped and readable.
    let page = unsafe { std::slice::from_raw_parts(base as *const u8, 4096) };
    let ctx = goblin::container::Ctx::new(goblin::container::Container::Big, goblin::container::Endian::Little);
    let phdrs = goblin::elf::ProgramHeader::parse(page, phoff, usize::from(h.e_phnum), ctx).ok()?;
    let load = phdrs.iter().find(|p| p.p_type == PT_LOAD)?;
    let len = usize::try_from(load.p_filesz).ok().filter(|l| (header64::SIZEOF_EHDR..=1 << 20).contains(l))?;
    if load.p_offset != 0 {
        return None;
    }
    // SAFETY: the first PT_LOAD's file bytes are mapped from `base` (it starts at offset 0).
    let mut image = unsafe { std::slice::from_raw_parts(base as *const u8, len) }.to_vec();
    // No section headers in the copy: e_shoff, e_shnum, e_shstrndx.
    image.get_mut(0x28..0x30)?.fill(0);
    image.get_mut(0x3c..0x40)?.fill(0);
    let elf = Elf::parse(&image).ok()?;
    let sym = elf.dynsyms.iter().find(|s| {
        s.st_value != 0 && s.is_function() && elf.dynstrtab.get_at(s.st_name) == Some("__vdso_clock_gettime")
    })?;
    let off = usize::try_from(sym.st_value.checked_sub(load.p_vaddr)?).ok().filter(|&o| o < len)?;
    // SAFETY: a function of the host's vDSO with clock_gettime's C signature (its ABI).
    Some(unsafe { std::mem::transmute::<usize, ClockFn>(base + off) })
}

/// `gettimeofday(tv, tz)`: `tv` from the host's realtime clock; `tz` (rarely asked for)
/// from the host kernel's own `gettimeofday`. `tv` is stored first, as kernel/time/time.c
/// and the vDSO store it: a `tz` the guest cannot write fails after `tv` was written.
fn gettimeofday(mm: &mut impl ClockOut, tv: GuestAddr, tz: GuestAddr, long: usize) -> Result<i64, Failure> {
    if !tv.is_null() {
        let ts = host_clock(libc::CLOCK_REALTIME, false)?;
        write_pair(mm, tv, ts.tv_sec, ts.tv_nsec / 1000, long)?;
    }
    if !tz.is_null() {
        // struct timezone: tz_minuteswest, tz_dsttime (two ints).
        let mut hz = [0i32; 2];
        // SAFETY: a null timeval and two ints for the kernel's struct timezone.
        let r =
            unsafe { libc::syscall(libc::SYS_gettimeofday, std::ptr::null_mut::<libc::timeval>(), hz.as_mut_ptr()) };
        if r != 0 {
            return Err(Failure::Errno(libc::EFAULT));
        }
        write_pair(mm, tz, i64::from(hz[0]), i64::from(hz[1]), 4)?;
    }
    Ok(0)
}

/// `getcpu(cpu, node, cache)`: the CPU from the host thread's rseq area ([`super::rseq::host_cpu`]; no
/// system call); the node, when asked for, from the host's `getcpu` system call. `cpu` is
/// stored before `node`, as kernel/sys.c stores them.
fn getcpu(mm: &mut impl ClockOut, cpu: GuestAddr, node: GuestAddr) -> Result<i64, Failure> {
    let (mut c, mut n) = (0u32, 0u32);
    if !node.is_null() {
        // SAFETY: two valid u32s to fill and a null cache.
        let r = unsafe { libc::syscall(libc::SYS_getcpu, &mut c, &mut n, 0usize) };
        if r != 0 {
            return Err(Failure::Errno(libc::EFAULT));
        }
    } else {
        c = super::rseq::host_cpu().unwrap_or(0);
    }
    if !cpu.is_null() {
        write_word(mm, cpu, i64::from(c), 4)?;
    }
    if !node.is_null() {
        write_word(mm, node, i64::from(n), 4)?;
    }
    Ok(0)
}

/// Writes two signed integers of `width` bytes each (4 or 8) at guest `addr`, in the guest's
/// byte order, with one range check (a `timespec`, `timeval` or `timezone`).
#[inline]
fn write_pair(mm: &mut impl ClockOut, addr: GuestAddr, a: i64, b: i64, width: usize) -> Result<(), BadStore> {
    let [w0, w1] = pair_words(a, b, width, mm.model().endian);
    let mut buf = [0u8; 16];
    buf[..8].copy_from_slice(&w0.to_ne_bytes());
    buf[8..].copy_from_slice(&w1.to_ne_bytes());
    mm.store(addr, &buf[..2 * width])
}

/// Writes one signed integer of `width` bytes at guest `addr`.
#[inline]
fn write_word(mm: &mut impl ClockOut, addr: GuestAddr, v: i64, width: usize) -> Result<(), BadStore> {
    let mut buf = [0u8; 8];
    put(&mut buf[..width], v, mm.model().endian);
    mm.store(addr, &buf[..width])
}

/// The first byte of `[addr, addr+len)` the guest may not write, as the refused store.
fn bad_store(mm: &AddressSpace, addr: u64, len: u64) -> BadStore {
    let mut cur = addr;
    while cur < addr.saturating_add(len) {
        match mm.span_at(cur) {
            Some(_) if mm.beyond_file_end(cur) => return BadStore { addr: cur, mapped: true, bus: true },
            Some((_, end, prot)) if prot.contains(crate::mm::Prot::WRITE) => {
                // On to the next page, or the mapping's end: a page past the file's end may
                // follow inside the mapping.
                cur = end.min(crate::mm::page_floor(cur) + crate::mm::PAGE_SIZE);
            }
            Some(_) => return BadStore { addr: cur, mapped: true, bus: false },
            None => return BadStore { addr: cur, mapped: false, bus: false },
        }
    }
    BadStore { addr, mapped: false, bus: false }
}

/// `v` truncated to `out.len()` bytes (4 or 8) in `endian` order.
#[inline]
fn put(out: &mut [u8], v: i64, endian: Endian) {
    match (out.len(), endian) {
        (8, Endian::Little) => out.copy_from_slice(&v.to_le_bytes()),
        (8, Endian::Big) => out.copy_from_slice(&v.to_be_bytes()),
        (_, Endian::Little) => out.copy_from_slice(&crate::abi::int32(v).to_le_bytes()),
        (_, Endian::Big) => out.copy_from_slice(&crate::abi::int32(v).to_be_bytes()),
    }
}

/// What the hook needs of the slot it was called at: its entry, and the gate's calling
/// convention and landing.
#[derive(Clone, Copy)]
struct Slot {
    entry: Entry,
    spec: &'static crate::gate::VdsoSpec,
    landing: u64,
}

/// The slots' entries as the hook keeps them: copied from the process's [`crate::gate::Gate`]
/// (which never changes) into the hook's own data, so that finding a slot's entry is two loads
/// from there instead of a walk from the engine's handle through the task to the gate (a
/// chain of dependent loads that took 9 % of a gated `getpid`).
struct Slots {
    first: u64,
    entries: Box<[Entry]>,
    spec: &'static crate::gate::VdsoSpec,
    landing: u64,
}

impl Slots {
    /// The slot that starts at `addr`; `None` inside one (a MIPS delay slot).
    #[inline(always)]
    fn at(&self, addr: u64) -> Option<Slot> {
        let off = addr.wrapping_sub(self.first);
        if off % crate::gate::SLOT != 0 {
            return None;
        }
        let entry = *self.entries.get(usize::try_from(off / crate::gate::SLOT).ok()?)?;
        Some(Slot { entry, spec: self.spec, landing: self.landing })
    }
}

/// Installs the gate's code hook on `cpu` (for the gate in `cpu`'s task). Every instance of
/// the process gets one. Errors: the engine's.
pub fn install_hook(cpu: &mut Cpu<'static>) -> Result<(), unicorn_engine::uc_error> {
    let gate = &cpu.get_data().gate;
    let (Some((begin, end)), Some(spec)) = (gate.hook_range(), gate.spec) else { return Ok(()) };
    if crate::guard::test_panic("gate") {
        cpu.add_code_hook(begin, end, |_, _, _| {
            crate::guard::guarded(&GATE_HOOK, || crate::guard::injected_panic("gate"));
        })?;
    } else {
        let slots =
            Slots { first: gate.slots, entries: gate.entries.clone().into_boxed_slice(), spec, landing: gate.landing };
        let clock = ClockRegs::of(cpu, spec.abi);
        cpu.add_code_hook(begin, end, move |cpu, addr, _size| {
            // Nothing at a MIPS delay slot, and nothing that could panic.
            let Some(slot) = slots.at(addr) else { return };
            crate::guard::guarded(&GATE_HOOK, || {
                if !cpu.get_data().parallel {
                    // Alone: no lock to take (`lock_for_hook` would not), and a system call
                    // goes straight to the dispatcher.
                    if slot.entry == Entry::Syscall {
                        serve_syscall(cpu, &slot, super::serve);
                    } else if !clock.is_some_and(|regs| clock_gettime_hinted(cpu, slot.entry, &regs)) {
                        on_slot(cpu, &slot);
                    }
                    return;
                }
                if !crate::thread::lock::held() {
                    if clock_unlocked(cpu, &slot) {
                        return;
                    }
                    if slot.entry == Entry::Syscall {
                        // `serve_locked` takes the lock if the call needs it.
                        on_slot(cpu, &slot);
                        return;
                    }
                }
                let taken = crate::guest::lock_for_hook(cpu);
                on_slot(cpu, &slot);
                if taken {
                    // The next clock call goes without the lock again (the copy of the
                    // mappings is rebuilt there).
                    crate::guest::unlock_after_hook(cpu);
                }
            });
        })?;
    }
    Ok(())
}

/// The gate's code hook's name in an internal error's line.
const GATE_HOOK: &str = "gate code hook";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_vdso_clock_reads_the_clock() {
        let f = host_vdso_clock().expect("the x86_64 host's vDSO has __vdso_clock_gettime");
        let mut a = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        let mut b = a;
        let mut c = a;
        // SAFETY: valid timespecs to fill.
        unsafe {
            assert_eq!(libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut a), 0);
            assert_eq!(f(libc::CLOCK_MONOTONIC, &mut b), 0);
            assert_eq!(libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut c), 0);
            // An unknown clock: -EINVAL, from the vDSO's fallback system call.
            assert_eq!(f(1000, &mut b), -libc::EINVAL);
        }
        let ns = |t: libc::timespec| i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec);
        let mut mid = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: as above.
        unsafe { assert_eq!(f(libc::CLOCK_MONOTONIC, &mut mid), 0) };
        assert!(ns(a) <= ns(c) && ns(c) <= ns(mid), "the vDSO's clock runs with the C library's");
    }

    #[test]
    fn put_truncates_and_orders() {
        let mut b = [0u8; 4];
        put(&mut b, 0x1_0000_0002, Endian::Big);
        assert_eq!(b, [0, 0, 0, 2]);
        let mut b = [0u8; 8];
        put(&mut b, -2, Endian::Little);
        assert_eq!(b, (-2i64).to_le_bytes());
    }
}
