//! The guest as every layer above the engine sees it: a guest thread's state ([`Task`]), its
//! CPU ([`Cpu`], a unicorn instance whose user data is the task), the interface each guest
//! architecture implements ([`GuestArch`]) and the values that pass between the trap hook,
//! the dispatcher and the run loop (system call arguments, results, work left for the loop).
//!
//! It holds data and the interface only; the arches (`crate::arch`), the dispatcher
//! (`crate::syscall`) and the run loop (`crate::task`) sit above it.

pub mod arch;
pub mod info;
pub mod shaped;
pub mod sigframe;
pub mod tool;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::guard::Checked;
use crate::mm::{AddressSpace, Fault, GuestAddr, Prot};
use crate::signal::{SigState, Signal};
use crate::thread::shared::Shared;
pub use arch::{
    exception_siginfo_for, ArchTermios, CloneArgs, Cpu, Entries, GuestArch, PinnedRegs, RegPtrs, SyscallArgs,
};
pub use info::{ArchInfo, InsnRegs, Pkeys, Regs};

/// A handler's result: the value for the return register, or the errno to return negated.
pub type SysResult = Result<u64, Errno>;

/// The one signature every handler has.
pub type Handler = fn(&mut Cpu<'_>, &SyscallArgs) -> SysResult;

/// Options that apply to the whole guest (from the command line).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--strace`: print each guest system call on stderr.
    pub strace: bool,
    /// `-L PATH`: prefix tried first for absolute guest paths.
    pub sysroot: Option<PathBuf>,
    /// Signals the guest had set to `SIG_IGN` before its execve started this endgate (bit
    /// `n-1` for host signal `n`): they stay ignored, as exec keeps ignored signals.
    pub sig_ignored: u64,
    /// The NUMA policy the thread had when its execve started this endgate (kept, as Linux
    /// keeps it).
    pub mempolicy: Option<crate::mm::MemPolicy>,
    /// `-d`, `-D`, `-dfilter`, `-one-insn-per-tb` and `--drcov` (`crate::trace`): the default
    /// asks for nothing, and then no hook of theirs exists.
    pub trace: crate::cli::TraceOptions,
    /// `-g PORT` (or `ENDGATE_GDB`): serve GDB on this TCP port of 127.0.0.1 (`crate::gdb`).
    pub gdb: Option<u16>,
    /// The endgate a guest `execve` starts for the new program (`crate::syscall::exec`).
    pub exec_with: ExecWith,
}

/// The endgate binary a guest `execve` runs the new program under.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ExecWith {
    /// This process's own executable (the `endgate` command).
    #[default]
    Itself,
    /// The `endgate` command at this host path (a tool built on `crate::api`, whose own
    /// executable is not endgate's command line).
    Binary(PathBuf),
    /// None: the guest's `execve` fails with `ENOEXEC` once the target has been checked.
    Refused,
}

/// What a tool asked to run when the program image ends ([`on_image_end`]): `--drcov`'s writer.
static IMAGE_END: std::sync::OnceLock<fn(&Task)> = std::sync::OnceLock::new();

/// How many times this process's line of guest processes forked to reach it: 0 in the process
/// endgate was started as, one more in each fork child ([`process_forked`]).
static PROCESS_GENERATION: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Registers `f` to run when the program image ends ([`image_ending`]); the first
/// registration stays.
pub fn on_image_end(f: fn(&Task)) {
    let _ = IMAGE_END.set(f);
}

/// The program image of `t`'s process ends: the process exits or dies by a signal, or an
/// execve is about to replace it. Writes out the `-d` log and runs what [`on_image_end`]
/// registered.
pub fn image_ending(t: &Task) {
    if let Some(f) = IMAGE_END.get() {
        f(t);
    }
    crate::log::flush_debug();
}

/// In a fork child, right after the fork: a new process (see [`process_generation`]).
pub fn process_forked() {
    PROCESS_GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// 0 in the process endgate was started as; changes in each fork child, so per-process state
/// the child inherited (coverage) can tell it is the parent's.
pub fn process_generation() -> u32 {
    PROCESS_GENERATION.load(std::sync::atomic::Ordering::Relaxed)
}

/// Where the guest's program came from, for `/proc/self/exe` and `AT_EXECFN`.
#[derive(Clone, Debug)]
pub struct ExeInfo {
    /// The program path as given on the command line (guest view).
    pub guest_path: String,
    /// Absolute host path of the program file.
    pub host_path: PathBuf,
}

/// How a guest ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// `exit`/`exit_group` with this status (low 8 bits are what a parent sees).
    Code(i32),
    /// Killed by a signal.
    Signal {
        /// The signal.
        sig: Signal,
        /// Guest program counter when it happened.
        pc: u64,
        /// For faults: the guest address that was refused (page-aligned when unicorn only
        /// reports the page).
        addr: Option<u64>,
    },
    /// endgate itself failed while serving the guest (a bug, not guest behaviour).
    Internal,
}

