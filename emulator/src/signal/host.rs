//! The host side of guest signals: the host process carries the guest's dispositions and
//! mask, and a guest handler is served by endgate's host handler, which records the signal for
//! the thread it interrupted and stops that thread's unicorn instance.
//!
//! - Dispositions ([`set_disposition`]): guest `SIG_IGN` and `SIG_DFL` are set on the host as
//!   they are, so the kernel ignores, stops, kills or dumps core exactly as it would for the
//!   native program, and exec keeps ignored signals ignored. A guest handler installs
//!   `host_handler` with `SA_SIGINFO` and without `SA_RESTART` (the guest's `SA_RESTART` is
//!   applied by endgate when it delivers: `crate::task::deliver`).
//! - Mask ([`set_mask`]): the guest thread's blocked set is the host thread's, so the kernel
//!   holds blocked signals pending and sends a process-wide signal to a thread that takes it.
//! - Signals that report endgate's own faults ([`super::HOST_OWN`]) are never blocked on the
//!   host; a guest handler for them takes only signals sent by another process or by the guest
//!   (`si_code <= 0`): a real fault inside endgate restores the default and ends endgate.
//! - All 64 signals are the guest's, including 32 and 33, which the host's glibc keeps for
//!   itself: endgate uses raw `rt_sigaction`/`rt_sigprocmask` and never calls the glibc
//!   functions that rely on them (`pthread_cancel`, set*id broadcasts).
//!
//! The handler writes into a per-thread ring ([`HostQueue`], const-initialized thread-local
//! storage, so touching it from a signal handler allocates nothing) and raises the thread's
//! stop flag ([`StopFlag`]). Once the thread's engine is attached to it ([`install_stop_flags`])
//! the flag is mirrored into a byte of the engine's CPU state, and the raise also sets a
//! half-word of the engine's that translated code reads at the start of every block with the
//! exit request (`uc_stop_flags`, unicorn/PATCHES.md 0004 and 0031): the engine then leaves
//! there, sees the byte and stops, before any instruction of the block, with the pc at the
//! block's start. Stopping only at a block start
//! matters: a stop inside an instruction would restart it, and a read-modify-write instruction
//! (`incl mem`, a non-atomic `lock add`) would run its update twice. The flag is a level,
//! lowered only by the run loop ([`clear_stop`]), so a signal that arrives while the thread is
//! outside `emu_start` stops the next run at its first block. The same flag serves anyone who
//! needs the thread out of `emu_start` ([`stop_flag`]). The preemption request
//! ([`crate::thread::preempt`]) is mirrored into a second byte of every attached engine.
//!
//! An instance is attached only once the process needs asynchronous stops
//! ([`need_async_stops`]): when the guest installs its first handler, or starts a second
//! thread. A program with neither never needs one: without a guest handler the host kernel acts
//! on every signal itself.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::thread::stop::StopFlag;

use super::{bit, SigInfo, Signal, HOST_OWN, NSIG, SIG_DFL, SIG_IGN};

/// Entries in a thread's ring of recorded signals; a signal arriving while it is full is
/// merged with the last entry of its number (standard signals never queue twice anyway).
const QUEUE_LEN: usize = 256;

/// Signals recorded by `host_handler` for one host thread, not yet taken by the thread.
/// Single producer (the handler) and single consumer (the thread itself, which the handler
/// interrupts), so plain atomics suffice. `head` and `tail` come first and side by side:
/// [`recorded_counters`] hands them to `host_shims::safe_syscall`, which compares them.
#[repr(C)]
pub struct HostQueue {
    head: AtomicU32,
    tail: AtomicU32,
    slots: [UnsafeCell<libc::siginfo_t>; QUEUE_LEN],
    /// Up when the thread should leave `emu_start` at the next block start.
    stop: StopFlag,
}

// SAFETY: a HostQueue lives in thread-local storage; only its own thread (and signal handlers
// running on that thread) touch the slots; other threads only set `stop` (atomic).
unsafe impl Sync for HostQueue {}

