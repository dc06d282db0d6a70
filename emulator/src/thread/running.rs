//! Which guest threads are running guest code right now, and stopping them: what lets guest
//! threads run in parallel while the [global guest lock](super::lock) covers only endgate's
//! own work.
//!
//! # The rule
//! In a process with more than one guest thread, a thread runs guest code (its `emu_start`)
//! *without* the lock, and takes it in every hook that touches process state (the TLB fill,
//! system calls, the gate, exceptions). Its [`Slot`] says whether it is *running*: inside
//! `emu_start` and not inside such a hook. The flag
//! - goes up only while the thread holds the lock ([`enter_guest`], and when a hook gives the
//!   lock back), so a lock holder that sees it down knows the thread cannot start running
//!   until the lock is released;
//! - goes down without the lock ([`leave_guest`], before a hook waits for the lock), with
//!   release ordering after the thread's last guest access.
//!
//! A change that makes other instances' TLB entries or translations wrong before the host
//! pages change (`munmap`, `mprotect`, `mremap`, a fixed `mmap` over pages in use) first stops
//! every running thread ([`quiesce`]): it raises their stop flags (they leave `emu_start` at the
//! next block start, before any instruction of the block) and waits until each has gone out.
//! Those threads then wait for the lock, and apply the published invalidation before they run
//! guest code again, as in QEMU's `start_exclusive`. A change that only needs the others to
//! catch up soon (a page that became code, a store to code another instance translated) raises
//! their stop flags without waiting ([`stop_others`]).
//!
//! With one guest thread nothing here is used: the thread holds the lock while it runs.
//! `ENDGATE_THREADS=serial` in endgate's environment keeps the old way for every process (one
//! thread runs guest code at a time, with the preemption timer), to compare.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// One guest thread as the others see it.
pub struct Slot {
    /// The host thread id.
    tid: i32,
    /// Inside `emu_start` and outside every locked hook.
    running: AtomicBool,
    /// The thread's stop flag (`crate::signal::host::stop_flag`).
    stop: &'static super::stop::StopFlag,
}

/// The process's guest threads that may run guest code without the lock.
static SLOTS: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());

/// Bumped (and woken) when a thread stops running while a [`quiesce`] waits.
static LEFT: AtomicU32 = AtomicU32::new(0);
/// Threads waiting in [`quiesce`].
static WAITERS: AtomicU32 = AtomicU32::new(0);

thread_local! {
    static MINE: std::cell::RefCell<Option<Arc<Slot>>> = const { std::cell::RefCell::new(None) };
}

fn slots() -> std::sync::MutexGuard<'static, Vec<Arc<Slot>>> {
    SLOTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Set by [`force_serial`].
static SERIAL: AtomicBool = AtomicBool::new(false);

/// From now on no guest code runs without the lock (`-g`: a thread stopped for GDB holds it,
/// so every other one waits: all-stop).
pub fn force_serial() {
    SERIAL.store(true, Ordering::SeqCst);
}

/// `true` unless endgate was started with `ENDGATE_THREADS=serial` or [`force_serial`] was
/// called.
pub fn parallel_allowed() -> bool {
    static ALLOWED: OnceLock<bool> = OnceLock::new();
    *ALLOWED.get_or_init(|| std::env::var_os("ENDGATE_THREADS").is_none_or(|v| v != "serial"))
        && !SERIAL.load(Ordering::Relaxed)
}

/// Registers the calling thread (once; its stop flag is `stop`).
pub fn register(stop: &'static super::stop::StopFlag) {
    MINE.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_none() {
            let slot = Arc::new(Slot { tid: super::gettid(), running: AtomicBool::new(false), stop });
            slots().push(Arc::clone(&slot));
            *m = Some(slot);
        }
    });
}

/// Removes the calling thread (its guest thread ended; it holds the lock and is not running).
pub fn unregister() {
    let me = super::gettid();
    MINE.with(|m| m.borrow_mut().take());
    slots().retain(|s| s.tid != me);
}

fn set_mine(running: bool) {
    MINE.with(|m| {
        if let Some(s) = &*m.borrow() {
            s.running.store(running, Ordering::SeqCst);
        }
    });
}