/// One guest thread, with handles to the state it shares with the other threads of its
/// process ([`Shared`]). The user data of its unicorn instance.
pub struct Task {
    /// The guest architecture.
    pub arch: &'static dyn GuestArch,
    /// The address space (one per process).
    pub mm: Shared<AddressSpace>,
    /// Options from the command line.
    pub opts: Arc<Options>,
    /// The running program.
    pub exe: ExeInfo,
    /// Signal dispositions (shared by the process) and this thread's mask, pending signals
    /// and alternate stack.
    pub sig: SigState,
    /// Set when the guest, or with [`Task::exit_thread`] this thread, has ended; the trap
    /// hook then stops emulation.
    pub exit: Option<Exit>,
    /// `exit` ends only this thread (other threads live on); `exit`'s status is in
    /// [`Task::exit`].
    pub exit_thread: bool,
    /// The [shootdown](crate::mm::shootdown) generation this thread's instance has applied.
    pub applied_gen: u64,
    /// How many of the address space's [regions](crate::mm::AddressSpace::regions) this
    /// thread's instance has mapped.
    pub regions_mapped: usize,
    /// `set_tid_address` pointer (guest address of the tid word to clear on exit).
    pub clear_child_tid: u64,
    /// `set_robust_list` head and length.
    pub robust_list: (u64, u64),
    /// The thread's NUMA policy from `set_mempolicy` (`None`: `MPOL_DEFAULT`); new threads and
    /// forked children inherit it, and `execve` passes it on (`--mempolicy`).
    pub mempolicy: Option<crate::mm::MemPolicy>,
    /// The guest's argv (for `/proc/self/cmdline`).
    pub argv: Vec<Vec<u8>>,
    /// The auxiliary vector given at start (for `/proc/self/auxv`).
    pub auxv: Vec<(u64, u64)>,
    /// Unknown syscall numbers already reported under `--strace`.
    pub warned: HashSet<u64>,
    /// The stack pointer the program started with (`/proc/self/stat` `startstack`).
    pub start_stack: u64,
    /// `[arg_start, arg_end)` and `[env_start, env_end)` on the initial stack: the argument
    /// and environment strings (`/proc/self/stat` fields 48-51).
    pub arg_env: [u64; 4],
    /// The last guest access this thread's TLB fill hook refused (moved here from
    /// [`AddressSpace::last_fault`], which all threads' hooks write); read after `emu_start`
    /// fails.
    pub last_fault: Option<Fault>,
    /// Guest address of the signal-return trampolines page (0: the arch needs none); see
    /// [`crate::guest::sigframe::map_sigtramp`].
    pub sigtramp: u64,
    /// The process's vDSO gate ([`crate::gate`]); empty until the loader maps it.
    pub gate: Arc<crate::gate::Gate>,
    /// The thread's stop flag is mirrored into the instance's stop byte, which it reads at
    /// every block start ([`crate::signal::host::install_stop_flags`]).
    pub stop_flags: bool,
    /// Work a syscall hook left for the run loop (`rt_sigreturn`).
    pub pending_op: Option<crate::guest::PendingOp>,
    /// A fault the guest's instruction raised, to deliver when emulation has stopped.
    pub sync_fault: Option<crate::signal::SigInfo>,
    /// The system call a signal interrupted, until delivery decides to restart it or not.
    pub interrupted: Option<crate::guest::Interrupted>,
    /// The thread's registered restartable-sequences area (`rseq(2)`), if any.
    pub rseq: Option<Rseq>,
    /// The instance translates for threads running at once (unicorn's parallel mode,
    /// `uc_set_parallel`: guest atomics are host atomics); see [`crate::thread::running`].
    pub parallel: bool,
    /// The TLB fill hook refused an access only because this instance had not caught up with
    /// another thread's mapping changes: the run loop catches up and runs the instruction
    /// again. Also set by an exception hook that completed the faulting instruction itself
    /// (a MIPS misaligned access) and stopped the engine, whose run then ends with the
    /// exception's error: the run loop goes on at the PC the hook left.
    pub retry_fill: bool,
    /// This thread's copy of the mappings for TLB fills without the lock while it runs in
    /// parallel with other threads (`crate::mm::fill_view`).
    pub fill_view: Option<crate::mm::fill_view::FillView>,
    /// The guest range of the buffers the call being served gave the host to fill that lie
    /// in executable mappings ([`crate::mm::AddressSpace::note_host_write`]): a call that
    /// waits without the lock ([`Task::blocking`]) drops their code again once the host has
    /// filled them, since another thread may have translated the old bytes meanwhile.
    pub host_written: Option<(u64, u64)>,
    /// TLB fills since the instance's TLB was last flushed, and how many make the next
    /// flush (`task::tlb_hook`: the engine sizes its TLB only when it is flushed).
    pub tlb_fills: (u32, u32),
    /// Where this thread's instance keeps its general-purpose registers (made by
    /// `task::open_instance`; empty in a task not yet given its instance).
    pub regs: RegPtrs,
}

