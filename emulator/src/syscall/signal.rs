//! Signal dispositions and masks: `rt_sigaction`, `rt_sigprocmask`, `rt_sigpending`,
//! `rt_sigtimedwait`, `sigaltstack`, and what a signal the guest sends itself does.
//!
//! The state is recorded per process ([`crate::signal::SigState`]). Until guest handlers can
//! run (a later step), the host process carries the guest's choices for asynchronous signals:
//! `SIG_IGN`/`SIG_DFL` and the blocked mask are mirrored to the host, so the kernel itself
//! ends, stops, ignores or holds pending an external signal as it would for the guest, and
//! `rt_sigtimedwait` can collect it. Signals that report endgate's own faults
//! ([`crate::signal::HOST_OWN`]) are never mirrored. A signal the guest sends itself is decided
//! here (`raise_self`): held pending while blocked, otherwise its disposition applies.

use syscalls::Errno;

use super::SysResult;
use crate::abi::shapes::{KernelSigaction, StackT, SIGACTION, SIGACTION_NO_RESTORER, STACK_T, TIMESPEC, TIMESPEC64};
use crate::abi::thunk::Plain;
use crate::arch::{Cpu, SyscallArgs};
use crate::signal::{bit, AltStack, SelfSignal, SigAction, Signal, HOST_OWN, NSIG};
use crate::task::Exit;

