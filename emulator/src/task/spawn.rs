//! `clone` of a guest thread: `CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
//! CLONE_THREAD`, as glibc's and musl's `pthread_create` pass it, with `CLONE_SYSVSEM`,
//! `CLONE_SETTLS` and the three tid words.
//!
//! # Steps
//! 1. The syscall hook checks the flags ([`request`]) and leaves the work to the run loop
//!    (a [`PendingOp::Clone`]): inside the hook some registers are not final yet (x86_64's
//!    RIP still points at `syscall`). After `emu_stop` the creator's program counter is past
//!    the trap and its registers are exactly what the new thread starts from.
//! 2. The run loop ([`finish`]) saves the creator's CPU state (a unicorn context: QEMU's
//!    `CPUArchState` up to its reset fields, the same layout in two instances of one arch and
//!    model) and the arch's other per-instance state ([`GuestArch::thread_extra`]: i386's
//!    GDT), builds the new thread's `Task` (handles to the shared address space and signal
//!    dispositions; its own mask, no pending signals, no alternate stack, as the kernel gives
//!    a `CLONE_VM` child), and starts a host thread.
//! 3. The new host thread creates its own unicorn instance (instances are `!Send`): first the
//!    engine itself ([`crate::task::open_instance`]: unicorn builds its machine, about 20 ms of
//!    CPU, which under load took up to a second), while the creator waits with the global
//!    guest lock released ([`crate::thread::blocking`]) so the other threads run; then, once
//!    the creator holds the lock again, it maps the same host windows, installs the hooks
//!    ([`crate::task::fill_instance`]), restores the copied CPU state, and sets what differs:
//!    return value 0, the new stack pointer, the arch's fresh-instance setup
//!    ([`GuestArch::init_thread`]: i386's GDT), the TLS, and writes its tid
//!    for `CLONE_CHILD_SETTID`. Meanwhile the creator waits with the lock held: the new thread
//!    works on the creator's behalf, so touching the shared state is as safe as if the
//!    creator did it.
//! 4. The new thread reports its tid (or an errno: the clone fails) and then queues for the
//!    lock like any thread; the creator writes `CLONE_PARENT_SETTID` and returns the tid.

use crate::guard::Checked;
use std::collections::HashSet;
use std::sync::mpsc;

use syscalls::Errno;
use unicorn_engine::unicorn_const::{
    uc_context, uc_context_alloc, uc_context_free, uc_context_restore, uc_context_save,
};

use crate::guest::{CloneArgs, CloneRequest, Cpu, GuestArch, SysResult, Task};
use crate::mm::GuestAddr;
use crate::signal::{AltStack, SigState, SS_DISABLE};
use crate::syscall::fork::{CLONE_CHILD_CLEARTID, CLONE_CHILD_SETTID, CLONE_PARENT_SETTID, CLONE_SETTLS};
use crate::thread::lock;

/// Host stack of a guest thread's host thread (endgate's own frames and unicorn's; the guest
/// has its own stack in guest memory). Committed lazily.
const HOST_STACK: usize = 8 << 20;

/// Makes the thread `req` asks for (the run loop, with the creator stopped after the trap) and
/// writes the creator's result: the new thread's id, or `-errno`.
pub fn finish(cpu: &mut Cpu<'_>, req: CloneRequest) {
    let ret = match spawn(cpu, &req.args) {
        Ok(v) => v,
        Err(e) => crate::abi::bits64(-i64::from(e.into_raw())),
    };
    let arch = cpu.get_data().arch;
    arch.set_syscall_ret(cpu, ret);
    if let Some(tr) = req.trace {
        let def = crate::syscall::DispatchTable::of(cpu.get_data().arch).get(tr.args.nr);
        crate::syscall::strace::print_line(cpu.get_data(), def, &tr.args, &tr.pre, ret, false);
    }
}

/// A saved CPU state, moved to the new thread.
struct CpuContext(*mut uc_context);

// SAFETY: a heap block owned by this value, read only by the thread that restores it.
unsafe impl Send for CpuContext {}

impl CpuContext {
    fn save(cpu: &Cpu<'_>) -> Result<CpuContext, Errno> {
        let mut p = std::ptr::null_mut();
        // SAFETY: a live handle and an out pointer; on success `p` owns a context block.
        let r = unsafe { uc_context_alloc(cpu.get_handle(), &mut p) };
        if r != unicorn_engine::uc_error::OK || p.is_null() {
            return Err(Errno::ENOMEM);
        }
        let c = CpuContext(p);
        // SAFETY: a context allocated for this engine.
        let r = unsafe { uc_context_save(cpu.get_handle(), c.0) };
        if r != unicorn_engine::uc_error::OK {
            return Err(Errno::ENOMEM);
        }
        Ok(c)
    }