/// A thread's registered `struct rseq` (include/uapi/linux/rseq.h), as `rseq(2)` recorded it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rseq {
    /// Guest address of the area.
    pub area: GuestAddr,
    /// The length it was registered with, in bytes.
    pub len: u32,
    /// The signature that must precede every abort handler.
    pub sig: u32,
    /// The host CPU last written to its `cpu_id` (`u32::MAX` before the first write).
    pub cpu: u32,
}

impl Task {
    /// Runs `f`, a host call that may block, with the guest lock released while other guest
    /// threads exist ([`crate::thread::lock::blocking`]). It borrows the task exclusively, so
    /// no reference made through it into the process's shared state (`self.mm`,
    /// `self.sig.actions`: [`crate::thread::shared::Shared`]) can live across the release,
    /// when another thread may change that state; the compiler checks this at every caller:
    ///
    /// ```compile_fail,E0502
    /// fn handler(t: &mut endgate::guest::Task) {
    ///     let mm = &*t.mm; // a reference into the process's address space…
    ///     t.blocking(|| ()); // …while the lock is released: refused
    ///     let _ = mm.endian();
    /// }
    /// ```
    ///
    /// Re-borrowing after the call is what handlers do:
    ///
    /// ```no_run
    /// fn handler(t: &mut endgate::guest::Task) {
    ///     let _ = t.mm.endian();
    ///     t.blocking(|| ());
    ///     let _ = t.mm.endian();
    /// }
    /// ```
    #[inline]
    #[allow(clippy::disallowed_methods)] // the one place that may call it
    pub fn blocking<R>(&mut self, f: impl FnOnce() -> R + 'static) -> R {
        let r = crate::thread::lock::blocking(f);
        if let Some((start, end)) = self.host_written.filter(|_| crate::thread::live_threads() > 1) {
            // The lock was given up while the host filled the call's buffers: code translated
            // meanwhile from what they held goes (`Task::host_written`).
            self.mm.note_host_write(start, end - start);
        }
        r
    }

    /// Records that the host will fill the `len` guest bytes at `addr`, dropping what was
    /// translated from them ([`crate::mm::AddressSpace::note_host_write`]) now and, if the
    /// call waits without the lock, again afterwards ([`Task::host_written`]).
    #[inline]
    pub(crate) fn note_host_write(&mut self, addr: u64, len: u64) {
        if self.mm.note_host_write(addr, len) {
            let end = addr.saturating_add(len);
            let (lo, hi) = self.host_written.map_or((addr, end), |(a, b)| (a.min(addr), b.max(end)));
            self.host_written = Some((lo, hi));
        }
    }

    /// Lets the guest threads waiting for the lock run first, then takes it again
    /// ([`crate::thread::lock::yield_now`]), for `sched_yield`; borrows the task exclusively
    /// for the reason given at [`Task::blocking`].
    #[inline]
    #[allow(clippy::disallowed_methods)] // the one place a handler may call it
    pub fn yield_lock(&mut self) {
        crate::thread::lock::yield_now();
    }

    /// Rebuilds the thread's copy of the mappings ([`crate::mm::fill_view`]) if it went
    /// stale, once its instance has mapped every window (the copy answers TLB fills); the
    /// caller holds the global guest lock.
    pub fn refresh_fill_view(&mut self) {
        if self.regions_mapped == self.mm.regions().len() && !self.fill_view.as_ref().is_some_and(|v| v.current()) {
            self.fill_view = Some(self.mm.fill_view());
        }
    }

