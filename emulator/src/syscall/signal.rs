//! Signal dispositions and masks: `rt_sigaction`, `rt_sigprocmask`, `rt_sigpending`,
//! `rt_sigtimedwait`, `rt_sigsuspend`, `sigaltstack`, `rt_sigreturn`/`sigreturn`.
//!
//! The guest's dispositions and mask are also the host's ([`crate::signal::host`]), so the
//! kernel ignores, holds pending, routes and kills as it would natively; handlers run through
//! [`crate::task::deliver`].

use syscalls::Errno;

use super::SysResult;
use crate::abi::nr::Sys;
use crate::abi::shapes::{KernelSigaction, SIGACTION, SIGACTION_NO_RESTORER, TIMESPEC, TIMESPEC64};
use crate::abi::thunk::Plain;
use crate::guest::sigframe::{read_siginfo_rt, read_stack_t, write_stack_t};
use crate::guest::sigframe::{write_siginfo, SIGINFO_SIZE};
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::GuestAddr;
use crate::signal::{AltStack, SigAction, SigInfo, Signal, SS_DISABLE, SS_ONSTACK};

/// `rt_sigaction(int sig, const struct sigaction *act, struct sigaction *oact, size_t
/// sigsetsize)`. The guest struct is `{handler, flags, restorer, mask}` ([`SIGACTION`], the
/// kernel's `struct sigaction` on the asm-generic arches, x86 and s390). As in the kernel,
/// `act` is read first and `oact` written after the change. Errors: `EINVAL` (bad signal,
/// changing SIGKILL/SIGSTOP, wrong sigsetsize), `EFAULT`.
pub fn rt_sigaction(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (act, oact) = (a.ptr(1), a.ptr(2));
    let t = cpu.get_data_mut();
    if a.raw(3) != t.arch.info().sigset_size {
        return Err(Errno::EINVAL);
    }
    let new = if act.is_null() { None } else { Some(read_sigaction(t, act)?) };
    let old = do_sigaction(t, a.raw(0), new)?;
    if !oact.is_null() {
        write_sigaction(t, oact, &old)?;
    }
    Ok(0)
}

/// Changes the disposition of guest signal `sig` to `new` (if any) and returns the one it had:
/// the kernel's `do_sigaction` (kernel/signal.c), shared by `rt_sigaction` and the old
/// `sigaction` and `signal` calls. `new.mask` is host-numbered; SIGKILL and SIGSTOP leave it,
/// as the kernel never lets a handler block them. A guest signal the host has no number for
/// (MIPS `SIGEMT`, signals 65-127) is recorded and read back only
/// ([`crate::signal::SigState::guest_only`]). Errors: `EINVAL` (no such signal, or a new
/// disposition for SIGKILL or SIGSTOP).
pub(crate) fn do_sigaction(t: &mut Task, sig: u64, new: Option<SigAction>) -> Result<SigAction, Errno> {
    let arch = t.arch;
    let new = new.map(|n| SigAction { mask: n.mask & !UNBLOCKABLE, ..n });
    let Some(s) = (arch.info().signal_to_host)(sig) else {
        if !(1..=arch.info().nsig).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        let old = t.sig.guest_only.iter().find(|(n, _)| *n == sig).map(|(_, a)| *a).unwrap_or_default();
        if let Some(n) = new {
            t.sig.guest_only.retain(|(g, _)| *g != sig);
            t.sig.guest_only.push((sig, n));
        }
        return Ok(old);
    };
    if new.is_some() && (s == Signal::SIGKILL || s == Signal::SIGSTOP) {
        return Err(Errno::EINVAL);
    }
    let idx = (s.0 - 1) as usize;
    let old = t.sig.actions[idx];
    if let Some(n) = new {
        t.sig.actions[idx] = n;
        let nocld = if s == Signal::SIGCHLD { (arch.info().sa_nocld_to_host)(n.flags) } else { 0 };
        // The first guest handler makes the run loop install the stop flags that let
        // signals stop this thread; the dispatcher stops the engine for it.
        crate::signal::host::set_disposition_with(s, n.handler, nocld);
    }
    Ok(old)
}

const SIG_BLOCK: u64 = 0;
const SIG_UNBLOCK: u64 = 1;
const SIG_SETMASK: u64 = 2;

/// Signals that can never be blocked: SIGKILL and SIGSTOP.
const UNBLOCKABLE: u64 = (1 << 8) | (1 << 18);

