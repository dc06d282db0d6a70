//! The global guest lock: one guest thread runs at a time.
//!
//! Unicorn instances do not make guest atomics atomic against each other (a `lock inc` or an
//! `ldaxr`/`stlxr` pair in one instance can interleave with a store from another; see
//! docs/unicorn-facts.md §3.4), so endgate runs guest code, and its own code that
//! touches the process's shared state (the address space, the signal dispositions), on one
//! host thread at a time: the one holding this lock.
//!
//! # Shape
//! A ticket lock on two counters: a thread takes the next ticket and waits (host `futex` on
//! `SERVING`) until that ticket is served, so the lock goes to waiters in the order they
//! asked, which keeps a thread that gives the lock up and asks again from taking it straight
//! back. It is held
//! - by a guest thread from the moment its run loop starts until the thread ends, except
//! - around host calls that can block ([`blocking`]), and
//! - when the thread gives way ([`yield_now`]) after [the preemption timer](super::preempt) has
//!   had its instance stopped at a block boundary because another thread has waited a whole
//!   tick ([`super::preempt`]).
//!
//! While the process has one guest thread, [`blocking`] does not touch the lock at all, so a
//! single-threaded guest pays nothing for it.

#![allow(clippy::disallowed_methods)] // the lock's own module: its functions build on each other

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// The next ticket to hand out.
static NEXT: AtomicU32 = AtomicU32::new(0);
/// The ticket whose holder owns the lock (a host futex word).
static SERVING: AtomicU32 = AtomicU32::new(0);
/// Counts acquisitions; the preemption timer compares it across ticks to see whether the lock changed
/// hands.
static HANDOFFS: AtomicU64 = AtomicU64::new(0);
/// Waiters asleep on `SERVING` (or about to be): a release with none makes no wake call.
static SLEEPERS: AtomicU32 = AtomicU32::new(0);
/// How many times a waiter looks at `SERVING` before it sleeps: a hook's work under the lock
/// (a system call's) is often over within this, and a sleep and wake-up cost more than it.
const SPINS: u32 = 200;
/// `HANDOFFS` as the preemption timer saw it at its previous tick.
static SEEN_AT_TICK: AtomicU64 = AtomicU64::new(u64::MAX);

/// A host futex operation on `word` with `bits` as its bitset (`FUTEX_WAIT_BITSET`,
/// `FUTEX_WAKE_BITSET`).
fn futex(word: &AtomicU32, op: i32, val: u32, bits: u32) {
    // SAFETY: `word` is a live, aligned 4-byte atomic; no timeout, no second word.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op | libc::FUTEX_PRIVATE_FLAG,
            val,
            std::ptr::null::<libc::timespec>(),
            0usize,
            bits,
        )
    };
}

/// The futex bitset a waiter for `ticket` sleeps with: a release wakes only the waiters of the
/// ticket it serves (and those 32 tickets apart), not every waiter. Waking them all made each
/// hand-off cost one wake-up per waiting thread, each of which went back to sleep: 32 threads
/// that called `sched_yield` in a loop took 10 s where qemu-user took 0.2 s.
fn ticket_bit(ticket: u32) -> u32 {
    1 << (ticket % 32)
}