    /// A guest buffer the host will read (`write(2)`'s data): must be guest-readable.
    /// Errors: `EFAULT`.
    #[inline]
    pub fn buf_in(&self, addr: GuestAddr, len: u64) -> Result<*const u8, syscalls::Errno> {
        self.mm.host_range(addr, len, Prot::READ).map(|p| p.cast_const())
    }

    /// A guest buffer the host will fill (`read(2)`'s data): must be guest-writable. If it
    /// holds code, the translations of that code are dropped. Errors: `EFAULT`.
    #[inline]
    pub fn buf_out(&mut self, addr: GuestAddr, len: u64) -> Result<*mut u8, syscalls::Errno> {
        let p = self.mm.host_range(addr, len, Prot::WRITE)?;
        self.note_host_write(addr.get(), len);
        Ok(p)
    }

    /// A guest buffer the host fills as far as it can: `read`, `pread64`, `getdents64` and
    /// `getrandom` copy into a buffer that runs off the end of the guest's writable memory
    /// until the first bad byte, and return what they copied (EFAULT only if the first byte is
    /// bad). The host pointer and how many bytes from `addr` on the host may write.
    pub fn buf_out_partial(&mut self, addr: GuestAddr, len: u64) -> Result<(*mut u8, u64), syscalls::Errno> {
        match self.mm.host_range(addr, len, Prot::WRITE) {
            Ok(p) => {
                self.note_host_write(addr.get(), len);
                Ok((p, len))
            }
            Err(e) => {
                let n = self.mm.writable_prefix(addr.get(), len);
                if n == 0 {
                    return Err(e);
                }
                let _ = self.mm.take_grow_request();
                Ok((self.buf_out(addr, n)?, n))
            }
        }
    }

    /// A guest buffer the host reads and writes (`ppoll`'s pollfd array).
    #[inline]
    pub fn buf_inout(&mut self, addr: GuestAddr, len: u64) -> Result<*mut u8, syscalls::Errno> {
        self.mm.host_range(addr, len, Prot::READ | Prot::WRITE)
    }

    /// Like [`Task::buf_out`], but a NULL guest pointer gives a NULL host pointer.
    pub fn buf_out_opt(&mut self, addr: GuestAddr, len: u64) -> Result<*mut u8, syscalls::Errno> {
        if addr.is_null() {
            Ok(std::ptr::null_mut())
        } else {
            self.buf_out(addr, len)
        }
    }

    /// `true` if the run loop has work between two runs: a sigreturn or clone to finish, a
    /// fault to deliver, a pending unblocked signal, or signals the host handler recorded.
    #[inline]
    pub fn signal_work_due(&self) -> bool {
        self.pending_op.is_some()
            || self.sync_fault.is_some()
            || self.sig.pending & !self.sig.mask != 0
            || crate::signal::host::has_recorded()
    }

    /// Like [`Task::buf_in`], but a NULL guest pointer gives a NULL host pointer.
    pub fn buf_in_opt(&self, addr: GuestAddr, len: u64) -> Result<*const u8, syscalls::Errno> {
        if addr.is_null() {
            Ok(std::ptr::null())
        } else {
            self.buf_in(addr, len)
        }
    }
}

/// Applies what mapping changes made stale: TLB entries and translated code, from this
/// thread's own changes (which it also publishes for the other threads' instances) and from
/// what other threads published since this instance last caught up ([`crate::mm::shootdown`]).
///
/// Unicorn's `ctl_remove_cache` first translates the range's start with a *code fetch* through
/// the TLB; if that fetch is refused (the page just lost `PROT_EXEC` or went away) it silently
/// skips the invalidation and leaves an exception pending that stops the guest. So the TLB
/// fill hook answers "all access" while the removal runs, and the TLB is flushed afterwards.
pub fn apply_invalidate(cpu: &mut Cpu<'_>) {
    map_new_regions(cpu);
    let t = cpu.get_data_mut();
    let mut inv = t.mm.take_invalidate();
    let caught = t.mm.shootdown.since(t.applied_gen);
    t.applied_gen = if inv.pending() && crate::thread::live_threads() > 1 {
        crate::thread::running::stop_others();
        t.mm.shootdown.publish(&inv)
    } else {
        t.mm.shootdown.generation()
    };
    inv.merge(&caught.inv);
    if caught.flush_all || inv.flush_all {
        cpu.flush_tb();
    }
    if !inv.code.is_empty() {
        let code = cpu.get_data().mm.split_for_aliases(std::mem::take(&mut inv.code));
        cpu.get_data_mut().mm.permissive = true;
        for &(s, e) in &code {
            cpu.remove_cache(s, e);
        }
        cpu.get_data_mut().mm.permissive = false;
        // The removal's fills allowed every access (above): those entries go too.
        for &(s, e) in &code {
            inv.drop_tlb(s, e);
        }
    }
    flush_tlb_of(cpu, &inv);
}

