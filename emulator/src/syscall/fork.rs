//! New processes: `fork`, `vfork`, and `clone`/`clone3` without `CLONE_VM`.
//!
//! A guest fork is a host `fork()` of the whole endgate process. The guest's memory, the
//! unicorn instance and its translated code are plain process memory, so the child carries on
//! with the same guest at the instruction after the system call, seeing 0; the parent sees
//! the child's pid. Guest pids are host pids.
//!
//! `vfork` and `clone(CLONE_VFORK)`, with or without `CLONE_VM`, are served as `fork` (on the
//! new stack `clone` names, if any): the parent does not wait for the child's exec or exit and
//! the two do not share memory. Programs that use `vfork` as the standard allows (the child
//! only calls `_exit` or `execve`) see no difference; glibc's `posix_spawn` (`system`,
//! `popen`) works, except that an `execve` failure in the child, which it reports through the
//! memory it shares with the parent, reaches the parent only as the child's exit status 127
//! (QEMU's user mode does the same).
//!
//! `clone` with all of `CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD` makes a thread
//! ([`crate::task::spawn`]). Other calls that would share state with a child process (`CLONE_VM`
//! without `CLONE_THREAD`, `CLONE_FILES`, `CLONE_FS`, `CLONE_SIGHAND` without a thread,
//! namespaces…) return `ENOSYS`. `clone3` makes the same children from its struct
//! (`ENOSYS` for `set_tid`, `CLONE_INTO_CGROUP` and `CLONE_CLEAR_SIGHAND`).
//!
//! A fork from a multi-threaded guest gives a child with only the calling thread, as
//! natively: the child resets the thread count and the global guest lock
//! ([`crate::thread::after_fork_child`]).

use std::sync::atomic::{AtomicBool, Ordering};

use syscalls::Errno;

