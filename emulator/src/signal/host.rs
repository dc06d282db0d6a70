//! The host side of guest signals: the host process carries the guest's dispositions and
//! mask, and a guest handler is served by endgate's host handler, which records the signal for
//! the thread it interrupted and stops that thread's unicorn instance.
//!
//! - Dispositions ([`set_disposition`]): guest `SIG_IGN` and `SIG_DFL` are set on the host as
//!   they are, so the kernel ignores, stops, kills or dumps core exactly as it would for the
//!   native program, and exec keeps ignored signals ignored. A guest handler installs
//!   `host_handler` with `SA_SIGINFO` and without `SA_RESTART` (the guest's `SA_RESTART` is
//!   applied by endgate when it delivers: [`crate::signal::deliver`]).
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
//! storage, so touching it from a signal handler allocates nothing) and calls `uc_emu_stop`
//! on the thread's instance; a signal that lands just before `emu_start` begins is caught by
//! the [watchdog](start_watchdog), which stops an instance whose thread has recorded signals.

use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::sync::Mutex;

use super::{bit, SigInfo, Signal, HOST_OWN, NSIG, SIG_DFL, SIG_IGN};

/// Entries in a thread's ring of recorded signals; a signal arriving while it is full is
/// merged with the last entry of its number (standard signals never queue twice anyway).
const QUEUE_LEN: usize = 32;

/// Signals recorded by `host_handler` for one host thread, not yet taken by the thread.
/// Single producer (the handler) and single consumer (the thread itself, which the handler
/// interrupts), so plain atomics suffice.
pub struct HostQueue {
    head: AtomicU32,
    tail: AtomicU32,
    slots: [UnsafeCell<libc::siginfo_t>; QUEUE_LEN],
    /// The thread's unicorn instance (`uc_engine *`), null outside emulation setup.
    uc: Cell<*mut unicorn_engine::unicorn_const::uc_engine>,
}

// SAFETY: a HostQueue lives in thread-local storage; only its own thread (and signal handlers
// running on that thread) touch the slots; the watchdog reads `head`/`tail` atomically and the
// uc pointer through the registry, which the thread keeps current.
unsafe impl Sync for HostQueue {}

impl HostQueue {
    const fn new() -> HostQueue {
        HostQueue {
            head: AtomicU32::new(0),
            tail: AtomicU32::new(0),
            // SAFETY: siginfo_t is plain data; all-zero is a valid value.
            slots: [const { UnsafeCell::new(unsafe { std::mem::zeroed() }) }; QUEUE_LEN],
            uc: Cell::new(std::ptr::null_mut()),
        }
    }

    fn is_empty(&self) -> bool {
        self.head.load(Ordering::Acquire) == self.tail.load(Ordering::Acquire)
    }
}

thread_local! {
    static QUEUE: HostQueue = const { HostQueue::new() };
}

/// Threads that may have recorded signals, for the watchdog: (queue address, uc handle).
/// Every guest thread with a running instance is here.
static REGISTRY: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
/// The process the watchdog thread runs in (0: none yet); a fork child has none.
static WATCHDOG_PID: AtomicI32 = AtomicI32::new(0);
/// How often the watchdog looks (also the preemption tick of the global guest lock).
const TICK: std::time::Duration = std::time::Duration::from_millis(5);
static ANY_HANDLER: AtomicBool = AtomicBool::new(false);

/// Records the calling thread's unicorn instance, which `host_handler` and the watchdog stop
/// when a signal arrives for this thread. Call once the instance exists; [`forget_thread`]
/// before it is dropped.
pub fn register_thread(uc: *mut unicorn_engine::unicorn_const::uc_engine) {
    QUEUE.with(|q| {
        q.uc.set(uc);
        if let Ok(mut r) = REGISTRY.lock() {
            r.retain(|&(addr, _)| addr != q as *const HostQueue as usize);
            r.push((q as *const HostQueue as usize, uc as usize));
        }
    });
}

/// Undoes [`register_thread`] (the instance is about to go away).
pub fn forget_thread() {
    QUEUE.with(|q| {
        q.uc.set(std::ptr::null_mut());
        if let Ok(mut r) = REGISTRY.lock() {
            r.retain(|&(addr, _)| addr != q as *const HostQueue as usize);
        }
    });
}

/// Stops the calling thread's unicorn instance so that the run loop looks at its signals
/// (used by hooks that recorded something for the run loop).
pub fn stop_self() {
    QUEUE.with(|q| stop(q.uc.get()));
}

fn stop(uc: *mut unicorn_engine::unicorn_const::uc_engine) {
    if crate::thread::preempt::active() {
        // A process with threads stops at block boundaries only (see `thread::preempt`).
        crate::thread::preempt::request();
    } else if !uc.is_null() {
        // SAFETY: a live instance of this process (registered threads unregister before their
        // instance is dropped); uc_emu_stop only sets flags and asks the vCPU to exit.
        unsafe { unicorn_engine::unicorn_const::uc_emu_stop(uc) };
    }
}

/// `true` if the host handler recorded signals the calling thread has not taken yet.
#[inline]
pub fn has_recorded() -> bool {
    QUEUE.with(|q| !q.is_empty())
}