/// Some thread of this process has run guest code without the lock.
static PARALLEL_SEEN: AtomicBool = AtomicBool::new(false);

/// `true` once a thread of this process ran guest code in parallel: the preemption timer
/// then has nothing to do (a thread holding the lock is doing endgate's work, not the guest's).
pub fn parallel_seen() -> bool {
    PARALLEL_SEEN.load(Ordering::Relaxed)
}

/// The calling thread starts running guest code (it holds the lock, and releases it next).
pub fn enter_guest() {
    if !PARALLEL_SEEN.load(Ordering::Relaxed) {
        PARALLEL_SEEN.store(true, Ordering::Relaxed);
    }
    set_mine(true);
}

/// The calling thread stopped running guest code (its `emu_start` returned, or a hook is about
/// to wait for the lock).
pub fn leave_guest() {
    set_mine(false);
    if WAITERS.load(Ordering::SeqCst) > 0 {
        LEFT.fetch_add(1, Ordering::SeqCst);
        futex(&LEFT, libc::FUTEX_WAKE, i32::MAX as u32, None);
    }
}

fn futex(word: &AtomicU32, op: i32, val: u32, timeout: Option<&libc::timespec>) {
    let ts = timeout.map_or(std::ptr::null(), std::ptr::from_ref);
    // SAFETY: `word` is a live, aligned 4-byte atomic; `ts` is null or a live timespec.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), op | libc::FUTEX_PRIVATE_FLAG, val, ts, 0usize, 0u32) };
}

/// Mirrors the preemption request into every registered thread's engine
/// ([`super::stop::StopFlag::set_preempt`]).
pub fn set_preempt_all(up: bool) {
    for s in slots().iter() {
        s.stop.set_preempt(up);
    }
}

/// Raises the stop flag of every other thread that runs guest code: each leaves `emu_start` at
/// its next block start and catches up with the published invalidations before it runs again.
pub fn stop_others() {
    let me = super::gettid();
    for s in slots().iter().filter(|s| s.tid != me && s.running.load(Ordering::SeqCst)) {
        s.stop.raise();
    }
}

/// Set by [`quiesce`] until its caller gives the lock up ([`end_exclusive`]): a thread coming
/// back from a host call it made without the lock does not start running guest code
/// meanwhile ([`enter_guest_unlocked`]).
static EXCLUSIVE: AtomicBool = AtomicBool::new(false);

/// The calling thread, back from a host call it made as a thread not running guest code and
/// without the lock (`crate::syscall::unlocked`), runs guest code again without taking the
/// lock, unless a thread is stopping the others ([`quiesce`]) or `current` says the mappings
/// changed while it was away (it must catch up under the lock first): then it stays not
/// running and answers `false`.
///
/// Its flag goes up before it looks (both sequentially consistent, as in [`quiesce`], which
/// raises `EXCLUSIVE` before it looks at the flags): either it sees the quiesce and backs off,
/// or the quiesce sees it running and waits for it to stop at its next block start.
pub fn enter_guest_unlocked(current: impl FnOnce() -> bool) -> bool {
    set_mine(true);
    if !EXCLUSIVE.load(Ordering::SeqCst) && current() {
        return true;
    }
    leave_guest();
    false
}

/// The lock holder gives the lock up: a [`quiesce`] it made is over.
pub(super) fn end_exclusive() {
    if EXCLUSIVE.load(Ordering::Relaxed) {
        EXCLUSIVE.store(false, Ordering::SeqCst);
    }
}

/// Counts [`quiesce`] calls that had other threads to stop.
static QUIESCES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many times a thread stopped the others so far: a thread that reads it before it waits
/// for the lock and again once it holds it knows whether mappings may have changed meanwhile.
pub fn quiesces() -> u64 {
    QUIESCES.load(Ordering::SeqCst)
}

