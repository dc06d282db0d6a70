//! A guest thread: its unicorn instance, its process state, and the loop that runs it.
//!
//! The run loop calls `emu_start(pc, until = 0)` and lets translated code run until something
//! needs endgate: system calls are served inside the trap hook without leaving `emu_start`
//! (see docs/unicorn-facts.md §4.2: a stop and restart costs ~74 ns, a hook round trip
//! less); `emu_start` returns only when the guest exits, faults, or a hook asked to stop.

pub mod deliver;
pub mod exit;
pub mod spawn;

use unicorn_engine::{uc_error, MemType, TlbEntry, TlbType};

use crate::guard::{self, guarded, Checked};
use crate::guest::{apply_invalidate, invalidate_due, Cpu, Entries, Exit, Task};
use crate::mm::{Fault, Prot};
use crate::signal::{SigInfo, Signal};

/// Creates a unicorn instance for `task`'s arch with `task` as its user data, ready to run
/// guest code of `task`'s address space: the virtual TLB with endgate's fill hook, the
/// address-space windows mapped with `mem_map_ptr`, the arch's hooks. Used for the first
/// thread ([`crate::launch`]); a thread `clone` makes ([`spawn`]) takes the two steps
/// ([`open_instance`], [`fill_instance`]) apart.
pub fn new_instance(task: Task) -> Result<Cpu<'static>, uc_error> {
    fill_instance(open_instance(task)?)
}

/// The [`Task`] of the first thread of a new process: `arch`'s program `exe` in address space `mm`, with
/// the signal dispositions a new program inherits and nothing else set yet.
pub fn new_process(
    arch: &'static dyn crate::guest::GuestArch,
    mm: crate::mm::AddressSpace,
    opts: std::sync::Arc<crate::guest::Options>,
    exe: crate::guest::ExeInfo,
) -> Task {
    Task {
        arch,
        mm: crate::thread::shared::Shared::new(mm),
        sig: crate::syscall::exec::inherited_sig_state(&opts),
        mempolicy: opts.mempolicy,
        opts,
        exe,
        exit: None,
        exit_thread: false,
        applied_gen: 0,
        regions_mapped: 0,
        clear_child_tid: 0,
        robust_list: (0, 0),
        warned: std::collections::HashSet::new(),
        argv: Vec::new(),
        auxv: Vec::new(),
        sigtramp: 0,
        gate: std::sync::Arc::new(crate::gate::Gate::default()),
        stop_flags: false,
        start_stack: 0,
        arg_env: [0; 4],
        last_fault: None,
        pending_op: None,
        sync_fault: None,
        interrupted: None,
        rseq: None,
        parallel: false,
        retry_fill: false,
        fill_view: None,
        host_written: None,
        tlb_fills: (0, TLB_RESIZE_FILLS),
        regs: crate::guest::RegPtrs::default(),
    }
}

/// The engine's own part of [`new_instance`]: the instance with its CPU model and the virtual
/// TLB, which makes unicorn build its machine (most of what a new thread costs: about 20 ms
/// of CPU for an arm instance). It reads none of the process's shared state, so a new thread
/// runs it without the global guest lock.
pub fn open_instance(task: Task) -> Result<Cpu<'static>, uc_error> {
    let mut cpu = task.arch.new_cpu(task)?;
    cpu.ctl_set_tlb_type(TlbType::VIRTUAL)?;
    cpu.get_data_mut().regs = crate::guest::RegPtrs::of(&cpu);
    Ok(cpu)
}

