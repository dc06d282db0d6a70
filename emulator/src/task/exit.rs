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

use crate::guest::Cpu;
use crate::guest::Exit;
use crate::mm::{GuestAddr, Prot};

/// `FUTEX_WAKE` (include/uapi/linux/futex.h).
const FUTEX_WAKE: i32 = 1;

/// The kernel's part of the calling thread's `exit` while other threads live on (see the
/// module doc); the caller then gives up the lock and ends the host thread.
pub fn exit_thread(cpu: &mut Cpu<'_>) {
    let t = cpu.get_data_mut();
    let ctid = t.clear_child_tid;
    if ctid != 0 && t.mm.write_u32(GuestAddr::new(ctid), 0).is_ok() {
        if let Ok(p) = t.mm.host_range(GuestAddr::new(ctid), 4, Prot::WRITE) {
            // SAFETY: the host address of a mapped guest word; a shared wake, as the kernel's
            // (glibc waits on the word without FUTEX_PRIVATE_FLAG).
            unsafe { libc::syscall(libc::SYS_futex, p, FUTEX_WAKE, 1, 0usize, 0usize, 0u32) };
        }
    }
    crate::syscall::seccomp::thread_exited();
    crate::thread::thread_ended();
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

/// What endgate prints when the guest process has ended by `exit` on the thread `cpu`: the
/// mappings under `ENDGATE_DEBUG_MAPS`, strace's closing line under `--strace`; returns the
/// one-line report of a fatal signal for [`exit_status`].
pub fn finish(cpu: &Cpu<'_>, exit: Exit) -> Option<String> {
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