/// Takes the signals recorded for the calling thread, oldest first.
pub fn take_recorded() -> Vec<SigInfo> {
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

/// The host handler for signals the guest handles (async-signal-safe: atomics, a copy into
/// thread-local storage, `uc_emu_stop`).
extern "C" fn host_handler(sig: libc::c_int, info: *mut libc::siginfo_t, _uc: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let code = unsafe { (*info).si_code };
    if HOST_OWN.contains(&Signal(sig as u32)) && code > 0 {
        // A real fault in endgate itself: let it end endgate when the instruction runs again.
        // SAFETY: restoring the default disposition.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
        return;
    }
    let _ = QUEUE.try_with(|q| {
        let head = q.head.load(Ordering::Relaxed);
        let tail = q.tail.load(Ordering::Acquire);
        if head.wrapping_sub(tail) as usize >= QUEUE_LEN {
            // Full: the signal merges with a queued one (a standard signal is pending once).
            stop(q.uc.get());
            return;
        }
        // SAFETY: the slot is not readable by the consumer until `head` advances.
        unsafe { *q.slots[head as usize % QUEUE_LEN].get() = *info };
        q.head.store(head.wrapping_add(1), Ordering::Release);
        stop(q.uc.get());
    });
}

/// Sets the host disposition of `sig` for a guest disposition `handler` (`SIG_DFL`,
/// `SIG_IGN`, or a guest handler address). SIGKILL and SIGSTOP are left alone.
pub fn set_disposition(sig: Signal, handler: u64) {
    if sig == Signal::SIGKILL || sig == Signal::SIGSTOP || sig.0 == 0 || sig.0 > NSIG {
        return;
    }
    let guest_handler = !matches!(handler, SIG_DFL | SIG_IGN);
    if !guest_handler && HOST_OWN.contains(&sig) {
        // endgate's own faults keep the default action (SIG_IGN of a fault signal would hide
        // endgate's crashes; the guest's SIG_IGN is honoured when endgate delivers).
        raw_sigaction(sig.0, libc::SIG_DFL, 0);
        return;
    }
    let (h, flags) = match handler {
        SIG_IGN => (libc::SIG_IGN, 0),
        SIG_DFL => (libc::SIG_DFL, 0),
        _ => (host_handler as *const () as usize, libc::SA_SIGINFO | libc::SA_ONSTACK),
    };
    if guest_handler && !ANY_HANDLER.swap(true, Ordering::Relaxed) {
        start_watchdog();
    }
    raw_sigaction(sig.0, h, flags);
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
        flags: flags as u64 | 0x0400_0000, // SA_RESTORER
        restorer: endgate_host_restore_rt as *const () as usize,
        mask: 0,
    };
    // SAFETY: a valid kernel sigaction for a catchable signal; raw so that glibc's reserved
    // signals 32 and 33 are reachable too.
    unsafe { libc::syscall(libc::SYS_rt_sigaction, sig as i64, &act as *const KernelSigaction, 0usize, 8usize) };
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
    // SAFETY: an 8-byte kernel sigset; rt_sigsuspend returns EINTR after a handler ran.
    unsafe { libc::syscall(libc::SYS_rt_sigsuspend, &m as *const u64, 8usize) };
}

/// Starts (once per process) the watchdog thread, which every `TICK` (5 ms) stops an instance whose
/// thread has recorded signals that arrived just before its `emu_start` began,
/// and asks the thread holding the global guest lock to give way at its next block when others
/// have waited for it a whole tick ([`crate::thread::preempt::tick`]).
pub fn start_watchdog() {
    // SAFETY: no arguments.
    let pid = unsafe { libc::getpid() };
    if WATCHDOG_PID.swap(pid, Ordering::Relaxed) == pid {
        return;
    }
    let spawn = std::thread::Builder::new().name("endgate-watchdog".into()).spawn(|| {
        // The watchdog takes no guest signals: it blocks everything it can.
        let all = !0u64;
        // SAFETY: an 8-byte kernel sigset for this thread only.
        unsafe { libc::syscall(libc::SYS_rt_sigprocmask, libc::SIG_SETMASK, &all as *const u64, 0usize, 8usize) };
        loop {
            std::thread::sleep(TICK);
            crate::thread::preempt::tick();
            if let Ok(r) = REGISTRY.lock() {
                for &(q, uc) in r.iter() {
                    // SAFETY: registered queues belong to live threads (they unregister
                    // under this lock before exiting).
                    let q = unsafe { &*(q as *const HostQueue) };
                    if !q.is_empty() {
                        stop(uc as *mut _);
                    }
                }
            }
        }
    });
    if spawn.is_err() {
        crate::elog!("endgate: cannot start the signal watchdog thread");
    }
}

/// Runs `fork` (a host fork returning the child's pid, 0 in the child) with the thread
/// registry locked, so that the child's copy is not left locked by another host thread; in
/// the child, the registry keeps only the calling thread (the others did not come along) and
/// the watchdog is started again if the parent had one.
pub fn fork_guarded(fork: impl FnOnce() -> i32) -> i32 {
    let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let pid = fork();
    if pid != 0 {
        return pid;
    }
    QUEUE.with(|q| reg.retain(|&(addr, _)| addr == q as *const HostQueue as usize));
    drop(reg);
    if WATCHDOG_PID.load(Ordering::Relaxed) != 0 {
        start_watchdog();
    }
    pid
}
