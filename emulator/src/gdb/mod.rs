//! `-g PORT` (and `ENDGATE_GDB=PORT`): a GDB remote-protocol server for the guest, built on the
//! `gdbstub` crate (packets, `qSupported`, `vCont`, `qXfer`) with `gdbstub_arch`'s register
//! sets (and endgate's own s390x set and mips64 description). docs/gdb.md describes what it
//! offers and how.
//!
//! How it runs. endgate listens on `127.0.0.1:PORT`, waits for GDB's connection, and stops the
//! guest before its first instruction. A stopped guest thread talks to GDB on its own host
//! thread, holding the global guest lock, so every other guest thread waits (all-stop): at the
//! top of its run loop ([`before_run`]) for breakpoints, watchpoints and steps, inside the
//! system-call hook for caught system calls, in signal delivery for signals. The instances
//! are in serial mode while GDB is attached (no guest code runs without the lock).
//!
//! What it costs. Nothing unless asked: with no `-g`, no hook exists and the run loop reads
//! one flag per `emu_start`. With `-g`, breakpoints are code hooks and watchpoints memory
//! hooks on their own addresses, added when GDB inserts them and removed when it removes them
//! (while a watchpoint exists, also a code hook on every address, which reports the access
//! before the next instruction); a single step is one `emu_start` with a count of 1.

pub mod fpregs;
pub(crate) mod packets;
pub mod regs;
pub(crate) mod relay;
pub mod s390x;
mod target;

use std::collections::BTreeMap;
use std::io::Read as _;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use gdbstub::stub::state_machine::GdbStubStateMachine;
use gdbstub::stub::{DisconnectReason, GdbStub};
use gdbstub::target::ext::breakpoints::WatchKind;
use unicorn_engine::{HookType, UcHookId};

use self::regs::GuestRegs;
use self::target::Debuggee;
use crate::guard::Checked as _;
use crate::guest::{Cpu, Exit};

/// Set once GDB's connection is made; never set without `-g`.
static ENABLED: AtomicBool = AtomicBool::new(false);
/// GDB sent its interrupt byte while the guest ran ([`watch_interrupts`]).
static INTERRUPT: AtomicBool = AtomicBool::new(false);
/// The process generation (`guest::process_generation`) GDB is attached to: a fork child,
/// whose generation is higher, runs free.
static GENERATION: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// `-g` is in effect for this process (GDB connected and has not detached).
#[inline]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Why a guest thread stops for GDB.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// Before the first instruction: no stop packet (GDB asks with `?`).
    Initial,
    /// A breakpoint GDB inserted with `Z0` (`hw` false) or `Z1`.
    Break {
        /// Inserted as a hardware breakpoint.
        hw: bool,
    },
    /// A watchpoint GDB inserted with `Z2`, `Z3` or `Z4`, at the accessed address.
    Watch {
        /// Which access.
        kind: WatchKind,
        /// The guest address accessed.
        addr: u64,
    },
    /// A single step ended.
    Step,
    /// A caught system call, at its entry or its return.
    Syscall {
        /// The guest's system-call number.
        nr: u64,
        /// Entry (true) or return.
        entry: bool,
    },
    /// A signal is about to be delivered (Linux numbering).
    Signal(u32),
    /// GDB's interrupt (Ctrl-C) while the guest ran: reported as SIGINT, which is not
    /// delivered unless GDB passes it.
    Interrupt,
    /// The thread's `fork` made process `child` (GDB asked for fork events): reported as
    /// `fork:p<CHILD>.<CHILD>`.
    Fork {
        /// The child's pid (also its only thread's tid).
        child: i32,
    },
    /// In the child of a fork GDB was told of: no stop packet; the child waits until GDB
    /// turns to it or detaches it ([`relay`]).
    ForkChild,
}

/// What GDB asked the stopped thread to do next.
#[derive(Clone, Copy, Debug, Default)]
pub struct Resume {
    /// Run one instruction, then stop.
    pub step: bool,
    /// The signal to deliver (Linux numbering) or none.
    pub signal: Option<u32>,
}

/// How a stop ended.
#[derive(Clone, Copy, Debug)]
pub enum Outcome {
    /// Run on as GDB asked.
    Resume(Resume),
    /// GDB detached or the connection closed: run on without GDB.
    Detach,
    /// GDB killed the process.
    Kill,
}

/// One GDB connection, for one arch.
trait Session: Send {
    /// Tells GDB that thread `tid` (whose instance is `cpu`) stopped for `event`, and serves
    /// GDB's packets until it resumes the guest.
    fn stop(&mut self, cpu: &mut Cpu<'_>, tid: i32, event: Event) -> Outcome;
    /// Tells GDB the process ended.
    fn exited(&mut self, exit: Exit);
}

/// The session slot of the first process.
static FIRST_SESSION: Mutex<Option<Box<dyn Session>>> = Mutex::new(None);
/// The session slot of this process when it is a fork child that waited for its own GDB
/// (`ENDGATE_GDB_FORK=wait`): a new one, since the parent's may have been locked by a thread
/// the child does not have (the interrupt watcher). Null: [`FIRST_SESSION`].
static CHILD_SESSION: std::sync::atomic::AtomicPtr<Mutex<Option<Box<dyn Session>>>> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

/// This process's session slot.
fn session_slot() -> &'static Mutex<Option<Box<dyn Session>>> {
    // SAFETY: a non-null pointer is a leaked box, never freed.
    unsafe { CHILD_SESSION.load(Ordering::Acquire).as_ref() }.unwrap_or(&FIRST_SESSION)
}