/// The rest of [`new_instance`] on an [`open_instance`]: the address space's windows, the
/// hooks, the program's code marked. Reads the address space: the caller holds the global
/// guest lock (or acts for a thread that does).
pub fn fill_instance(mut cpu: Cpu<'static>) -> Result<Cpu<'static>, uc_error> {
    let arch = cpu.get_data().arch;
    // A new instance maps the joined windows (fewer engine regions than the windows as made,
    // each a rebuild of the engine's memory map), which cover every region made so far.
    let mm = &cpu.get_data().mm;
    let (windows, made) = (mm.windows().to_vec(), mm.regions().len());
    let direct = mm.direct_span();
    let table = mm.direct_table();
    let flat = mm.direct_flat();
    let stores = mm.direct_stores();
    let store_slots = mm.store_slots();
    for w in &windows {
        // SAFETY: each window is a host reservation owned by the process's AddressSpace, which
        // outlives every instance (each holds a handle to it in its task).
        unsafe { cpu.mem_map_ptr(w.guest, w.len, unicorn_engine::Prot::ALL, w.host.cast()) }?;
    }
    cpu.get_data_mut().regions_mapped = made;
    if let Some((base, len)) = direct {
        crate::signal::host::enable_direct_faults();
        // SAFETY: a live engine, not running; `base..base+len` is the process's reservation for
        // the guest, whose host protections follow the guest's readability (mm::host_prot).
        let r: Result<(), uc_error> =
            unsafe { unicorn_engine::uc_set_direct_base(cpu.get_handle(), base as u64, len) }.into();
        r?;
        if stores {
            // SAFETY: a live engine, not running, with a direct base; the address space keeps
            // the table below the base for as long as it lives (mm::sync_store_table).
            let r: Result<(), uc_error> =
                unsafe { unicorn_engine::uc_set_direct_stores(cpu.get_handle(), true) }.into();
            r?;
        }
    }
    if let Some((base, len, bits)) = flat {
        crate::signal::host::enable_direct_faults();
        // SAFETY: a live engine, not running; `base..base+len` is the process's low window and
        // the guard after it, whose host protections follow the guest's readability
        // (mm::host_prot).
        let r: Result<(), uc_error> =
            unsafe { unicorn_engine::uc_set_direct_base(cpu.get_handle(), base as u64, len) }.into();
        r?;
        // SAFETY: a live engine, not running, with the direct base just set.
        let r: Result<(), uc_error> =
            unsafe { unicorn_engine::uc_set_direct_bits(cpu.get_handle(), u32::from(bits)) }.into();
        r?;
    }
    if let Some((table, none)) = table {
        crate::signal::host::enable_direct_faults();
        // SAFETY: a live engine, not running; the table and the PROT_NONE granule belong to the
        // process's AddressSpace, which outlives every instance, and the host protections
        // follow the guest's readability (mm::host_prot).
        let r: Result<(), uc_error> =
            unsafe { unicorn_engine::uc_set_direct_table(cpu.get_handle(), table, none) }.into();
        r?;
    }
    if store_slots && (table.is_some() || flat.is_some()) {
        let task: *const crate::guest::Task = cpu.get_data();
        // SAFETY: a live engine with direct loads, not running; the callback never unwinds
        // (its body is guarded) and reads the task, which lives inside the engine's own data
        // (it moves nowhere while the engine lives).
        let r: Result<(), uc_error> = unsafe {
            unicorn_engine::uc_set_store_slots(
                cpu.get_handle(),
                Some(crate::guest::store_range_reported),
                task.cast_mut().cast(),
            )
        }
        .into();
        r?;
    }
    // SAFETY: a live engine, not running; the callback never unwinds (its body is guarded).
    let r: Result<(), uc_error> = unsafe {
        unicorn_engine::uc_set_code_write_cb(
            cpu.get_handle(),
            Some(crate::guest::code_write_reported),
            std::ptr::null_mut(),
        )
    }
    .into();
    r?;
    // SAFETY: as above.
    let r: Result<(), uc_error> = unsafe {
        unicorn_engine::uc_set_exclusive_cb(cpu.get_handle(), Some(crate::guest::exclusive_step), std::ptr::null_mut())
    }
    .into();
    r?;
    if guard::test_panic("tlb-fill") {
        cpu.add_tlb_hook(1, 0, |_, _, _| {
            guarded(&TLB_FILL, || -> Option<TlbEntry> { guard::injected_panic("tlb-fill") })
        })?;
    } else {
        cpu.add_tlb_hook(1, 0, |cpu, va, ty| guarded(&TLB_FILL, || tlb_hook(cpu, va, ty)))?;
    }
    let entries = Entries { exception: cpu_exception };
    arch.install_hooks(&mut cpu, entries)?;
    crate::syscall::install_trap_hooks(&mut cpu, entries)?;
    crate::syscall::gate::install_hook(&mut cpu)?;
    mark_program_code(&mut cpu)?;
    if std::env::var_os("ENDGATE_TRACE_BLOCKS").is_some() {
        cpu.add_block_hook(1, 0, |_cpu, addr, size| {
            guarded(&"block trace hook", || crate::elog!("block {addr:#x} {size}"));
        })?;
    }
    Ok(cpu)
}

/// Adds the hooks of `-d in_asm,exec,cpu`, `--drcov` and a library tool's (none when none was
/// asked for) to
/// an instance whose start state is set: after [`GuestArch::init_regs`] or
/// [`GuestArch::init_thread`], whose own runs of the engine (i386's `iret` to user mode) are
/// not the guest's blocks.
///
/// [`GuestArch::init_regs`]: crate::guest::GuestArch::init_regs
/// [`GuestArch::init_thread`]: crate::guest::GuestArch::init_thread
pub fn install_tools(cpu: &mut Cpu<'static>) -> Result<(), uc_error> {
    // Before the `-d` hooks: its wrong value is in place when they show the next block.
    crate::trace::planted::install(cpu)?;
    crate::trace::debug::install(cpu)?;
    crate::trace::drcov::install(cpu)?;
    // A tool's block and memory hooks (`crate::api`; none for the `endgate` command).
    match crate::guest::tool::get().and_then(|t| t.instance) {
        Some(f) => f(cpu),
        None => Ok(()),
    }
}

/// The TLB fill hook's name in an internal error's line.
const TLB_FILL: &str = "TLB fill";

/// TLB fills after which the first resizing flush comes ([`tlb_hook`]).
pub const TLB_RESIZE_FILLS: u32 = 1024;
/// The largest number of fills between two resizing flushes.
const TLB_RESIZE_FILLS_MAX: u32 = 1 << 20;

/// The TLB fill hook: the guest page's permissions from the address space's mappings
/// ([`crate::mm::AddressSpace::tlb_fill`]), at guest physical = guest virtual.
///
/// A thread running in parallel with others ([`crate::thread::running`]) takes the global
/// guest lock here. If another thread changed mappings since this instance last caught up,
/// the instance's TLB is flushed before the entry is made (the engine looks the entry up again
/// after the fill) and the instance stops at the next block start to drop stale code. Only an
/// access to a window this instance has not mapped yet is refused, as a retry: the run loop
/// maps it and runs the instruction again (a refused fill leaves the CPU state at the
/// instruction's start). The instruction is not abandoned otherwise: a gate slot's code hook
/// has already served its system call when the slot's return instruction reads the stack,
/// and running it again would serve the call twice. A page that newly became code makes the
/// other instances refill their entries for it at once; this instance's entry for it is the
/// one made here.
fn tlb_hook(cpu: &mut Cpu<'_>, va: u64, ty: MemType) -> Option<TlbEntry> {
    use crate::thread::{lock, running};
    // A tagged arm64 pointer's page is the untagged one (the engine keeps the entry under the
    // tagged address; faults name the untagged one, as Linux's si_addr without
    // SA_EXPOSE_TAGBITS).
    let va = cpu.get_data().arch.untag(va);
    if matches!(ty, MemType::READ | MemType::WRITE) && host_bus_fault_at(cpu, va, access_of(ty)) {
        return None;
    }
    let (fills, next) = cpu.get_data().tlb_fills;
    if fills >= next {
        // The engine grows a TLB (QEMU's dynamic TLB sizing: double when more than 70 % of
        // the entries were filled since the last flush) only when it is flushed, and endgate
        // rarely flushes: a program whose pages outnumber the initial 256 entries would miss
        // for good. So after many fills, flush, and let the engine size it; the next flush
        // comes after twice as many. (The engine looks the entry up again after the fill.)
        cpu.flush_tlb();
        cpu.get_data_mut().tlb_fills = (0, next.saturating_mul(2).min(TLB_RESIZE_FILLS_MAX));
    } else {
        cpu.get_data_mut().tlb_fills.0 = fills + 1;
    }
    if lock::held() || !cpu.get_data().parallel {
        return fill(cpu, va, ty);
    }
    if let Some(perms) = cpu.get_data().fill_view.as_ref().and_then(|v| v.fill(va, access_of(ty))) {
        return Some(TlbEntry { paddr: va, perms: perms.to_unicorn() });
    }
    running::leave_guest();
    lock::acquire();
    let t = cpu.get_data();
    let unmapped_window = t.regions_mapped != t.mm.regions().len()
        && !t.mm.regions()[..t.regions_mapped].iter().any(|w| va >= w.guest && va - w.guest < w.len);
    let entry = if unmapped_window {
        cpu.get_data_mut().retry_fill = true;
        None
    } else {
        if t.applied_gen != t.mm.shootdown.generation() {
            cpu.flush_tlb();
            crate::signal::host::stop_flag().raise();
        }
        let entry = fill(cpu, va, ty);
        let t = cpu.get_data_mut();
        if t.mm.invalidate.pending() {
            let before = t.mm.shootdown.generation();
            let inv = t.mm.take_invalidate();
            let gen = t.mm.shootdown.publish(&inv);
            if t.applied_gen == before {
                t.applied_gen = gen;
            }
            running::stop_others();
        }
        cpu.get_data_mut().refresh_fill_view();
        entry
    };
    running::enter_guest();
    #[allow(clippy::disallowed_methods)] // parallel mode: guest code runs unlocked; the hooks take the lock
    lock::release();
    entry
}

/// A direct load or store (unicorn patches 0012, 0013, 0045), or a store through the TLB, of
/// page `va` just raised the host's SIGBUS: the file behind the mapping ended before that page,
/// possibly since its size was last seen (another process truncated it). Asks the host now
/// and, if so, refuses the fill for `access` as SIGBUS `BUS_ADRERR` (the cached size alone
/// would allow it), so the guest takes the fault at once instead of running the store again.
fn host_bus_fault_at(cpu: &mut Cpu<'_>, va: u64, access: Prot) -> bool {
    let Some((crate::signal::Signal::SIGBUS, host)) = crate::signal::host::direct_fault() else { return false };
    crate::guest::locked(cpu, |cpu| {
        let t = cpu.get_data_mut();
        let Some(guest) = t.mm.guest_of_host(host) else { return false };
        if crate::mm::page_floor(guest) != crate::mm::page_floor(va) {
            return false;
        }
        let bus = t.mm.past_eof_now(va, access);
        if bus {
            t.last_fault = t.mm.last_fault.take();
            // Answered: later fills (loads and stores alike) need not look at it again. An
            // allowed access keeps it for `fault_signal`, should the host refuse it again.
            crate::signal::host::take_direct_fault();
        }
        bus
    })
}

fn access_of(ty: MemType) -> Prot {
    match ty {
        MemType::WRITE => Prot::WRITE,
        MemType::FETCH => Prot::EXEC,
        _ => Prot::READ,
    }
}

fn fill(cpu: &mut Cpu<'_>, va: u64, ty: MemType) -> Option<TlbEntry> {
    let t = cpu.get_data_mut();
    let made = t.mm.regions().len();
    let entry = t.mm.tlb_fill(va, access_of(ty)).map(|f| {
        // A watched entry: a writable view of pages another view executes (mm::alias).
        let watch = if f.watch { unicorn_engine::Prot::STORE_WATCH.0 } else { 0 };
        TlbEntry { paddr: f.phys, perms: unicorn_engine::Prot(f.prot.to_unicorn().0 | watch) }
    });
    if t.mm.last_fault.is_some() {
        // The address space is shared by the threads; the refusal is this thread's.
        t.last_fault = t.mm.last_fault.take();
    }
    if t.mm.take_local_flush() {
        // The entry makes a page's writable views watched (mm::alias): this instance's
        // unwatched entries for them go now (the engine looks the entry up again after the
        // fill).
        cpu.flush_tlb();
    }
    let t = cpu.get_data_mut();
    if t.mm.regions().len() != made {
        // The fill made a window (a grows-down mapping grew into a new granule), which this
        // instance has not mapped yet: the run loop maps it and runs the access again.
        t.retry_fill = true;
        return None;
    }
    entry
}

/// Marks the read-only, executable file mappings present now (the program's and its
/// interpreter's text) as code for unicorn, with one `UC_HOOK_MEM_FETCH_UNMAPPED` hook per
/// mapping; called once the images are loaded and for every new thread's instance.
///
/// The hooks never run (a fetch from unmapped memory is refused by the TLB fill first); their
/// ranges matter: after translating a block, unicorn 2.1.5 walks every entry of every MMU mode's
/// TLB to re-arm store checks on the block's page (`tlb_reset_dirty_by_vaddr`, 3 168 entries on
/// Arm) unless a memory hook covers the block's address. For such pages it instead never lets
/// a TLB entry skip the store check, so stores into this code are still seen. Text pages are
/// not written, so that costs nothing; the walk was 15 % of the CPU time of a `busybox true`
/// (docs/performance.md).
pub fn mark_program_code(cpu: &mut Cpu<'_>) -> Result<(), uc_error> {
    use crate::mm::VmaName;
    let text: Vec<(u64, u64)> = cpu
        .get_data()
        .mm
        .vmas()
        .filter(|(_, v)| {
            v.prot.contains(Prot::EXEC) && !v.prot.contains(Prot::WRITE) && matches!(v.name, VmaName::File(_))
        })
        .map(|(s, v)| (s, v.end))
        .collect();
    for (start, end) in text {
        cpu.add_mem_hook(unicorn_engine::HookType::MEM_FETCH_UNMAPPED, start, end - 1, |_, _, _, _, _| {
            guarded(&"program-code fetch hook", || false)
        })?;
    }
    Ok(())
}

/// Runs the guest from the launch thread, which holds the guest lock already
/// ([`crate::launch`] took it), until the process ends; returns how it ended. If the launch
/// thread's guest thread exits while others live on, its host thread ends here
/// ([`crate::task::exit::leave_launch_thread`]) and this never returns.
pub fn run(cpu: &mut Cpu<'static>) -> Exit {
    crate::thread::mark_launch_thread();
    match run_thread(cpu) {
        Some(exit) => exit,
        None => {
            // The instance stays (its memory goes with the process): nothing to wait for.
            crate::task::exit::clear_child_tid(crate::task::exit::ChildTid::of(cpu));
            crate::task::exit::leave_launch_thread()
        }
    }
}

/// Runs one guest thread, whose host thread holds the global guest lock, until the process
/// ends (`Some`: how) or the thread alone exits (`None`; the lock is still held).
///
/// Between two runs of `emu_start` the loop gives way to threads waiting for the lock (the
/// preemption timer stops a thread that held it a whole tick while others wait:
/// [`crate::thread::preempt`]), applies stale-translation work, and hands the thread to
/// [`crate::task::deliver::after_stop`] when a signal, a fault, a sigreturn or a thread
/// clone is due.
pub fn run_thread(cpu: &mut Cpu<'static>) -> Option<Exit> {
    use crate::thread::{lock, running};
    let arch = cpu.get_data().arch;
    running::register(crate::signal::host::stop_flag());
    crate::guest::set_code_write_space(cpu.get_data().mm.clone());
    crate::gdb::register_thread(cpu);
    let exit = loop {
        if !cpu.get_data().parallel && lock::contended() {
            #[allow(clippy::disallowed_methods)] // the run loop, between engine runs: no reference is alive
            lock::yield_now();
            // Another guest thread ran meanwhile: a preemption, which aborts a restartable
            // sequence in progress, as the kernel's does.
            crate::syscall::rseq::fixup_or_segv(cpu);
        }
        crate::syscall::rseq::refresh(cpu.get_data_mut());
        if invalidate_due(cpu.get_data()) {
            apply_invalidate(cpu);
        }
        if cpu.get_data().signal_work_due() {
            crate::task::deliver::after_stop(cpu);
            if let Some(exit) = cpu.get_data().exit {
                break exit;
            }
            apply_invalidate(cpu);
        }
        if !cpu.get_data().stop_flags && crate::signal::host::async_stops_needed() {
            // From now on signals and other threads stop this thread at a block start (its
            // stop flag is mirrored into the engine's stop byte, read with the exit request).
            if crate::signal::host::install_stop_flags(cpu).is_ok() {
                cpu.get_data_mut().stop_flags = true;
            }
        }
        let parallel = cpu.get_data().stop_flags && crate::thread::live_threads() > 1 && running::parallel_allowed();
        // Memory shared with other processes needs host atomics even with one thread.
        let atomics = parallel || (cpu.get_data().mm.shared_writable && running::parallel_allowed());
        if atomics && !cpu.get_data().parallel {
            // SAFETY: a live engine, not running.
            let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_set_parallel(cpu.get_handle(), true) }.into();
            cpu.get_data_mut().parallel = r.is_ok();
        }
        let parallel = parallel && cpu.get_data().parallel;
        // -g: a stop a hook saw is served here, GDB's points become hooks, a step is a count.
        let count = if crate::gdb::enabled() { crate::gdb::before_run(cpu) } else { 0 };
        if cpu.get_data().exit.is_some() {
            break cpu.get_data().exit.unwrap_or(Exit::Internal);
        }
        cpu.get_data_mut().last_fault = None;
        cpu.get_data_mut().retry_fill = false;
        let pc = arch.pc(cpu);
        if parallel {
            // Guest code runs without the lock; hooks take it (see `crate::thread::running`).
            running::enter_guest();
            #[allow(clippy::disallowed_methods)] // parallel mode, between engine runs: no reference is alive
            lock::release();
        }
        // A host fault in one of the engine's helpers may be handed back to it from here on
        // (`signal::host::fault_handler`).
        let r = crate::guard::engine_runs(|| cpu.emu_start(pc, 0, 0, count));
        if parallel {
            running::leave_guest();
            lock::acquire();
        }
        crate::guest::publish_code_writes(cpu);
        crate::signal::host::clear_stop();
        crate::thread::preempt::clear();
        // This engine's mirror of the request goes down with it, whatever the timer did
        // meanwhile: a request raised between the two stores of `clear` would otherwise leave
        // the byte up with no request to lower it, and stop every run at its start for ever.
        crate::signal::host::stop_flag().set_preempt(false);
        if crate::gdb::enabled() {
            crate::gdb::after_run(cpu.get_data().retry_fill);
        }
        if let Some(exit) = cpu.get_data().exit {
            break exit;
        }
        if r.is_ok() {
            RACED.with(|c| c.set(0));
        }
        if let Err(e) = r {
            if std::mem::take(&mut cpu.get_data_mut().retry_fill) {
                // The fill hook found this instance behind the others: catch up, run again.
                continue;
            }
            if cpu.get_data().sync_fault.is_some() {
                // A hook already decided which signal the exception raises.
                continue;
            }
            if e == uc_error::EXCEPTION && raced_direct_fault(cpu) {
                // Another thread unmapped and mapped the page again while this one's access
                // was refused by the host and allowed by the fill, over and over: run it again.
                continue;
            }
            match fault_signal(cpu, e) {
                Some(info) => cpu.get_data_mut().sync_fault = Some(info),
                None => break Exit::Internal,
            }
        }
    };
    crate::gdb::unregister_thread();
    if cpu.get_data().exit_thread && crate::thread::live_threads() > 1 {
        crate::task::exit::exit_thread();
        None
    } else {
        Some(exit)
    }
}