use super::SysResult;
use crate::guest::{CloneArgs, Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// `CLONE_VM` (include/uapi/linux/sched.h).
pub const CLONE_VM: u64 = 0x0000_0100;
/// `CLONE_VFORK`.
pub const CLONE_VFORK: u64 = 0x0000_4000;
/// `CLONE_SETTLS`.
pub const CLONE_SETTLS: u64 = 0x0008_0000;
/// `CLONE_PARENT_SETTID`.
pub const CLONE_PARENT_SETTID: u64 = 0x0010_0000;
/// `CLONE_CHILD_CLEARTID`.
pub const CLONE_CHILD_CLEARTID: u64 = 0x0020_0000;
/// `CLONE_DETACHED` (ignored by the kernel).
pub const CLONE_DETACHED: u64 = 0x0040_0000;
/// `CLONE_UNTRACED` (ignored unless traced).
pub const CLONE_UNTRACED: u64 = 0x0080_0000;
/// `CLONE_CHILD_SETTID`.
pub const CLONE_CHILD_SETTID: u64 = 0x0100_0000;
/// `CLONE_PIDFD`: a pidfd for the child, stored where `clone`'s `parent_tid` (or
/// `clone3`'s `pidfd`) points.
pub const CLONE_PIDFD: u64 = 0x0000_1000;
/// The exit-signal byte of the flags.
pub const CSIGNAL: u64 = 0xff;

/// Flags a host fork serves exactly.
const SERVED: u64 = CSIGNAL
    | CLONE_VFORK
    | CLONE_SETTLS
    | CLONE_PARENT_SETTID
    | CLONE_CHILD_CLEARTID
    | CLONE_DETACHED
    | CLONE_UNTRACED
    | CLONE_CHILD_SETTID
    | CLONE_PIDFD;

/// Set in a process that a guest fork created (and passed on across its execs): such an
/// endgate ends by the guest's fatal signal itself, so that the guest parent's `wait` sees
/// `WIFSIGNALED`, where a top-level endgate exits with 128+signal.
static GUEST_CHILD: AtomicBool = AtomicBool::new(false);

/// `true` if this endgate was started by a guest (fork, or exec after a fork).
pub fn is_guest_child() -> bool {
    GUEST_CHILD.load(Ordering::Relaxed)
}

/// Marks this endgate as started by a guest (see [`is_guest_child`]).
pub fn set_guest_child() {
    GUEST_CHILD.store(true, Ordering::Relaxed);
}

/// `fork(void)` (fork(2)): `clone(SIGCHLD)`.
pub fn fork(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    let sigchld = (cpu.get_data().arch.info().signal_from_host)(crate::signal::Signal::SIGCHLD);
    do_fork(cpu, CloneArgs { flags: sigchld, ..Default::default() }, 0)
}

/// `vfork(void)` (vfork(2)), served as `fork` (see the module doc).
pub fn vfork(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fork(cpu, a)
}

/// `clone(flags, newsp, parent_tid, child_tid, tls)` in the arch's argument order
/// ([`crate::guest::GuestArch::clone_args`]). With `CLONE_VM` a thread
/// ([`crate::task::spawn`]); otherwise, and with `CLONE_VM | CLONE_VFORK`, a host fork
/// (the child on `newsp` if given). Errors: `ENOSYS` for processes that would share some
/// other state with the child or an exit signal the host lacks; `EINVAL` as the kernel gives
/// for contradictory flags; the host fork's errors (`EAGAIN`, `ENOMEM`).
pub fn clone(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let ca = (cpu.get_data().arch.info().clone_args)(a);
    // `clone`'s CLONE_PIDFD stores the pidfd where parent_tid points, so the two cannot
    // go together (kernel/fork.c `_do_fork`'s callers).
    if ca.flags & CLONE_PIDFD != 0 && ca.flags & CLONE_PARENT_SETTID != 0 {
        return Err(Errno::EINVAL);
    }
    start_child(cpu, ca, ca.ptid)
}

/// A thread for `CLONE_VM` without `CLONE_VFORK`, a host fork otherwise; `pidfd` is where a
/// `CLONE_PIDFD` descriptor goes.
fn start_child(cpu: &mut Cpu<'_>, ca: CloneArgs, pidfd: u64) -> SysResult {
    if ca.flags & CLONE_VM != 0 && ca.flags & CLONE_VFORK == 0 {
        return clone_thread(cpu, ca);
    }
    do_fork(cpu, ca, pidfd)
}

/// `struct clone_args` (include/uapi/linux/sched.h): eleven `__aligned_u64`s, the same on every
/// arch but for byte order. Sizes: 64 (`CLONE_ARGS_SIZE_VER0`), 80 (VER1, `set_tid`), 88
/// (VER2, `cgroup`).
const CLONE_ARGS_SIZE_VER0: u64 = 64;
const CLONE_NEWTIME: u64 = 0x80;
const CLONE_PARENT: u64 = 0x8000;
const CLONE_ARGS_SIZE_KNOWN: u64 = 88;

/// `clone3(struct clone_args *args, size_t size)` (clone(2)): the same children as `clone`,
/// from a struct: `stack` is the lowest address of the child's stack and `stack_size` its
/// length, `exit_signal` a field of its own, `pidfd` a separate destination. Errors:
/// `EINVAL` (size below 64, a stack without a size or the reverse, a bad exit signal),
/// `E2BIG` (size above a page, or unknown trailing members set), `EFAULT`; `ENOSYS` for
/// what endgate cannot give a child: `set_tid` (choosing the pid), `CLONE_INTO_CGROUP`,
/// `CLONE_CLEAR_SIGHAND`; then those of `clone`.
pub fn clone3(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let size = a.ulong(1);
    if size < CLONE_ARGS_SIZE_VER0 {
        return Err(Errno::EINVAL);
    }
    if size > crate::mm::PAGE_SIZE {
        return Err(Errno::E2BIG);
    }
    let mm = &cpu.get_data().mm;
    let raw = mm.read_vec(a.ptr(0), crate::abi::u64_to_usize(size))?;
    if raw.iter().skip(crate::abi::u64_to_usize(CLONE_ARGS_SIZE_KNOWN)).any(|&b| b != 0) {
        return Err(Errno::E2BIG);
    }
    let model = mm.model();
    let field = |i: usize| -> u64 {
        raw.get(i * 8..i * 8 + 8).map_or(0, |b| {
            let b: [u8; 8] = b.try_into().expect("8 bytes");
            if model.endian == crate::mm::Endian::Big {
                u64::from_be_bytes(b)
            } else {
                u64::from_le_bytes(b)
            }
        })
    };
    let (flags, pidfd, child_tid, parent_tid, exit_signal) = (field(0), field(1), field(2), field(3), field(4));
    let (stack, stack_size, tls, set_tid_size, cgroup_flags) = (field(5), field(6), field(7), field(9), flags >> 32);
    // kernel/fork.c `clone3_args_valid`: clone3 keeps the CSIGNAL bits (but CLONE_NEWTIME) and
    // CLONE_DETACHED for other uses; a thread or sibling has no exit signal.
    let no_exit_signal = flags & (CLONE_THREAD | CLONE_PARENT) != 0 && exit_signal != 0;
    if exit_signal & !CSIGNAL != 0
        || flags & ((CSIGNAL & !CLONE_NEWTIME) | CLONE_DETACHED) != 0
        || no_exit_signal
        || (stack == 0) != (stack_size == 0)
    {
        return Err(Errno::EINVAL);
    }
    if set_tid_size != 0 || cgroup_flags != 0 {
        return Err(Errno::ENOSYS);
    }
    let ca = CloneArgs {
        flags: flags | exit_signal,
        newsp: if stack_size != 0 { stack.wrapping_add(stack_size) } else { 0 },
        ptid: parent_tid,
        ctid: child_tid,
        tls,
    };
    start_child(cpu, ca, pidfd)
}

fn do_fork(cpu: &mut Cpu<'_>, ca: CloneArgs, pidfd_at: u64) -> SysResult {
    let arch = cpu.get_data().arch;
    // The kernel's own consistency checks (kernel/fork.c copy_process) come first.
    if ca.flags & CLONE_VM == 0 && ca.flags & 0x0001_0000 != 0 {
        // CLONE_THREAD needs CLONE_SIGHAND, which needs CLONE_VM.
        return Err(Errno::EINVAL);
    }
    // `CLONE_VM | CLONE_VFORK` (glibc's posix_spawn, hence system and popen) is served as a
    // fork onto the new stack, as QEMU does: the child's memory is a copy (see the module doc).
    let shared_vm = if ca.flags & CLONE_VFORK != 0 { CLONE_VM } else { 0 };
    if ca.flags & !(SERVED | shared_vm) != 0 {
        return Err(Errno::ENOSYS);
    }
    let exit_sig = match ca.flags & CSIGNAL {
        0 => 0,
        s => (arch.info().signal_to_host)(s).ok_or(Errno::EINVAL)?.as_c_int(),
    };
    // No other guest thread runs guest code or endgate's work across the fork (QEMU's
    // `fork_start` does the same): each waits for the global lock or sits in a host call.
    crate::thread::running::quiesce();
    // The AIO poll helper thread must not hold the contexts' lock across the fork.
    let aio_guard = super::aio::fork_guard();
    // The child must not write the parent's buffered `-d` lines again.
    crate::log::flush_debug();
    // Two processes to trace from now on: `--strace` lines say whose they are.
    crate::log::trace_pids();
    if let Some(h) = FORK_HOOKS.get() {
        (h.before)();
    }
    let pid = if exit_sig == libc::SIGCHLD {
        // SAFETY: the other host threads hold no lock the child needs: guest threads wait for
        // the global guest lock (held here) or sit in host calls, the preemption timer only
        // sleeps and sets a flag, and glibc's fork takes its own locks (malloc) across the fork.
        unsafe { libc::fork() }
    } else {
        // Another exit signal (or none): the raw call, which glibc's fork cannot pass.
        // SAFETY: clone without CLONE_VM and without a new host stack behaves like fork.
        crate::abi::int32(unsafe {
            libc::syscall(libc::SYS_clone, crate::abi::bits64(exit_sig), 0u64, 0u64, 0u64, 0u64)
        })
    };
    drop(aio_guard);
    if pid < 0 {
        return Err(Errno::last());
    }
    let t = cpu.get_data_mut();
    if pid == 0 {
        after_fork_child();
        set_guest_child();
        // MADV_DONTFORK ranges are not the child's.
        t.mm.drop_dontfork();
        // SAFETY: no arguments.
        let tid = unsafe { libc::gettid() };
        // The kernel ignores a failed write of the tid words.
        if ca.flags & CLONE_CHILD_SETTID != 0 {
            let _ = t.mm.write_i32(GuestAddr::new(ca.ctid), tid);
        }
        if ca.flags & CLONE_CHILD_CLEARTID != 0 {
            t.clear_child_tid = ca.ctid;
        }
        // No robust list (the kernel's `copy_process`): the child's C library sets its own.
        t.robust_list = (0, 0);
        // A new process starts with no pending signals (signal(7)).
        t.sig.pending = 0;
        t.sig.queue.clear();
        let _ = crate::signal::host::take_recorded();
        if ca.flags & CLONE_SETTLS != 0 {
            arch.set_tls(cpu, ca.tls)?;
        }
        if ca.newsp != 0 {
            arch.set_stack_pointer(cpu, ca.newsp).map_err(|_| Errno::EINVAL)?;
        }
        if let Some(h) = FORK_HOOKS.get() {
            (h.child)(cpu);
        }
        return Ok(0);
    }
    if ca.flags & CLONE_PIDFD != 0 {
        // The child's pidfd (close-on-exec, as the kernel makes it): it cannot have been
        // reaped yet, since only this process can wait for it.
        // SAFETY: integer arguments.
        let fd = crate::abi::int32(unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) });
        if fd < 0 || t.mm.write_i32(crate::mm::GuestAddr::new(pidfd_at), fd).is_err() {
            let e = if fd < 0 { Errno::last() } else { Errno::EFAULT };
            // As the kernel fails the whole clone: the child goes again.
            // SAFETY: our own child; reaping it.
            unsafe {
                if fd >= 0 {
                    libc::close(fd);
                }
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), libc::__WALL);
            }
            return Err(e);
        }
    }
    if ca.flags & CLONE_PARENT_SETTID != 0 {
        let _ = t.mm.write_i32(GuestAddr::new(ca.ptid), pid);
    }
    if let Some(h) = FORK_HOOKS.get() {
        (h.parent)(cpu, pid);
    }
    Ok(crate::abi::bits64(pid))
}

