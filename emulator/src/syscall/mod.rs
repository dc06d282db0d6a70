//! System calls: the dispatcher and the handlers, grouped like the kernel's source.
//!
//! # The path of one call
//! The engine's interrupt hook (installed by [`install_trap_hooks`]) asks the arch what the
//! interrupt is ([`GuestArch::trap`]); for a system call the arch reads the number and
//! arguments from the registers its ABI names, and [`serve_locked`] looks the number up in the task's [`DispatchTable`] (arch
//! number -> [`SyscallDef`], built once from the `syscalls` crate's tables and [`table::DEFS`]),
//! runs the handler, writes the result (or `-errno`) back, and, under `--strace`, prints one
//! line in strace's format. The guest never leaves `emu_start` for this.
//!
//! # Handlers
//! Every handler has the same shape, [`Handler`]: it decodes its raw arguments, rejects what
//! the kernel rejects (unknown flag bits -> `EINVAL`, bad pointers -> `EFAULT`), and hands the
//! work to the host through `libc` or to [`crate::mm`]. Guest file descriptors are host file
//! descriptors. A call with no handler returns `-ENOSYS`; under `--strace` it is named once
//! with the strace lines. A handler never fakes success for something it did not do (but for
//! what the guest asks for with `--fakeroot`: [`fakeroot`]).

pub mod aio;
pub mod arch;
pub mod capability;
pub mod cbpf;
pub mod compat32;
pub mod dircookie;
pub mod epoll;
pub mod ethtool;
pub mod exec;
pub mod fakeroot;
pub mod fanotify;
pub mod fhandle;
pub mod fork;
pub mod fs;
pub mod futex;
pub mod gate;
pub mod inotify;
pub mod io;
pub mod ioctl;
pub mod ipc;
pub mod keys;
pub mod lsm;
pub mod mempolicy;
pub mod misc;
pub mod mm;
pub mod mount;
pub mod mqueue;
pub mod net;
pub mod netdevice;
pub mod netlink;
pub mod ns;
pub mod old;
pub mod path;
pub mod pidfd;
pub mod process;
pub mod process_vm;
pub mod procfs;
pub mod procnet;
pub mod robust;
pub mod rootfs;
pub mod rseq;
pub mod sched;
pub mod seccomp;
pub mod selfref;
pub mod signal;
pub mod signalfd;
pub mod socketcall;
pub mod splice;
pub mod strace;
pub mod table;
pub mod time;
pub mod timer;
pub mod uid16;
pub mod unlocked;
pub mod unserved;
pub mod xattr;

pub use crate::abi::nr;
pub use crate::guest::{Handler, SysResult};

use crate::guard::Checked;
use std::collections::HashMap;

use syscalls::Errno;

use crate::guest::{apply_invalidate, invalidate_due, Exit};
use crate::guest::{Cpu, Entries, GuestArch, SyscallArgs, Task};
use nr::Sys;
use strace::{ArgFmt, RetFmt};

/// One row of the syscall table: which call, who serves it, how strace prints it.
pub struct SyscallDef {
    /// The call.
    pub sys: Sys,
    /// Its handler.
    pub handler: Handler,
    /// How `--strace` prints each argument.
    pub args: &'static [ArgFmt],
    /// How `--strace` prints the result.
    pub ret: RetFmt,
    /// What besides the calling process the call can change ([`table::Reach`]).
    pub reach: table::Reach,
    /// A call the dispatcher makes itself instead of calling the handler: the host system
    /// call of this number, without arguments, whose result is a 32-bit id the guest gets as
    /// it is (`getppid`, `getuid`…; [`SyscallDef::host_id`]). The handler does the same, for
    /// `--fakeroot` and tools; the dispatcher's own call saves the handler's frame, which would
    /// be live across the host call (see [`install_trap_hooks`]).
    pub host_id: Option<syscalls::Sysno>,
    /// The call's handler without the global guest lock ([`unlocked`]), for a call that
    /// touches no process state (only its arguments, the calling thread and guest bytes it
    /// reaches through the thread's copy of the mappings).
    pub unlocked: Option<unlocked::Handler>,
}

/// Arch number -> table row, for one guest arch.
pub struct DispatchTable {
    rows: Vec<Option<&'static SyscallDef>>,
}