/// The port this process's GDB connected on (a fork child that waits listens on the next).
static PORT: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);
/// `ENDGATE_GDB_FORK=wait`: a fork child waits for its own GDB on the next port.
static FORK_WAIT: AtomicBool = AtomicBool::new(false);

// The environment variable that makes a fork child wait for its own GDB (`wait`) instead of
// running free; endgate takes it out of the guest's environment.
use crate::cli::GDB_FORK_ENV as FORK_ENV;

/// A breakpoint or watchpoint GDB inserted; process-wide, applied to every thread's instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Point {
    /// `Z0` / `Z1` at an address.
    Break {
        /// The instruction's address.
        addr: u64,
        /// `Z1`.
        hw: bool,
    },
    /// `Z2` / `Z3` / `Z4` over `[addr, addr+len)`.
    Watch {
        /// The first byte.
        addr: u64,
        /// How many bytes.
        len: u64,
        /// 0 write, 1 read, 2 access.
        kind: u8,
    },
}

/// The points GDB inserted, and a generation that moves when they change.
struct Points {
    generation: u64,
    set: Vec<Point>,
}

static POINTS: Mutex<Points> = Mutex::new(Points { generation: 0, set: Vec::new() });

/// The guest threads of the process, by tid, with their instances (as addresses).
static THREADS: Mutex<BTreeMap<i32, usize>> = Mutex::new(BTreeMap::new());

/// The `siginfo` of the last signal a thread stopped for, with the thread (`qXfer:siginfo`).
static LAST_SIGINFO: Mutex<Option<(i32, crate::signal::SigInfo)>> = Mutex::new(None);

/// The system calls GDB catches (`None`: all of them).
static CATCH_FILTER: Mutex<Option<Vec<u64>>> = Mutex::new(None);

/// One guest thread's side of the server.
#[derive(Default)]
struct Local {
    /// The [`Points`] generation this instance's hooks follow.
    applied: u64,
    /// Its hooks for [`Points`].
    hooks: Vec<UcHookId>,
    /// A stop a hook saw, reported at the top of the run loop.
    pending: Option<Event>,
    /// The next `emu_start` runs one instruction.
    step: bool,
    /// A watchpoint's access, reported before the next instruction ([`sync_hooks`]).
    watch_hit: Option<Event>,
    /// A fork child that waits for its own GDB: it listens at the top of the run loop.
    attach_child: bool,
}