/// `rt_sigaction(int sig, const struct sigaction *act, struct sigaction *oact, size_t
/// sigsetsize)`. The guest struct is `{handler, flags, restorer, mask}` ([`SIGACTION`], the
/// kernel's `struct sigaction` on the asm-generic arches, x86 and s390). Errors: `EINVAL` (bad signal, changing
/// SIGKILL/SIGSTOP, wrong sigsetsize), `EFAULT`.
pub fn rt_sigaction(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (act, oact) = (a.a[1], a.a[2]);
    let arch = cpu.get_data().arch;
    if a.a[3] != arch.sigset_size() {
        return Err(Errno::EINVAL);
    }
    let s = arch.signal_to_host(a.a[0]).ok_or(Errno::EINVAL)?;
    if act != 0 && (s == Signal::SIGKILL || s == Signal::SIGSTOP) {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data_mut();
    let idx = (s.0 - 1) as usize;
    let new = if act != 0 {
        let k = read_sigaction(t, act)?;
        // The kernel never lets a handler block SIGKILL or SIGSTOP: they leave sa_mask here.
        Some(SigAction { handler: k.handler, flags: k.flags, restorer: k.restorer, mask: k.mask & !UNBLOCKABLE })
    } else {
        None
    };
    if oact != 0 {
        let old = t.sig.actions[idx];
        let k = KernelSigaction { handler: old.handler, flags: old.flags, restorer: old.restorer, mask: old.mask };
        write_sigaction(t, oact, &k)?;
    }
    if let Some(n) = new {
        t.sig.actions[idx] = n;
        mirror_to_host(s, n.handler);
    }
    Ok(0)
}

/// Gives the host process the guest's `SIG_IGN`/`SIG_DFL` choice for asynchronous signals, so
/// that what the kernel does without asking the guest (a write to a closed pipe ending the
/// process with SIGPIPE, an ignored SIGINT, auto-reaped children with SIGCHLD ignored) happens
/// as it would natively. Signals that report endgate's own faults (SIGSEGV, SIGBUS, SIGILL,
/// SIGFPE, SIGTRAP, SIGSYS) keep their host defaults. A guest handler leaves the host default
/// in place until signal delivery exists.
fn mirror_to_host(sig: Signal, handler: u64) {
    use crate::signal::{SIG_DFL, SIG_IGN};
    if HOST_OWN.contains(&sig) || sig == Signal::SIGKILL || sig == Signal::SIGSTOP || sig.0 >= 32 {
        return;
    }
    let host = match handler {
        SIG_IGN => libc::SIG_IGN,
        SIG_DFL => libc::SIG_DFL,
        _ => libc::SIG_DFL,
    };
    // SAFETY: installs SIG_IGN or SIG_DFL (no handler code) for a valid signal number.
    unsafe { libc::signal(sig.0 as i32, host) };
}

const SIG_BLOCK: u64 = 0;
const SIG_UNBLOCK: u64 = 1;
const SIG_SETMASK: u64 = 2;

/// Signals that can never be blocked: SIGKILL and SIGSTOP.
const UNBLOCKABLE: u64 = (1 << 8) | (1 << 18);

/// Reads a guest `struct sigaction` ([`SIGACTION`], or [`SIGACTION_NO_RESTORER`] on arches
/// without `SA_RESTORER`).
fn read_sigaction(t: &crate::task::Task, addr: u64) -> Result<KernelSigaction, Errno> {
    if let Some(r) = t.arch.read_sigaction(&t.mm, addr) {
        return r.map(|s| KernelSigaction { handler: s.handler, flags: s.flags, restorer: s.restorer, mask: s.mask });
    }
    if t.arch.has_sa_restorer() {
        t.mm.read_shape(addr, SIGACTION)
    } else {
        let [handler, flags, mask]: [u64; 3] = t.mm.read_shape(addr, SIGACTION_NO_RESTORER)?;
        Ok(KernelSigaction { handler, flags, restorer: 0, mask })
    }
}

fn write_sigaction(t: &mut crate::task::Task, addr: u64, k: &KernelSigaction) -> Result<(), Errno> {
    let s = SigAction { handler: k.handler, flags: k.flags, restorer: k.restorer, mask: k.mask };
    if let Some(r) = t.arch.write_sigaction(&mut t.mm, addr, &s) {
        return r;
    }
    if t.arch.has_sa_restorer() {
        t.mm.write_shape(addr, SIGACTION, k)
    } else {
        t.mm.write_shape(addr, SIGACTION_NO_RESTORER, &[k.handler, k.flags, k.mask])
    }
}

/// `rt_sigprocmask(int how, const sigset_t *set, sigset_t *oset, size_t sigsetsize)`.
/// Errors: `EINVAL` (bad `how`, wrong sigsetsize), `EFAULT`.
pub fn rt_sigprocmask(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (set, oset) = (a.a[1], a.a[2]);
    let t = cpu.get_data_mut();
    let arch = t.arch;
    let how = arch.sigmask_how_to_generic(a.a[0]);
    if a.a[3] != arch.sigset_size() {
        return Err(Errno::EINVAL);
    }
    let old = t.sig.mask;
    let new = if set != 0 {
        let v = arch.read_sigset(&t.mm, set)?;
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
        arch.write_sigset(&mut t.mm, oset, old)?;
    }
    if let Some(n) = new {
        t.sig.mask = n & !UNBLOCKABLE;
        mirror_mask_to_host(t.sig.mask);
        // Signals the guest raised while blocked take effect once unblocked.
        let ready = t.sig.pending & !t.sig.mask;
        if ready != 0 {
            for s in 1..=NSIG {
                if ready & bit(Signal(s)) != 0 {
                    cpu.get_data_mut().sig.pending &= !bit(Signal(s));
                    act_on_self(cpu, Signal(s));
                    if cpu.get_data().exit.is_some() {
                        break;
                    }
                }
            }
        }
    }
    Ok(0)
}

/// The host's mask for asynchronous signals follows the guest's (see the module doc).
fn mirror_mask_to_host(mask: u64) {
    let mut m = mask & !UNBLOCKABLE;
    for s in HOST_OWN {
        m &= !bit(s);
    }
    // SAFETY: an empty sigset filled bit by bit for valid signal numbers; only the calling
    // thread's mask changes.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in 1..32 {
            if m & (1u64 << (s - 1)) != 0 {
                libc::sigaddset(&mut set, s);
            }
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
}

/// A signal the guest sent to itself (`kill`, `tgkill` to its own pid/tid). Held pending while
/// the guest blocks it; otherwise its disposition applies: the default action ends or stops
/// the process as the kernel would, an ignored signal does nothing. A guest handler cannot run
/// yet (delivery is a later step): such a signal is named under `--strace` and otherwise has
/// no effect.
pub(crate) fn raise_self(cpu: &mut Cpu<'_>, sig: Signal) -> SysResult {
    let t = cpu.get_data_mut();
    let blockable = sig != Signal::SIGKILL && sig != Signal::SIGSTOP;
    if blockable && t.sig.mask & bit(sig) != 0 {
        t.sig.pending |= bit(sig);
        return Ok(0);
    }
    act_on_self(cpu, sig);
    Ok(0)
}

fn act_on_self(cpu: &mut Cpu<'_>, sig: Signal) {
    let pc = cpu.get_data().arch.pc(cpu);
    let t = cpu.get_data_mut();
    match t.sig.self_signal(sig) {
        SelfSignal::Die => t.exit = Some(Exit::Signal { sig, pc, addr: None }),
        SelfSignal::Stop => {
            // The host process stops exactly as the guest would, until SIGCONT.
            // SAFETY: signals our own process.
            unsafe { libc::kill(libc::getpid(), libc::SIGSTOP) };
        }
        SelfSignal::Nothing => {}
        SelfSignal::Handler => {
            if t.opts.strace {
                crate::elog!("endgate: {sig} has a guest handler; handler delivery is not implemented yet");
            }
        }
    }
}

/// Size of `siginfo_t` in bytes.
const SIGINFO_SIZE: usize = 128;

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

/// Writes the head of a `siginfo_t` (include/uapi/asm-generic/siginfo.h): `si_signo`,
/// `si_errno`, `si_code`, then the union's first members `si_pid` and `si_uid`, which starts
/// at the first `long`-aligned offset after the three ints (16 on LP64, 12 on ILP32). The
/// rest of the 128 bytes is zero.
fn write_siginfo(
    mm: &mut crate::mm::AddressSpace,
    addr: u64,
    signo: i32,
    code: i32,
    pid: i32,
    uid: u32,
) -> Result<(), Errno> {
    mm.write_bytes(addr, &[0u8; SIGINFO_SIZE])?;
    mm.write_u32(addr, signo as u32)?;
    mm.write_u32(addr + 8, code as u32)?;
    let u = 12u64.next_multiple_of(mm.long_bytes());
    mm.write_u32(addr + u, pid as u32)?;
    mm.write_u32(addr + u + 4, uid)
}

fn sigtimedwait_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &crate::abi::thunk::Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let arch = t.arch;
    if a.a[3] != arch.sigset_size() {
        return Err(Errno::EINVAL);
    }
    let set = arch.read_sigset(&t.mm, a.a[0])? & !UNBLOCKABLE;
    let ready = t.sig.pending & set;
    if ready != 0 {
        let s = ready.trailing_zeros() + 1;
        t.sig.pending &= !(1u64 << (s - 1));
        if a.a[1] != 0 {
            // SAFETY: plain id queries.
            let (pid, uid) = unsafe { (libc::getpid(), libc::getuid()) };
            // si_code SI_TKILL (-6): what raise() sends.
            write_siginfo(&mut t.mm, a.a[1], arch.signal_from_host(Signal(s)) as i32, -6, pid, uid)?;
        }
        return Ok(arch.signal_from_host(Signal(s)));
    }
    let ts: Option<libc::timespec> = if a.a[2] == 0 { None } else { Some(t.mm.read_shape(a.a[2], ts_shape)?) };
    if a.a[1] != 0 {
        t.mm.check_writable(a.a[1], SIGINFO_SIZE as u64)?;
    }
    let mut info = libc::siginfo_t::zeroed();
    // SAFETY: a sigset built from valid numbers; info and the timeout are local structs.
    let n = unsafe {
        let mut hs: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut hs);
        for n in 1..=NSIG {
            if set & (1u64 << (n - 1)) != 0 && !HOST_OWN.contains(&Signal(n)) {
                libc::sigaddset(&mut hs, n as i32);
            }
        }
        let tsp = ts.as_ref().map_or(std::ptr::null(), |v| v as *const libc::timespec);
        super::host_ret(libc::syscall(libc::SYS_rt_sigtimedwait, &hs, &mut info, tsp, 8usize))?
    };
    if a.a[1] != 0 {
        // SAFETY: the kernel filled the kill/rt member of the union for a dequeued signal.
        let (pid, uid) = unsafe { (info.si_pid(), info.si_uid()) };
        let signo = arch.signal_from_host(Signal(info.si_signo as u32)) as i32;
        write_siginfo(&mut t.mm, a.a[1], signo, info.si_code, pid, uid)?;
    }
    Ok(arch.signal_from_host(Signal(n as u32)))
}