/// Reads a guest `struct sigaction` ([`SIGACTION`], or [`SIGACTION_NO_RESTORER`] on arches
/// without `SA_RESTORER`, or the arch's own), the mask host-numbered.
fn read_sigaction(t: &Task, addr: GuestAddr) -> Result<SigAction, Errno> {
    if let Some(r) = (t.arch.info().read_sigaction)(&t.mm, addr) {
        return r;
    }
    if t.arch.info().has_sa_restorer {
        let k: KernelSigaction = t.mm.read_shape(addr, SIGACTION)?;
        Ok(SigAction { handler: k.handler, flags: k.flags, restorer: k.restorer, mask: k.mask })
    } else {
        let [handler, flags, mask]: [u64; 3] = t.mm.read_shape(addr, SIGACTION_NO_RESTORER)?;
        Ok(SigAction { handler, flags, restorer: 0, mask })
    }
}

fn write_sigaction(t: &mut Task, addr: GuestAddr, s: &SigAction) -> Result<(), Errno> {
    if let Some(r) = (t.arch.info().write_sigaction)(&mut t.mm, addr, s) {
        return r;
    }
    if t.arch.info().has_sa_restorer {
        let k = KernelSigaction { handler: s.handler, flags: s.flags, restorer: s.restorer, mask: s.mask };
        t.mm.write_shape(addr, SIGACTION, &k)
    } else {
        t.mm.write_shape(addr, SIGACTION_NO_RESTORER, &[s.handler, s.flags, s.mask])
    }
}

/// `rt_sigprocmask(int how, const sigset_t *set, sigset_t *oset, size_t sigsetsize)`.
/// Errors: `EINVAL` (bad `how`, wrong sigsetsize), `EFAULT`.
pub fn rt_sigprocmask(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (set, oset) = (a.raw(1), a.raw(2));
    let t = cpu.get_data_mut();
    let arch = t.arch;
    let how = (arch.info().sigmask_how_to_generic)(a.raw(0));
    if a.raw(3) != arch.info().sigset_size {
        return Err(Errno::EINVAL);
    }
    let old = t.sig.mask;
    let new = if set != 0 {
        let v = arch.read_sigset(&t.mm, GuestAddr::new(set))?;
        Some(match how {
            SIG_BLOCK => old | v,
            SIG_UNBLOCK => old & !v,
            SIG_SETMASK => v,
            _ => return Err(Errno::EINVAL),
        })
    } else {
        None
    };
    if oset != 0 {
        arch.write_sigset(&mut t.mm, GuestAddr::new(oset), old)?;
    }
    if let Some(n) = new {
        // Signals pending while blocked are delivered once emulation stops after this call.
        set_blocked(t, n & !UNBLOCKABLE)?;
    }
    Ok(0)
}

/// Makes `new` (host-numbered, without SIGKILL and SIGSTOP) the thread's blocked mask, on the
/// host too, for the calls that set it (`rt_sigprocmask`, `sigprocmask`, `ssetmask`).
///
/// The host kernel sends a signal meant for the whole process (`kill`, a timer) to one thread
/// that does not block it, and endgate's host handler records it for that thread, which
/// delivers it at its next stop. If the thread blocks the signal before that (the signal
/// arrived during this call, or in the guest code just before its trap), it would stay
/// pending on this thread while another thread that takes it waits, maybe for ever. Linux
/// hands such a signal to another thread (`retarget_shared_pending`, kernel/signal.c). Here,
/// as QEMU's `do_sigprocmask` does, the change is undone when signals were recorded for the
/// thread before it took effect: the call returns `ERESTARTNOINTR`, the signals are delivered
/// as if they had arrived before the call, and the call runs again afterwards. Only a change
/// that blocks more is undone (one that unblocks lets the recorded signals through anyway).
pub(crate) fn set_blocked(t: &mut Task, new: u64) -> Result<(), Errno> {
    let old = t.sig.mask;
    crate::signal::host::set_mask(new);
    // After the host mask changed, nothing the new mask blocks can be recorded any more: a
    // signal recorded now arrived before the change, or is one the new mask lets through.
    if new & !old != 0 && crate::signal::host::has_recorded() {
        crate::signal::host::set_mask(old);
        return Err(Errno::ERESTARTNOINTR);
    }
    t.sig.mask = new;
    Ok(())
}