thread_local! {
    static LOCAL: std::cell::RefCell<Local> = std::cell::RefCell::new(Local::default());
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The error `-g` reports when it cannot listen or accept.
#[derive(Debug, thiserror::Error)]
#[error("gdb server on port {port}: {err}")]
pub struct ServeError {
    port: u16,
    err: std::io::Error,
}

/// Listens on `127.0.0.1:port`, waits for GDB, and serves it until it resumes the guest,
/// which `cpu` (the first thread, its start state set) has not started running.
pub fn start(port: u16, cpu: &mut Cpu<'static>) -> Result<(), ServeError> {
    FORK_WAIT.store(std::env::var_os(FORK_ENV).is_some_and(|v| v == "wait"), Ordering::SeqCst);
    serve_from(port, cpu)
}

/// [`start`]'s work, also a waiting fork child's ([`fork_child`]): listen, accept, make the
/// session, stop before the next instruction.
fn serve_from(port: u16, cpu: &mut Cpu<'_>) -> Result<(), ServeError> {
    use std::os::fd::AsRawFd as _;
    let fail = |err| ServeError { port, err };
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(fail)?;
    let asked = port;
    let port = listener.local_addr().map_err(fail)?.port();
    if asked == 0 {
        // `-g 0`: the host chose a free port; GDB needs to be told which.
        crate::elog!("endgate: gdb: waiting for GDB on 127.0.0.1:{port}");
    }
    let fail = |err| ServeError { port, err };
    let (stream, _) = listener.accept().map_err(fail)?;
    drop(listener);
    let _ = stream.set_nodelay(true);
    let watcher = stream.try_clone().map_err(fail)?;
    let conn_fd = stream.as_raw_fd();
    let session = open_session(stream, cpu, None).map_err(fail)?;
    *lock(session_slot()) = Some(session);
    relay::set_conn(conn_fd);
    PORT.store(port, Ordering::SeqCst);
    GENERATION.store(crate::guest::process_generation(), Ordering::SeqCst);
    ENABLED.store(true, Ordering::SeqCst);
    crate::thread::running::force_serial();
    crate::syscall::set_catch_stop(syscall_hook);
    crate::syscall::fork::set_fork_hooks(crate::syscall::fork::ForkHooks {
        before: before_fork,
        parent: fork_parent,
        child: fork_child,
    });
    // Every instance reads the stop flags at block starts from now on, so that GDB's
    // interrupt can stop a running guest.
    crate::signal::host::need_async_stops();
    watch_interrupts(watcher);
    register_thread(cpu);
    stop(cpu, Event::Initial);
    Ok(())
}

/// A session for `cpu`'s arch on the connection `stream`; `replay`, GDB's `qSupported` as it
/// was sent, primes a fork child's session with what GDB said it supports (the answers are
/// dropped).
fn open_session(stream: TcpStream, cpu: &mut Cpu<'_>, replay: Option<&[u8]>) -> std::io::Result<Box<dyn Session>> {
    let reader = stream.try_clone()?;
    Ok(match cpu.get_data().arch.info().name {
        "aarch64" => Server::<gdbstub_arch::aarch64::AArch64>::open(stream, reader, cpu, replay),
        "x86_64" => Server::<gdbstub_arch::x86::X86_64_SSE>::open(stream, reader, cpu, replay),
        "i686" => Server::<gdbstub_arch::x86::X86_SSE>::open(stream, reader, cpu, replay),
        "armv7l" => Server::<fpregs::ArmVfp>::open(stream, reader, cpu, replay),
        "riscv64" => Server::<fpregs::Riscv64F>::open(stream, reader, cpu, replay),
        "mips64" => Server::<gdbstub_arch::mips::Mips64>::open(stream, reader, cpu, replay),
        "s390x" => Server::<s390x::S390x>::open(stream, reader, cpu, replay),
        other => return Err(std::io::Error::other(format!("no GDB register layout for {other}"))),
    })
}

/// Whether endgate offers GDB fork events (`fork-events+`): unless `ENDGATE_GDB_FORK=wait`
/// asks for a GDB per process.
fn offers_fork_events() -> bool {
    !FORK_WAIT.load(Ordering::Relaxed)
}

/// A host thread that reads GDB's interrupt byte (0x03, Ctrl-C) while the guest runs: it
/// looks only when no stop is being served (a stop reads the connection itself), takes the
/// byte, and raises the preemption request every instance reads at block starts; the thread
/// that stops serves the interrupt ([`before_run`]). A thread blocked in a host system call
/// stops when the call returns.
fn watch_interrupts(stream: TcpStream) {
    use std::os::fd::AsRawFd as _;
    let watch = move || loop {
        let mut pfd = libc::pollfd { fd: stream.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd for a descriptor this thread owns (a clone of the socket).
        let r = unsafe { libc::poll(&mut pfd, 1, 200) };
        if r <= 0 {
            continue;
        }
        {
            let Ok(session) = session_slot().try_lock() else { continue };
            if session.is_none() {
                return;
            }
            // Without waiting: a stop served since the poll may have read the bytes, and a
            // blocking look would then hold the session's lock until GDB sent more, which it
            // does not before that stop's thread, waiting for the lock, answers.
            let fd = stream.as_raw_fd();
            let peek = |flags| {
                let mut b = [0u8];
                // SAFETY: one byte into a local buffer, from a descriptor this thread owns.
                let n = unsafe { libc::recv(fd, b.as_mut_ptr().cast(), 1, flags | libc::MSG_DONTWAIT) };
                (n, b[0])
            };
            match peek(libc::MSG_PEEK) {
                (1, 0x03) => {
                    let _ = peek(0);
                    INTERRUPT.store(true, Ordering::SeqCst);
                    crate::thread::preempt::request();
                    continue;
                }
                (0, _) => return,
                (n, _) if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::WouldBlock => return,
                _ => {}
            }
        }
        // Bytes for the next stop: look again later.
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // Without the watcher only the interrupt is lost: the rest of the server works.
    let _ = crate::thread::spawn_host(std::thread::Builder::new().name("endgate-gdb".into()), watch);
}

/// Records the calling thread's instance in the thread list GDB sees.
pub fn register_thread(cpu: &mut Cpu<'_>) {
    if enabled() {
        lock(&THREADS).insert(crate::thread::gettid(), std::ptr::from_mut(cpu) as usize);
    }
}

/// Removes the calling thread from the thread list (it ends).
pub fn unregister_thread() {
    if enabled() {
        lock(&THREADS).remove(&crate::thread::gettid());
    }
}

/// Stops the calling thread for GDB and serves it; returns what GDB asked for. The caller
/// holds the global guest lock.
pub fn stop(cpu: &mut Cpu<'_>, event: Event) -> Resume {
    // Without GDB (a fork child running free, a GDB that detached) a signal goes on to the
    // guest, as after a detach under ptrace (and GDB's `D` delivers the signal a stop was for).
    let free = Resume { step: false, signal: if let Event::Signal(sig) = event { Some(sig) } else { None } };
    if forked() {
        return free;
    }
    let tid = crate::thread::gettid();
    if !matches!(event, Event::Signal(_)) {
        // `$_siginfo` is the signal's only while the thread is stopped for it.
        *lock(&LAST_SIGINFO) = None;
    }
    let outcome = {
        let mut s = lock(session_slot());
        match s.as_mut() {
            Some(session) => session.stop(cpu, tid, event),
            None => return free,
        }
    };
    match outcome {
        Outcome::Resume(r) => {
            LOCAL.with(|l| l.borrow_mut().step = r.step);
            r
        }
        Outcome::Detach => {
            detach();
            free
        }
        Outcome::Kill => {
            // GDB's `kill`: the process dies by SIGKILL, which nothing can catch.
            // SAFETY: signals the calling process; _exit is the fallback that cannot fail.
            unsafe {
                libc::kill(libc::getpid(), libc::SIGKILL);
                libc::_exit(128 + libc::SIGKILL)
            }
        }
    }
}

/// GDB is gone: every point goes, the guest runs free.
fn detach() {
    *lock(session_slot()) = None;
    // Processes of the guest waiting for GDB's connection run free too; the connection's
    // descriptor is closed.
    relay::let_go();
    relay::set_conn(-1);
    let mut p = lock(&POINTS);
    p.set.clear();
    p.generation += 1;
    crate::syscall::set_catching(false);
}

/// The top of the run loop, before `emu_start`, when [`enabled`]: serves a stop a hook saw,
/// brings the instance's hooks up to date, and returns the instruction count for `emu_start`
/// (1 for a single step, 0 to run on).
pub fn before_run(cpu: &mut Cpu<'_>) -> usize {
    if forked() {
        if LOCAL.with(|l| std::mem::take(&mut l.borrow_mut().attach_child)) {
            attach_child(cpu);
        }
        if forked() {
            // Running free: no stop of the parent's session is served here.
            LOCAL.with(|l| {
                let mut l = l.borrow_mut();
                l.pending = None;
                l.step = false;
            });
            sync_hooks(cpu);
            return 0;
        }
    }
    let mut pending = LOCAL.with(|l| l.borrow_mut().pending.take());
    if pending.is_none() && INTERRUPT.swap(false, Ordering::SeqCst) {
        pending = Some(Event::Interrupt);
    }
    if let Some(ev) = pending {
        let r = stop(cpu, ev);
        if r.signal.is_some() {
            // A signal GDB passes on after a breakpoint or step: queued for delivery.
            queue_signal(cpu, r.signal);
        }
        crate::guest::apply_invalidate(cpu);
    }
    sync_hooks(cpu);
    if LOCAL.with(|l| l.borrow().step) {
        1
    } else {
        0
    }
}

/// After `emu_start` returned, when [`enabled`]: a finished single step becomes a pending stop
/// (unless a hook recorded another). `retry` is true when the engine must run the same
/// instruction again (the step has not happened).
pub fn after_run(retry: bool) {
    LOCAL.with(|l| {
        let mut l = l.borrow_mut();
        if l.step && !retry {
            l.step = false;
            if l.pending.is_none() {
                l.pending = Some(Event::Step);
            }
        }
    });
}

fn queue_signal(cpu: &mut Cpu<'_>, sig: Option<u32>) {
    if let Some(sig) = sig {
        let Some(signo) = (1..=crate::signal::NSIG).contains(&sig).then_some(crate::signal::Signal(sig)) else {
            return;
        };
        let t = cpu.get_data_mut();
        t.sig.pending |= crate::signal::bit(signo);
        t.sig.queue.push(crate::signal::SigInfo {
            signo,
            errno: 0,
            code: 0,
            fields: crate::signal::SigFields::Kill { pid: 0, uid: 0 },
        });
    }
}

/// Makes this instance's hooks match the process's [`Points`].
fn sync_hooks(cpu: &mut Cpu<'_>) {
    let (generation, set) = {
        let p = lock(&POINTS);
        (p.generation, p.set.clone())
    };
    let applied = LOCAL.with(|l| l.borrow().applied);
    if applied == generation {
        return;
    }
    let old: Vec<UcHookId> = LOCAL.with(|l| std::mem::take(&mut l.borrow_mut().hooks));
    for h in old {
        // A hook this instance added and has not removed: unicorn 2.1.5 removes it and
        // answers OK (it refuses no id).
        let _ = cpu.remove_hook(h);
    }
    let mut hooks = Vec::new();
    for &p in &set {
        let added = match p {
            Point::Break { addr, hw } => cpu.add_code_hook(addr, addr, move |cpu, pc, _| {
                crate::guard::guarded(&"gdb breakpoint hook", || {
                    if pc == addr {
                        hit(cpu, Event::Break { hw });
                    }
                });
            }),
            Point::Watch { addr, len, kind } => {
                let end = addr.saturating_add(len.max(1) - 1);
                let (ty, wk) = match kind {
                    0 => (HookType::MEM_WRITE, WatchKind::Write),
                    1 => (HookType::MEM_READ, WatchKind::Read),
                    _ => (HookType::MEM_READ | HookType::MEM_WRITE, WatchKind::ReadWrite),
                };
                cpu.add_mem_hook(ty, addr, end, move |_, _, at, _, _| {
                    crate::guard::guarded(&"gdb watchpoint hook", || {
                        LOCAL.with(|l| {
                            let mut l = l.borrow_mut();
                            if l.watch_hit.is_none() {
                                l.watch_hit = Some(Event::Watch { kind: wk, addr: at });
                            }
                        });
                    });
                    true
                })
            }
        };
        if let Ok(h) = added {
            hooks.push(h);
        }
    }
    // A memory hook runs before its access, and an engine stopped from it leaves the pc at
    // the accessing instruction on some arches (x86, s390x), whose store would run again on
    // resume. So the access is only noted, and a code hook over every address, present while
    // a watchpoint is, stops before the next instruction: the access done, the pc past it.
    if !hooks.is_empty() && set.iter().any(|p| matches!(p, Point::Watch { .. })) {
        let after = cpu.add_code_hook(1, 0, |cpu, _, _| {
            crate::guard::guarded(&"gdb watchpoint hook", || {
                if let Some(ev) = LOCAL.with(|l| l.borrow_mut().watch_hit.take()) {
                    hit(cpu, ev);
                }
            });
        });
        if let Ok(h) = after {
            hooks.push(h);
        }
    }
    // Code translated before was made without these hooks (and with direct loads, which a
    // read watchpoint must not have).
    cpu.flush_tb();
    LOCAL.with(|l| {
        let mut l = l.borrow_mut();
        l.hooks = hooks;
        l.applied = generation;
    });
}

/// A hook saw a stop: recorded for [`before_run`], and the engine stops (before the
/// instruction for a code hook, after the access for a memory hook).
fn hit(cpu: &mut Cpu<'_>, ev: Event) {
    LOCAL.with(|l| {
        let mut l = l.borrow_mut();
        if l.pending.is_none() {
            l.pending = Some(ev);
        }
    });
    cpu.stop();
}

/// Whether GDB catches system call `nr` (`syscall` asks only while GDB catches some).
fn catching(nr: u64) -> bool {
    lock(&CATCH_FILTER).as_ref().is_none_or(|f| f.contains(&nr))
}

/// The system-call layer's stop for caught calls ([`crate::syscall::set_catch_stop`]).
fn syscall_hook(cpu: &mut Cpu<'_>, nr: u64, entry: bool) {
    if catching(nr) {
        syscall_stop(cpu, nr, entry);
    }
}

/// A caught system call's entry or return, inside the system-call hook: GDB is served here.
/// A change of GDB's points made meanwhile stops the engine after the call, so the run loop
/// applies it before the next guest instruction; so does a single step.
pub fn syscall_stop(cpu: &mut Cpu<'_>, nr: u64, entry: bool) {
    let before = lock(&POINTS).generation;
    let r = stop(cpu, Event::Syscall { nr, entry });
    queue_signal(cpu, r.signal);
    let changed = lock(&POINTS).generation != before;
    if changed || r.step || r.signal.is_some() {
        crate::syscall::stop_after_call(cpu);
    }
}

/// A signal about to be delivered to the calling thread: GDB sees it first (and its
/// `siginfo` as `$_siginfo`) and says whether it is delivered (the same or another signal) or
/// dropped. Linux numbering.
pub fn signal_stop(cpu: &mut Cpu<'_>, info: &crate::signal::SigInfo) -> Option<u32> {
    let sig = info.signo.0;
    *lock(&LAST_SIGINFO) = Some((crate::thread::gettid(), *info));
    // A step that ended in this signal is reported as the signal.
    LOCAL.with(|l| {
        let mut l = l.borrow_mut();
        if matches!(l.pending, Some(Event::Step)) {
            l.pending = None;
        }
    });
    stop(cpu, Event::Signal(sig)).signal
}

/// The process ends: GDB is told how (`W` or `X`).
pub fn process_exit(exit: Exit) {
    if !enabled() || forked() {
        return;
    }
    if let Some(mut s) = lock(session_slot()).take() {
        s.exited(exit);
    }
}

/// In the child of a guest fork, right after the fork (the caller holds the guest lock, the
/// child has only this thread): the child leaves its parent's GDB, and says so on stderr
/// with its pid. By default it runs free; with `ENDGATE_GDB_FORK=wait` it stops once the
/// fork returned (at the top of the run loop) and waits for a GDB of its own on the parent's
/// port plus one, as a second `gdb` with `target remote :PORT+1` attaches to it.
pub fn fork_child(cpu: &mut Cpu<'_>) {
    // With fork events, GDB decides: the child joins the connection and waits.
    if relay::child_side() {
        if join_parent_gdb(cpu) {
            return;
        }
        relay::forget_peers();
    }
    // The child of a process that itself runs free, or whose GDB detached, has nothing to
    // leave (a slot locked at the fork, by the parent's interrupt watcher, had a session).
    let detached = matches!(session_slot().try_lock().as_deref(), Ok(None));
    if !enabled() || detached || FORKED_AWAY.load(Ordering::Relaxed) || !forked() {
        return;
    }
    let pid = std::process::id();
    let next = PORT.load(Ordering::Relaxed).checked_add(1);
    match next {
        Some(port) if FORK_WAIT.load(Ordering::Relaxed) => {
            crate::elog!("endgate: gdb: fork child {pid} waits for GDB on 127.0.0.1:{port}");
            LOCAL.with(|l| l.borrow_mut().attach_child = true);
            crate::syscall::stop_after_call(cpu);
        }
        _ => crate::elog!(
            "endgate: gdb: fork child {pid} runs free (with {FORK_ENV}=wait it would wait for GDB on port {})",
            next.map_or_else(|| "-".to_string(), |p| p.to_string())
        ),
    }
}

/// Before a guest fork's host fork (the caller holds the guest lock): with fork events on,
/// the socket pair through which parent and child will share GDB's connection.
fn before_fork() {
    if enabled() && !forked() && relay::fork_events() && lock(session_slot()).is_some() {
        relay::before_fork();
    }
}

/// In the parent after a guest fork made `child`: with fork events on, the thread stops for
/// GDB once the call has returned (at the top of the run loop), reporting the fork.
fn fork_parent(cpu: &mut Cpu<'_>, child: i32) {
    if relay::parent_side(child) {
        LOCAL.with(|l| l.borrow_mut().pending = Some(Event::Fork { child }));
        crate::syscall::stop_after_call(cpu);
    }
}

/// A fork child GDB was told of: a session of its own on a copy of the connection (primed
/// with GDB's `qSupported`), GDB's points kept (GDB takes them out itself before it
/// detaches the child), its one thread listed; it stops once the fork returned and waits
/// for GDB to turn to it ([`Event::ForkChild`]). `false` if the session cannot be made.
fn join_parent_gdb(cpu: &mut Cpu<'_>) -> bool {
    let Some(stream) = relay::conn_copy() else { return false };
    let Ok(watcher) = stream.try_clone() else { return false };
    let replay = relay::qsupported();
    let Ok(session) = open_session(stream, cpu, Some(&replay)) else { return false };
    // A new slot: the parent's may have been locked by its interrupt watcher at the fork.
    CHILD_SESSION.store(Box::leak(Box::new(Mutex::new(Some(session)))), Ordering::Release);
    INTERRUPT.store(false, Ordering::SeqCst);
    GENERATION.store(crate::guest::process_generation(), Ordering::SeqCst);
    FORKED_AWAY.store(false, Ordering::SeqCst);
    lock(&THREADS).clear();
    register_thread(cpu);
    watch_interrupts(watcher);
    LOCAL.with(|l| l.borrow_mut().pending = Some(Event::ForkChild));
    crate::syscall::stop_after_call(cpu);
    true
}

/// A fork child's own GDB session on the parent's port plus one ([`fork_child`]); on an
/// error (the port is taken) the child runs free.
fn attach_child(cpu: &mut Cpu<'_>) {
    let Some(port) = PORT.load(Ordering::Relaxed).checked_add(1) else { return };
    CHILD_SESSION.store(Box::leak(Box::new(Mutex::new(None))), Ordering::Release);
    INTERRUPT.store(false, Ordering::SeqCst);
    GENERATION.store(crate::guest::process_generation(), Ordering::SeqCst);
    FORKED_AWAY.store(false, Ordering::SeqCst);
    if let Err(e) = serve_from(port, cpu) {
        crate::elog!("endgate: {e}; the fork child runs free");
        FORKED_AWAY.store(true, Ordering::SeqCst);
    }
}

/// Set in the child of a guest fork once it noticed ([`forked`]).
static FORKED_AWAY: AtomicBool = AtomicBool::new(false);

/// `true` in the child of a guest fork (until it has a GDB of its own, [`attach_child`]).
/// GDB follows the parent, so the child leaves it: its
/// points go (its hooks at its next run-loop turn), and it never touches the session, whose
/// lock the parent's interrupt watcher may have held when the process forked (that thread
/// does not exist in the child), nor the connection, which is the parent's.
fn forked() -> bool {
    if FORKED_AWAY.load(Ordering::Relaxed) {
        return true;
    }
    if crate::guest::process_generation() == GENERATION.load(Ordering::Relaxed) {
        return false;
    }
    FORKED_AWAY.store(true, Ordering::SeqCst);
    let me = crate::thread::gettid();
    lock(&THREADS).retain(|&t, _| t == me);
    let mut p = lock(&POINTS);
    p.set.clear();
    p.generation += 1;
    crate::syscall::set_catching(false);
    true
}

/// The connection `gdbstub` writes to: its packets go out unchanged, except that its
/// `qSupported` reply also offers the two `qXfer` objects endgate serves itself
/// ([`packets::own`]).
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    /// Output is dropped (a fork child's session replaying GDB's `qSupported`).
    mute: bool,
}

impl gdbstub::conn::Connection for Conn {
    type Error = std::io::Error;

    fn write(&mut self, byte: u8) -> std::io::Result<()> {
        self.buf.push(byte);
        Ok(())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(buf);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut out = std::mem::take(&mut self.buf);
        if self.mute {
            return Ok(());
        }
        packets::offer_own(&mut out);
        if relay::fork_events() {
            packets::fix_process_ids(&mut out, std::process::id());
        }
        std::io::Write::write_all(&mut self.stream, &out)?;
        std::io::Write::flush(&mut self.stream)
    }
}

impl Conn {
    /// Sends an acknowledgement and the packet `body` (framed, checksummed).
    fn send_own(&mut self, body: &[u8]) -> std::io::Result<()> {
        std::io::Write::write_all(&mut self.stream, &packets::frame(body, true))?;
        std::io::Write::flush(&mut self.stream)
    }
}

/// The GDB connection of one arch: the stub's state machine and the target it drives.
struct Server<A: GuestRegs> {
    machine: Option<GdbStubStateMachine<'static, Debuggee<A>, Conn>>,
    reader: std::io::BufReader<TcpStream>,
    /// The packet being read, held back until it is known whether endgate answers it.
    packet: packets::Splitter,
    target: Debuggee<A>,
}

impl<A: GuestRegs + 'static> Server<A>
where
    Debuggee<A>: gdbstub::target::Target<Arch = A, Error = &'static str>,
{
    fn open(stream: TcpStream, reader: TcpStream, cpu: &mut Cpu<'_>, replay: Option<&[u8]>) -> Box<dyn Session> {
        let target = Debuggee::new(cpu);
        let mut server = Server {
            machine: None,
            reader: std::io::BufReader::new(reader),
            packet: packets::Splitter::default(),
            target,
        };
        match GdbStub::new(Conn { stream, buf: Vec::new(), mute: replay.is_some() })
            .run_state_machine(&mut server.target)
        {
            Ok(m) => server.machine = Some(m),
            Err(e) => crate::elog!("endgate: gdb: {e}"),
        }
        if let Some(bytes) = replay {
            let mut m = server.machine.take();
            for &b in bytes {
                m = match m {
                    Some(GdbStubStateMachine::Idle(inner)) => inner.incoming_data(&mut server.target, b).ok(),
                    other => other,
                };
            }
            if let Some(GdbStubStateMachine::Idle(mut inner)) = m {
                inner.borrow_conn().mute = false;
                server.machine = Some(GdbStubStateMachine::Idle(inner));
            }
        }
        Box::new(server)
    }
}

// SAFETY: the target's instance pointer is set only while the thread that owns the instance
// serves a stop, holding the session's lock.
unsafe impl<A: GuestRegs> Send for Server<A> {}

impl<A: GuestRegs + 'static> Session for Server<A>
where
    Debuggee<A>: gdbstub::target::Target<Arch = A, Error = &'static str>,
{
    fn stop(&mut self, cpu: &mut Cpu<'_>, tid: i32, event: Event) -> Outcome {
        self.target.attach(cpu, tid);
        let outcome = self.serve(tid, event);
        self.target.detach_cpu();
        outcome
    }

    fn exited(&mut self, exit: Exit) {
        use gdbstub::stub::MultiThreadStopReason as R;
        let reason = match exit {
            Exit::Code(c) => R::Exited(crate::abi::low8(c)),
            Exit::Signal { sig, .. } => R::Terminated(target::gdb_signal(sig.0)),
            Exit::Internal => R::Exited(70),
        };
        if let Some(GdbStubStateMachine::Running(m)) = self.machine.take() {
            let _ = m.report_stop(&mut self.target, reason);
        }
        // Another process of the guest that GDB debugs goes on with the connection.
        if relay::release() {
            return;
        }
        // A close with bytes unread (GDB's acknowledgement) would send a reset, which can
        // reach GDB before it read the exit packet: end the sending side, and read until GDB
        // closes its own (it does once it has the exit), for at most two seconds.
        let s = self.reader.get_ref();
        let _ = s.shutdown(std::net::Shutdown::Write);
        let _ = s.set_read_timeout(Some(std::time::Duration::from_secs(2)));
        let mut buf = [0u8; 256];
        while matches!(self.reader.read(&mut buf), Ok(n) if n > 0) {}
    }
}

impl<A: GuestRegs + 'static> Server<A>
where
    Debuggee<A>: gdbstub::target::Target<Arch = A, Error = &'static str>,
{
    fn serve(&mut self, tid: i32, event: Event) -> Outcome {
        let Some(mut m) = self.machine.take() else { return Outcome::Detach };
        if let Some(reason) = target::stop_reason(event, tid) {
            m = match m {
                GdbStubStateMachine::Running(r) => match r.report_stop(&mut self.target, reason) {
                    Ok(m) => m,
                    Err(_) => return Outcome::Detach,
                },
                other => other,
            };
        }
        // Bytes to serve before reading the connection (handed over by a peer process).
        let mut queued = std::collections::VecDeque::new();
        if matches!(event, Event::ForkChild) {
            // SAFETY: no arguments.
            let parent = unsafe { libc::getppid() };
            match relay::wait(parent) {
                relay::Wake::Serve(bytes) => queued.extend(bytes),
                relay::Wake::Gone => {}
                relay::Wake::Detach => return Outcome::Detach,
            }
        }
        loop {
            m = match m {
                GdbStubStateMachine::Idle(mut inner) => {
                    let byte = match queued.pop_front() {
                        Some(b) => b,
                        None => {
                            let mut byte = [0u8];
                            match self.reader.read(&mut byte) {
                                Ok(1) => {}
                                _ => return Outcome::Detach,
                            }
                            byte[0]
                        }
                    };
                    let pass = match self.packet.feed(byte) {
                        packets::Unit::Wait => Vec::new(),
                        packets::Unit::Pass(bytes) => {
                            if bytes.starts_with(b"$qSupported") {
                                relay::note_qsupported(&bytes);
                            }
                            bytes
                        }
                        packets::Unit::Own(body) if relay::claims(&body) => {
                            let me = i32::try_from(std::process::id()).unwrap_or(0);
                            let reply: &[u8] = match relay::route(&body, me, &relay::peer_pids()) {
                                relay::Route::Mine => {
                                    let pass = packets::frame(&body, false);
                                    m = match self.feed(GdbStubStateMachine::Idle(inner), &pass) {
                                        Ok(m) => m,
                                        Err(o) => return o,
                                    };
                                    continue;
                                }
                                relay::Route::Reply(r) => r,
                                relay::Route::DetachPeer(p) => {
                                    if relay::detach_peer(p) {
                                        b"OK"
                                    } else {
                                        b"E01"
                                    }
                                }
                                relay::Route::KillPeer(p) => {
                                    if relay::kill_peer(p) {
                                        b"OK"
                                    } else {
                                        b"E01"
                                    }
                                }
                                relay::Route::Handover(p) => {
                                    // The packet, and whatever GDB sent after it, are the peer's.
                                    let mut bytes = packets::frame(&body, false);
                                    let rest = self.reader.buffer().to_vec();
                                    std::io::BufRead::consume(&mut self.reader, rest.len());
                                    bytes.extend(rest);
                                    bytes.extend(queued.drain(..));
                                    match relay::handover(p, bytes) {
                                        relay::Wake::Serve(b) => {
                                            queued.extend(b);
                                            b""
                                        }
                                        relay::Wake::Gone => b"E01",
                                        relay::Wake::Detach => return Outcome::Detach,
                                    }
                                }
                            };
                            if !reply.is_empty() && inner.borrow_conn().send_own(reply).is_err() {
                                return Outcome::Detach;
                            }
                            Vec::new()
                        }
                        packets::Unit::Own(body) => {
                            let reply = self.own_reply(&body);
                            if inner.borrow_conn().send_own(&reply).is_err() {
                                return Outcome::Detach;
                            }
                            Vec::new()
                        }
                    };
                    match self.feed(GdbStubStateMachine::Idle(inner), &pass) {
                        Ok(m) => m,
                        Err(o) => return o,
                    }
                }
                GdbStubStateMachine::Running(mut inner) => {
                    // `gdbstub` leaves the acknowledgement of a resume (`vCont`) unflushed until
                    // the stop reply; GDB sends the packet again after `remotetimeout` (2 s)
                    // without it, and the copy would resume the guest again past the next
                    // stop. Send it now.
                    if gdbstub::conn::Connection::flush(inner.borrow_conn()).is_err() {
                        return Outcome::Detach;
                    }
                    self.machine = Some(GdbStubStateMachine::Running(inner));
                    return Outcome::Resume(self.target.take_resume());
                }
                GdbStubStateMachine::CtrlCInterrupt(inner) => {
                    let reason = target::stop_reason(Event::Signal(2), tid);
                    match inner.interrupt_handled(&mut self.target, reason) {
                        Ok(m) => m,
                        Err(_) => return Outcome::Detach,
                    }
                }
                GdbStubStateMachine::Disconnected(inner) => {
                    // GDB detached or killed this process: another of the guest's that it
                    // debugs goes on with the connection.
                    relay::release();
                    return match inner.get_reason() {
                        DisconnectReason::Kill => Outcome::Kill,
                        _ => Outcome::Detach,
                    };
                }
            };
        }
    }

    /// Feeds `bytes` from GDB to the idle state machine `m`; an error ends the session.
    fn feed(
        &mut self,
        mut m: GdbStubStateMachine<'static, Debuggee<A>, Conn>,
        bytes: &[u8],
    ) -> Result<GdbStubStateMachine<'static, Debuggee<A>, Conn>, Outcome> {
        for &b in bytes {
            m = match m {
                GdbStubStateMachine::Idle(inner) => match inner.incoming_data(&mut self.target, b) {
                    Ok(m) => m,
                    Err(e) => {
                        crate::elog!("endgate: gdb: {e}");
                        return Err(Outcome::Detach);
                    }
                },
                other => other,
            };
        }
        Ok(m)
    }
}

impl<A: GuestRegs + 'static> Server<A>
where
    Debuggee<A>: gdbstub::target::Target<Arch = A, Error = &'static str>,
{
    /// The reply to a packet endgate answers itself.
    fn own_reply(&mut self, body: &[u8]) -> Vec<u8> {
        let Some((object, offset, length)) = packets::parse_xfer(body) else { return b"E01".to_vec() };
        let data = match object {
            "threads" => packets::threads_xml(std::process::id(), &thread_ids(), &relay::peer_pids()).into_bytes(),
            "siginfo" => {
                let last = *lock(&LAST_SIGINFO);
                let me = self.target.stopped_tid();
                match (last, self.target.stopped_cpu()) {
                    (Some((tid, info)), Some(cpu)) if tid == me => match packets::guest_siginfo(cpu, &info) {
                        Some(d) => d,
                        None => return b"E01".to_vec(),
                    },
                    _ => return b"E01".to_vec(),
                }
            }
            _ => return Vec::new(),
        };
        packets::xfer_reply(&data, offset, length)
    }
}

/// Marks the points changed (a `Z` or `z` packet).
fn points_changed(set: impl FnOnce(&mut Vec<Point>) -> bool) -> bool {
    let mut p = lock(&POINTS);
    let changed = set(&mut p.set);
    if changed {
        p.generation += 1;
    }
    changed
}

/// GDB's `QCatchSyscalls`: `Some(filter)` to catch (an empty filter: all), `None` to stop.
fn set_catching(filter: Option<Vec<u64>>) {
    match filter {
        Some(f) => {
            *lock(&CATCH_FILTER) = if f.is_empty() { None } else { Some(f) };
            crate::syscall::set_catching(true);
        }
        None => crate::syscall::set_catching(false),
    }
}

/// The instance of guest thread `tid`, as recorded by [`register_thread`].
fn thread_cpu(tid: i32) -> Option<usize> {
    lock(&THREADS).get(&tid).copied()
}

/// The guest threads' ids.
fn thread_ids() -> Vec<i32> {
    lock(&THREADS).keys().copied().collect()
}
