//! Preemption points: how the thread holding the global guest lock is made to give way.
//!
//! # Why not `uc_emu_stop` from another thread
//! Unicorn 2.1.5 checks for a stop request at the start of every translated block *and after
//! every guest memory access* (`check_exit_request` in `tcg_gen_qemu_ld/st_*`, tcg/tcg-op.c).
//! A stop noticed after an access leaves the program counter on the instruction that made it
//! (`cpu_loop_exit_restore`), although that instruction may already have written its
//! destination register; resuming there runs it again. For a load whose destination is also
//! its base register (s390x's PLT stubs do `lg %r1,0(%r1)`; `ldr x0,[x0]` on aarch64), the
//! second run loads through the loaded value. An asynchronous `uc_emu_stop` lands at such a
//! point sooner or later (a test loop on s390x died within seconds).
//!
//! # What endgate does
//! Once a process has more than one guest thread, every instance gets a block hook
//! ([`install`]) that looks at one flag; the watchdog sets the flag ([`request`]) when another
//! thread has waited for the lock a whole tick. The hook, running at the start of a block
//! before any of its instructions, takes the flag and calls `uc_emu_stop` on its own
//! instance; the stop check that follows the hook in the same block then ends the run with the
//! program counter on that block's first instruction, nothing of it executed. The run loop
//! sees the lock contended and gives way. Only the lock holder runs guest code, so one flag
//! serves every thread. The signal host handler and the watchdog stop instances the same way
//! once the hooks are in place ([`active`]). Single-threaded guests have no hook and pay
//! nothing (their signal stops stay asynchronous).
//!
//! The hook's cost is a helper call per executed block: measured on a loop of short
//! `memset`/`memcpy` calls, +23% run time on aarch64 and +60% on x86_64.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use unicorn_engine::unicorn_const::{uc_emu_stop, uc_engine, uc_error, uc_hook_add, HookType};

use crate::arch::Cpu;

/// Set by the watchdog: the lock holder is to stop at its next block.
static REQUESTED: AtomicBool = AtomicBool::new(false);
/// Set once the process has had threads: every instance then has the block hook.
static ACTIVE: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The calling thread's instance has the block hook.
    static INSTALLED: Cell<bool> = const { Cell::new(false) };
}

/// The block hook (C ABI, called by unicorn at the start of every block; must not unwind).
extern "C" fn at_block(uc: *mut uc_engine, _addr: u64, _size: u32, _user: *mut std::ffi::c_void) {
    if REQUESTED.load(Ordering::Relaxed) && REQUESTED.swap(false, Ordering::Relaxed) {
        // SAFETY: the instance running this hook; uc_emu_stop only sets flags.
        unsafe { uc_emu_stop(uc) };
    }
}

/// Gives the calling thread's instance `cpu` the block hook, once; its translated code so far
/// (made without the hook) is dropped. Errors: the engine's.
pub fn install(cpu: &mut Cpu<'_>) -> Result<(), uc_error> {
    if INSTALLED.with(Cell::get) {
        return Ok(());
    }
    let mut id = 0;
    // SAFETY: a live handle; a UC_HOOK_BLOCK callback with the signature unicorn calls
    // (`uc_cb_hookcode_t`), no user data, every address (begin > end).
    let r = unsafe {
        uc_hook_add(
            cpu.get_handle(),
            &mut id,
            HookType::BLOCK.0 as i32,
            at_block as *mut std::ffi::c_void,
            std::ptr::null_mut(),
            1u64,
            0u64,
        )
    };
    if r != uc_error::OK {
        return Err(r);
    }
    cpu.ctl_flush_tb()?;
    INSTALLED.with(|c| c.set(true));
    ACTIVE.store(true, Ordering::Relaxed);
    Ok(())
}

/// `true` once every instance of the process has the block hook (it has had threads), so that
/// [`request`] is the safe way to stop the running one.
#[inline]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Asks the thread running guest code (the lock holder) to stop at its next block: for the
/// watchdog's preemption, and for signals once [`active`] (async-signal-safe).
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// The watchdog's tick: requests preemption when another thread waits for the lock and it has
/// not changed hands since the previous tick (so every holder gets at least one whole tick).
pub fn tick() {
    if super::lock::held_since_last_tick() {
        request();
    }
}