/// `rt_sigsuspend(const sigset_t *mask, size_t sigsetsize)`: waits with `mask` blocked until a
/// signal runs a handler (or ends the process); always fails with `EINTR`, the handler's frame
/// saving the mask from before the call. Errors: `EINVAL` (sigsetsize), `EFAULT`, `EINTR`.
pub fn rt_sigsuspend(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    if a.raw(1) != t.arch.info().sigset_size {
        return Err(Errno::EINVAL);
    }
    let new = t.arch.read_sigset(&t.mm, a.ptr(0))?;
    suspend_with(t, new)
}

/// Waits with the host-numbered mask `new` (less SIGKILL and SIGSTOP) in place of the thread's
/// until a signal runs a handler or ends the process: the kernel's `sigsuspend`, for
/// `rt_sigsuspend` and the old `sigsuspend`. Always `EINTR`; the handler's frame saves the
/// mask from before the call, which comes back when it returns.
pub(crate) fn suspend_with(t: &mut Task, new: u64) -> SysResult {
    let new = new & !UNBLOCKABLE;
    let old = t.sig.mask;
    t.sig.mask = new;
    t.sig.saved_mask = Some(old);
    // A signal already pending for the thread and not blocked by `new` ends the wait at once.
    if t.sig.pending & !new == 0 {
        t.blocking(move || {
            while !crate::signal::host::has_recorded() {
                crate::signal::host::suspend(new);
            }
        });
    }
    crate::signal::host::set_mask(new);
    Err(Errno::EINTR)
}

/// A call's temporary signal mask (`ppoll`, `pselect6`, `epoll_pwait`, `epoll_pwait2`): the
/// mask the guest passed at `addr` replaces its own while the call waits, so a signal it
/// unblocks ends the wait with `EINTR` and its handler runs, after which the old mask is back
/// (the handler's frame carries it, as `rt_sigsuspend`'s does). `None` when `addr` is NULL.
/// Errors: `EINVAL` if `size` is not the arch's `sigset_t` size, `EFAULT`.
pub(crate) fn set_temp_mask(t: &mut crate::guest::Task, addr: GuestAddr, size: u64) -> Result<Option<u64>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    if size != t.arch.info().sigset_size {
        return Err(Errno::EINVAL);
    }
    let new = t.arch.read_sigset(&t.mm, addr)? & !UNBLOCKABLE;
    let old = t.sig.mask;
    t.sig.mask = new;
    crate::signal::host::set_mask(new);
    Ok(Some(old))
}

/// `true` if a signal the guest raised itself is pending and not blocked: a wait under a
/// temporary mask then ends at once with `EINTR`.
pub(crate) fn guest_signal_due(t: &crate::guest::Task) -> bool {
    t.sig.pending & !t.sig.mask != 0
}

/// Ends a temporary mask after the call (`r` its result): on `EINTR` delivery puts the old
/// mask back once the handler's frame is built; otherwise it is put back now.
pub(crate) fn end_temp_mask(t: &mut crate::guest::Task, old: Option<u64>, r: &SysResult) {
    let Some(old) = old else { return };
    if *r == Err(Errno::EINTR) {
        t.sig.saved_mask = Some(old);
    } else {
        t.sig.mask = old;
        crate::signal::host::set_mask(old);
    }
}

/// `rt_sigreturn(void)`: returns from a handler; the run loop restores the registers, mask and
/// alternate stack from the frame at the stack pointer (the arch's
/// [`crate::guest::GuestArch::restore_frame`]). The guest's return register gets its saved value.
pub fn rt_sigreturn(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    cpu.get_data_mut().pending_op = Some(crate::guest::PendingOp::SigReturn { rt: true, trace: None });
    Ok(0)
}

/// `restart_syscall(void)`: continues the call a signal interrupted, from the restart block
/// the kernel left for it. endgate re-executes interrupted calls itself (it never rewrites one
/// into `restart_syscall`), so no block is ever pending and the answer is the kernel's
/// `do_no_restart_syscall`: `EINTR`.
pub fn restart_syscall(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    Err(Errno::EINTR)
}

/// `sigreturn(void)` of the arches with an old, non-rt signal frame (arm, i386, s390x): as
/// [`rt_sigreturn`] for a frame built without `SA_SIGINFO`.
pub fn sigreturn(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    cpu.get_data_mut().pending_op = Some(crate::guest::PendingOp::SigReturn { rt: false, trace: None });
    Ok(0)
}

/// `rt_sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout,
/// size_t sigsetsize)` (sigtimedwait(2)): takes a signal the guest raised while blocking it,
/// else waits on the host for an external one (the host mask follows the guest's). Errors:
/// `EINVAL`, `EFAULT`, `EAGAIN` on timeout, `EINTR`.
pub fn rt_sigtimedwait(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    sigtimedwait_with(cpu, a, TIMESPEC)
}