/// Stops every other thread that runs guest code and waits until none does (the caller holds
/// the lock, so none starts again before it releases it). Does nothing with one thread.
pub fn quiesce() {
    if super::live_threads() <= 1 {
        return;
    }
    QUIESCES.fetch_add(1, Ordering::SeqCst);
    EXCLUSIVE.store(true, Ordering::SeqCst);
    let me = super::gettid();
    WAITERS.fetch_add(1, Ordering::SeqCst);
    loop {
        let seen = LEFT.load(Ordering::SeqCst);
        let mut any = false;
        for s in slots().iter().filter(|s| s.tid != me && s.running.load(Ordering::SeqCst)) {
            s.stop.raise();
            any = true;
        }
        if !any {
            break;
        }
        // A thread leaving bumps LEFT and wakes; the timeout is a backstop only.
        let ts = libc::timespec { tv_sec: 0, tv_nsec: 1_000_000 };
        futex(&LEFT, libc::FUTEX_WAIT, seen, Some(&ts));
    }
    WAITERS.fetch_sub(1, Ordering::SeqCst);
}

/// In the child of a `fork`: only the calling thread is left.
pub fn after_fork_child() {
    EXCLUSIVE.store(false, Ordering::SeqCst);
    let me = super::gettid();
    slots().retain(|s| s.tid == me);
    MINE.with(|m| {
        let mut m = m.borrow_mut();
        // The forking thread's slot still names the parent's thread id.
        if let Some(old) = m.take() {
            let slot = Arc::new(Slot { tid: me, running: AtomicBool::new(false), stop: old.stop });
            let mut all = slots();
            all.clear();
            all.push(Arc::clone(&slot));
            *m = Some(slot);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// A thread that comes back from a call made without the lock either backs off or is
    /// waited for: it never runs while a lock holder is past its `quiesce` and still holds
    /// the lock (the window in which mappings change under stopped threads).
    #[test]
    fn a_returning_thread_never_runs_inside_a_quiesce() {
        static EXCLUSIVE_WORK: AtomicBool = AtomicBool::new(false);
        static DONE: AtomicBool = AtomicBool::new(false);
        static RAN: AtomicU64 = AtomicU64::new(0);
        static BACKED_OFF: AtomicU64 = AtomicU64::new(0);
        static VIOLATIONS: AtomicU64 = AtomicU64::new(0);
        super::super::thread_started();
        let returning = std::thread::spawn(|| {
            static STOP: super::super::stop::StopFlag = super::super::stop::StopFlag::new();
            let stop = &STOP;
            register(stop);
            while !DONE.load(Ordering::SeqCst) {
                if enter_guest_unlocked(|| true) {
                    RAN.fetch_add(1, Ordering::Relaxed);
                    // "Guest code" until the next block start that sees the stop flag.
                    for _ in 0..50 {
                        if EXCLUSIVE_WORK.load(Ordering::SeqCst) {
                            VIOLATIONS.fetch_add(1, Ordering::Relaxed);
                        }
                        if stop.is_up() {
                            break;
                        }
                        std::hint::spin_loop();
                    }
                    stop.lower();
                    leave_guest();
                } else {
                    BACKED_OFF.fetch_add(1, Ordering::Relaxed);
                }
            }
            unregister();
        });
        let mut rounds = 0;
        while rounds < 2000 || RAN.load(Ordering::Relaxed) < 100 {
            rounds += 1;
            // Between two quiesces the returning thread may run.
            for _ in 0..(rounds % 7) * 100 {
                std::hint::spin_loop();
            }
            // The lock holder's part: stop the others, change what they may not see, give
            // the lock up.
            super::super::lock::acquire();
            quiesce();
            EXCLUSIVE_WORK.store(true, Ordering::SeqCst);
            for _ in 0..200 {
                std::hint::spin_loop();
            }
            EXCLUSIVE_WORK.store(false, Ordering::SeqCst);
            #[allow(clippy::disallowed_methods)] // the test's own lock holder
            super::super::lock::release();
        }
        DONE.store(true, Ordering::SeqCst);
        returning.join().unwrap();
        super::super::thread_ended();
        assert_eq!(VIOLATIONS.load(Ordering::Relaxed), 0, "ran inside a quiesce");
        assert!(RAN.load(Ordering::Relaxed) > 0);
    }
}
