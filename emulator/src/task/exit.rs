//! The end of a guest thread, and of the process from any of its threads.
//!
//! - `exit` with other threads alive ends only the calling thread ([`exit_thread`]); with the lock
//!   still held its robust futex list is walked ([`ChildTid::of`], [`crate::syscall::robust`]: the
//!   robust mutexes it held get `FUTEX_OWNER_DIED`, as the kernel's `exit_robust_list` marks them
//!   before `mm_release`), the host thread drops its instance, then the waiters of those mutexes are
//!   woken and, as the kernel's `mm_release` does, its `CLONE_CHILD_CLEARTID` word gets 0 and a futex
//!   wake-up (what `pthread_join` waits for, [`clear_child_tid`]), and the host thread ends. The word
//!   is cleared last because a thread that `pthread_join` saw end must leave nothing behind that the
//!   guest could see: dropping the instance frees memory, and the host glibc's first heap shrink of a
//!   thread arena opens `/proc/sys/vm/overcommit_memory` (malloc/arena.c), which, done after the
//!   wake-up, took a low descriptor number while the joining thread's next `pipe` ran, so the guest's
//!   pipe got 3 and 5 instead of 3 and 4 (the `task_comm` guest test then hung, about once in 500
//!   runs under load). The launch thread (whose host thread is the process's main thread) clears its
//!   word at once and ends with the raw `exit` system call instead of returning
//!   ([`leave_launch_thread`]), so the process lives on, as natively when `main` calls
//!   `pthread_exit`. The mutexes' waiters are woken after the instance is gone for the same reason as
//!   the joiner.
//! - The last thread's `exit` ends the process with its status (as on Linux, where the status
//!   of a thread group whose threads all called `exit` is the last one's).
//! - `exit_group`, a fatal signal or an endgate failure on any thread end the process at once
//!   ([`end_process`]) with the lock held, so no other guest thread runs meanwhile; the other
//!   host threads end with the process. Every thread's robust list is walked first
//!   ([`finish`], [`crate::syscall::robust::process_ending`]), as each of the kernel's dying
//!   threads walks its own.
//! - A `fork` child has only the thread that forked ([`after_fork_child`]).

use crate::guest::Cpu;
use crate::guest::Exit;
use crate::mm::{GuestAddr, Prot};

/// `FUTEX_WAKE_OP` (include/uapi/linux/futex.h).
const FUTEX_WAKE_OP: i32 = 5;

/// The kernel's part of the calling thread's `exit` while other threads live on (see the
/// module doc), but for the `CLONE_CHILD_CLEARTID` word, which the caller clears with
/// [`clear_child_tid`] once the instance is gone; the caller then gives up the lock and ends
/// the host thread.
pub fn exit_thread() {
    crate::syscall::seccomp::thread_exited();
    crate::thread::thread_ended();
}

/// What the exiting thread leaves for [`clear_child_tid`] (found while the thread held the
/// lock): the wake-ups its robust list owes ([`crate::syscall::robust::thread_exiting`], which
/// [`ChildTid::of`] walks) and its `CLONE_CHILD_CLEARTID` word (`set_tid_address`) as a host
/// address.
pub struct ChildTid {
    /// 0: none (not set, or not mapped writable when the thread exited).
    host: usize,
    robust: crate::syscall::robust::Wakes,
}

impl ChildTid {
    /// The word of the thread `cpu` (with the lock held), after its robust list is walked: the
    /// robust futexes it held get `FUTEX_OWNER_DIED` now, before the word is cleared, as the
    /// kernel's `exit_mm_release` walks the list before `mm_release`.
    pub fn of(cpu: &mut Cpu<'_>) -> ChildTid {
        let t = cpu.get_data_mut();
        let robust = crate::syscall::robust::thread_exiting(t);
        let addr = t.clear_child_tid;
        let host =
            if addr == 0 { 0 } else { t.mm.host_range(GuestAddr::new(addr), 4, Prot::WRITE).map_or(0, |p| p as usize) };
        ChildTid { host, robust }
    }
}

/// `mm_release`'s part of a thread's exit (kernel/fork.c), after the robust list's wake-ups
/// (the waiters of the robust futexes the thread held): the `CLONE_CHILD_CLEARTID` word gets
/// 0, then a futex wake of one waiter. Needs no lock: one `FUTEX_WAKE_OP` stores the 0
/// and wakes (`FUTEX_OP_SET` of 0 on the word, one waiter woken on it, none more), and if
/// another thread unmapped or write-protected the word meanwhile it fails with `EFAULT`, which
/// is ignored, as the kernel ignores its `put_user` failing.
pub fn clear_child_tid(ctid: ChildTid) {
    ctid.robust.wake();
    if ctid.host == 0 {
        return;
    }
    /// `FUTEX_OP(FUTEX_OP_SET, 0, FUTEX_OP_CMP_EQ, 0)` (uapi linux/futex.h): every field 0.
    const SET_ZERO: u32 = 0;
    // SAFETY: the word's host address, a futex call that faults nothing in endgate (a bad
    // address is EFAULT); a shared wake, as the kernel's (glibc waits on the word without
    // FUTEX_PRIVATE_FLAG); the fourth argument is `nr_wake2`, 0.
    unsafe { libc::syscall(libc::SYS_futex, ctid.host, FUTEX_WAKE_OP, 1, 0usize, ctid.host, SET_ZERO) };
}

