//! Delivery: what happens between two `emu_start` runs of a thread when a signal is due.
//!
//! The run loop calls [`after_stop`] whenever emulation stopped for a reason other than the
//! guest's exit. In this order it:
//! 1. finishes a `sigreturn`/`rt_sigreturn` the guest asked for (the arch restores its
//!    registers from the frame: outside hooks, so every register write simply takes effect);
//! 2. delivers a synchronous fault (an exception or a refused access) to the guest's handler,
//!    or ends the guest by it when the signal is blocked, ignored or at its default
//!    (the kernel's `force_sig_fault`);
//! 3. takes the signals the host handler recorded and delivers every unblocked pending one:
//!    ignored ones vanish, defaults act as `signal(7)` says, handlers get a frame. Several
//!    handlers stack, the last delivered running first, as in the kernel;
//! 4. decides the fate of a system call a signal interrupted (it returned `EINTR` from the
//!    host): re-executed when no handler ran, or when the handler has `SA_RESTART` and the
//!    call is one `signal(7)` lets restart; otherwise the guest sees `EINTR`. A call that was
//!    undone before it took effect (a mask change with a signal already recorded for the
//!    thread: `crate::syscall::signal::set_blocked`) is always re-executed, after the handler.

use crate::guest::{Cpu, Exit, PendingOp};
use crate::signal::{bit, host, sa, DefaultAction, FrameRequest, SigAction, SigInfo, Signal, SIG_DFL, SIG_IGN};

/// Signals that can never be blocked or caught.
const UNBLOCKABLE: u64 = (1 << 8) | (1 << 18);

/// Runs what is due after emulation stopped (see the module doc). Sets the task's `exit`
/// when the guest dies.
pub fn after_stop(cpu: &mut Cpu<'_>) {
    if let Some(op) = cpu.get_data_mut().pending_op.take() {
        match op {
            PendingOp::SigReturn { rt, trace } => sigreturn(cpu, rt, trace),
            PendingOp::Clone(req) => super::spawn::finish(cpu, *req),
        }
        if cpu.get_data().exit.is_some() {
            return;
        }
    }
    if let Some(info) = cpu.get_data_mut().sync_fault.take() {
        deliver_fault(cpu, info);
        if cpu.get_data().exit.is_some() {
            return;
        }
    }
    cpu.get_data_mut().sig.take_recorded();
    deliver_ready(cpu);
}

/// Delivers every pending signal the thread does not block, then settles an interrupted call
/// and a mask that `rt_sigsuspend` replaced for its wait.
pub fn deliver_ready(cpu: &mut Cpu<'_>) {
    loop {
        let t = cpu.get_data_mut();
        let ready = t.sig.pending & !t.sig.mask;
        if ready == 0 {
            break;
        }
        let sig = Signal(ready.trailing_zeros() + 1);
        let info = t.sig.dequeue(sig);
        // -g: GDB sees the signal first, and delivers it, another one, or none.
        let Some((sig, info)) = gdb_filter(cpu, sig, info) else { continue };
        if !tool_filter(cpu, &info, false) {
            continue;
        }
        let act = cpu.get_data().sig.actions[(sig.0 - 1) as usize];
        match act.handler {
            SIG_IGN => continue,
            SIG_DFL => {
                strace_signal(cpu.get_data(), &info);
                if !default_action(cpu, sig, None) {
                    return;
                }
            }
            _ => {
                if !run_handler(cpu, info, act) {
                    return;
                }
            }
        }
    }
    let t = cpu.get_data_mut();
    if let Some(old) = t.sig.saved_mask.take() {
        t.sig.mask = old;
        host::set_mask(old);
    }
    if let Some(call) = t.interrupted.take() {
        // No handler ran: the call carries on as if nothing happened.
        let arch = t.arch;
        arch.restart_syscall(cpu, &call.args);
    }
}

/// `--strace`'s line for a signal delivered to the thread (`--- SIGTERM {si_signo=…} ---`).
fn strace_signal(t: &crate::guest::Task, info: &SigInfo) {
    if t.opts.strace {
        crate::tlog!("--- {} {} ---", info.signo, crate::syscall::strace::siginfo(info));
    }
}

