//! Guest signals: numbers and names, the signal state the guest sets up, and their delivery.
//!
//! # How a signal reaches a guest handler
//! endgate keeps the host process's signal state equal to the guest's ([`host`]): a guest
//! `SIG_IGN`/`SIG_DFL` is the host's disposition, so the kernel itself ignores, stops or kills
//! exactly as it would natively (with the right wait status); a guest handler installs
//! endgate's host handler, which records the host `siginfo_t` for the thread and stops its
//! unicorn instance. The guest's blocked mask is the host thread's mask, so the kernel holds
//! blocked signals pending and routes process signals to a thread that does not block them.
//!
//! Recorded signals and synchronous faults (CPU exceptions, refused memory accesses) are
//! delivered by the run loop (`crate::task::deliver`), outside any unicorn hook: the arch builds its
//! signal frame ([`FrameRequest`], `arch/<name>/signal.rs`), the guest's `rt_sigreturn`
//! restores from it. A blocking call interrupted by a recorded signal returns `EINTR` or is
//! re-executed (`SA_RESTART`), as `signal(7)` describes.

pub mod host;

use std::fmt;

use crate::thread::shared::Shared;

/// A guest signal number (1..=64). On x86_64 and aarch64 guest numbers equal the host's
/// (include/uapi/asm-generic/signal.h); arches that renumber convert at their edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signal(pub u32);

/// Highest signal number (`_NSIG`).
pub const NSIG: u32 = 64;

#[allow(missing_docs)]
impl Signal {
    pub const SIGHUP: Signal = Signal(1);
    pub const SIGINT: Signal = Signal(2);
    pub const SIGQUIT: Signal = Signal(3);
    pub const SIGILL: Signal = Signal(4);
    pub const SIGTRAP: Signal = Signal(5);
    pub const SIGABRT: Signal = Signal(6);
    pub const SIGBUS: Signal = Signal(7);
    pub const SIGFPE: Signal = Signal(8);
    pub const SIGKILL: Signal = Signal(9);
    pub const SIGUSR1: Signal = Signal(10);
    pub const SIGSEGV: Signal = Signal(11);
    pub const SIGUSR2: Signal = Signal(12);
    pub const SIGPIPE: Signal = Signal(13);
    pub const SIGALRM: Signal = Signal(14);
    pub const SIGTERM: Signal = Signal(15);
    pub const SIGCHLD: Signal = Signal(17);
    pub const SIGCONT: Signal = Signal(18);
    pub const SIGSTOP: Signal = Signal(19);
    pub const SIGSYS: Signal = Signal(31);

    /// The number as the C `int` libc and the host kernel take (`kill`, `sigaddset`,
    /// `si_signo`).
    pub fn as_c_int(self) -> i32 {
        crate::abi::int32(self.0)
    }
}

const NAMES: [&str; 32] = [
    "0",
    "SIGHUP",
    "SIGINT",
    "SIGQUIT",
    "SIGILL",
    "SIGTRAP",
    "SIGABRT",
    "SIGBUS",
    "SIGFPE",
    "SIGKILL",
    "SIGUSR1",
    "SIGSEGV",
    "SIGUSR2",
    "SIGPIPE",
    "SIGALRM",
    "SIGTERM",
    "SIGSTKFLT",
    "SIGCHLD",
    "SIGCONT",
    "SIGSTOP",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGURG",
    "SIGXCPU",
    "SIGXFSZ",
    "SIGVTALRM",
    "SIGPROF",
    "SIGWINCH",
    "SIGIO",
    "SIGPWR",
    "SIGSYS",
];

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            n @ 1..=31 => f.write_str(NAMES[n as usize]),
            32..=NSIG => write!(f, "SIGRT_{}", self.0 - 32),
            n => write!(f, "signal {n}"),
        }
    }
}

/// What the kernel does with a signal whose disposition is `SIG_DFL` (signal(7)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultAction {
    /// Ends the process.
    Terminate,
    /// Ends the process and dumps core (status has the 0x80 core bit when a core is written).
    Core,
    /// Nothing happens.
    Ignore,
    /// Stops the process (job control).
    Stop,
    /// Continues a stopped process.
    Continue,
}

impl Signal {
    /// The default action of this signal (signal(7), "Standard signals").
    pub fn default_action(self) -> DefaultAction {
        match self.0 {
            3 | 4 | 5 | 6 | 7 | 8 | 11 | 24 | 25 | 31 => DefaultAction::Core,
            17 | 23 | 28 => DefaultAction::Ignore,
            19..=22 => DefaultAction::Stop,
            18 => DefaultAction::Continue,
            _ => DefaultAction::Terminate,
        }
    }
}

