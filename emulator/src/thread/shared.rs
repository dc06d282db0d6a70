//! [`Shared`]: process state that every guest thread of a process sees as one object (the
//! address space, the signal dispositions), reached through each thread's own handle.
//!
//! # Why this is sound
//! A `Shared<T>` is an `Arc` to an `UnsafeCell<T>`; `Deref`/`DerefMut` hand out references to
//! the `T` without a run-time lock, so that the many `t.mm.…` call sites stay plain field
//! accesses. Exclusive access comes from the [global guest lock](super::lock) instead:
//! - every dereference happens on a guest thread while it holds that lock: in its run loop,
//!   in unicorn hooks (which run inside its `emu_start`), or while a new thread is set up by
//!   its creator's request, which waits for it with the lock held (see [`super::spawn`]);
//!   the only code that runs guest-thread work without the lock is the closure given to
//!   [`super::lock::blocking`], which must not touch a `Shared` (its callers take the host
//!   pointers they need before);
//! - one host thread holds exactly one guest thread's `Task`, so one thread never holds two
//!   handles to the same `T`, and Rust's borrow rules on the handle keep that thread's own
//!   references from aliasing;
//! - no reference obtained through a handle is kept across a release of the lock (the
//!   handlers re-borrow after [`super::lock::blocking`] returns).
//!
//! Other host threads (the preemption timer, signal handlers) never dereference a `Shared`.
//!
//! # Not in the types yet (issue 15)
//! Nothing in the types proves the lock is held: `Deref` takes no token. Making it take one
//! (a `LockToken` that only [`super::lock::acquire`] hands out, released by
//! [`super::lock::blocking`] for its closure and given back after) means threading the token
//! through every handler and hook that reaches `Task::mm` (about 880 uses of `mm` in 73
//! files of `emulator/src`) and `SigState::actions` (a dozen), or keeping it inside `Task`
//! beside the handles, which the unicorn callbacks receive as `&mut Task` (their user data)
//! with no way to say that their caller took the lock. The places that take or give up the
//! lock are few: [`super::lock::acquire`]'s seven callers (the run loop, thread start, the
//! TLB fill, `guest::locked` for hooks running in parallel, the code-write and exclusive-step
//! callbacks) and [`super::lock::blocking`]; a run-time check (`lock::held()` in `Deref`, in
//! debug builds) would be the cheap first step.

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
        // SAFETY: see the module doc: only the holder of the global guest lock dereferences,
        // and it holds one handle, whose borrows Rust checks.
        unsafe { &*self.0.get() }
    }
}

impl<T> DerefMut for Shared<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as for `deref`; `&mut self` rules out other borrows through this handle.
        unsafe { &mut *self.0.get() }
    }
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