thread_local! {
    /// [`raced_direct_fault`]'s count of runs again since the last run that ended well.
    static RACED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `true` (the fault taken, to run the access again) when the engine gave up on an access that
/// its TLB fill allowed and the host refused, and the guest page is mapped now: another thread
/// unmapped it and mapped it again between the tries (the engine tries a few times, unicorn
/// patch 0012), as a program that maps and unmaps memory other threads use makes happen. At
/// most a few dozen times in a row per thread; then the fault is the guest's.
fn raced_direct_fault(cpu: &mut Cpu<'static>) -> bool {
    if cpu.get_data().last_fault.is_some() {
        return false;
    }
    let Some((sig, host)) = crate::signal::host::peek_direct_fault() else { return false };
    let mm = &cpu.get_data().mm;
    let mapped = sig == Signal::SIGSEGV
        && mm.guest_of_host(host).and_then(|a| mm.span_at(a)).is_some_and(|(_, _, p)| p != Prot::NONE);
    let again = mapped && RACED.with(|r| r.replace(r.get() + 1)) < 32;
    if again {
        let _ = crate::signal::host::take_direct_fault();
    } else {
        RACED.with(|r| r.set(0));
    }
    again
}

/// The signal the kernel would raise for an `emu_start` error (a refused memory access, an
/// invalid instruction); `None` for engine failures that are endgate's own.
fn fault_signal(cpu: &mut Cpu<'static>, e: uc_error) -> Option<SigInfo> {
    use crate::signal::si_code::*;
    let arch = cpu.get_data().arch;
    let pc = arch.pc(cpu);
    let fault: Option<Fault> = cpu.get_data().last_fault;
    if std::env::var_os("ENDGATE_DEBUG_MAPS").is_some() {
        crate::elog!("endgate: engine error {e:?}, last refused access {fault:?}");
    }
    let segv =
        |f: &Fault, addr: u64| SigInfo::fault(Signal::SIGSEGV, if f.mapped { SEGV_ACCERR } else { SEGV_MAPERR }, addr);
    let refused = |cpu: &mut Cpu<'static>, f: Fault| {
        let info = if f.bus {
            SigInfo::fault(Signal::SIGBUS, BUS_ADRERR, crate::trace::fault::exact_fault_addr(cpu, f).unwrap_or(f.page))
        } else if f.access == Prot::EXEC {
            segv(&f, pc)
        } else {
            arch.data_fault(f.page, segv(&f, crate::trace::fault::exact_fault_addr(cpu, f).unwrap_or(f.page)))
        };
        arch.page_fault_taken(&cpu.get_data().mm, &f, &info);
        info
    };
    Some(match e {
        uc_error::INSN_INVALID => arch.invalid_insn_siginfo(cpu, pc),
        uc_error::EXCEPTION | uc_error::READ_UNMAPPED | uc_error::WRITE_UNMAPPED | uc_error::FETCH_UNMAPPED => {
            match fault {
                Some(f) => refused(cpu, f),
                None => match crate::signal::host::take_direct_fault()
                    .and_then(|(sig, host)| Some((sig, cpu.get_data().mm.guest_of_host(host)?)))
                {
                    // A direct load the host refused though the fill allowed it (unicorn patches
                    // 0012 and 0013 do not retry it): the host's own verdict, at the guest address;
                    // a page another thread unmapped meanwhile is `SEGV_MAPERR`.
                    Some((sig, addr)) => {
                        if sig == Signal::SIGBUS {
                            SigInfo::fault(Signal::SIGBUS, BUS_ADRERR, addr)
                        } else if cpu.get_data().mm.span_at(addr).is_none() {
                            SigInfo::fault(Signal::SIGSEGV, SEGV_MAPERR, addr)
                        } else {
                            SigInfo::fault(Signal::SIGSEGV, SEGV_ACCERR, addr)
                        }
                    }
                    _ => SigInfo::fault(Signal::SIGSEGV, 0x80, 0),
                },
            }
        }
        uc_error::READ_PROT | uc_error::WRITE_PROT | uc_error::FETCH_PROT => {
            SigInfo::fault(Signal::SIGSEGV, SEGV_ACCERR, 0)
        }
        uc_error::READ_UNALIGNED | uc_error::WRITE_UNALIGNED | uc_error::FETCH_UNALIGNED => {
            SigInfo::fault(Signal::SIGBUS, BUS_ADRALN, 0)
        }
        _ => {
            crate::elog!("endgate: CPU engine stopped: {e:?} at pc={pc:#x}");
            return None;
        }
    })
}