/// `SIG_DFL`.
pub const SIG_DFL: u64 = 0;
/// `SIG_IGN`.
pub const SIG_IGN: u64 = 1;

/// The kernel's `struct sigaction` as the guest passed it (raw guest words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigAction {
    /// `sa_handler` / `sa_sigaction` (guest address, or SIG_DFL / SIG_IGN).
    pub handler: u64,
    /// `sa_flags` (SA_SIGINFO, SA_RESTART…).
    pub flags: u64,
    /// `sa_restorer` (guest address; 0 if the arch or caller has none).
    pub restorer: u64,
    /// `sa_mask`, bit `n-1` for signal `n`.
    pub mask: u64,
}

/// A guest `stack_t` (sigaltstack).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AltStack {
    /// `ss_sp`.
    pub sp: u64,
    /// `ss_flags` (SS_DISABLE 2 when none).
    pub flags: u32,
    /// `ss_size` in bytes.
    pub size: u64,
}

/// A thread's signal state: the dispositions it shares with the other threads of its process,
/// and its own mask, pending signals and alternate stack.
#[derive(Debug)]
pub struct SigState {
    /// Dispositions, index `n-1` for signal `n` (one table per process, shared by its
    /// threads: `CLONE_SIGHAND`).
    pub actions: Shared<[SigAction; NSIG as usize]>,
    /// Blocked signals, bit `n-1` for signal `n`.
    pub mask: u64,
    /// The alternate signal stack.
    pub altstack: AltStack,
    /// Signals taken from the host but not yet delivered because the guest blocks them (bit
    /// `n-1` for signal `n`); their `siginfo` is in `queue`.
    pub pending: u64,
    /// The `siginfo` of each signal in `pending`, oldest first.
    pub queue: Vec<SigInfo>,
    /// The mask to restore after a handler runs, when a call (`rt_sigsuspend`, `ppoll`,
    /// `pselect6`, `epoll_pwait`) replaced the mask only while it waited.
    pub saved_mask: Option<u64>,
    /// Dispositions of guest signals the host has no number for (MIPS `SIGEMT` and signals
    /// 65-127), by guest number: recorded so that `rt_sigaction` round trips, never delivered
    /// (nothing on the host can raise them). Kept per thread.
    pub guest_only: Vec<(u64, SigAction)>,
}

impl SigState {
    /// Moves the host-recorded signals into the thread's pending set. A standard signal already
    /// pending is not queued twice; real-time signals queue.
    pub fn take_recorded(&mut self) {
        for info in host::take_recorded() {
            let s = info.signo;
            if s.0 == 0 || s.0 > NSIG {
                continue;
            }
            if s.0 < 32 && self.pending & bit(s) != 0 {
                continue;
            }
            self.pending |= bit(s);
            self.queue.push(info);
        }
    }

    /// Takes the oldest queued `siginfo` of `sig` out of the pending set.
    pub fn dequeue(&mut self, sig: Signal) -> SigInfo {
        let i = self.queue.iter().position(|q| q.signo == sig);
        let info = match i {
            Some(i) => self.queue.remove(i),
            None => SigInfo { signo: sig, errno: 0, code: 0, fields: SigFields::Kill { pid: 0, uid: 0 } },
        };
        if !self.queue.iter().any(|q| q.signo == sig) {
            self.pending &= !bit(sig);
        }
        info
    }
}

impl Default for SigState {
    fn default() -> Self {
        SigState {
            actions: Shared::new([SigAction::default(); NSIG as usize]),
            mask: 0,
            altstack: AltStack { flags: 2, ..Default::default() },
            pending: 0,
            queue: Vec::new(),
            saved_mask: None,
            guest_only: Vec::new(),
        }
    }
}

/// Signals that report endgate's own faults on the host; endgate never blocks or ignores them
/// on the host, whatever the guest asks for its own copy.
pub const HOST_OWN: [Signal; 6] =
    [Signal::SIGILL, Signal::SIGTRAP, Signal::SIGBUS, Signal::SIGFPE, Signal::SIGSEGV, Signal::SIGSYS];

/// The bit of `sig` in a signal set (bit `n-1` for signal `n`).
#[inline]
pub fn bit(sig: Signal) -> u64 {
    1u64 << (sig.0 - 1)
}

/// `sa_flags` bits (include/uapi/asm-generic/signal-defs.h; [`SigAction::flags`] holds them in
/// this numbering on every arch, MIPS's `SA_SIGINFO` 8 converted at its edge).
pub mod sa {
    /// Give the handler `siginfo_t` and `ucontext_t` arguments.
    pub const SIGINFO: u64 = 4;
    /// `sa_restorer` holds the return trampoline.
    pub const RESTORER: u64 = 0x0400_0000;
    /// Run the handler on the alternate stack.
    pub const ONSTACK: u64 = 0x0800_0000;
    /// Re-execute interrupted system calls.
    pub const RESTART: u64 = 0x1000_0000;
    /// Do not block the signal while its handler runs.
    pub const NODEFER: u64 = 0x4000_0000;
    /// Reset the disposition to `SIG_DFL` on delivery.
    pub const RESETHAND: u64 = 0x8000_0000;
}