thread_local! {
    /// The calling host thread holds the lock.
    static HELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `true` if the calling thread holds the lock.
#[inline]
pub fn held() -> bool {
    HELD.with(std::cell::Cell::get)
}

/// Takes the lock, waiting for every thread that asked before. Keeps `errno` as it was (the
/// waits may set it).
pub fn acquire() {
    let ticket = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut spins = 0;
    loop {
        let now = SERVING.load(Ordering::Acquire);
        if now == ticket {
            break;
        }
        if spins < SPINS {
            spins += 1;
            std::hint::spin_loop();
            continue;
        }
        // Counted before the sleep, which the kernel does only while `SERVING` is still
        // `now`: a release either sees the count or moved `SERVING` before the kernel looks.
        SLEEPERS.fetch_add(1, Ordering::SeqCst);
        // A signal or a spurious wake returns early; the loop looks again.
        futex(&SERVING, libc::FUTEX_WAIT_BITSET, now, ticket_bit(ticket));
        SLEEPERS.fetch_sub(1, Ordering::Relaxed);
    }
    HANDOFFS.fetch_add(1, Ordering::Relaxed);
    HELD.with(|h| h.set(true));
}

/// Gives the lock to the next waiter, if any.
pub fn release() {
    super::running::end_exclusive();
    HELD.with(|h| h.set(false));
    let served = SERVING.fetch_add(1, Ordering::SeqCst).wrapping_add(1);
    if NEXT.load(Ordering::Relaxed) != served && SLEEPERS.load(Ordering::SeqCst) != 0 {
        // Waiters: wake the one whose ticket is served (with any that share its bit).
        futex(&SERVING, libc::FUTEX_WAKE_BITSET, i32::MAX as u32, ticket_bit(served));
    }
}

/// `true` if another thread waits for the lock (a cheap look, for the run loop).
#[inline]
pub fn contended() -> bool {
    NEXT.load(Ordering::Relaxed).wrapping_sub(SERVING.load(Ordering::Relaxed)) > 1
}

/// Lets every thread that waits for the lock run first, then takes it again (the run loop
/// calls it after the preemption timer stopped the instance; `sched_yield` calls it too).
pub fn yield_now() {
    if contended() {
        release();
        acquire();
    }
}

/// Runs `f`, a host call that may block, with the lock released when other guest threads
/// exist, so they run meanwhile; `errno` as `f` left it is kept for the caller.
///
/// Inside `f` nothing may touch the thread's [`crate::guest::Task`] or the guest's address
/// space bookkeeping: another thread may change them while `f` runs. `f` is `'static`, so the
/// compiler refuses one that borrows them (or anything else); it takes what it needs by value.
/// Host pointers into guest memory taken before are fine, as integers or raw pointers (if
/// another thread unmaps the memory meanwhile, the host call fails with `EFAULT`, as the
/// kernel's would).
///
/// Guest-thread code reaches it only through [`crate::guest::Task::blocking`], which borrows the
/// thread's `Task` exclusively for the call: every reference into the process's shared state
/// made through the `Task` (its address space, its signal dispositions) must have ended
/// before, which the compiler checks (`clippy.toml` refuses a direct call elsewhere).
#[inline]
pub fn blocking<R>(f: impl FnOnce() -> R + 'static) -> R {
    if super::live_threads() <= 1 {
        return f();
    }
    release();
    let r = f();
    let e = errno();
    acquire();
    set_errno(e);
    r
}

/// Lets one other host thread act for the calling thread, which holds the lock, while `f`
/// runs: the caller counts as not holding the lock until `f` returns, and `f` waits for the
/// other thread's work ([`as_borrower`] there). A new guest thread sets up its engine's view of
/// the address space this way, for its creator (`crate::task::spawn`).
pub fn lend<R>(f: impl FnOnce() -> R) -> R {
    debug_assert!(held());
    HELD.with(|h| h.set(false));
    let _back = SetHeld(true);
    f()
}

/// Runs `f` as the lock holder on behalf of the thread that lent it the lock.
///
/// # Safety
/// The thread holding the lock is inside [`lend`] and does not return from it before `f`
/// ends here.
pub unsafe fn as_borrower<R>(f: impl FnOnce() -> R) -> R {
    HELD.with(|h| h.set(true));
    let _back = SetHeld(false);
    f()
}

/// Sets the calling thread's [`held`] to its value when dropped (also when unwinding).
struct SetHeld(bool);

impl Drop for SetHeld {
    fn drop(&mut self) {
        HELD.with(|h| h.set(self.0));
    }
}

fn errno() -> i32 {
    // SAFETY: glibc's thread-local errno location.
    unsafe { *libc::__errno_location() }
}

fn set_errno(e: i32) {
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = e };
}

/// For the preemption timer's tick: `true` if another thread waits for the lock and the lock has not
/// changed hands since the previous call.
pub fn held_since_last_tick() -> bool {
    let h = HANDOFFS.load(Ordering::Relaxed);
    let seen = SEEN_AT_TICK.swap(h, Ordering::Relaxed);
    contended() && seen == h
}

/// In the child of a `fork`: the calling thread, the only one left, holds the lock and nobody
/// waits (the tickets other threads held died with them).
pub fn reset_after_fork() {
    let s = SERVING.load(Ordering::Relaxed);
    NEXT.store(s.wrapping_add(1), Ordering::Relaxed);
    HELD.with(|h| h.set(true));
}

/// In a child forked to start a new guest process from scratch ([`crate::launch`] takes the
/// lock; the syscall_live fuzz target's server): nobody holds the lock, whatever thread of the
/// parent held it.
pub fn free_after_fork() {
    NEXT.store(SERVING.load(Ordering::Relaxed), Ordering::Relaxed);
    HELD.with(|h| h.set(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excludes_and_serves_every_waiter() {
        static mut COUNT: u64 = 0;
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..20_000 {
                        acquire();
                        // SAFETY: only the lock holder touches COUNT.
                        unsafe { COUNT += 1 };
                        release();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        acquire();
        // SAFETY: as above.
        let count = unsafe { COUNT };
        // (Whether others wait now is not this test's to say: other tests take the lock too.)
        release();
        assert_eq!(count, 80_000);
    }
}