/// Drops the TLB entries `inv` names: all of them, or those of its ranges' pages (unicorn patch
/// 0049), so that a change to a few pages costs the instance no refill of every other page it
/// uses (its code, stack and data).
pub fn flush_tlb_of(cpu: &mut Cpu<'_>, inv: &crate::mm::Invalidate) {
    if inv.flush_tlb {
        cpu.flush_tlb();
    } else {
        for &(s, e) in &inv.tlb {
            cpu.flush_tlb_range(s, e);
        }
    }
}

/// Runs `f`, the work of a hook that touches process state, holding the global guest lock.
///
/// A thread running guest code in parallel with others ([`crate::thread::running`]) does not
/// hold the lock: it takes it here (counting as not running while it waits and works), and
/// before it gives it back it makes what happened meanwhile safe for the rest of the block it
/// returns into: work this thread left unpublished goes to the other instances
/// ([`publish_for_others`]), and if another thread changed mappings while this one waited, its
/// TLB is flushed and the instance stops at the next block start to drop stale code there. A
/// thread that holds the lock already (one guest thread, or a hook reached from endgate's own
/// work) or whose instance is not in parallel mode (its thread holds the lock whenever it
/// runs guest code) just runs `f`.
#[inline]
pub fn locked<R>(cpu: &mut Cpu<'_>, f: impl FnOnce(&mut Cpu<'_>) -> R) -> R {
    let taken = lock_for_hook(cpu);
    let r = f(cpu);
    if taken {
        unlock_after_hook(cpu);
    }
    r
}

/// After stores made without the lock into a writable and executable mapping (granted by the
/// thread's view, [`crate::mm::fill_view::FillView::host_range`], only while no code had been
/// fetched from it): if the view went stale meanwhile, another thread may have translated the
/// bytes they replaced, and the range's translations are dropped under the lock.
pub fn after_rwx_store(cpu: &mut Cpu<'_>) {
    let Some(view) = cpu.get_data().fill_view.as_ref() else { return };
    let Some((start, end)) = view.take_rwx_store() else { return };
    if view.rwx_store_seen() {
        locked(cpu, |cpu| cpu.get_data_mut().mm.note_host_write(start, end - start));
    }
}

/// [`locked`] without a closure, for the system-call hooks, which serve the call in their own
/// frame (see `crate::syscall::install_trap_hooks`): takes the global lock if [`locked`]
/// would and returns whether it did; then [`unlock_after_hook`] if it did.
#[inline(always)]
pub fn lock_for_hook(cpu: &Cpu<'_>) -> bool {
    let take = !crate::thread::lock::held() && cpu.get_data().parallel;
    if take {
        take_lock();
    }
    take
}

/// [`locked`]: the instance leaves guest code and takes the global lock.
#[inline(never)]
fn take_lock() {
    crate::thread::running::leave_guest();
    crate::thread::lock::acquire();
}

/// The end of [`lock_for_hook`]'s section: the instance goes back to guest code and gives the
/// global lock up. The thread's copy of the mappings is rebuilt first if it went stale, so
/// that its next calls and TLB fills go without the lock again (a thread whose pages all sat
/// in its TLB, making only system calls, had kept a stale copy after any change to the
/// mappings, and every later call of it queued for the lock).
#[inline(never)]
pub fn unlock_after_hook(cpu: &mut Cpu<'_>) {
    rejoin(cpu);
    cpu.get_data_mut().refresh_fill_view();
    crate::thread::running::enter_guest();
    #[allow(clippy::disallowed_methods)] // `f` returned: `R` cannot borrow the instance
    crate::thread::lock::release();
}

/// See [`locked`]: the lock holder goes back to guest code in the middle of a block.
fn rejoin(cpu: &mut Cpu<'_>) {
    publish_for_others(cpu);
    let t = cpu.get_data();
    if t.applied_gen != t.mm.shootdown.generation() {
        // The TLB entries now; the code at the next block start ([`apply_invalidate`]).
        let caught = t.mm.shootdown.since(t.applied_gen);
        let mut inv = caught.inv;
        let code = std::mem::take(&mut inv.code);
        for (s, e) in code {
            inv.drop_tlb(s, e);
        }
        inv.flush_tlb |= caught.flush_all;
        flush_tlb_of(cpu, &inv);
        crate::signal::host::stop_flag().raise();
    }
}