/// `ss_flags`: the thread is running on the alternate stack.
pub const SS_ONSTACK: u32 = 1;
/// `ss_flags`: no alternate stack.
pub const SS_DISABLE: u32 = 2;

/// The union part of a `siginfo_t`, by the kind of event that raised the signal
/// (include/uapi/asm-generic/siginfo.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigFields {
    /// `kill`, `tkill`, `tgkill`, `raise` (`si_pid`, `si_uid`).
    Kill {
        /// Sender's process id.
        pid: i32,
        /// Sender's real user id.
        uid: u32,
    },
    /// `sigqueue`, POSIX message queues (`si_pid`, `si_uid`, `si_value`).
    Rt {
        /// Sender's process id.
        pid: i32,
        /// Sender's real user id.
        uid: u32,
        /// `si_value` (`sival_ptr`; `sival_int` is its low 32 bits on little-endian guests).
        value: u64,
    },
    /// POSIX timers (`si_tid`, `si_overrun`, `si_value`).
    Timer {
        /// Kernel timer id.
        tid: i32,
        /// Overrun count.
        overrun: i32,
        /// `si_value`.
        value: u64,
    },
    /// SIGCHLD (`si_pid`, `si_uid`, `si_status`, `si_utime`, `si_stime`).
    Chld {
        /// The child.
        pid: i32,
        /// The child's real user id.
        uid: u32,
        /// Exit status, or the signal (host-numbered) for `CLD_KILLED`/`CLD_DUMPED`/`CLD_STOPPED`.
        status: i32,
        /// User CPU time in clock ticks.
        utime: i64,
        /// System CPU time in clock ticks.
        stime: i64,
    },
    /// SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP raised by an instruction (`si_addr`).
    Fault {
        /// The faulting data address (SIGSEGV, SIGBUS) or instruction address.
        addr: u64,
    },
    /// SIGSYS from a seccomp filter's `SECCOMP_RET_TRAP` (`_sigsys`: `si_call_addr`,
    /// `si_syscall`, `si_arch`).
    Sys {
        /// The address after the system call's trap instruction.
        call_addr: u64,
        /// The guest's system call number.
        syscall: i32,
        /// The guest's `AUDIT_ARCH_*`.
        arch: u32,
    },
    /// SIGPOLL/SIGIO (`si_band`, `si_fd`).
    Poll {
        /// Poll event bits.
        band: i64,
        /// The file descriptor.
        fd: i32,
    },
}

/// A `siginfo_t` in endgate's terms: the signal in host numbering and the fields that matter;
/// [`frame::write_siginfo`] lays it out for the guest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigInfo {
    /// The signal.
    pub signo: Signal,
    /// `si_errno`.
    pub errno: i32,
    /// `si_code` (`SI_USER` 0, `SI_TKILL` -6, `SEGV_MAPERR` 1…).
    pub code: i32,
    /// The union member `si_code` selects.
    pub fields: SigFields,
}

/// `si_code` values (include/uapi/asm-generic/siginfo.h).
pub mod si_code {
    /// Sent by `kill`.
    pub const SI_USER: i32 = 0;
    /// Sent by `sigqueue`.
    pub const SI_QUEUE: i32 = -1;
    /// POSIX timer expiry.
    pub const SI_TIMER: i32 = -2;
    /// Sent by `tkill`/`tgkill`.
    pub const SI_TKILL: i32 = -6;
    /// Sent by the kernel itself (x86's general-protection fault, a `SIGSEGV` without an
    /// address).
    pub const SI_KERNEL: i32 = 0x80;
    /// SIGSEGV: address not mapped.
    pub const SEGV_MAPERR: i32 = 1;
    /// SIGSEGV: no permission for the access.
    pub const SEGV_ACCERR: i32 = 2;
    /// SIGBUS: misaligned address.
    pub const BUS_ADRALN: i32 = 1;
    /// `SIGBUS`: the address has no backing (a page beyond the end of a mapped file).
    pub const BUS_ADRERR: i32 = 2;
    /// SIGILL: illegal opcode.
    pub const ILL_ILLOPC: i32 = 1;
    /// SIGILL: illegal operand.
    pub const ILL_ILLOPN: i32 = 2;
    /// SIGFPE: integer divide by zero.
    pub const FPE_INTDIV: i32 = 1;
    /// SIGFPE: integer overflow.
    pub const FPE_INTOVF: i32 = 2;
    /// SIGTRAP: breakpoint.
    pub const TRAP_BRKPT: i32 = 1;
    /// SIGTRAP: a single step (x86's trap flag).
    pub const TRAP_TRACE: i32 = 2;
    /// SIGCHLD: the child exited.
    pub const CLD_EXITED: i32 = 1;
    /// SIGCHLD: the child was killed.
    pub const CLD_KILLED: i32 = 2;
    /// SIGCHLD: the child was killed and dumped core.
    pub const CLD_DUMPED: i32 = 3;
    /// SIGCHLD: the child was traced and trapped.
    pub const CLD_TRAPPED: i32 = 4;
    /// SIGCHLD: the child stopped.
    pub const CLD_STOPPED: i32 = 5;
}