impl HostQueue {
    const fn new() -> HostQueue {
        HostQueue {
            head: AtomicU32::new(0),
            tail: AtomicU32::new(0),
            // SAFETY: siginfo_t is plain data; all-zero is a valid value.
            slots: [const { UnsafeCell::new(unsafe { std::mem::zeroed() }) }; QUEUE_LEN],
            stop: StopFlag::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.head.load(Ordering::Acquire) == self.tail.load(Ordering::Acquire)
    }
}

thread_local! {
    static QUEUE: HostQueue = const { HostQueue::new() };
}

/// The calling thread's stop flag: raising it (from any thread, for as long as this thread
/// lives) makes the thread leave `emu_start` at the start of its next translation block.
pub fn stop_flag() -> &'static StopFlag {
    // SAFETY: the thread-local outlives every use the calling thread makes of it; a caller that
    // hands it to another thread must stop using it before this thread exits.
    QUEUE.with(|q| unsafe { &*std::ptr::addr_of!(q.stop) })
}

/// Makes `cpu` stop at the start of its next translation block whenever the calling thread's
/// stop flag is up: the flag is mirrored into the engine's own stop byte, with the engine's
/// kick set after it (`uc_stop_flags`). Call it on the thread that runs `cpu`, while it is
/// not running; [`detach_stop_flags`] before the engine goes. Errors: the engine's.
pub fn install_stop_flags<D>(cpu: &mut unicorn_engine::Unicorn<'_, D>) -> Result<(), unicorn_engine::uc_error> {
    let mut flags: *mut u8 = std::ptr::null_mut();
    let mut kick: *mut u16 = std::ptr::null_mut();
    // SAFETY: a live engine, not running; `flags` and `kick` are valid outputs.
    let r: Result<(), _> = unsafe { unicorn_engine::uc_stop_flags(cpu.get_handle(), &mut flags, &mut kick) }.into();
    r?;
    // SAFETY: the engine's stop bytes and kick, live as long as it; the run loop's thread
    // detaches them before it drops its engine (`detach_stop_flags`).
    unsafe { stop_flag().attach(flags, kick) };
    Ok(())
}

/// Stops mirroring the calling thread's stop flag into its engine: before the engine goes, once
/// no other thread raises the flag any more (the thread left the running set,
/// `crate::thread::running::unregister`).
pub fn detach_stop_flags() {
    QUEUE.with(|q| q.stop.detach());
}

/// Lowers the calling thread's stop flag (the run loop, before it looks at what is due). The
/// engine's byte goes first: a raise in between leaves it up (one more stop), never the
/// engine's byte down under a raised flag.
#[inline]
pub fn clear_stop() {
    QUEUE.with(|q| q.stop.lower());
}

static ASYNC_STOPS: AtomicBool = AtomicBool::new(false);

/// Under `--strace`: a signal whose default action ends the process is caught on the host
/// while the guest leaves it at `SIG_DFL` (endgate's own fault signals and glibc's 32 and 33
/// aside), so that
/// it goes through delivery, which prints strace's `--- SIG… {…} ---` and `+++ killed by SIG…
/// +++` before ending the process by it. Without `--strace` the host's default action ends
/// the process at once.
static STRACE_DEFAULTS: AtomicBool = AtomicBool::new(false);

/// Sets [`STRACE_DEFAULTS`] (before a program's dispositions are set up).
pub fn set_strace_defaults(on: bool) {
    STRACE_DEFAULTS.store(on, Ordering::SeqCst);
}

/// Whether the host catches `sig` while the guest has it at `SIG_DFL` ([`STRACE_DEFAULTS`]).
fn strace_catches(sig: Signal) -> bool {
    // 32 and 33 are glibc's own (thread cancellation, set*id across threads) in endgate too.
    STRACE_DEFAULTS.load(Ordering::Relaxed)
        && sig.0 != 32
        && sig.0 != 33
        && matches!(sig.default_action(), super::DefaultAction::Terminate | super::DefaultAction::Core)
        && !HOST_OWN.contains(&sig)
}

/// Records that this process needs asynchronous stops from now on (a guest handler exists, or
/// a second thread): the run loop of each thread then installs the stop flags on its instance.
pub fn need_async_stops() {
    ASYNC_STOPS.store(true, Ordering::Relaxed);
}

/// `true` once [`need_async_stops`] was called.
#[inline]
pub fn async_stops_needed() -> bool {
    ASYNC_STOPS.load(Ordering::Relaxed)
}

