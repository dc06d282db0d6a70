//! Signal dispositions and masks: `rt_sigaction`, `rt_sigprocmask`, `rt_sigpending`,
//! `sigaltstack`. The state is recorded per process ([`crate::signal::SigState`]); delivery to
//! guest handlers is a later step.

use syscalls::Errno;

use super::SysResult;
use crate::arch::{Cpu, SyscallArgs};
use crate::signal::{AltStack, SigAction, Signal, NSIG};

/// `sizeof(sigset_t)` the kernel accepts, in bytes (64 signals).
const SIGSET_SIZE: u64 = 8;

/// `rt_sigaction(int sig, const struct sigaction *act, struct sigaction *oact, size_t
/// sigsetsize)`. The guest struct is `{handler, flags, restorer, mask}` in guest words (the
/// kernel's `struct sigaction` on x86_64 and arm64). Errors: `EINVAL` (bad signal, changing
/// SIGKILL/SIGSTOP, wrong sigsetsize), `EFAULT`.
pub fn rt_sigaction(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (sig, act, oact) = (a.a[0], a.a[1], a.a[2]);
    if a.a[3] != SIGSET_SIZE || sig == 0 || sig > u64::from(NSIG) {
        return Err(Errno::EINVAL);
    }
    let s = Signal(sig as u32);
    if act != 0 && (s == Signal::SIGKILL || s == Signal::SIGSTOP) {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data_mut();
    let idx = (sig - 1) as usize;
    let new = if act != 0 {
        let m = &t.mm;
        Some(SigAction {
            handler: m.read_u64(act)?,
            flags: m.read_u64(act + 8)?,
            restorer: m.read_u64(act + 16)?,
            mask: m.read_u64(act + 24)?,
        })
    } else {
        None
    };
    if oact != 0 {
        let old = t.sig.actions[idx];
        let m = &mut t.mm;
        m.write_u64(oact, old.handler)?;
        m.write_u64(oact + 8, old.flags)?;
        m.write_u64(oact + 16, old.restorer)?;
        m.write_u64(oact + 24, old.mask)?;
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
    const OWN: [u32; 6] = [4, 5, 7, 8, 11, 31];
    if OWN.contains(&sig.0) || sig == Signal::SIGKILL || sig == Signal::SIGSTOP || sig.0 >= 32 {
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
    let (how, set, oset) = (a.a[0], a.a[1], a.a[2]);
    if a.a[3] != SIGSET_SIZE {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data_mut();
    let old = t.sig.mask;
    let new = if set != 0 {
        let v = t.mm.read_u64(set)?;
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
        t.mm.write_u64(oset, old)?;
    }
    if let Some(n) = new {
        t.sig.mask = n & !UNBLOCKABLE;
    }
    Ok(0)
}

/// `rt_sigpending(sigset_t *set, size_t sigsetsize)`: no signal is ever left pending yet.
pub fn rt_sigpending(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.a[1] > SIGSET_SIZE {
        return Err(Errno::EINVAL);
    }
    cpu.get_data_mut().mm.write_u64(a.a[0], 0)?;
    Ok(0)
}

const SS_ONSTACK: u32 = 1;
const SS_DISABLE: u32 = 2;

/// `sigaltstack(const stack_t *ss, stack_t *old)`; `stack_t` is `{void *sp; int flags;
/// size_t size}` (24 bytes on LP64). Errors: `EINVAL` (bad flags), `ENOMEM` (smaller than the
/// arch's MINSIGSTKSZ), `EFAULT`.
pub fn sigaltstack(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let old = t.sig.altstack;
    let new = if a.a[0] != 0 {
        let m = &t.mm;
        let st = AltStack { sp: m.read_u64(a.a[0])?, flags: m.read_u32(a.a[0] + 8)?, size: m.read_u64(a.a[0] + 16)? };
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
        m.write_u32(a.a[1] + 8, old.flags & !SS_ONSTACK)?;
        m.write_u32(a.a[1] + 12, 0)?;
        m.write_u64(a.a[1] + 16, old.size)?;
    }
    if let Some(n) = new {
        t.sig.altstack = n;
    }
    Ok(0)
}