impl SigInfo {
    /// A fault raised by an instruction: `signo` with `code`, at data or code address `addr`.
    pub fn fault(signo: Signal, code: i32, addr: u64) -> SigInfo {
        SigInfo { signo, errno: 0, code, fields: SigFields::Fault { addr } }
    }

    /// Converts a host `siginfo_t` (x86_64 layout: the union at byte 16).
    pub fn from_host(info: &libc::siginfo_t) -> SigInfo {
        // SAFETY: siginfo_t is 128 plain bytes.
        let raw: &[u8; 128] = unsafe { &*(info as *const libc::siginfo_t).cast::<[u8; 128]>() };
        let i32_at = |o: usize| i32::from_ne_bytes(raw[o..o + 4].try_into().unwrap_or([0; 4]));
        let i64_at = |o: usize| i64::from_ne_bytes(raw[o..o + 8].try_into().unwrap_or([0; 8]));
        let signo = Signal(low32(i32_at(0)));
        let (errno, code) = (i32_at(4), i32_at(8));
        use crate::abi::{bits64, low32};
        use si_code::*;
        let fields = match signo.0 {
            _ if code == SI_TIMER => {
                SigFields::Timer { tid: i32_at(16), overrun: i32_at(20), value: bits64(i64_at(24)) }
            }
            17 if code > 0 => SigFields::Chld {
                pid: i32_at(16),
                uid: low32(i32_at(20)),
                status: i32_at(24),
                utime: i64_at(32),
                stime: i64_at(40),
            },
            4 | 5 | 7 | 8 | 11 if code > 0 => SigFields::Fault { addr: bits64(i64_at(16)) },
            // SIGIO, or the signal `fcntl(F_SETSIG)` chose (fs/fcntl.c `send_sigio_to_task`:
            // `si_code` is the POLL_* reason, 1 to 6); 31 is SIGSYS (`SYS_SECCOMP` is 1).
            29 if code > 0 => SigFields::Poll { band: i64_at(16), fd: i32_at(24) },
            s if (1..=6).contains(&code) && s != 31 => SigFields::Poll { band: i64_at(16), fd: i32_at(24) },
            _ if code == SI_QUEUE || code == -3 => {
                SigFields::Rt { pid: i32_at(16), uid: low32(i32_at(20)), value: bits64(i64_at(24)) }
            }
            _ => SigFields::Kill { pid: i32_at(16), uid: low32(i32_at(20)) },
        };
        SigInfo { signo, errno, code, fields }
    }
}

/// What an arch's frame builder needs to run one handler.
#[derive(Clone, Copy, Debug)]
pub struct FrameRequest {
    /// The signal (host numbering).
    pub info: SigInfo,
    /// The signal's number in the guest's numbering: the handler's first argument.
    pub guest_signo: u64,
    /// The disposition being run (handler, flags, restorer).
    pub action: SigAction,
    /// The mask to save in the frame's `uc_sigmask` (host-numbered), restored by
    /// `rt_sigreturn`.
    pub old_mask: u64,
    /// The thread's alternate stack at delivery.
    pub altstack: AltStack,
}

impl FrameRequest {
    /// Where the frame goes below: the top of the alternate stack when the handler asked for
    /// it (`SA_ONSTACK`), one is set and the thread is not already on it; `sp` otherwise.
    pub fn stack_top(&self, sp: u64) -> u64 {
        if self.action.flags & sa::ONSTACK != 0 && self.altstack.flags & SS_DISABLE == 0 && !self.altstack.contains(sp)
        {
            self.altstack.sp.wrapping_add(self.altstack.size)
        } else {
            sp
        }
    }
}

impl AltStack {
    /// `true` if `sp` is inside this alternate stack (the kernel's `on_sig_stack`).
    pub fn contains(&self, sp: u64) -> bool {
        self.flags & SS_DISABLE == 0 && sp > self.sp && sp - self.sp <= self.size
    }
}