/// Publishes what this thread has for the other instances and has not published (mapping work
/// its hooks left, stores to code others may have translated) and makes the running ones stop
/// to catch up. This instance applies its own mapping work at its next stop ([`apply_invalidate`],
/// which sees it as published by another thread).
pub fn publish_for_others(cpu: &mut Cpu<'_>) {
    publish_code_writes(cpu);
    let t = cpu.get_data_mut();
    if t.mm.invalidate.pending() && crate::thread::live_threads() > 1 {
        let inv = t.mm.take_invalidate();
        t.mm.shootdown.publish(&inv);
        crate::thread::running::stop_others();
    }
}

thread_local! {
    /// Pages this thread's guest stored to while its instance had code from them (reported by
    /// the engine: [`code_write_reported`]), not yet published for the other threads.
    static CODE_WRITES: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// A handle to the calling thread's address space, for [`code_write_reported`], which the
    /// engine calls without the task.
    static CODE_WRITE_MM: std::cell::RefCell<Option<Shared<AddressSpace>>> = const { std::cell::RefCell::new(None) };
    /// Whether [`CODE_WRITES`] may hold pages: one plain load for the system-call path, where
    /// the list's own access (a thread-local with a destructor, so a state check first) cost
    /// about 1.5 ns of every call.
    static CODE_WRITES_ANY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Takes the pages [`CODE_WRITES`] holds.
fn take_code_writes() -> Vec<u64> {
    CODE_WRITES_ANY.with(|a| a.set(false));
    CODE_WRITES.with(|w| w.try_borrow_mut().map(|mut w| std::mem::take(&mut *w)).unwrap_or_default())
}

/// Gives [`code_write_reported`] the calling thread's address space (the run loop, once).
pub fn set_code_write_space(mm: Shared<AddressSpace>) {
    CODE_WRITE_MM.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            *m = Some(mm);
        }
    });
}

/// The engine's code-write callback (unicorn patch 0007, `uc_set_code_write_cb`): a guest store
/// of `size` bytes at `addr` is about to modify a page this instance translated code from.
/// Records the pages when the process has other threads, whose instances keep their own
/// translations; they are published when this thread next stops or makes a system call
/// ([`publish_code_writes`]).
///
/// A thread running in parallel with others publishes them at once instead, under the global
/// guest lock, and raises the running threads' stop flags: a thread that then sees a flag this
/// thread stores after its code (x86 needs no cache flush between the two) leaves `emu_start`
/// at its next block start and drops its stale translation before it can run the new code.
/// If another thread stopped the world while this one waited for the lock (its mappings may
/// have changed under the store), the answer is `true`: the engine abandons the instruction
/// before its store and this instance stops to catch up and run it again.
///
/// Never unwinds (it runs inside the engine).
///
/// # Safety
/// Called only by the engine, with its own handle; reads no pointer argument.
pub unsafe extern "C" fn code_write_reported(
    _uc: *mut unicorn_engine::uc_engine,
    addr: u64,
    size: u32,
    _opaque: *mut std::ffi::c_void,
) -> bool {
    crate::guard::guarded(&"code-write callback", || code_written(addr, size))
}

/// [`code_write_reported`]'s work.
fn code_written(addr: u64, size: u32) -> bool {
    use crate::thread::{lock, running};
    if crate::thread::live_threads() < 2 {
        return false;
    }
    let first = crate::mm::page_floor(addr);
    let last = crate::mm::page_floor(addr.saturating_add(u64::from(size.max(1)) - 1));
    CODE_WRITES.with(|w| {
        if let Ok(mut w) = w.try_borrow_mut() {
            for page in [first, last] {
                if !w.contains(&page) {
                    w.push(page);
                }
            }
        }
    });
    CODE_WRITES_ANY.with(|a| a.set(true));
    if lock::held() {
        return false;
    }
    let stops = running::quiesces();
    running::leave_guest();
    lock::acquire();
    let pages = take_code_writes();
    CODE_WRITE_MM.with(|m| {
        if let Ok(mut m) = m.try_borrow_mut() {
            if let Some(mm) = m.as_mut() {
                let code = pages.iter().map(|&p| (p, p + crate::mm::PAGE_SIZE)).collect();
                mm.shootdown.publish(&crate::mm::Invalidate { code, ..Default::default() });
            }
        }
    });
    running::stop_others();
    let restart = running::quiesces() != stops;
    if restart {
        crate::signal::host::stop_flag().raise();
    }
    running::enter_guest();
    #[allow(clippy::disallowed_methods)] // the published pages were taken, nothing is borrowed
    lock::release();
    restart
}