impl DispatchTable {
    /// Builds the table for `arch` from its number table and [`table::DEFS`]; for 32-bit
    /// guests the rows of [`compat32::DEFS`] replace those of the same call, then the arch's
    /// own rows ([`arch::rows_of`]) replace any of either.
    pub fn new(arch: &dyn GuestArch) -> DispatchTable {
        let compat: &'static [SyscallDef] = if arch.info().is_64bit() { &[] } else { compat32::DEFS };
        let mut by_sys: HashMap<Sys, &'static SyscallDef> =
            table::DEFS.iter().chain(compat).map(|d| (d.sys, d)).collect();
        for d in self::arch::rows_of(arch) {
            by_sys.insert(d.sys, d);
        }
        let numbers = (arch.info().numbers)();
        let mut rows = Vec::new();
        for &sys in Sys::ALL {
            if let (Some(nr), Some(def)) = (numbers.number_of(sys), by_sys.get(&sys)) {
                let i = usize::try_from(nr).unwrap_or(usize::MAX);
                if i >= rows.len() {
                    rows.resize(i + 1, None);
                }
                rows[i] = Some(*def);
            }
        }
        DispatchTable { rows }
    }

    /// The table of `arch`, built on first use. One endgate process runs guests of one arch
    /// (execve of another arch's program starts a new endgate), so the table is process-wide.
    pub fn of(arch: &dyn GuestArch) -> &'static DispatchTable {
        static TABLE: std::sync::OnceLock<DispatchTable> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| DispatchTable::new(arch))
    }

    /// The row for arch number `nr`.
    #[inline]
    pub fn get(&self, nr: u64) -> Option<&'static SyscallDef> {
        usize::try_from(nr).ok().and_then(|i| self.rows.get(i).copied().flatten())
    }
}

/// Installs the hooks through which guest system calls reach the dispatcher: the engine's
/// interrupt hook, which asks the arch what each interrupt is ([`GuestArch::trap`]: a system
/// call to serve, or something the arch handles itself, exceptions through `entries`), and
/// the system-call instruction's hook where the engine reports the call that way
/// ([`GuestArch::syscall_insn`], x86_64). A handler's panic ends the process as an internal
/// error naming the call (status 70, one line: [`crate::guard`]); `ENDGATE_TEST_PANIC=trap`
/// makes every system call panic in the hook instead. Errors: the engine's.
///
/// The hooks serve the call in their own frame ([`serve`] is inlined into them): on this host
/// every return made after a host system call mispredicts (the kernel refills the
/// return-stack predictor on the way back), so each frame between translated code and the
/// `syscall` instruction costs about 6 ns, a tenth of the emulator's share of a getppid
/// (docs/performance.md).
pub fn install_trap_hooks(cpu: &mut Cpu<'static>, entries: Entries) -> Result<(), unicorn_engine::uc_error> {
    let arch = cpu.get_data().arch;
    let inject = crate::guard::test_panic("trap");
    let regs = &arch.info().regs;
    if let Some(insn) = arch.syscall_insn() {
        cpu.add_insn_sys_hook(insn, 1, 0, move |cpu| {
            crate::guard::guarded(&"SYSCALL instruction hook", || {
                if inject {
                    crate::guard::injected_panic("trap");
                }
                let mut args = crate::guest::arch::syscall_args(cpu, arch);
                if cpu.get_data().parallel {
                    serve_locked(cpu, &mut args);
                } else {
                    // Alone: no lock to take.
                    serve(cpu, &mut args);
                }
            });
        })?;
    }
    cpu.add_intr_hook(move |cpu, intno| {
        crate::guard::guarded(&"interrupt hook", || {
            let parallel = cpu.get_data().parallel;
            if parallel && !crate::thread::lock::held() {
                // A plain system call goes to `serve_locked`, which may serve it without the
                // lock (`unlocked`).
                if let Some(mut args) = arch.trap_unlocked(cpu, intno) {
                    if inject {
                        crate::guard::injected_panic("trap");
                    }
                    serve_locked(cpu, &mut args);
                    return;
                }
            }
            if !parallel {
                // A plain trap (the arch row's `trap_intno`): decoded here from the pinned
                // registers, without the arch's `trap` (a dynamic call and a frame: ~7 ns of a
                // trapped call on arm, docs/performance.md).
                if let (Some(pins), true) = (&cpu.get_data().regs.sys, regs.trap_intno == Some(intno)) {
                    let mut args = pins.args();
                    if crate::guest::arch::plain_trap(cpu, regs, &mut args) {
                        if inject {
                            crate::guard::injected_panic("trap");
                        }
                        serve(cpu, &mut args);
                        return;
                    }
                }
            }
            // Alone: no lock to take (checked without `lock_for_hook`'s look at the lock).
            let taken = parallel && crate::guest::lock_for_hook(cpu);
            if let Some(mut args) = arch.trap(cpu, intno, entries) {
                if inject {
                    crate::guard::injected_panic("trap");
                }
                serve(cpu, &mut args);
            }
            if taken {
                crate::guest::unlock_after_hook(cpu);
            }
        });
    })?;
    Ok(())
}