/// Ends the launch thread's host thread, which is the process's main thread, without ending
/// the process: the lock goes to the others, the instance is left as it is (its memory goes
/// with the process).
pub fn leave_launch_thread() -> ! {
    #[allow(clippy::disallowed_methods)] // the host thread ends here: nothing is borrowed after
    crate::thread::lock::release();
    loop {
        // SAFETY: the raw exit ends only this host thread; no Rust frame above needs unwinding.
        unsafe { libc::syscall(libc::SYS_exit, 0) };
    }
}

/// Ends the process from a thread other than the launch thread (which returns through
/// `launch` instead): the report and `--strace` line `launch` would print, then the exit
/// status or death by signal `main` would give.
pub fn end_process(cpu: &mut Cpu<'static>, exit: Exit) -> ! {
    // Like the kernel's exit_group, which kills the other threads first: none runs guest code
    // (or endgate's own work) while the process ends.
    crate::thread::running::quiesce();
    let report = finish(cpu, exit);
    let status = exit_status(exit, report);
    std::process::exit(i32::from(status))
}

/// What endgate does when the guest process has ended by `exit` on the thread `cpu` (with the
/// lock held): the robust lists of every thread walked, then what it prints: the
/// mappings under `ENDGATE_DEBUG_MAPS`, strace's closing line under `--strace`; returns the
/// one-line report of a fatal signal for [`exit_status`].
pub fn finish(cpu: &Cpu<'_>, exit: Exit) -> Option<String> {
    // Every thread ends with the process: the robust futexes they held get
    // `FUTEX_OWNER_DIED`, their waiters (in other processes too) a wake-up.
    crate::syscall::robust::process_ending(cpu.get_data());
    // -g: GDB hears how the process ended.
    crate::gdb::process_exit(exit);
    // A library tool's exit hook (`crate::api`).
    if let Some(f) = crate::guest::tool::get().and_then(|t| t.exit) {
        f(exit);
    }
    if cpu.get_data().opts.strace {
        // strace's closing line (before the `-D` file's last lines are written out).
        match exit {
            Exit::Code(c) => crate::tlog!("+++ exited with {c} +++"),
            Exit::Signal { sig, .. } => crate::tlog!("+++ killed by {sig} +++"),
            Exit::Internal => {}
        }
    }
    // `--drcov`'s file, the `-d` log's last lines.
    crate::guest::image_ending(cpu.get_data());
    if std::env::var_os("ENDGATE_DEBUG_MAPS").is_some() {
        for (start, v) in cpu.get_data().mm.vmas() {
            crate::elog!("endgate: map {start:#x}-{:#x} {:?} {:?}", v.end, v.prot, v.name);
        }
    }
    // Under --strace a signal that is no fault of the guest's own (caught only so that strace's
    // lines show it, signal/host.rs) ends the process as without --strace: with no report.
    if let Exit::Signal { sig, .. } = exit {
        if cpu.get_data().opts.strace && !crate::signal::HOST_OWN.contains(&sig) {
            return None;
        }
    }
    crate::trace::fault::report(cpu, exit)
}

/// The exit status of endgate for a guest that ended as `exit` (with `report`, from
/// [`finish`]): the guest's status; for a fatal signal the report on stderr (for a guest's
/// own fault; in a process a guest forked only for one) and death by that signal itself, so
/// that a parent's `wait` sees it (128+signal is returned only if the signal does not end the
/// process); 70 for endgate's own failures.
pub fn exit_status(exit: Exit, report: Option<String>) -> u8 {
    match exit {
        Exit::Code(c) => crate::abi::low8(c),
        Exit::Signal { sig, .. } => {
            // A guest's child dies by the signal itself, so the guest parent's wait sees it;
            // like a native process it then says nothing of a signal sent to it (a pipeline's
            // SIGPIPE), only of its own faults.
            let child = crate::syscall::fork::is_guest_child();
            if let Some(r) = report.filter(|_| !child || crate::signal::HOST_OWN.contains(&sig)) {
                crate::elog!("{r}");
            }
            // endgate itself ends by the signal, as the native process would (a shell prints
            // "Segmentation fault", a parent's wait sees WIFSIGNALED); 128+signal only if the
            // signal did not end it.
            crate::syscall::fork::die_by_signal(sig);
            crate::abi::low8(128 + sig.0)
        }
        Exit::Internal => 70,
    }
}
