//! Guest signals: numbers and names, and the per-process signal state the guest sets up.
//!
//! This issue records dispositions (`rt_sigaction`), the blocked mask (`rt_sigprocmask`) and the
//! alternate stack (`sigaltstack`) so that libc's start-up and `sigaction` round trips see what
//! they wrote; delivering signals into guest handlers (frames, `rt_sigreturn`) is a later step.
//! A guest that sends itself a signal whose disposition is the default ends the way the kernel
//! would end it (terminate or core); see [`SigState::self_signal`].

use std::fmt;

/// A guest signal number (1..=64). On x86_64 and aarch64 guest numbers equal the host's
/// (include/uapi/asm-generic/signal.h); arches that renumber convert at their edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub const SIGSEGV: Signal = Signal(11);
    pub const SIGPIPE: Signal = Signal(13);
    pub const SIGTERM: Signal = Signal(15);
    pub const SIGCHLD: Signal = Signal(17);
    pub const SIGCONT: Signal = Signal(18);
    pub const SIGSTOP: Signal = Signal(19);
    pub const SIGSYS: Signal = Signal(31);
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

/// Per-process signal state.
#[derive(Clone, Debug)]
pub struct SigState {
    /// Dispositions, index `n-1` for signal `n`.
    pub actions: [SigAction; NSIG as usize],
    /// Blocked signals, bit `n-1` for signal `n`.
    pub mask: u64,
    /// The alternate signal stack.
    pub altstack: AltStack,
    /// Signals the guest sent itself while they were blocked, bit `n-1` for signal `n`.
    pub pending: u64,
}

impl Default for SigState {
    fn default() -> Self {
        SigState {
            actions: [SigAction::default(); NSIG as usize],
            mask: 0,
            altstack: AltStack { flags: 2, ..Default::default() },
            pending: 0,
        }
    }
}

/// What happens when the guest sends a signal to itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfSignal {
    /// The process ends by this signal.
    Die,
    /// The process stops (job control) until continued.
    Stop,
    /// Nothing visible happens (ignored, or default-ignore).
    Nothing,
    /// The guest installed a handler; handler delivery is not implemented yet.
    Handler,
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

impl SigState {
    /// Decides what a signal the guest sent to itself does under the current dispositions.
    pub fn self_signal(&self, sig: Signal) -> SelfSignal {
        let act = self.actions[(sig.0 - 1) as usize];
        match act.handler {
            _ if sig == Signal::SIGKILL => SelfSignal::Die,
            _ if sig == Signal::SIGSTOP => SelfSignal::Stop,
            SIG_IGN => SelfSignal::Nothing,
            SIG_DFL => match sig.default_action() {
                DefaultAction::Terminate | DefaultAction::Core => SelfSignal::Die,
                DefaultAction::Stop => SelfSignal::Stop,
                _ => SelfSignal::Nothing,
            },
            _ => SelfSignal::Handler,
        }
    }
}
