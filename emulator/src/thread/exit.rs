//! The end of a guest thread, and of the process from any of its threads.
//!
//! - `exit` with other threads alive ends only the calling thread ([`exit_thread`]): as the
//!   kernel's `mm_release` does, a `CLONE_CHILD_CLEARTID` word gets 0 and a futex wake-up (what
//!   `pthread_join` waits for); then the host thread drops its instance and ends. The launch
//!   thread (whose host thread is the process's main thread) ends with the raw `exit` system
//!   call instead of returning ([`leave_launch_thread`]), so the process lives on, as natively
//!   when `main` calls `pthread_exit`. Robust futex lists (`set_robust_list`) are recorded but
//!   not walked at exit: a thread that dies holding a robust mutex leaves it locked without
//!   `FUTEX_OWNER_DIED`.
//! - The last thread's `exit` ends the process with its status (as on Linux, where the status
//!   of a thread group whose threads all called `exit` is the last one's).
//! - `exit_group`, a fatal signal or an endgate failure on any thread end the process at once
//!   ([`end_process`]) with the lock held, so no other guest thread runs meanwhile; the other
//!   host threads end with the process.
//! - A `fork` child has only the thread that forked ([`after_fork_child`]).

use crate::arch::Cpu;
use crate::mm::Prot;
use crate::task::Exit;

/// `FUTEX_WAKE` (include/uapi/linux/futex.h).
const FUTEX_WAKE: i32 = 1;

/// The kernel's part of the calling thread's `exit` while other threads live on (see the
/// module doc); the caller then gives up the lock and ends the host thread.
pub fn exit_thread(cpu: &mut Cpu<'_>) {
    let t = cpu.get_data_mut();
    let ctid = t.clear_child_tid;
    if ctid != 0 && t.mm.write_u32(ctid, 0).is_ok() {
        if let Ok(p) = t.mm.host_range(ctid, 4, Prot::WRITE) {
            // SAFETY: the host address of a mapped guest word; a shared wake, as the kernel's
            // (glibc waits on the word without FUTEX_PRIVATE_FLAG).
            unsafe { libc::syscall(libc::SYS_futex, p, FUTEX_WAKE, 1, 0usize, 0usize, 0u32) };
        }
    }
    super::thread_ended();
}

/// Ends the launch thread's host thread, which is the process's main thread, without ending
/// the process: the lock goes to the others, the instance is left as it is (its memory goes
/// with the process).
pub fn leave_launch_thread() -> ! {
    super::lock::release();
    loop {
        // SAFETY: the raw exit ends only this host thread; no Rust frame above needs unwinding.
        unsafe { libc::syscall(libc::SYS_exit, 0) };
    }
}

/// Ends the process from a thread other than the launch thread (which returns through
/// `launch` instead): the report and `--strace` line `launch` would print, then the exit
/// status or death by signal `main` would give.
pub fn end_process(cpu: &mut Cpu<'static>, exit: Exit) -> ! {
    let report = crate::finish(cpu, exit);
    let status = crate::exit_status(exit, report);
    std::process::exit(i32::from(status))
}

/// In the child of a `fork`: one guest thread, holding the lock.
pub fn after_fork_child() {
    super::reset_live();
    super::lock::reset_after_fork();
    super::preempt::after_fork_child();
}