/// The engine's store-range callback (unicorn patch 0045, `uc_set_store_slots`): a store
/// outside its slot's range asks for the range around its address that needs no check
/// ([`crate::mm::AddressSpace::store_range`]), read from the address space when this thread
/// may read it (one thread, or the global lock held), else from the thread's lock-free copy
/// of the mappings ([`crate::mm::fill_view`]), which answers nothing once stale. Never unwinds.
///
/// # Safety
/// Called only by the engine that `opaque`'s task belongs to, on its thread, while it runs
/// guest code; `start` and `end` are writable.
pub unsafe extern "C" fn store_range_reported(
    _uc: *mut unicorn_engine::uc_engine,
    addr: u64,
    start: *mut u64,
    end: *mut u64,
    opaque: *mut std::ffi::c_void,
) -> bool {
    crate::guard::guarded(&"store-range callback", || {
        // SAFETY: see the function's contract: the task outlives its engine's run, and
        // nothing changes it while its own thread runs guest code.
        let t = unsafe { &*opaque.cast::<Task>() };
        let range = if crate::thread::lock::held() || !t.parallel {
            t.mm.store_range(addr)
        } else {
            t.fill_view.as_ref().and_then(|v| v.store_range(addr))
        };
        range.is_some_and(|(s, e)| {
            // SAFETY: the engine's own out-parameters.
            unsafe {
                start.write(s);
                end.write(e);
            }
            true
        })
    })
}