/// `rt_sigtimedwait_time64` of ILP32 guests: the timeout is a `struct __kernel_timespec`.
pub fn rt_sigtimedwait_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    sigtimedwait_with(cpu, a, TIMESPEC64)
}

fn sigtimedwait_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &crate::abi::thunk::Shape) -> SysResult {
    cpu.get_data_mut().sig.take_recorded();
    let t = cpu.get_data_mut();
    let arch = t.arch;
    if a.raw(3) != arch.info().sigset_size {
        return Err(Errno::EINVAL);
    }
    let set = arch.read_sigset(&t.mm, a.ptr(0))? & !UNBLOCKABLE;
    let ready = t.sig.pending & set;
    if ready != 0 {
        let s = Signal(ready.trailing_zeros() + 1);
        let info = t.sig.dequeue(s);
        if a.raw(1) != 0 {
            write_siginfo(&mut t.mm, arch, a.ptr(1), &info)?;
        }
        return Ok((arch.info().signal_from_host)(s));
    }
    let ts: Option<libc::timespec> = if a.raw(2) == 0 { None } else { Some(t.mm.read_shape(a.ptr(2), ts_shape)?) };
    if a.raw(1) != 0 {
        t.mm.check_writable(a.ptr(1), SIGINFO_SIZE)?;
    }
    let mut info = libc::siginfo_t::zeroed();
    let hs: u64 = set;
    let tsp = ts.as_ref().map_or(std::ptr::null(), |v| v as *const libc::timespec);
    let n = super::host_ret(super::blocking_syscall(
        t,
        libc::SYS_rt_sigtimedwait,
        &[&hs as *const u64 as u64, &mut info as *mut libc::siginfo_t as u64, tsp as u64, 8],
    ))?;
    if a.raw(1) != 0 {
        write_siginfo(&mut t.mm, arch, a.ptr(1), &SigInfo::from_host(&info))?;
    }
    Ok((arch.info().signal_from_host)(Signal(crate::abi::low32(n))))
}

/// `rt_sigpending(sigset_t *set, size_t sigsetsize)`.
pub fn rt_sigpending(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.raw(1) > cpu.get_data().arch.info().sigset_size {
        return Err(Errno::EINVAL);
    }
    let v = pending_set(cpu.get_data_mut());
    let t = cpu.get_data_mut();
    if a.raw(1) == 4 {
        t.mm.write_u32(a.ptr(0), crate::abi::low32(v))?;
    } else {
        t.arch.write_sigset(&mut t.mm, a.ptr(0), v)?;
    }
    Ok(0)
}

/// The signals pending for the thread (host-numbered): those taken from the host while
/// blocked, and those the host still holds for it or its process.
pub(crate) fn pending_set(t: &mut Task) -> u64 {
    t.sig.take_recorded();
    t.sig.pending | crate::signal::host::host_pending()
}

/// `sigaltstack(const stack_t *ss, stack_t *old)`; `stack_t` as
/// [`crate::guest::sigframe::read_stack_t`] lays it out (24 bytes on LP64, 12 on ILP32). Errors: `EPERM` (changing it while running on it),
/// `EINVAL` (bad flags), `ENOMEM` (smaller than the arch's MINSIGSTKSZ), `EFAULT`.
pub fn sigaltstack(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let sp = cpu.get_data().arch.stack_pointer(cpu);
    let t = cpu.get_data_mut();
    let old = t.sig.altstack;
    let on_stack = old.contains(sp);
    let new = if a.raw(0) != 0 {
        let (sp, flags, size) = read_stack_t(&t.mm, t.arch, a.ptr(0))?;
        let mut st = AltStack { sp, flags, size };
        if on_stack {
            return Err(Errno::EPERM);
        }
        // SS_ONSTACK as a mode means "enable", as 0 does (kernel/signal.c do_sigaltstack).
        st.flags &= !SS_ONSTACK;
        if st.flags & !(SS_DISABLE | (1 << 31)) != 0 {
            return Err(Errno::EINVAL);
        }
        if st.flags & SS_DISABLE == 0 && st.size < t.arch.info().minsigstksz.unwrap_or(2048) {
            return Err(Errno::ENOMEM);
        }
        if st.flags & SS_DISABLE != 0 {
            st = AltStack { sp: 0, flags: SS_DISABLE, size: 0 };
        }
        Some(st)
    } else {
        None
    };
    if a.raw(1) != 0 {
        // ss_flags reports SS_ONSTACK while the caller runs on the alternate stack.
        let flags = if on_stack { SS_ONSTACK } else { old.flags & !SS_ONSTACK };
        write_stack_t(&mut t.mm, t.arch, a.ptr(1), (old.sp, flags, old.size))?;
    }
    if let Some(n) = new {
        t.sig.altstack = n;
    }
    Ok(0)
}