/// `rt_sigpending(sigset_t *set, size_t sigsetsize)`.
pub fn rt_sigpending(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.a[1] > cpu.get_data().arch.sigset_size() {
        return Err(Errno::EINVAL);
    }
    // Signals the guest raised while blocked, and external ones the host holds for it.
    // SAFETY: an out sigset for the host's pending set.
    let host = unsafe {
        let mut hs: libc::sigset_t = std::mem::zeroed();
        libc::sigpending(&mut hs);
        (1..=NSIG).filter(|&n| libc::sigismember(&hs, n as i32) == 1).fold(0u64, |m, n| m | 1 << (n - 1))
    };
    let t = cpu.get_data_mut();
    let v = t.sig.pending | host;
    if a.a[1] == 4 {
        t.mm.write_u32(a.a[0], v as u32)?;
    } else {
        t.arch.write_sigset(&mut t.mm, a.a[0], v)?;
    }
    Ok(0)
}

const SS_ONSTACK: u32 = 1;
const SS_DISABLE: u32 = 2;

/// `sigaltstack(const stack_t *ss, stack_t *old)`; `stack_t` is `{void *sp; int flags;
/// size_t size}` ([`STACK_T`]: 24 bytes on LP64, 12 on ILP32). Errors: `EINVAL` (bad flags), `ENOMEM` (smaller than the
/// arch's MINSIGSTKSZ), `EFAULT`.
pub fn sigaltstack(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let old = t.sig.altstack;
    let new = if a.a[0] != 0 {
        let k: StackT = if t.arch.stack_t_size_first() {
            let m = &t.mm;
            StackT { sp: m.read_u64(a.a[0])?, size: m.read_u64(a.a[0] + 8)?, flags: m.read_u32(a.a[0] + 16)? as i32 }
        } else {
            t.mm.read_shape(a.a[0], STACK_T)?
        };
        let st = AltStack { sp: k.sp, flags: k.flags as u32, size: k.size };
        if st.flags & !(SS_DISABLE | (1 << 31)) != 0 {
            return Err(Errno::EINVAL);
        }
        if st.flags & SS_DISABLE == 0 && st.size < t.arch.minsigstksz().unwrap_or(2048) {
            return Err(Errno::ENOMEM);
        }
        Some(st)
    } else {
        None
    };
    if a.a[1] != 0 {
        let k = StackT { sp: old.sp, flags: (old.flags & !SS_ONSTACK) as i32, size: old.size };
        if t.arch.stack_t_size_first() {
            let m = &mut t.mm;
            m.write_u64(a.a[1], k.sp)?;
            m.write_u64(a.a[1] + 8, k.size)?;
            m.write_u64(a.a[1] + 16, u64::from(k.flags as u32))?;
        } else {
            t.mm.write_shape(a.a[1], STACK_T, &k)?;
        }
    }
    if let Some(n) = new {
        t.sig.altstack = n;
    }
    Ok(0)
}