/// With `-g`, stops for GDB before `sig` is delivered: `None` when GDB resumes without a
/// signal, else the signal GDB passes (with `info` when it is the same one).
fn gdb_filter(cpu: &mut Cpu<'_>, sig: Signal, info: SigInfo) -> Option<(Signal, SigInfo)> {
    if !crate::gdb::enabled() {
        return Some((sig, info));
    }
    let passed = Signal(crate::gdb::signal_stop(cpu, &SigInfo { signo: sig, ..info })?);
    if passed == sig {
        Some((sig, info))
    } else {
        let fields = crate::signal::SigFields::Kill { pid: 0, uid: 0 };
        Some((passed, SigInfo { signo: passed, errno: 0, code: 0, fields }))
    }
}

/// A tool's signal hook (`crate::api`; none for the `endgate` command): `false` drops the
/// signal.
#[inline]
fn tool_filter(cpu: &mut Cpu<'_>, info: &SigInfo, fault: bool) -> bool {
    match crate::guest::tool::get().and_then(|t| t.signal) {
        Some(f) => f(cpu, info, fault),
        None => true,
    }
}

/// The default action of `sig` (the signal was pending at `SIG_DFL`): returns `false` if the
/// guest died.
fn default_action(cpu: &mut Cpu<'_>, sig: Signal, addr: Option<u64>) -> bool {
    match sig.default_action() {
        DefaultAction::Ignore | DefaultAction::Continue => true,
        DefaultAction::Stop => {
            // SAFETY: stops our own process, as the kernel would stop the guest.
            unsafe { libc::kill(libc::getpid(), libc::SIGSTOP) };
            true
        }
        DefaultAction::Terminate | DefaultAction::Core => {
            let pc = cpu.get_data().arch.pc(cpu);
            cpu.get_data_mut().exit = Some(Exit::Signal { sig, pc, addr });
            false
        }
    }
}

/// Builds the handler's frame and switches the thread to it; returns `false` if the guest
/// died because no frame could be written (the kernel then forces SIGSEGV).
fn run_handler(cpu: &mut Cpu<'_>, info: SigInfo, act: SigAction) -> bool {
    let t = cpu.get_data_mut();
    let arch = t.arch;
    if let Some(call) = t.interrupted.take() {
        if call.undone
            || (act.flags & sa::RESTART != 0
                && crate::syscall::signal::restarts_after_handler(call.sys, &call.args, &t.mm))
        {
            arch.restart_syscall(cpu, &call.args);
        }
    }
    // A restartable sequence the signal interrupts is aborted first, so the frame saves its
    // abort handler's address (the kernel's rseq_signal_deliver).
    crate::syscall::rseq::fixup_or_segv(cpu);
    let t = cpu.get_data_mut();
    let old_mask = t.sig.saved_mask.take().unwrap_or(t.sig.mask);
    let guest_signo = (t.arch.info().signal_from_host)(info.signo);
    let req = FrameRequest { info, guest_signo, action: act, old_mask, altstack: t.sig.altstack };
    strace_signal(t, &info);
    if t.opts.trace.has(crate::cli::DebugItem::Int) {
        let pc = arch.pc(cpu);
        crate::dlog!(
            "signal {} (guest {guest_signo}, si_code={}) to handler {:#x} at pc={pc:#x}\n",
            info.signo,
            info.code,
            act.handler
        );
    }
    let mut framed = arch.setup_frame(cpu, &req);
    if framed == Err(syscalls::Errno::EFAULT) {
        // The frame reached below a grows-down stack: the kernel's write would grow it.
        let mm = &mut cpu.get_data_mut().mm;
        if mm.take_grow_request().is_some_and(|a| mm.grow_down(a)) {
            framed = arch.setup_frame(cpu, &req);
        }
    }
    if let Err(e) = framed {
        let pc = arch.pc(cpu);
        if e == syscalls::Errno::ENOSYS {
            crate::elog!("endgate: {} cannot run guest signal handlers yet", arch.info().name);
            cpu.get_data_mut().exit = Some(Exit::Signal { sig: info.signo, pc, addr: None });
        } else {
            cpu.get_data_mut().exit = Some(Exit::Signal { sig: Signal::SIGSEGV, pc, addr: None });
        }
        return false;
    }
    let t = cpu.get_data_mut();
    let mut m = t.sig.mask | act.mask;
    if act.flags & sa::NODEFER == 0 {
        m |= bit(info.signo);
    }
    t.sig.mask = m & !UNBLOCKABLE;
    host::set_mask(t.sig.mask);
    if act.flags & sa::RESETHAND != 0 {
        // Only the handler goes back to the default; flags and mask stay, as in the kernel's
        // get_signal.
        t.sig.actions[(info.signo.0 - 1) as usize].handler = SIG_DFL;
        host::set_disposition(info.signo, SIG_DFL);
    }
    true
}