/// A signal argument of a call that sends one, host-numbered: 0 stays 0 (the permission and
/// existence check of kill(2), which the queueing calls make too). Errors: `EINVAL` for a
/// number the host has no signal for.
pub(crate) fn sent_signal(t: &crate::guest::Task, sig: u32) -> Result<Signal, Errno> {
    if sig == 0 {
        return Ok(Signal(0));
    }
    (t.arch.info().signal_to_host)(u64::from(sig)).ok_or(Errno::EINVAL)
}

/// Reads a guest `siginfo_t` a caller queues (`rt_sigqueueinfo`) as the host's: the signal
/// (`sig`, already host-numbered), `si_errno`, `si_code` and the `_rt` member (`si_pid`,
/// `si_uid`, `si_value`), laid out as [`crate::guest::sigframe::write_siginfo`] writes them.
pub(crate) fn read_queued_siginfo(
    t: &crate::guest::Task,
    addr: GuestAddr,
    sig: Signal,
) -> Result<libc::siginfo_t, Errno> {
    let (errno, code, pid, uid, value) = read_siginfo_rt(&t.mm, t.arch, addr)?;
    let mut raw = [0u8; 128];
    raw[0..4].copy_from_slice(&sig.as_c_int().to_ne_bytes());
    raw[4..8].copy_from_slice(&errno.to_ne_bytes());
    raw[8..12].copy_from_slice(&code.to_ne_bytes());
    raw[16..20].copy_from_slice(&pid.to_ne_bytes());
    raw[20..24].copy_from_slice(&uid.to_ne_bytes());
    raw[24..32].copy_from_slice(&value.to_ne_bytes());
    // SAFETY: siginfo_t is 128 plain bytes.
    Ok(unsafe { std::mem::transmute::<[u8; 128], libc::siginfo_t>(raw) })
}

/// `rt_sigqueueinfo(pid_t tgid, int sig, siginfo_t *info)` (sigqueue(3)'s call), sent by the
/// host with the guest's `si_code` and value. Errors: `EINVAL` (bad signal), `EFAULT`, and the
/// host's `EPERM` (a `si_code` that only the kernel may use, to another process) and `ESRCH`.
pub fn rt_sigqueueinfo(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let sig = sent_signal(t, a.uint(1))?;
    let info = read_queued_siginfo(t, a.ptr(2), sig)?;
    // SAFETY: a local siginfo; integer arguments.
    super::host_ret(unsafe { libc::syscall(libc::SYS_rt_sigqueueinfo, a.int(0), sig.as_c_int(), &info) })
}

/// `rt_tgsigqueueinfo(pid_t tgid, pid_t tid, int sig, siginfo_t *info)`: as
/// [`rt_sigqueueinfo`], to one thread.
pub fn rt_tgsigqueueinfo(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let sig = sent_signal(t, a.uint(2))?;
    let info = read_queued_siginfo(t, a.ptr(3), sig)?;
    // SAFETY: a local siginfo; integer arguments.
    super::host_ret(unsafe { libc::syscall(libc::SYS_rt_tgsigqueueinfo, a.int(0), a.int(1), sig.as_c_int(), &info) })
}