/// The calling thread's two queue counters (head, tail): they differ while signals are
/// recorded and not taken. For `host_shims::safe_syscall`, which makes a blocking host call
/// only while they are equal; the pointer is valid for as long as the calling thread lives.
pub fn recorded_counters() -> *const [u32; 2] {
    QUEUE.with(|q| std::ptr::addr_of!(q.head).cast::<[u32; 2]>())
}

/// `true` if the host handler recorded signals the calling thread has not taken yet.
#[inline]
pub fn has_recorded() -> bool {
    QUEUE.with(|q| !q.is_empty())
}

/// Takes the signals recorded for the calling thread, oldest first.
pub fn take_recorded() -> Vec<SigInfo> {
    let _ = LAST_OWN.try_with(|l| l.set(None));
    QUEUE.with(|q| {
        let mut out = Vec::new();
        loop {
            let tail = q.tail.load(Ordering::Acquire);
            if tail == q.head.load(Ordering::Acquire) {
                return out;
            }
            // SAFETY: slot `tail` was published by the handler before it advanced `head`.
            let info = unsafe { *q.slots[tail as usize % QUEUE_LEN].get() };
            out.push(SigInfo::from_host(&info));
            q.tail.store(tail.wrapping_add(1), Ordering::Release);
        }
    })
}

/// The host handler for signals the guest handles (async-signal-safe: atomics and a copy into
/// thread-local storage).
extern "C" fn host_handler(sig: libc::c_int, info: *mut libc::siginfo_t, uc: *mut libc::c_void) {
    crate::guard::guarded(&"host signal handler", || host_handler_work(sig, info, uc));
}

/// [`host_handler`]'s work (also [`fault_handler`]'s for a signal the guest takes).
fn host_handler_work(sig: libc::c_int, info: *mut libc::siginfo_t, uc: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let code = unsafe { (*info).si_code };
    if HOST_OWN.contains(&Signal(crate::abi::low32(sig))) && code > 0 {
        // A fault in endgate itself, or a signal the guest queued to itself with a fault's
        // si_code (rt_sigqueueinfo allows that towards oneself). The first is taken for the
        // second; a fault comes again as soon as the handler returns, before the thread has
        // taken any recorded signal, and the second time it ends endgate.
        // SAFETY: `uc` is the kernel's ucontext for this SA_SIGINFO handler.
        let pc = unsafe { (*uc.cast::<libc::ucontext_t>()).uc_mcontext.gregs[libc::REG_RIP as usize] };
        let pc = u64::from_ne_bytes(pc.to_ne_bytes());
        // SAFETY: as above.
        let key = (pc, unsafe { (*info).si_addr() } as u64, crate::abi::low32(sig));
        if LAST_OWN.try_with(|l| l.replace(Some(key)) == Some(key)).unwrap_or(true) {
            // SAFETY: restoring the default disposition: the instruction runs again and ends
            // endgate with the host's report.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
            return;
        }
    }
    record(info, uc);
}

thread_local! {
    /// The last fault signal [`host_handler`] recorded on this thread (host pc, address,
    /// signal), until the thread takes its recorded signals ([`take_recorded`]).
    static LAST_OWN: std::cell::Cell<Option<(u64, u64, u32)>> = const { std::cell::Cell::new(None) };
}

/// Records `info` for the interrupted thread and raises its stop flag ([`host_handler`]'s work
/// for a signal the guest takes).
fn record(info: *mut libc::siginfo_t, uc: *mut libc::c_void) {
    let _ = QUEUE.try_with(|q| {
        let head = q.head.load(Ordering::Relaxed);
        let tail = q.tail.load(Ordering::Acquire);
        // Full: the signal merges with a queued one (a standard signal is pending once).
        if (head.wrapping_sub(tail) as usize) < QUEUE_LEN {
            // SAFETY: the slot is not readable by the consumer until `head` advances.
            unsafe { *q.slots[head as usize % QUEUE_LEN].get() = *info };
            q.head.store(head.wrapping_add(1), Ordering::Release);
        }
        q.stop.raise();
    });
    // A blocking host call about to start on this thread returns without starting instead (see
    // `host_shims::safe_syscall`): the signal is never left waiting behind it.
    // SAFETY: `uc` is the ucontext the kernel passed to this SA_SIGINFO handler.
    unsafe { host_shims::safe_syscall::rewind_if_in_window(uc) };
}