/// The exception hook: a CPU exception other than the syscall trap raises the signal the arch
/// maps it to, delivered once emulation has stopped.
pub fn cpu_exception(cpu: &mut Cpu<'_>, intno: u32) {
    let arch = cpu.get_data().arch;
    let pc = arch.pc(cpu);
    let Some(info) = arch.exception_info(cpu, intno, pc) else {
        // Completed as the kernel completes it (a MIPS misaligned access): no signal.
        return;
    };
    if cpu.get_data().opts.trace.has(crate::cli::DebugItem::Int) {
        crate::dlog!("exception {intno} at pc={pc:#x}: {}\n", info.signo);
    }
    cpu.get_data_mut().sync_fault = Some(info);
    cpu.stop();
}

#[cfg(test)]
mod tests {
    use crate::guest::arch::set_syscall_ret;

    /// On every guest arch the pinned system-call registers (`guest::arch::SyscallPins`) read what the
    /// engine's register API reads, and the result lands where the API finds it.
    #[test]
    fn syscall_pins_match_the_register_api() {
        // The task's address space is process state, reached under the guest lock.
        crate::thread::lock::acquire();
        for &(name, arch) in &crate::arch::ALL {
            let info = arch.info();
            let mm = crate::mm::AddressSpace::new(info.layout, info.data_model).expect("address space");
            let exe = crate::guest::ExeInfo { guest_path: "t".into(), host_path: "/t".into() };
            let task = super::new_process(arch, mm, std::sync::Arc::new(crate::guest::Options::default()), exe);
            let mut cpu = super::open_instance(task).expect("instance");
            let pins = cpu.get_data().regs.sys.expect("every engine serves the system-call registers");
            let r = &info.regs;
            let ids = [r.nr, r.args[0], r.args[1], r.args[2], r.args[3], r.args[4], r.args[5]];
            for (i, &id) in ids.iter().enumerate() {
                let v = 0x8765_4321_0000_0010u64 + u64::try_from(i).unwrap();
                cpu.reg_write(id, v & info.word_mask()).expect("register write");
            }
            let api =
                |ids: &[i32]| -> Vec<u64> { ids.iter().map(|&id| cpu.reg_read(id).expect("register read")).collect() };
            let mut want = api(&[r.nr, r.args[0], r.args[1], r.args[2]]);
            want[0] &= r.nr_mask;
            let got = pins.args();
            assert_eq!(vec![got.nr, got.a[0], got.a[1], got.a[2]], want, "{name}: number and arguments 1-3");
            assert_eq!(got.restart_len, r.trap_len(), "{name}");
            assert_eq!(pins.rest.read().to_vec(), api(&[r.args[3], r.args[4], r.args[5]]), "{name}");
            for ret in [crate::abi::bits64(-2), 5, 0] {
                set_syscall_ret(&mut cpu, arch, ret);
                assert_eq!(arch.syscall_ret(&cpu), ret, "{name}: the result {ret:#x} reads back as written");
            }
            if let Some(flag) = r.error_flag {
                // MIPS: the guest's errno in the result register, the flag set.
                set_syscall_ret(&mut cpu, arch, crate::abi::bits64(-i64::from(libc::ENOSYS)));
                let guest = (info.errno_from_host)(libc::ENOSYS);
                assert_eq!(cpu.reg_read(r.ret).ok(), Some(crate::abi::bits64(i64::from(guest))), "{name}");
                assert_eq!(cpu.reg_read(flag).ok(), Some(1), "{name}");
            }
        }
        #[allow(clippy::disallowed_methods)] // the test's instances are gone
        crate::thread::lock::release();
    }
}