    fn restore(&self, cpu: &Cpu<'_>) -> Result<(), Errno> {
        // SAFETY: a context saved from an instance of the same arch, mode and CPU model.
        let r = unsafe { uc_context_restore(cpu.get_handle(), self.0) };
        if r == unicorn_engine::uc_error::OK {
            Ok(())
        } else {
            Err(Errno::ENOMEM)
        }
    }
}

impl Drop for CpuContext {
    fn drop(&mut self) {
        // SAFETY: allocated by uc_context_alloc, freed once.
        unsafe { uc_context_free(self.0) };
    }
}

/// Everything the new host thread needs, moved to it.
struct Seed {
    task: Task,
    ctx: CpuContext,
    extra: Vec<u8>,
    args: CloneArgs,
    /// The creator's seccomp state, copied.
    seccomp: crate::syscall::seccomp::Inherited,
}

/// The new thread's `Task`: handles to the process's shared state, its own signal state.
fn child_task(t: &Task, ca: &CloneArgs) -> Task {
    Task {
        arch: t.arch,
        mm: t.mm.clone(),
        opts: t.opts.clone(),
        exe: t.exe.clone(),
        sig: SigState {
            actions: t.sig.actions.clone(),
            mask: t.sig.mask,
            // A CLONE_VM child without CLONE_VFORK starts without an alternate stack
            // (sigaltstack(2)).
            altstack: AltStack { sp: 0, flags: SS_DISABLE, size: 0 },
            pending: 0,
            queue: Vec::new(),
            saved_mask: None,
            guest_only: t.sig.guest_only.clone(),
        },
        exit: None,
        exit_thread: false,
        applied_gen: t.mm.shootdown.generation(),
        regions_mapped: 0,
        clear_child_tid: if ca.flags & CLONE_CHILD_CLEARTID != 0 { ca.ctid } else { 0 },
        robust_list: (0, 0),
        mempolicy: t.mempolicy,
        argv: t.argv.clone(),
        auxv: t.auxv.clone(),
        warned: HashSet::new(),
        sigtramp: t.sigtramp,
        gate: t.gate.clone(),
        pending_op: None,
        sync_fault: None,
        interrupted: None,
        rseq: None,
        parallel: false,
        retry_fill: false,
        fill_view: None,
        host_written: None,
        tlb_fills: (0, crate::task::TLB_RESIZE_FILLS),
        regs: crate::guest::RegPtrs::default(),
        stop_flags: false,
        start_stack: t.start_stack,
        arg_env: t.arg_env,
        last_fault: None,
    }
}

fn spawn(cpu: &mut Cpu<'_>, ca: &CloneArgs) -> SysResult {
    let t = cpu.get_data();
    let arch: &'static dyn GuestArch = t.arch;
    let seed = Seed {
        task: child_task(t, ca),
        ctx: CpuContext::save(cpu)?,
        extra: arch.thread_extra(cpu),
        args: *ca,
        seccomp: crate::syscall::seccomp::for_new_thread(),
    };
    // From now on the process has threads: every instance stops at block starts on request
    // (the run loops install the hook), and the preemption timer runs.
    crate::signal::host::need_async_stops();
    crate::thread::preempt::start_timer();
    let (tx, rx) = mpsc::sync_channel::<Result<i32, Errno>>(1);
    let (go_tx, go_rx) = mpsc::sync_channel::<()>(1);
    crate::thread::thread_started();
    crate::log::trace_pids();
    // The creator's per-thread CPU state, as Linux copies it (x86's last exception).
    let state = crate::arch::thread_state();
    let started = crate::thread::spawn_host(std::thread::Builder::new().stack_size(HOST_STACK), move || {
        crate::arch::inherit_thread_state(state);
        child_main(seed, tx, go_rx)
    });
    let reply = match started {
        // The host thread runs detached; it ends when its guest thread does. It first builds
        // its engine, which needs no lock (unicorn's machine set-up is most of a new thread's
        // cost, and under load it took up to a second): the other threads run meanwhile, then
        // the new thread finishes its instance while this one holds the lock again for it.
        Ok(_) => match cpu.get_data_mut().blocking(move || (rx.recv(), rx)) {
            // The new thread sets up the rest for this one, which waits with the lock lent.
            (Ok(Ok(_)), rx) => lock::lend(|| {
                if go_tx.send(()).is_ok() {
                    rx.recv().unwrap_or(Err(Errno::EAGAIN))
                } else {
                    Err(Errno::EAGAIN)
                }
            }),
            (Ok(Err(e)), _) => Err(e),
            _ => Err(Errno::EAGAIN),
        },
        Err(_) => Err(Errno::EAGAIN),
    };
    let tid = match reply {
        Ok(tid) => tid,
        Err(e) => {
            crate::thread::thread_ended();
            return Err(e);
        }
    };
    if ca.flags & CLONE_PARENT_SETTID != 0 {
        // The kernel ignores a failed write of the tid words.
        let _ = cpu.get_data_mut().mm.write_i32(GuestAddr::new(ca.ptid), tid);
    }
    Ok(crate::abi::bits64(tid))
}