/// Direct guest loads are on in this process ([`enable_direct_faults`]).
static DIRECT: AtomicBool = AtomicBool::new(false);
/// The guest's disposition of SIGSEGV and SIGBUS (in that order) is `SIG_DFL`, while
/// [`DIRECT`] keeps [`fault_handler`] installed for them.
static GUEST_DFL: [AtomicBool; 2] = [AtomicBool::new(true), AtomicBool::new(true)];

/// The index of `sig` in [`GUEST_DFL`], for the two signals a direct load's fault raises.
fn direct_fault_slot(sig: Signal) -> Option<usize> {
    match sig {
        Signal::SIGSEGV => Some(0),
        Signal::SIGBUS => Some(1),
        _ => None,
    }
}

/// Installs [`fault_handler`] for SIGSEGV and SIGBUS, for engines with direct guest loads
/// (unicorn patch 0012): a guest load the host refuses (an unmapped or `PROT_NONE` guest
/// page, a file page past the end of the file) faults in the host, and the handler hands it
/// back to the engine, which asks the TLB fill and raises the guest's fault. The guest's own
/// dispositions of the two signals keep their meaning. Idempotent; called before the first
/// such engine runs.
pub fn enable_direct_faults() {
    if DIRECT.swap(true, Ordering::SeqCst) {
        return;
    }
    for sig in [Signal::SIGSEGV, Signal::SIGBUS] {
        let Some(i) = direct_fault_slot(sig) else { continue };
        // A guest disposition other than SIG_DFL has put `host_handler` there already.
        GUEST_DFL[i].store(current_handler(sig).is_none_or(|h| h == libc::SIG_DFL), Ordering::SeqCst);
        raw_sigaction(sig.0, fault_handler as *const () as usize, libc::SA_SIGINFO);
    }
}

/// The host handler of SIGSEGV and SIGBUS with direct guest loads: a direct load's fault goes
/// back to the engine (`uc_direct_fault` rewrites the context); any other signal is what the
/// guest's disposition makes it: `host_handler`'s work for a guest handler or `SIG_IGN`, the
/// default action for `SIG_DFL` (endgate's own fault runs again and ends endgate; a sent
/// signal is sent again once the default is back).
extern "C" fn fault_handler(sig: libc::c_int, info: *mut libc::siginfo_t, uc: *mut libc::c_void) {
    // Read before the handler's own guard names it.
    let in_engine = !crate::guard::in_callback();
    crate::guard::guarded(&"host fault handler", || fault_handler_work(sig, info, uc, in_engine));
}

/// [`fault_handler`]'s work; `in_engine`: the fault interrupted the engine's own code, not a
/// callback of endgate's ([`crate::guard::in_callback`]).
fn fault_handler_work(sig: libc::c_int, info: *mut libc::siginfo_t, uc: *mut libc::c_void, in_engine: bool) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let code = unsafe { (*info).si_code };
    // One of endgate's own copies of guest bytes (`mm::safe_copy`) met a page whose host bytes
    // are gone: it returns its failure (a signal sent by a process, si_code <= 0, is not a
    // fault of the copy, whatever the thread was doing).
    if code > 0 && crate::mm::safe_copy::fixup(uc) {
        return;
    }
    // A fault in one of the engine's C helpers that translated code called (a memory helper's
    // store, x86's bulk `rep movs`, an atomic) is handed back as one in translated code
    // (unicorn patch 0046), but only when no callback of endgate's is on the stack: the engine
    // leaves the helper by a long jump, which would skip a callback's locks and frames.
    let handed_back = {
        // SAFETY: the kernel's siginfo and ucontext for this SA_SIGINFO handler; the engine
        // only reads them and rewrites the context of a fault in its own translated code, or
        // (`uc_helper_fault`) in its own helpers while no code of endgate's is between them.
        unsafe {
            unicorn_engine::uc_direct_fault(info.cast(), uc)
                || (in_engine && unicorn_engine::uc_helper_fault(info.cast(), uc))
        }
    };
    if handed_back {
        // SAFETY: as above; si_addr is the host address of the refused load.
        let addr = unsafe { (*info).si_addr() } as u64;
        let _ = DIRECT_FAULT.try_with(|f| f.set(Some((Signal(crate::abi::low32(sig)), addr))));
        return;
    }
    let guest_dfl =
        direct_fault_slot(Signal(crate::abi::low32(sig))).is_none_or(|i| GUEST_DFL[i].load(Ordering::SeqCst));
    if !guest_dfl {
        host_handler_work(sig, info, uc);
        return;
    }
    // The default action, for endgate's own fault (which would also come again once the
    // handler returns) as for a sent or queued signal (which would not).
    // SAFETY: restoring the default disposition; re-sending to the calling thread (the signal
    // stays blocked until this handler returns).
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::syscall(libc::SYS_tgkill, libc::getpid(), libc::gettid(), sig);
    }
}