/// In a process just forked from one running a guest (a guest `fork`, or the `syscall_live`
/// fuzz target's fork server, `crate::fuzz`): forgets what was the parent's alone — its other
/// threads and the robust-futex wake-ups they owe, its seccomp thread records, its cached ids,
/// its AIO helper.
pub fn after_fork_child() {
    crate::guest::process_forked();
    crate::thread::after_fork_child();
    crate::syscall::robust::after_fork_child();
    super::seccomp::after_fork_child();
    super::process::forget_ids();
    super::aio::forget_after_fork();
}

/// Ends this process by `sig` itself (its default action, after unblocking it), so that its
/// parent's `wait` sees the death by signal; returns only if the signal did not end it.
///
/// The signal goes to the calling thread (`tgkill`), which has it unblocked and takes it on
/// its way out of the system call. Sent to the process (`kill`), a signal whose default action
/// dumps core (SIGSEGV, SIGILL, SIGTRAP…) may be given to another thread, usually the leader
/// (kernel/signal.c `complete_signal` takes its quick group kill only for signals that do not
/// dump core), while this one returned and the caller's `exit(128 + signal)` won: a guest
/// thread's fault then ended the process with status 139 instead of SIGSEGV, in about one run
/// in six on a loaded machine.
pub fn die_by_signal(sig: crate::signal::Signal) {
    // SAFETY: resetting one disposition, unblocking it and sending it to ourselves.
    unsafe {
        libc::signal(sig.as_c_int(), libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig.as_c_int());
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        // A core dump would hold endgate's memory, not the guest's: none is written (as
        // QEMU's user mode, which writes its own guest core instead).
        let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::syscall(libc::SYS_tgkill, libc::getpid(), crate::thread::gettid(), sig.as_c_int());
    }
}