/// `true` if `sys` with arguments `a`, interrupted by a handler with `SA_RESTART`, is
/// re-executed; `false` for the calls `signal(7)` lists as always failing with `EINTR` after a
/// handler: waits with a timeout (futex waits with one too), sleeps, signal waits, epoll
/// waits, System V IPC (`msgrcv`, `msgsnd`,
/// `semop`, `semtimedop`, also through `ipc`), and socket calls on a socket with a receive or
/// send timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO`, the kernel's `sock_intr_errno`) or `recvmmsg`
/// with a timeout, also through `socketcall` (whose arguments `mm` holds).
pub fn restarts_after_handler(sys: Sys, a: &SyscallArgs, mm: &crate::mm::AddressSpace) -> bool {
    // `ipc(2)`'s call numbers (include/uapi/linux/ipc.h): SEMOP, SEMTIMEDOP, MSGSND, MSGRCV.
    const IPC_WAITS: [u64; 4] = [1, 4, 11, 12];
    let socket_timeout = |fd: i32, opt: i32| {
        let mut tv = libc::timeval { tv_sec: 0, tv_usec: 0 };
        // sizeof(struct timeval) on the host.
        let mut len: libc::socklen_t = 16;
        // SAFETY: a timeval to fill and its length; a descriptor that is no socket fails.
        let r = unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, opt, (&raw mut tv).cast(), &raw mut len) };
        r == 0 && (tv.tv_sec != 0 || tv.tv_usec != 0)
    };
    // A socket call: its descriptor, the timeout that applies, and whether it has a timeout
    // argument of its own set (`recvmmsg`).
    let (fd, opt, timed) = match sys {
        Sys::msgrcv | Sys::msgsnd | Sys::semop | Sys::semtimedop | Sys::semtimedop_time64 => return false,
        Sys::ipc => return !IPC_WAITS.contains(&(a.raw(0) & 0xffff)),
        Sys::recv | Sys::recvfrom | Sys::recvmsg | Sys::accept | Sys::accept4 => (a.int(0), libc::SO_RCVTIMEO, false),
        // A socket's read and write are its recvmsg and sendmsg (net/socket.c
        // `sock_read_iter`): the same timeouts decide; another descriptor has none.
        Sys::read | Sys::readv => (a.int(0), libc::SO_RCVTIMEO, false),
        Sys::write | Sys::writev => (a.int(0), libc::SO_SNDTIMEO, false),
        Sys::recvmmsg | Sys::recvmmsg_time64 => (a.int(0), libc::SO_RCVTIMEO, a.raw(4) != 0),
        Sys::send | Sys::sendto | Sys::sendmsg | Sys::sendmmsg => (a.int(0), libc::SO_SNDTIMEO, false),
        Sys::socketcall => {
            // include/uapi/linux/net.h: SYS_ACCEPT 5, SEND 9, RECV 10, SENDTO 11, RECVFROM 12,
            // SENDMSG 16, RECVMSG 17, ACCEPT4 18, RECVMMSG 19, SENDMMSG 20; the arguments are
            // `long`s at the second argument.
            let word = |i: u64| mm.read_ulong(a.ptr(1) + i * mm.long_bytes()).unwrap_or(0);
            let fd = crate::abi::int32(word(0));
            match a.raw(0) {
                5 | 10 | 12 | 17 | 18 => (fd, libc::SO_RCVTIMEO, false),
                19 => (fd, libc::SO_RCVTIMEO, word(4) != 0),
                9 | 11 | 16 | 20 => (fd, libc::SO_SNDTIMEO, false),
                _ => return true,
            }
        }
        _ => (-1, 0, false),
    };
    if fd >= 0 {
        return !timed && !socket_timeout(fd, opt);
    }
    // A futex wait with a timeout ends through the kernel's restart block
    // (kernel/futex/waitwake.c `futex_wait`: ERESTART_RESTARTBLOCK), which a handler turns
    // into EINTR; one without a timeout restarts (ERESTARTSYS). include/uapi/linux/futex.h:
    // FUTEX_WAIT 0, FUTEX_WAIT_BITSET 9; futex2's `futex_wait` takes its timeout fifth.
    const FUTEX_CMD_MASK: u64 = 0x7f;
    match sys {
        Sys::futex | Sys::futex_time64 if matches!(a.raw(1) & FUTEX_CMD_MASK, 0 | 9) && a.raw(3) != 0 => return false,
        Sys::futex_wait if a.raw(4) != 0 => return false,
        _ => {}
    }
    !matches!(
        sys,
        Sys::nanosleep
            | Sys::clock_nanosleep
            | Sys::clock_nanosleep_time64
            | Sys::poll
            | Sys::ppoll
            | Sys::ppoll_time64
            | Sys::select
            | Sys::_newselect
            | Sys::old_select
            | Sys::pselect6
            | Sys::pselect6_time64
            | Sys::epoll_wait
            | Sys::epoll_pwait
            | Sys::epoll_pwait2
            | Sys::rt_sigsuspend
            | Sys::sigsuspend
            | Sys::pause
            | Sys::rt_sigtimedwait
            | Sys::rt_sigtimedwait_time64
            | Sys::io_getevents
            | Sys::io_pgetevents
            | Sys::io_pgetevents_time64
    )
}