thread_local! {
    /// The last direct load's host fault on this thread (signal, host address), for the TLB
    /// fill that the engine asks next ([`direct_fault`]).
    static DIRECT_FAULT: std::cell::Cell<Option<(Signal, u64)>> = const { std::cell::Cell::new(None) };
}

/// The calling thread's last host fault of a direct guest load: the signal (SIGSEGV, or
/// SIGBUS for a file page past the end of the file) and the host address.
pub fn direct_fault() -> Option<(Signal, u64)> {
    DIRECT_FAULT.with(std::cell::Cell::get)
}

/// [`direct_fault`], forgotten once read.
pub fn take_direct_fault() -> Option<(Signal, u64)> {
    DIRECT_FAULT.with(std::cell::Cell::take)
}

/// [`take_direct_fault`] without taking it.
pub fn peek_direct_fault() -> Option<(Signal, u64)> {
    DIRECT_FAULT.with(std::cell::Cell::get)
}

/// Sets the host disposition of `sig` for a guest disposition `handler` (`SIG_DFL`,
/// `SIG_IGN`, or a guest handler address). SIGKILL and SIGSTOP are left alone.
pub fn set_disposition(sig: Signal, handler: u64) {
    set_disposition_with(sig, handler, 0);
}

/// As [`set_disposition`], with the host `sa_flags` that change what the kernel itself does
/// (`SA_NOCLDSTOP`, `SA_NOCLDWAIT` for SIGCHLD).
pub fn set_disposition_with(sig: Signal, handler: u64, kernel_flags: i32) {
    if sig == Signal::SIGKILL || sig == Signal::SIGSTOP || sig.0 == 0 || sig.0 > NSIG {
        return;
    }
    let guest_handler = !matches!(handler, SIG_DFL | SIG_IGN);
    if let Some(i) = direct_fault_slot(sig).filter(|_| DIRECT.load(Ordering::SeqCst)) {
        GUEST_DFL[i].store(handler == SIG_DFL, Ordering::SeqCst);
        if guest_handler {
            need_async_stops();
        }
        raw_sigaction(sig.0, fault_handler as *const () as usize, libc::SA_SIGINFO | kernel_flags);
        return;
    }
    if HOST_OWN.contains(&sig) {
        if handler == SIG_DFL {
            // endgate's own faults keep the default action.
            raw_sigaction(sig.0, libc::SIG_DFL, 0);
            return;
        }
        if handler == SIG_IGN {
            // A host SIG_IGN would hide endgate's own crashes, and SIG_DFL would let a
            // `kill(getpid(), SIGSEGV)` the guest ignores end it: the handler tells the two
            // apart by `si_code` and records only the sent one, which delivery then drops.
            raw_sigaction(sig.0, host_handler as *const () as usize, libc::SA_SIGINFO | kernel_flags);
            return;
        }
    }
    let caught = handler == SIG_DFL && strace_catches(sig);
    let (h, flags) = match handler {
        SIG_IGN => (libc::SIG_IGN, 0),
        SIG_DFL if !caught => (libc::SIG_DFL, 0),
        _ => (host_handler as *const () as usize, libc::SA_SIGINFO),
    };
    if guest_handler || caught {
        need_async_stops();
    }
    raw_sigaction(sig.0, h, flags | kernel_flags);
}

/// The kernel's `struct sigaction` for x86_64 (arch/x86/include/uapi/asm/signal.h).
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: u64,
    restorer: usize,
    mask: u64,
}