/// `CLONE_FS` (include/uapi/linux/sched.h).
pub const CLONE_FS: u64 = 0x0000_0200;
/// `CLONE_FILES`.
pub const CLONE_FILES: u64 = 0x0000_0400;
/// `CLONE_SIGHAND`.
pub const CLONE_SIGHAND: u64 = 0x0000_0800;
/// `CLONE_THREAD`.
pub const CLONE_THREAD: u64 = 0x0001_0000;
/// `CLONE_SYSVSEM` (System V semaphore undo lists are the host's, shared by host threads).
pub const CLONE_SYSVSEM: u64 = 0x0004_0000;
/// `CLONE_IO` (I/O context; no effect here).
pub const CLONE_IO: u64 = 0x8000_0000;

/// What a thread shares with its creator: all of it must be asked for (a host thread cannot
/// have its own file table or working directory).
const THREAD: u64 = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD;
/// Flags a thread clone may add.
const OPTIONAL: u64 = CSIGNAL
    | CLONE_SYSVSEM
    | CLONE_SETTLS
    | CLONE_PARENT_SETTID
    | CLONE_CHILD_SETTID
    | CLONE_CHILD_CLEARTID
    | CLONE_DETACHED
    | CLONE_UNTRACED
    | CLONE_IO;

/// The `clone` handler's part for `CLONE_VM` (called inside the syscall hook): checks the flags
/// as the kernel's `copy_process` does and records the request; the run loop makes the thread
/// and writes the result. Errors: `EINVAL` (`CLONE_SIGHAND` without `CLONE_VM`, `CLONE_THREAD`
/// without `CLONE_SIGHAND`), `ENOSYS` for what a host thread cannot be: a process sharing
/// memory without being a thread (`CLONE_VM` without `CLONE_THREAD`, `vfork` with `CLONE_VM`),
/// a thread with its own files or filesystem context, namespaces, pidfds.
fn clone_thread(cpu: &mut Cpu<'_>, ca: CloneArgs) -> SysResult {
    let f = ca.flags;
    if (f & CLONE_THREAD != 0 && f & CLONE_SIGHAND == 0) || (f & CLONE_SIGHAND != 0 && f & CLONE_VM == 0) {
        return Err(Errno::EINVAL);
    }
    if f & THREAD != THREAD || f & !(THREAD | OPTIONAL) != 0 || f & CLONE_VFORK != 0 {
        return Err(Errno::ENOSYS);
    }
    cpu.get_data_mut().pending_op =
        Some(crate::guest::PendingOp::Clone(Box::new(crate::guest::CloneRequest { args: ca, trace: None })));
    Ok(0)
}

/// What a guest fork calls besides its work: `crate::gdb`'s, registered from above this
/// layer ([`set_fork_hooks`]) when GDB attaches.
#[derive(Clone, Copy)]
pub struct ForkHooks {
    /// Just before the host fork (the caller holds the guest lock; no other guest thread runs).
    pub before: fn(),
    /// In the parent, once the child exists, with its pid, before the call returns.
    pub parent: fn(&mut Cpu<'_>, i32),
    /// In the child once it is set up, before it returns to the guest.
    pub child: fn(&mut Cpu<'_>),
}
static FORK_HOOKS: std::sync::OnceLock<ForkHooks> = std::sync::OnceLock::new();

/// Registers the fork hooks (the first registration stays).
pub fn set_fork_hooks(h: ForkHooks) {
    let _ = FORK_HOOKS.set(h);
}