/// The new host thread: builds its engine (no lock needed; the creator waits without it),
/// reports, then sets up the rest of the instance for its creator (which waits with the lock
/// held), reports again, then runs the guest thread under the lock until it ends.
fn child_main(seed: Seed, tx: mpsc::SyncSender<Result<i32, Errno>>, go: mpsc::Receiver<()>) {
    prime_heap_shrink();
    let tid = crate::thread::gettid();
    // The host thread's mask is the guest thread's (inherited from the creator already).
    let Seed { task, ctx, extra, args, seccomp } = seed;
    crate::syscall::seccomp::adopt(seccomp);
    crate::signal::host::set_mask(task.sig.mask);
    let cpu = match crate::task::open_instance(task) {
        Ok(cpu) => cpu,
        Err(_) => {
            let _ = tx.send(Err(Errno::ENOMEM));
            return;
        }
    };
    // The creator takes the lock back, then lets this thread touch the shared state for it.
    if tx.send(Ok(0)).is_err() || go.recv().is_err() {
        return;
    }
    // SAFETY: the creator is inside `lock::lend` until `tx` carries this setup's result.
    let mut cpu = match unsafe { lock::as_borrower(|| setup(cpu, ctx, &extra, &args, tid)) } {
        Ok(cpu) => cpu,
        Err(e) => {
            let _ = tx.send(Err(e));
            return;
        }
    };
    if tx.send(Ok(tid)).is_err() {
        return;
    }
    drop(tx);
    lock::acquire();
    let ctid = match crate::task::run_thread(&mut cpu) {
        Some(exit) => super::exit::end_process(&mut cpu, exit),
        None => {
            let ctid = super::exit::ChildTid::of(&mut cpu);
            #[allow(clippy::disallowed_methods)] // the thread's run loop has ended: nothing of its Task is borrowed
            lock::release();
            ctid
        }
    };
    // The instance goes away without the lock: it holds nothing the other threads use. The
    // thread left the running set (`thread_ended`), so no other thread raises its stop flag
    // any more: stop mirroring it into the engine before the engine goes.
    crate::signal::host::detach_stop_flags();
    drop(cpu);
    // Only now may `pthread_join` see the thread end (`crate::task::exit`'s module doc).
    super::exit::clear_child_tid(ctid);
}

/// Makes the host's glibc read `/proc/sys/vm/overcommit_memory` now, while no other guest
/// thread runs (the creator waits in `clone`), rather than some time after a guest thread has
/// ended. glibc reads that file once per process, the first time it shrinks the heap of a
/// thread's arena (malloc/arena.c `shrink_heap`, `check_may_shrink_heap`), and the descriptor it
/// opens for the read is the lowest free one, which a guest `open` right after `pthread_join`
/// would otherwise find taken (guest test `thread_join_fds`; a thread's end frees memory after
/// its joiner is woken: std's and glibc's own thread teardown). The shrink is made to happen:
/// 40 blocks of 100 KiB (below the mmap threshold, so from this thread's arena) freed at once
/// coalesce into its heap's top, which then exceeds the trim threshold (unless earlier frees of
/// large mapped blocks raised it above 4 MiB). Once per process; a forked child inherits the
/// answer glibc cached.
fn prime_heap_shrink() {
    static PRIMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if PRIMED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let blocks: Vec<Vec<u8>> = (0..40).map(|_| Vec::with_capacity(100 << 10)).collect();
    drop(std::hint::black_box(blocks));
}

/// The new thread's instance, from its opened engine, started from the creator's registers
/// (see the module doc).
fn setup(cpu: Cpu<'static>, ctx: CpuContext, extra: &[u8], args: &CloneArgs, tid: i32) -> Result<Cpu<'static>, Errno> {
    let arch = cpu.get_data().arch;
    let mut cpu = crate::task::fill_instance(cpu).map_err(|_| Errno::ENOMEM)?;
    ctx.restore(&cpu)?;
    drop(ctx);
    if args.newsp != 0 {
        arch.set_stack_pointer(&mut cpu, args.newsp).map_err(|_| Errno::EINVAL)?;
    }
    arch.init_thread(&mut cpu, extra).map_err(|_| Errno::ENOMEM)?;
    crate::task::install_tools(&mut cpu).map_err(|_| Errno::ENOMEM)?;
    arch.set_syscall_ret(&mut cpu, 0);
    if args.flags & CLONE_SETTLS != 0 {
        arch.set_tls(&mut cpu, args.tls)?;
    }
    if args.flags & CLONE_CHILD_SETTID != 0 {
        let _ = cpu.get_data_mut().mm.write_i32(GuestAddr::new(args.ctid), tid);
    }
    cpu.flush_tlb();
    Ok(cpu)
}
