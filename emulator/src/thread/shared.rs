//! [`Shared`]: process state that every guest thread of a process sees as one object (the
//! address space, the signal dispositions), reached through each thread's own handle.
//!
//! # Why this is sound
//! A `Shared<T>` is an `Arc` to an `UnsafeCell<T>`; `Deref`/`DerefMut` hand out references to
//! the `T` so that the many `t.mm.…` call sites stay plain field accesses. Exclusive access
//! comes from the [global guest lock](super::lock), and each of the three ways the rule could
//! break is closed:
//! - **a dereference without the lock**: every `deref`/`deref_mut` checks that the calling
//!   host thread holds the lock ([`super::lock::held`], one thread-local byte) before it makes
//!   the reference, and otherwise ends the guest as an internal error (a panic, which every
//!   engine callback and the run loop turn into endgate's one line and status 70), so no
//!   reference is ever made unlocked. Guest threads hold the lock in their run loop, and a
//!   hook of an instance that runs in parallel mode takes it ([`crate::guest::locked`], the
//!   TLB fill) before it reaches the address space;
//! - **a reference used while the lock is given up**: guest-thread code releases the lock
//!   only through [`crate::guest::Task::blocking`] (a host call that may block) and
//!   [`crate::guest::Task::yield_lock`] (`sched_yield`), and both borrow the thread's `Task`
//!   exclusively. Every handle a guest thread dereferences is a field of its `Task` (`t.mm`,
//!   `t.sig.actions`), so any reference made through one borrows the `Task`, and the compiler
//!   refuses a call while such a reference is alive (the `compile_fail` example at
//!   `Task::blocking`). The closure `blocking` runs unlocked is `'static`, so it cannot capture
//!   the `Task` or a reference either; it could capture an owned handle (a `clone`), and then
//!   the run-time check above stops its dereference. The lock functions themselves are refused
//!   elsewhere by `clippy.toml` (`disallowed-methods`), which the test command's clippy run
//!   enforces; the run loop's own calls (giving way between engine runs, where no hook's
//!   reference is alive; thread exit) are marked where they stand;
//! - **two live `&mut` to one value on one thread**: one host thread holds exactly one guest
//!   thread's `Task`, so one thread never holds two handles to the same `T`, and Rust's borrow
//!   rules on the handle keep that thread's own references from aliasing.
//!
//! Other host threads (the preemption timer, signal handlers) never dereference a `Shared`
//! (they would fail the check). The check costs nothing measurable: against a build without
//! it, getppid, the trap, the gate and the vDSO on x86_64, aarch64, arm and s390x were
//! 0.87-1.02x, within the noise of the loaded machine
//! (`benches/results/ab-lock-check-2026-12-05.md`).
//!
//! What stays a run-time check: a dereference by a host thread that holds no lock (the types
//! cannot tell which host thread runs a hook). A lock token borrowed by every dereference would
//! move that check to compile time too; it is not done, since it means threading the token
//! through about 660 uses in 82 files. The case the run-time check could not see, a reference
//! made under the lock that outlives it, is the one the exclusive borrow above rules out.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A handle to process state shared by the guest's threads (see the module doc). `clone`
/// gives another handle to the same value.
pub struct Shared<T>(Arc<UnsafeCell<T>>);

impl<T> Shared<T> {
    /// Wraps `v` as the first handle.
    pub fn new(v: T) -> Shared<T> {
        Shared(Arc::new(UnsafeCell::new(v)))
    }

    /// `true` if `a` and `b` are handles to the same value.
    pub fn same(a: &Shared<T>, b: &Shared<T>) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        require_lock();
        // SAFETY: see the module doc: the caller holds the global guest lock (checked above)
        // and one handle, whose borrows Rust checks.
        unsafe { &*self.0.get() }
    }
}

impl<T> DerefMut for Shared<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        require_lock();
        // SAFETY: as for `deref`; `&mut self` rules out other borrows through this handle.
        unsafe { &mut *self.0.get() }
    }
}

/// Stops a dereference by a thread that does not hold the guest lock (see the module doc).
#[inline(always)]
fn require_lock() {
    if !super::lock::held() {
        unlocked();
    }
}

#[cold]
#[inline(never)]
fn unlocked() -> ! {
    panic!("process state (address space or signal dispositions) reached without the guest lock")
}

impl<T: std::fmt::Debug> std::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

// SAFETY: the value moves between host threads only as the global guest lock passes; see the
// module doc. `T: Send` because the value is used (and dropped) on whichever thread holds it.
unsafe impl<T: Send> Send for Shared<T> {}
// SAFETY: as above; shared references are only dereferenced under the lock.
unsafe impl<T: Send> Sync for Shared<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "without the guest lock")]
    fn a_dereference_without_the_lock_is_refused() {
        let s = Shared::new(7u32);
        // This test's thread never took the lock.
        let _ = *s;
    }

    #[test]
    fn the_lock_holder_reaches_the_value_through_every_handle() {
        let mut a = Shared::new(7u32);
        let b = a.clone();
        // Counted as holding the lock without taking the process-wide one, which another test
        // of this binary (`lock::tests`) checks is uncontended.
        // SAFETY: only this thread has handles to the value.
        let seen = unsafe {
            super::super::lock::as_borrower(|| {
                *a += 1;
                *b
            })
        };
        assert_eq!(seen, 8);
        assert!(Shared::same(&a, &b));
    }
}