/// Serves one guest system call, `args` as the arch's trap (or the gate's
/// `__kernel_vsyscall`) found it, holding the global guest lock when threads run in
/// parallel. Returns `true` if it asked the engine to stop (the run loop has work: an exit, a
/// sigreturn or clone, a signal to deliver).
#[inline(always)]
pub(crate) fn serve_locked(cpu: &mut Cpu<'_>, args: &mut SyscallArgs) -> bool {
    // By reference: the hook has just written `args` word by word, and a copy's 16-byte
    // loads of it stalled on store forwarding (a fifth of the dispatcher's time in a trapped
    // getppid, `perf annotate`).
    if cpu.get_data().parallel && !crate::thread::lock::held() {
        if let Some(stopped) = unlocked::serve(cpu, args) {
            return stopped;
        }
    }
    let taken = crate::guest::lock_for_hook(cpu);
    let stopped = serve(cpu, args);
    if taken {
        crate::guest::unlock_after_hook(cpu);
    }
    stopped
}

thread_local! {
    /// The call being served asked the engine to stop through [`stop_after_call`].
    static STOP_ASKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Stops the engine once the system call being served has returned (a debugger's stop made
/// inside it: a caught call, a fork event), and makes [`serve_locked`] say so, so that a call
/// through the gate's `__kernel_vsyscall` leaves its slot for the landing and does not run
/// again when the engine resumes (`crate::gate`).
pub fn stop_after_call(cpu: &mut Cpu<'_>) {
    cpu.stop();
    STOP_ASKED.with(|s| s.set(true));
}

/// The engine stops after this call: a [`stop_after_call`] request made during it is
/// answered too (the flag is left clear for the next call).
fn stopped() -> bool {
    STOP_ASKED.with(|s| s.set(false));
    true
}

/// What the optional observers of a call's entry decided ([`observe_entry`]): none of them
/// is on for most programs, so [`serve`] skips them with one test.
#[derive(Default)]
struct Observed {
    /// The result to return without running the handler (a tool served the call, or seccomp
    /// answered it).
    result: Option<SysResult>,
    /// The guest's result register keeps its value (seccomp's `SECCOMP_RET_TRAP`).
    keep_ret_reg: bool,
    /// The call as the guest made it, when a tool changed it (for a restart).
    entry_args: Option<SyscallArgs>,
    /// `--strace`'s entry half of the line.
    pre: Option<Vec<(usize, Option<String>)>>,
}

/// [`serve_locked`], holding the global guest lock (or in a thread that runs alone).
#[inline(always)]
pub(crate) fn serve(cpu: &mut Cpu<'_>, args: &mut SyscallArgs) -> bool {
    crate::guest::publish_code_writes(cpu);
    let nr = args.nr;
    // -g with `catch syscall`: the debugger sees the entry (one flag read otherwise).
    catch_stop(cpu, nr, true);
    let task = cpu.get_data();
    let arch = task.arch;
    let def = DispatchTable::of(arch).get(args.nr);
    // Whether arguments 4-6 have been read from their registers.
    let mut rest = def.is_some_and(|d| d.args.len() > 3);
    if rest {
        arch.syscall_args_rest(cpu, args);
    }
    let tracing = task.opts.strace;
    let tool = crate::guest::tool::get();
    let observed = if tool.is_some() || tracing || seccomp::active() {
        observe_entry(cpu, def, args, &mut rest, tool)
    } else {
        Observed::default()
    };
    let keep_ret_reg = observed.keep_ret_reg;

    let _ = cpu.get_data().mm.take_grow_request();
    cpu.get_data_mut().host_written = None;
    let result = match observed.result {
        Some(r) => r,
        None => match def {
            Some(def) => run(def, cpu, args),
            None => Err(unserved_answer(cpu, args, tracing)),
        },
    };
    if cpu.get_data().rseq.is_some() {
        // The host thread may have moved to another CPU since the guest last looked.
        rseq::refresh(cpu.get_data_mut());
    }
    let undone = result == Err(Errno::ERESTARTNOINTR);
    if undone || (result == Err(Errno::EINTR) && crate::signal::host::has_recorded()) {
        cold_path();
        // A signal interrupted the call: delivery decides whether it restarts, with the
        // argument registers as they are now (before the result overwrites one of them). A
        // call the handler undid for a signal that arrived before it (`ERESTARTNOINTR`) always
        // runs again, after that signal's delivery.
        if let Some(def) = def {
            if !rest {
                arch.syscall_args_rest(cpu, args);
            }
            let args = observed.entry_args.unwrap_or(*args);
            cpu.get_data_mut().interrupted = Some(crate::guest::Interrupted { sys: def.sys, args, undone });
        }
    }
    let mut ret = match result {
        Ok(v) => v,
        Err(e) => crate::abi::bits64(-i64::from(e.into_raw())),
    };
    if let Some(f) = tool.and_then(|t| t.syscall_exit) {
        cold_path();
        // The tool's exit hook, for a call that returns to the guest here.
        let t = cpu.get_data();
        if t.exit.is_none() && t.pending_op.is_none() && !keep_ret_reg {
            ret = f(cpu, args, ret);
        }
    }

    let exit = cpu.get_data().exit;
    if let Some(pre) = observed.pre {
        cold_path();
        match &mut cpu.get_data_mut().pending_op {
            // A thread clone's result comes from the run loop, which prints the line then.
            Some(crate::guest::PendingOp::Clone(req)) => {
                req.trace = Some(crate::guest::DeferredTrace { args: *args, pre });
            }
            // sigreturn's line shows the mask and the register the frame restores.
            Some(crate::guest::PendingOp::SigReturn { trace, .. }) => {
                *trace = Some(crate::guest::DeferredTrace { args: *args, pre });
            }
            _ => strace::print_line(cpu.get_data(), def, args, &pre, ret, exit.is_some()),
        }
    }
    if exit.is_some() {
        cold_path();
        cpu.stop();
        return stopped();
    }
    if cpu.get_data().pending_op.is_some() {
        cold_path();
        // sigreturn: the run loop restores every register, the result included; clone: the
        // run loop makes the thread and writes the result.
        cpu.stop();
        return stopped();
    }
    if !keep_ret_reg {
        crate::guest::arch::set_syscall_ret(cpu, arch, ret);
    }
    catch_stop(cpu, nr, false);
    if work_after_call(cpu.get_data()) {
        cold_path();
        return after_call(cpu);
    }
    STOP_ASKED.with(|s| s.replace(false))
}

/// Marks the branch that calls it as rarely taken, so that the compiler lays it out away from
/// the common path after the host call (`std::hint::cold_path`, stable only after the
/// workspace's minimum Rust version): a call of a cold function.
#[cold]
#[inline(never)]
fn cold_path() {}

/// Whether [`after_call`] has work once a call has returned: mappings to hand to the engine
/// or translations to drop, a signal to deliver, the first handler or second thread of the
/// process (the run loop installs the stop flags that let signals stop the thread), memory
/// newly shared with other processes (the run loop puts the instance in parallel mode). One
/// look at the address space for all of them: each look through the task after a host
/// system call costs a few ns (docs/performance.md).
#[inline(always)]
fn work_after_call(t: &crate::guest::Task) -> bool {
    let mm = &*t.mm;
    mm.invalidate.pending()
        || t.applied_gen != mm.shootdown.generation()
        || t.regions_mapped != mm.regions().len()
        || t.signal_work_due()
        || (!t.stop_flags && crate::signal::host::async_stops_needed())
        || (mm.shared_writable && !t.parallel && crate::thread::running::parallel_allowed())
}

/// The work [`work_after_call`] found: the engine's view of the mappings brought up to date,
/// and the engine stopped for the run loop's work. Returns as [`serve`].
#[cold]
#[inline(never)]
fn after_call(cpu: &mut Cpu<'_>) -> bool {
    if invalidate_due(cpu.get_data()) {
        apply_invalidate(cpu);
    }
    let t = cpu.get_data();
    if t.signal_work_due()
        || (!t.stop_flags && crate::signal::host::async_stops_needed())
        || (t.mm.shared_writable && !t.parallel && crate::thread::running::parallel_allowed())
    {
        cpu.stop();
        return stopped();
    }
    STOP_ASKED.with(|s| s.replace(false))
}

/// The entry's observers, for a call that has one: a tool built on `crate::api` (never the
/// `endgate` command), whose entry hook sees all six arguments and may change them or serve
/// the call itself; seccomp, which judges every call once a thread of the process has a mode,
/// on all six arguments; `--strace`'s entry half of the line.
#[cold]
#[inline(never)]
fn observe_entry(
    cpu: &mut Cpu<'_>,
    def: Option<&'static SyscallDef>,
    args: &mut SyscallArgs,
    rest: &mut bool,
    tool: Option<&'static crate::guest::tool::Tool>,
) -> Observed {
    let arch = cpu.get_data().arch;
    let mut seen = Observed::default();
    let mut skipped = None;
    if let Some(t) = tool {
        (skipped, seen.entry_args) = tool_entry(cpu, t, args, rest);
    }
    let verdict = if seccomp::active() {
        if !*rest {
            *rest = true;
            arch.syscall_args_rest(cpu, args);
        }
        let ip = args.gate_landing.unwrap_or_else(|| arch.syscall_ip(cpu));
        seccomp::judge(cpu, args, ip)
    } else {
        seccomp::Verdict::Allow
    };
    if cpu.get_data().opts.strace {
        seen.pre = Some(strace::format_entry(cpu.get_data(), def, args));
    }
    seen.result = match verdict {
        seccomp::Verdict::Allow => skipped,
        seccomp::Verdict::Return(r) => Some(r),
        seccomp::Verdict::Trap(info) => {
            // The handler sees the registers as they were before the call (the kernel's
            // `syscall_rollback`).
            cpu.get_data_mut().sync_fault = Some(info);
            seen.keep_ret_reg = true;
            Some(Err(Errno::ENOSYS))
        }
        seccomp::Verdict::KillThread(sig) => {
            let pc = arch.pc(cpu);
            let t = cpu.get_data_mut();
            if crate::thread::live_threads() > 1 {
                t.exit = Some(Exit::Code(0));
                t.exit_thread = true;
            } else {
                t.exit = Some(Exit::Signal { sig, pc, addr: None });
            }
            Some(Err(Errno::ENOSYS))
        }
        seccomp::Verdict::KillProcess => {
            let pc = arch.pc(cpu);
            cpu.get_data_mut().exit = Some(Exit::Signal { sig: crate::signal::Signal::SIGSYS, pc, addr: None });
            Some(Err(Errno::ENOSYS))
        }
    };
    seen
}

/// Runs the handler of `def`; its panic ends the process as an internal error naming the call.
#[inline(always)]
fn run(def: &'static SyscallDef, cpu: &mut Cpu<'_>, args: &SyscallArgs) -> SysResult {
    // The handler runs in the hook's frame: no closure, no unwinding guard (a frame of its own
    // would be live across the host system call: see [`install_trap_hooks`]; and a result
    // returned through `catch_unwind` was copied as one vector load of two smaller stores, a
    // store-forwarding stall that was a third of the dispatcher's time). The rare cases are
    // one cold call.
    if let (Some(nr), false) = (def.host_id, fakeroot::on()) {
        // No handler runs (so none is named for a panic): the call has no arguments, so no
        // descriptor of endgate's and no pages are involved.
        // SAFETY: a host call without arguments that only reads the caller's ids.
        let id = unsafe { syscalls::raw::syscall0(nr) };
        return Ok(u64::from(crate::abi::low32(id as u64)));
    }
    let outer = crate::guard::enter_handler(def.sys.name_ref());
    let r = if on_own_fd(def, args) && !absolute_path_arg(cpu, def, args) {
        Err(Errno::EBADF)
    } else if fakeroot::on() || mm::takes_pages_away(def.sys, args) {
        call_slow(def, cpu, args)
    } else {
        match (def.handler)(cpu, args) {
            Err(Errno::EFAULT) => retry_grown(def, cpu, args),
            r => r,
        }
    };
    crate::guard::leave_handler(outer);
    r
}

/// Whether `def`'s first argument is a descriptor (or an `*at` call's directory) that is one
/// of endgate's own (its executable, root and `/proc` handles, `--fakeroot`'s log:
/// [`selfref::may_be_own`]): the call answers `EBADF`, as Linux does for a descriptor the
/// guest never had (`close`, `dup` and `dup2` already treat them so), but for an `*at` call
/// whose path is absolute, which ignores its directory ([`absolute_path_arg`]). One load for
/// the guest's ordinary descriptors.
#[inline]
fn on_own_fd(def: &SyscallDef, args: &SyscallArgs) -> bool {
    matches!(def.args.first(), Some(ArgFmt::Fd | ArgFmt::AtFd)) && selfref::may_be_own(args.int(0))
}

/// For [`on_own_fd`]: `true` if `def` is an `*at` call whose path (its second argument) is
/// absolute, so its directory descriptor does not matter.
#[cold]
fn absolute_path_arg(cpu: &Cpu<'_>, def: &SyscallDef, args: &SyscallArgs) -> bool {
    matches!(def.args, [ArgFmt::AtFd, ArgFmt::Str, ..])
        && cpu.get_data().mm.read_cstr(args.ptr(1), crate::mm::PATH_MAX).is_ok_and(|p| p.first() == Some(&b'/'))
}

/// The answer to a call without a handler: the one [`unserved`] gives it (ENOSYS for a number
/// the arch does not define), named once under `--strace` and each time under `-d unimp`.
#[cold]
#[inline(never)]
fn unserved_answer(cpu: &mut Cpu<'_>, args: &SyscallArgs, tracing: bool) -> Errno {
    let arch = cpu.get_data().arch;
    let name = (arch.info().numbers)().name_of(args.nr);
    let group = name.and_then(unserved::group_of);
    let errno = group.map_or(Errno::ENOSYS, |g| g.errno);
    let task = cpu.get_data_mut();
    if task.opts.trace.has(crate::cli::DebugItem::Unimp) {
        let e = errno.name().unwrap_or("E?");
        crate::dlog!("Unsupported syscall: {} ({}): -{e}\n", args.nr, name.unwrap_or("unknown"));
    }
    if tracing && task.warned.insert(args.nr) {
        let (name, arch_name) = (name.unwrap_or("unknown"), arch.info().name);
        let e = errno.name().unwrap_or("E?");
        match group {
            Some(g) if g.kind == unserved::Kind::Refused => {
                crate::tlog!("endgate: syscall {} ({name}) is refused on {arch_name}: -{e} ({})", args.nr, g.reason)
            }
            Some(g) if g.kind == unserved::Kind::Absent => crate::tlog!(
                "endgate: syscall {} ({name}) is answered as {arch_name} without the feature: -{e} ({})",
                args.nr,
                g.reason
            ),
            _ => crate::tlog!("endgate: syscall {} ({name}) is not implemented on {arch_name}: -{e}", args.nr),
        }
    }
    errno
}

/// Runs `def`'s handler, or `--fakeroot`'s version of the call ([`fakeroot::serve`]).
#[inline]
fn call(def: &'static SyscallDef, cpu: &mut Cpu<'_>, args: &SyscallArgs) -> SysResult {
    if fakeroot::on() {
        fakeroot::serve(cpu, def, args)
    } else {
        (def.handler)(cpu, args)
    }
}

/// [`run`]'s handler call under `--fakeroot` or for a call that takes pages away from the
/// address space (the other threads stop first: [`crate::thread::running::quiesce`]).
#[cold]
#[inline(never)]
fn call_slow(def: &'static SyscallDef, cpu: &mut Cpu<'_>, args: &SyscallArgs) -> SysResult {
    if mm::takes_pages_away(def.sys, args) {
        match mm::stop_for(def, args, cpu.get_data()) {
            mm::Stop::Nothing => {}
            mm::Stop::Unstopped => cpu.get_data_mut().mm.taken_unstopped = true,
            mm::Stop::Others => {
                crate::thread::running::quiesce();
                cpu.get_data_mut().mm.taken_unstopped = false;
            }
        }
    }
    match call(def, cpu, args) {
        Err(Errno::EFAULT) => retry_grown(def, cpu, args),
        r => r,
    }
}

/// A handler's `EFAULT` for a buffer just below a grows-down stack: the kernel's access would
/// have grown the stack, so grow it and serve the call again (the buffer checks come first).
#[cold]
#[inline(never)]
fn retry_grown(def: &'static SyscallDef, cpu: &mut Cpu<'_>, args: &SyscallArgs) -> SysResult {
    let mm = &mut cpu.get_data_mut().mm;
    if mm.take_grow_request().is_some_and(|a| mm.grow_down(a)) {
        call(def, cpu, args)
    } else {
        Err(Errno::EFAULT)
    }
}

/// The tool's entry hook ([`crate::guest::tool::Tool::syscall_entry`]) for the call `args`,
/// with all six arguments read first (`rest`): the result to serve the call with, when the
/// tool serves it itself, and the call as the guest made it, when the tool changed it.
#[cold]
#[inline(never)]
fn tool_entry(
    cpu: &mut Cpu<'_>,
    tool: &crate::guest::tool::Tool,
    args: &mut SyscallArgs,
    rest: &mut bool,
) -> (Option<SysResult>, Option<SyscallArgs>) {
    let Some(f) = tool.syscall_entry else { return (None, None) };
    if !*rest {
        *rest = true;
        cpu.get_data().arch.syscall_args_rest(cpu, args);
    }
    let before = *args;
    let served = f(cpu, args).map(|ret| {
        let word = cpu.get_data().arch.info().word_mask();
        // `-errno` (as the guest's word) is an error, as the kernel's result convention says.
        let signed =
            if word == u64::from(u32::MAX) { i64::from(crate::abi::int32(ret)) } else { crate::abi::signed64(ret) };
        match i32::try_from(signed) {
            Ok(e) if (-4095..0).contains(&e) => Err(Errno::new(-e)),
            _ => Ok(ret & word),
        }
    });
    let changed = before.a != args.a;
    (served, changed.then_some(before))
}

/// A debugger catches system calls (`-g`'s `catch syscall`): set by [`set_catching`].
static CATCHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `true` while a debugger catches system calls.
#[inline]
pub(crate) fn catching() -> bool {
    CATCHING.load(std::sync::atomic::Ordering::Relaxed)
}

/// What a caught system call calls, at its entry (`true`) and its return: `crate::gdb`'s stop,
/// registered from above this layer ([`set_catch_stop`]).
type CatchStop = fn(&mut Cpu<'_>, u64, bool);
static CATCH_STOP: std::sync::OnceLock<CatchStop> = std::sync::OnceLock::new();

/// Registers the debugger's stop for caught system calls (the first registration stays).
pub fn set_catch_stop(f: CatchStop) {
    let _ = CATCH_STOP.set(f);
}

/// Turns the calls to the [`set_catch_stop`] function on or off.
pub fn set_catching(on: bool) {
    CATCHING.store(on, std::sync::atomic::Ordering::SeqCst);
}

/// Calls the debugger's stop for system call `nr` when one catches system calls.
#[inline]
fn catch_stop(cpu: &mut Cpu<'_>, nr: u64, entry: bool) {
    if CATCHING.load(std::sync::atomic::Ordering::Relaxed) {
        cold_path();
        if let Some(f) = CATCH_STOP.get() {
            f(cpu, nr, entry);
        }
    }
}

/// A host system call that may block (a `read` of a pipe, a futex wait, a sleep), for a
/// handler: the guest lock is released meanwhile when other guest threads exist
/// ([`crate::thread::blocking`]), and a guest signal that arrives between the last look for
/// recorded signals and the start of the call makes it return `EINTR` instead of leaving the
/// signal waiting behind the call (`host_shims::safe_syscall`). `args` are the call's
/// arguments in order (missing ones are 0). Returns as `libc::syscall` does: the value, or
/// -1 with `errno` set, for [`host_ret`].
pub fn blocking_syscall(t: &mut Task, nr: libc::c_long, args: &[u64]) -> i64 {
    let mut six = [0u64; 6];
    six[..args.len()].copy_from_slice(args);
    let pending = crate::signal::host::recorded_counters();
    // SAFETY: the caller passes arguments valid for `nr`; `pending` is this thread's.
    let r = t.blocking(move || unsafe { interruptible_syscall(pending, nr, six) });
    if (-4095..0).contains(&r) {
        // SAFETY: glibc's thread-local errno.
        unsafe { *libc::__errno_location() = crate::abi::int32(-r) };
        -1
    } else {
        r
    }
}

/// `safe_syscall` for a host call that may wait: a guest signal recorded since `pending`
/// stops it before it starts with `-ERESTARTNOINTR` ([`host_shims::safe_syscall::NOT_STARTED`]):
/// for the guest the signal came before its call, so [`serve`] delivers it and runs the call
/// again afterwards, whatever the handler's `SA_RESTART` (an `EINTR` here failed reads of
/// ready pipes that Linux never fails). A call Linux finishes whatever signals arrive
/// (signal(7): only calls on "slow" devices are interrupted), a transfer through a regular
/// file or block device or an open of a regular file ([`never_interrupted`]), is made at once
/// instead, and the signal is delivered when it returns. A signal during the host call ends it
/// with `-EINTR` as usual. Returns as the raw system call does.
///
/// # Safety
/// The arguments must be valid for `nr`, as for the raw system call.
pub(crate) unsafe fn interruptible_syscall(pending: *const [u32; 2], nr: libc::c_long, six: [u64; 6]) -> i64 {
    // SAFETY: the caller's.
    let r = unsafe { host_shims::safe_syscall::safe_syscall(pending, nr, six) };
    if r != host_shims::safe_syscall::NOT_STARTED || !never_interrupted(nr, &six) {
        return r;
    }
    // SAFETY: the caller's; the call did not start (the kernel interrupts none of these).
    let r = unsafe { libc::syscall(nr, six[0], six[1], six[2], six[3], six[4], six[5]) };
    if r < 0 {
        -i64::from(Errno::last().into_raw())
    } else {
        r
    }
}

/// `true` for a host call the kernel does not interrupt for a signal: a read or write of a
/// regular file or block device, an `openat` of a regular file (or a new one). Asked only
/// for a call that did not start.
fn never_interrupted(nr: libc::c_long, six: &[u64; 6]) -> bool {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    let kind = |r: libc::c_int, st: &std::mem::MaybeUninit<libc::stat>| {
        // SAFETY: fstat/fstatat filled `st` when they returned 0.
        (r == 0).then(|| unsafe { st.assume_init_ref() }.st_mode & libc::S_IFMT)
    };
    match nr {
        libc::SYS_read
        | libc::SYS_write
        | libc::SYS_pread64
        | libc::SYS_pwrite64
        | libc::SYS_readv
        | libc::SYS_writev
        | libc::SYS_preadv
        | libc::SYS_pwritev
        | libc::SYS_preadv2
        | libc::SYS_pwritev2 => {
            // SAFETY: an fd and a stat buffer of ours.
            let r = unsafe { libc::fstat(crate::abi::int32(six[0]), st.as_mut_ptr()) };
            matches!(kind(r, &st), Some(libc::S_IFREG | libc::S_IFBLK))
        }
        libc::SYS_openat => {
            // SAFETY: the call's own directory fd and NUL-terminated host path.
            let r =
                unsafe { libc::fstatat(crate::abi::int32(six[0]), six[1] as *const libc::c_char, st.as_mut_ptr(), 0) };
            match kind(r, &st) {
                Some(mode) => mode == libc::S_IFREG,
                None => Errno::last() == Errno::ENOENT && six[2] & libc::O_CREAT as u64 != 0,
            }
        }
        _ => false,
    }
}

/// A guest `int` argument (an fd, flags, a timeout in ms) as a host system call argument:
/// the low 32 bits, sign-extended, as the kernel reads an `int`.
#[inline]
pub fn fd_arg(v: u64) -> u64 {
    crate::abi::bits64(as_int(v))
}

/// Converts a host libc return value (`-1` + errno) to a [`SysResult`].
#[inline]
pub fn host_ret(r: i64) -> SysResult {
    u64::try_from(r).map_err(|_| Errno::last())
}

/// The guest argument as a C `int` (the kernel truncates `int` arguments to 32 bits).
#[inline]
pub fn as_int(v: u64) -> i32 {
    crate::abi::int32(v)
}
