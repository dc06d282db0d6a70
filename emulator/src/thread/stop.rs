//! One guest thread's stop flag ([`StopFlag`]): the level that makes the thread leave
//! `emu_start` at its next block start, raised by other threads, by the preemption timer and by
//! the host signal handler on the owner (`crate::signal::host`, which keeps each thread's flag
//! beside its queue of recorded signals), lowered only by the owner's run loop.
//!
//! Once the owner's engine is attached ([`StopFlag::attach`]) the flag is mirrored into the
//! engine's first stop byte and the preemption request into its second (unicorn patch 0031,
//! `uc_stop_flags`): a raise stores the byte and then the engine's kick, a half-word that every
//! block start reads with the exit request, so the running chain of blocks leaves at its next
//! block start and the engine, seeing the byte, stops there.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU16, AtomicU8, Ordering};

/// One thread's stop flag (see the module doc).
#[derive(Debug)]
pub struct StopFlag {
    /// The flag itself.
    up: AtomicBool,
    /// The engine's stop bytes (`uc_stop_flags`), or null before [`StopFlag::attach`] and
    /// after [`StopFlag::detach`].
    engine: AtomicPtr<AtomicU8>,
    /// The engine's half-word that makes its next block start leave, set after a byte
    /// (`uc_stop_flags`' `kick`).
    kick: AtomicPtr<AtomicU16>,
}

impl StopFlag {
    /// A lowered flag, attached to no engine.
    pub const fn new() -> StopFlag {
        StopFlag {
            up: AtomicBool::new(false),
            engine: AtomicPtr::new(std::ptr::null_mut()),
            kick: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Raises the flag: the owner leaves `emu_start` at its next block start (or at the first
    /// block of its next run). Async-signal-safe (atomic stores only).
    pub fn raise(&self) {
        self.up.store(true, Ordering::SeqCst);
        self.set_byte(0, true);
    }

    /// Lowers the flag (the owner's run loop, before it looks at what is due). The engine's
    /// byte goes first: a raise in between leaves it up (one more stop), never the engine's
    /// byte down under a raised flag.
    pub fn lower(&self) {
        self.set_byte(0, false);
        self.up.store(false, Ordering::SeqCst);
    }

    /// Whether the flag is up.
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::SeqCst)
    }

    /// Mirrors the preemption request ([`super::preempt`]) into the owner's engine: its second
    /// stop byte, which only the request raises and lowers.
    pub fn set_preempt(&self, up: bool) {
        self.set_byte(1, up);
    }

    /// Mirrors the flag into an engine from now on: `flags` and `kick` as `uc_stop_flags` gave
    /// them, live until [`StopFlag::detach`]. A raise made before reached only the flag: it is
    /// passed on, and so is the preemption request.
    ///
    /// # Safety
    /// `flags` addresses the engine's four stop bytes and `kick` its kick half-word, both valid
    /// until the owner calls [`StopFlag::detach`], which it must do before the engine goes.
    pub unsafe fn attach(&self, flags: *mut u8, kick: *mut u16) {
        self.kick.store(kick.cast::<AtomicU16>(), Ordering::SeqCst);
        self.engine.store(flags.cast::<AtomicU8>(), Ordering::SeqCst);
        if self.is_up() {
            self.set_byte(0, true);
        }
        if super::preempt::requested() {
            self.set_preempt(true);
        }
    }

    /// Stops mirroring the flag into the engine: before the engine goes, once no other thread
    /// raises the flag any more (the owner left the running set, `super::running::unregister`).
    pub fn detach(&self) {
        self.engine.store(std::ptr::null_mut(), Ordering::SeqCst);
        self.kick.store(std::ptr::null_mut(), Ordering::SeqCst);
    }

    /// Stores engine stop byte `i` and, to raise it, the engine's kick after it (the order
    /// `uc_stop_flags` asks for). Nothing before the engine is attached.
    fn set_byte(&self, i: usize, up: bool) {
        let e = self.engine.load(Ordering::SeqCst);
        let k = self.kick.load(Ordering::SeqCst);
        if e.is_null() || k.is_null() {
            return;
        }
        // SAFETY: a live engine's stop bytes and kick (`attach`'s contract: the owner detaches
        // them before the engine goes, after every other thread has stopped raising this flag);
        // `i` is below 4.
        unsafe {
            (*e.add(i)).store(u8::from(up), Ordering::SeqCst);
            if up {
                (*k).store(1, Ordering::SeqCst);
            }
        }
    }
}

impl Default for StopFlag {
    fn default() -> StopFlag {
        StopFlag::new()
    }
}