/// A fault raised by the guest's own instruction: its handler runs if it has one and does not
/// block the signal; otherwise the guest dies by it (blocked or ignored faults cannot be
/// survived, as the kernel's `force_sig_fault` ensures).
pub fn deliver_fault(cpu: &mut Cpu<'_>, info: SigInfo) {
    // -g: GDB sees the fault first; without a signal from GDB the instruction runs again.
    let Some((_, info)) = gdb_filter(cpu, info.signo, info) else { return };
    if !tool_filter(cpu, &info, true) {
        return;
    }
    let t = cpu.get_data_mut();
    let sig = info.signo;
    let act = t.sig.actions[(sig.0 - 1) as usize];
    let blocked = t.sig.mask & bit(sig) != 0;
    let addr = match info.fields {
        crate::signal::SigFields::Fault { addr } if sig == Signal::SIGSEGV || sig == Signal::SIGBUS => Some(addr),
        _ => None,
    };
    if blocked || act.handler == SIG_IGN || act.handler == SIG_DFL {
        if blocked || act.handler == SIG_IGN {
            t.sig.actions[(sig.0 - 1) as usize] = SigAction::default();
        }
        if t.opts.strace {
            let mut shown = info;
            if let (Some(a), crate::signal::SigFields::Fault { addr }) = (addr, &mut shown.fields) {
                *addr = t.arch.fault_si_addr(a);
            }
            strace_signal(t, &shown);
        }
        let t = cpu.get_data();
        let pc = t.arch.pc(cpu);
        cpu.get_data_mut().exit = Some(Exit::Signal { sig, pc, addr });
        return;
    }
    let mut info = info;
    if let (Some(a), crate::signal::SigFields::Fault { addr }) = (addr, &mut info.fields) {
        *addr = cpu.get_data().arch.fault_si_addr(a);
    }
    run_handler(cpu, info, act);
}

/// Finishes the guest's `sigreturn`/`rt_sigreturn`: the arch restores the registers, mask and
/// alternate stack saved in the frame at the stack pointer. A frame that cannot be read ends
/// the guest with SIGSEGV, as in the kernel.
fn sigreturn(cpu: &mut Cpu<'_>, rt: bool, trace: Option<crate::guest::DeferredTrace>) {
    let arch = cpu.get_data().arch;
    match arch.restore_frame(cpu, rt) {
        Ok(mask) => {
            let t = cpu.get_data_mut();
            t.sig.mask = mask & !UNBLOCKABLE;
            host::set_mask(t.sig.mask);
            if let Some(tr) = trace {
                // strace: `rt_sigreturn({mask=[…]}) = ` the restored return register.
                let def = crate::syscall::DispatchTable::of(arch).get(tr.args.nr);
                let pre = vec![(0, Some(format!("{{mask={}}}", crate::syscall::strace::sigset(mask))))];
                let ret = arch.syscall_ret(cpu);
                crate::syscall::strace::print_line(cpu.get_data(), def, &tr.args, &pre, ret, false);
            }
        }
        Err(_) => {
            if let Some(tr) = trace {
                let def = crate::syscall::DispatchTable::of(arch).get(tr.args.nr);
                crate::syscall::strace::print_line(cpu.get_data(), def, &tr.args, &tr.pre, 0, true);
            }
            let pc = arch.pc(cpu);
            cpu.get_data_mut().exit = Some(Exit::Signal { sig: Signal::SIGSEGV, pc, addr: None });
        }
    }
}
