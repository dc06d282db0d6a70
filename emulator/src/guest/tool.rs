//! The entries a tool built on endgate's library API (`crate::api`) registers: plain function
//! pointers the layers below call up through, as `-g`'s catch stop is called
//! (`crate::syscall::set_catch_stop`).
//!
//! Nothing is registered by the `endgate` command. Each place that could call a tool reads
//! [`get`] once (one load of a `OnceLock`'s state and a branch the CPU predicts: nothing is
//! ever registered); no allocation, lock or indirect call is made unless a tool registered
//! something.

use std::sync::OnceLock;

use unicorn_engine::uc_error;

use super::{Cpu, Exit, SyscallArgs};
use crate::signal::SigInfo;

/// Adds a tool's hooks to a new engine instance ([`Tool::instance`]).
pub type InstanceHooks = fn(&mut Cpu<'static>) -> Result<(), uc_error>;

/// What a tool registered; each entry is optional.
#[derive(Clone, Copy, Default)]
pub struct Tool {
    /// At a system call's entry, with all six arguments read (the tool may change them):
    /// `Some(ret)` serves the call with `ret` (a value, or `-errno` as two's complement)
    /// without running its handler.
    pub syscall_entry: Option<fn(&mut Cpu<'_>, &mut SyscallArgs) -> Option<u64>>,
    /// At a system call's return, before the result register is written: returns the result
    /// the guest sees. Not called for calls that do not return (`exit`, `exit_group`,
    /// `execve` that succeeded, `rt_sigreturn`) nor for a thread `clone`.
    pub syscall_exit: Option<fn(&mut Cpu<'_>, &SyscallArgs, u64) -> u64>,
    /// Before a signal is delivered to the guest (a handler runs, or its default action
    /// acts); `true` for a fault the guest's own instruction raised. `false` drops the
    /// signal (a dropped fault runs its instruction again unless the tool moved the PC).
    pub signal: Option<fn(&mut Cpu<'_>, &SigInfo, bool) -> bool>,
    /// Adds the tool's per-instance hooks (blocks, memory accesses) to each new engine
    /// instance: the first thread's and each new guest thread's.
    pub instance: Option<InstanceHooks>,
    /// The guest process ended (any thread's `exit_group`, the last `exit`, a fatal signal),
    /// in this process or a forked one.
    pub exit: Option<fn(Exit)>,
}

static TOOL: OnceLock<Tool> = OnceLock::new();

/// Registers the tool's entries; `false` if some were registered already (the first stay).
pub fn set(tool: Tool) -> bool {
    TOOL.set(tool).is_ok()
}

/// The registered entries, `None` when no tool registered any (the `endgate` command).
#[inline(always)]
pub fn get() -> Option<&'static Tool> {
    TOOL.get()
}