thread_local! {
    /// The calling thread took the global guest lock for an exclusive step
    /// ([`exclusive_step`]).
    static EXCLUSIVE_TOOK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The engine's exclusive-step callback (unicorn patch 0009, `uc_set_exclusive_cb`): in
/// parallel mode an atomic the host cannot perform as one host atomic (a misaligned `lock`
/// instruction) runs as one serial step, bracketed by a call with `start` true and one with
/// `start` false. Like QEMU's `start_exclusive`, the thread takes the global guest lock and
/// stops every other running thread for the step ([`crate::thread::running::quiesce`]); if one
/// changed mappings while this one waited for the lock, this instance's TLB is flushed first.
/// Never unwinds.
///
/// # Safety
/// Called only by the engine, with its own live handle, outside translated code.
pub unsafe extern "C" fn exclusive_step(
    uc: *mut unicorn_engine::uc_engine,
    start: bool,
    _opaque: *mut std::ffi::c_void,
) {
    crate::guard::guarded(&"exclusive-step callback", || exclusive_step_work(uc, start));
}

/// [`exclusive_step`]'s work.
fn exclusive_step_work(uc: *mut unicorn_engine::uc_engine, start: bool) {
    use crate::thread::{lock, running};
    if start {
        if lock::held() {
            return;
        }
        let stops = running::quiesces();
        running::leave_guest();
        lock::acquire();
        running::quiesce();
        EXCLUSIVE_TOOK.with(|t| t.set(true));
        if running::quiesces() != stops.wrapping_add(u64::from(crate::thread::live_threads() > 1)) {
            use unicorn_engine::ControlType;
            let flush = ControlType(ControlType::TLB_FLUSH.0 | ControlType::IO_WRITE.0);
            // SAFETY: the engine's own live handle; a TLB flush between blocks is what the
            // system-call hooks do too.
            crate::guard::check("uc_ctl(TLB_FLUSH)", unsafe { unicorn_engine::uc_ctl(uc, flush) });
            crate::signal::host::stop_flag().raise();
        }
    } else if EXCLUSIVE_TOOK.with(|t| t.replace(false)) {
        running::enter_guest();
        #[allow(clippy::disallowed_methods)] // the exclusive step ended: nothing is borrowed
        lock::release();
    }
}

/// `true` if this thread's guest stored to code and [`publish_code_writes`] has not yet
/// published it.
#[inline]
pub fn code_writes_pending() -> bool {
    CODE_WRITES_ANY.with(std::cell::Cell::get)
}

/// Publishes the pages [`code_write_reported`] recorded for the other threads' instances, which
/// drop their translations of them before they run guest code again (this instance already
/// dropped its own). Called before this thread lets another one run: at every system call and
/// whenever its emulation stops.
#[inline(always)]
pub fn publish_code_writes(cpu: &mut Cpu<'_>) {
    // Nearly always none: look before taking the list (taking writes a new empty one and
    // drops the old, a measurable part of a trapped system call on s390x).
    if CODE_WRITES_ANY.with(std::cell::Cell::get) {
        publish_taken_code_writes(cpu);
    }
}

/// [`publish_code_writes`] when the list may hold pages.
#[cold]
#[inline(never)]
fn publish_taken_code_writes(cpu: &mut Cpu<'_>) {
    let pages = take_code_writes();
    if pages.is_empty() {
        return;
    }
    let t = cpu.get_data_mut();
    let before = t.mm.shootdown.generation();
    let code = pages.iter().map(|&p| (p, p + crate::mm::PAGE_SIZE)).collect();
    let gen = t.mm.shootdown.publish(&crate::mm::Invalidate { code, ..Default::default() });
    crate::thread::running::stop_others();
    if t.applied_gen == before {
        t.applied_gen = gen;
    }
}

/// `true` if [`apply_invalidate`] has work: this thread changed mappings, or another thread
/// published changes this instance has not applied (a cheap look for the syscall path).
#[inline]
pub fn invalidate_due(t: &Task) -> bool {
    t.mm.invalidate.pending()
        || t.applied_gen != t.mm.shootdown.generation()
        || t.regions_mapped != t.mm.regions().len()
}

/// Hands the address space's windows made since this instance last looked to unicorn
/// (`mem_map_ptr` at their guest addresses). A window the engine refuses is left out: the
/// guest's accesses there then fault as if unmapped, and the failure is reported once.
pub fn map_new_regions(cpu: &mut Cpu<'_>) {
    let t = cpu.get_data();
    let have = t.regions_mapped;
    let new: Vec<_> = t.mm.regions().get(have..).unwrap_or_default().to_vec();
    for w in &new {
        // SAFETY: each window is a host reservation owned by the process's AddressSpace, which
        // outlives every instance (each holds a handle to it in its task) and never gives a
        // window back while the process lives.
        if let Err(e) = unsafe { cpu.mem_map_ptr(w.guest, w.len, unicorn_engine::Prot::ALL, w.host.cast()) } {
            crate::elog!("warning: the engine refused guest memory at {:#x} ({} bytes): {e:?}", w.guest, w.len);
        }
    }
    cpu.get_data_mut().regions_mapped = have + new.len();
}

/// Work a system-call hook leaves to the run loop (done by `crate::task::deliver::after_stop`).
#[derive(Debug)]
pub enum PendingOp {
    /// `rt_sigreturn` (`rt` true) or the old `sigreturn` of 32-bit arches and s390x.
    SigReturn {
        /// The rt frame (siginfo + ucontext) rather than the old sigframe.
        rt: bool,
        /// `--strace`'s line, printed once the frame is restored (its mask and the restored
        /// return register are what strace shows).
        trace: Option<DeferredTrace>,
    },
    /// `clone` of a thread (`crate::task::spawn`): made once the creator's registers are
    /// final, which the new thread's instance starts from.
    Clone(Box<CloneRequest>),
}

/// A system call that returned `EINTR` because a signal arrived while it blocked, or that was
/// undone because a signal arrived before it took effect (`ERESTARTNOINTR`).
#[derive(Clone, Copy, Debug)]
pub struct Interrupted {
    /// The call.
    pub sys: Sys,
    /// Its number and arguments, to re-execute it.
    pub args: SyscallArgs,
    /// The call was undone before it took effect: it runs again after delivery whatever the
    /// handler's `SA_RESTART` says (the kernel's `ERESTARTNOINTR`).
    pub undone: bool,
}

/// A thread `clone` the syscall hook recorded for the run loop.
pub struct CloneRequest {
    /// The arguments by meaning.
    pub args: CloneArgs,
    /// Under `--strace`: the call's line, printed once the result is known.
    pub trace: Option<DeferredTrace>,
}

/// An strace line whose result comes later.
#[derive(Debug)]
pub struct DeferredTrace {
    /// The raw arguments.
    pub args: SyscallArgs,
    /// The formatted arguments.
    pub pre: Vec<(usize, Option<String>)>,
}

impl std::fmt::Debug for CloneRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloneRequest").field("args", &self.args).finish_non_exhaustive()
    }
}
