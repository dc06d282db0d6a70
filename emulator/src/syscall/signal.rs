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
use crate::arch::{Cpu, SyscallArgs};
use crate::signal::{bit, AltStack, SelfSignal, Signal, HOST_OWN, NSIG};
use crate::task::Exit;

/// `rt_sigaction(int sig, const struct sigaction *act, struct sigaction *oact, size_t
/// sigsetsize)`. The guest struct and signal numbers are the arch's
/// ([`crate::arch::GuestArch::read_sigaction`]). Errors: `EINVAL` (bad signal, changing
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
    let new = if act != 0 { Some(arch.read_sigaction(&t.mm, act)?) } else { None };
    if oact != 0 {
        let old = t.sig.actions[idx];
        arch.write_sigaction(&mut t.mm, oact, &old)?;
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
            let mut info = [0u8; SIGINFO_SIZE];
            // si_signo, si_errno, si_code = SI_TKILL (-6), then si_pid and si_uid.
            info[0..4].copy_from_slice(&(arch.signal_from_host(Signal(s)) as i32).to_le_bytes());
            info[8..12].copy_from_slice(&(-6i32).to_le_bytes());
            // SAFETY: plain id queries.
            let (pid, uid) = unsafe { (libc::getpid(), libc::getuid()) };
            info[16..20].copy_from_slice(&pid.to_le_bytes());
            info[20..24].copy_from_slice(&uid.to_le_bytes());
            t.mm.write_bytes(a.a[1], &info)?;
        }
        return Ok(arch.signal_from_host(Signal(s)));
    }
    // SAFETY: a sigset built from valid numbers; info and timeout are checked guest buffers in
    // the host layout (siginfo_t and timespec are the same on little-endian LP64 guests).
    unsafe {
        let mut hs: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut hs);
        for n in 1..=NSIG {
            if set & (1u64 << (n - 1)) != 0 && !HOST_OWN.contains(&Signal(n)) {
                libc::sigaddset(&mut hs, n as i32);
            }
        }
        let info = t.buf_out_opt(a.a[1], SIGINFO_SIZE as u64)?;
        let ts = t.buf_in_opt(a.a[2], 16)?;
        let s = super::host_ret(libc::syscall(libc::SYS_rt_sigtimedwait, &hs, info, ts, 8usize))?;
        Ok(arch.signal_from_host(Signal(s as u32)))
    }
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
    t.arch.write_sigset(&mut t.mm, a.a[0], v)?;
    Ok(0)
}

const SS_ONSTACK: u32 = 1;
const SS_DISABLE: u32 = 2;

/// `sigaltstack(const stack_t *ss, stack_t *old)`; `stack_t` is `{void *sp; int flags;
/// size_t size}` (24 bytes on LP64; MIPS swaps the last two, see
/// [`crate::arch::GuestArch::stack_t_offsets`]). Errors: `EINVAL` (bad flags), `ENOMEM` (smaller than the
/// arch's MINSIGSTKSZ), `EFAULT`.
pub fn sigaltstack(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let old = t.sig.altstack;
    let (flags_at, size_at) = t.arch.stack_t_offsets();
    let new = if a.a[0] != 0 {
        let m = &t.mm;
        let st = AltStack {
            sp: m.read_u64(a.a[0])?,
            flags: m.read_u32(a.a[0] + flags_at)?,
            size: m.read_u64(a.a[0] + size_at)?,
        };
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
        let m = &mut t.mm;
        m.write_u64(a.a[1], old.sp)?;
        m.write_u32(a.a[1] + flags_at, old.flags & !SS_ONSTACK)?;
        m.write_u32(a.a[1] + flags_at + 4, 0)?;
        m.write_u64(a.a[1] + size_at, old.size)?;
    }
    if let Some(n) = new {
        t.sig.altstack = n;
    }
    Ok(0)
}