extern "C" {
    /// glibc's own signal-return trampoline is not exported; the kernel needs one for
    /// `SA_RESTORER` handlers on x86_64, so endgate provides it (restorer.S equivalent below).
    fn endgate_host_restore_rt();
}

std::arch::global_asm!(
    ".globl endgate_host_restore_rt",
    ".type endgate_host_restore_rt, @function",
    "endgate_host_restore_rt:",
    "mov rax, 15",
    "syscall",
    "ud2",
);

fn raw_sigaction(sig: u32, handler: usize, flags: i32) {
    let act = KernelSigaction {
        handler,
        flags: crate::abi::bits64(flags) | 0x0400_0000, // SA_RESTORER
        restorer: endgate_host_restore_rt as *const () as usize,
        // The handler runs with every other guest signal blocked: no nesting, so a burst of
        // queued signals (real-time ones queue) never piles frames on the host stack.
        mask: host_mask(!0),
    };
    // SAFETY: a valid kernel sigaction for a catchable signal; raw so that glibc's reserved
    // signals 32 and 33 are reachable too.
    unsafe { libc::syscall(libc::SYS_rt_sigaction, i64::from(sig), &act as *const KernelSigaction, 0usize, 8usize) };
}

/// The host handler of `sig` now (`SIG_DFL`, `SIG_IGN` or a function's address; raw
/// `rt_sigaction`, so 32 and 33 are read too); `None` if the kernel refuses to say.
fn current_handler(sig: Signal) -> Option<usize> {
    let mut old = KernelSigaction { handler: 0, flags: 0, restorer: 0, mask: 0 };
    // SAFETY: reads the disposition into a local kernel sigaction.
    let r = unsafe {
        libc::syscall(
            libc::SYS_rt_sigaction,
            i64::from(sig.0),
            std::ptr::null::<KernelSigaction>(),
            &mut old as *mut KernelSigaction,
            8usize,
        )
    };
    (r == 0).then_some(old.handler)
}

/// `true` if the host disposition of `sig` is `SIG_IGN` now.
pub fn disposition_is_ignore(sig: Signal) -> bool {
    current_handler(sig) == Some(libc::SIG_IGN)
}

/// The host mask for a guest mask: everything the guest blocks except SIGKILL, SIGSTOP and
/// endgate's fault signals.
fn host_mask(mask: u64) -> u64 {
    let mut m = mask & !(bit(Signal::SIGKILL) | bit(Signal::SIGSTOP));
    for s in HOST_OWN {
        m &= !bit(s);
    }
    m
}

/// Makes the calling host thread block what the guest thread blocks (host-numbered mask).
pub fn set_mask(mask: u64) {
    let m = host_mask(mask);
    // SAFETY: an 8-byte kernel sigset; only the calling thread's mask changes.
    unsafe { libc::syscall(libc::SYS_rt_sigprocmask, libc::SIG_SETMASK, &m as *const u64, 0usize, 8usize) };
}

/// The calling host thread's blocked mask (host-numbered).
pub fn current_mask() -> u64 {
    let mut m = 0u64;
    // SAFETY: reads the mask into a local 8-byte set.
    unsafe {
        libc::syscall(libc::SYS_rt_sigprocmask, libc::SIG_BLOCK, std::ptr::null::<u64>(), &mut m as *mut u64, 8usize)
    };
    m
}

/// Signals pending on the host for the thread or the process (host-numbered).
pub fn host_pending() -> u64 {
    let mut m = 0u64;
    // SAFETY: the kernel writes an 8-byte set.
    unsafe { libc::syscall(libc::SYS_rt_sigpending, &mut m as *mut u64, 8usize) };
    m
}

/// Waits until a signal the host handler records arrives, with the host mask set to
/// `mask` (guest-numbered as host numbers) for the wait only (`sigsuspend(2)` semantics).
/// Returns once a handler ran; the signal is then in the calling thread's queue.
pub fn suspend(mask: u64) {
    let m = host_mask(mask);
    // SAFETY: an 8-byte kernel sigset; rt_sigsuspend returns EINTR after a handler ran, and
    // at once if one was recorded since the caller last looked (safe_syscall).
    unsafe {
        host_shims::safe_syscall::safe_syscall(
            recorded_counters(),
            libc::SYS_rt_sigsuspend,
            [&m as *const u64 as u64, 8, 0, 0, 0, 0],
        )
    };
}
