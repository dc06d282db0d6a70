//! Preemption: how the thread holding the global guest lock is made to give way.
//!
//! A guest thread that never makes a system call (a computation, or a spin on a flag another
//! thread will set) would keep the lock for ever. A timer thread ([`start_timer`]) looks every
//! [`TICK`]; when another thread has waited for the lock and it has not changed hands since
//! the previous tick, it raises one process-wide flag ([`request`]), mirrored into a stop byte
//! of every guest thread's instance, which each instance of a threaded process reads at the
//! start of each translation block (`install_stop_flags` in [`crate::signal::host`], done by
//! the run loop once the process has a second thread) and stops emulation there, never inside
//! an instruction (see [`crate::signal::host`]). The run loop then lowers the flag and its
//! mirrors ([`clear`]) and gives way.
//!
//! One flag serves every thread because only the lock holder runs guest code; a flag that
//! stays up across a handoff costs the next holder one extra stop.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

/// How often the timer looks, which is also the shortest time slice a thread gets while others
/// wait (the longest is about twice this).
pub const TICK: Duration = Duration::from_millis(5);

/// Raised by the timer: the lock holder is to stop at its next block.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The process the timer thread runs in (0: none yet; a `fork` child has none of its own).
static TIMER_PID: AtomicI32 = AtomicI32::new(0);

/// The timer thread's host thread id (0 until it runs).
static TIMER_TID: AtomicI32 = AtomicI32::new(0);

/// The thread id of this process's timer thread, which is endgate's and not a guest thread
/// (0: the process has none).
pub fn timer_tid() -> i32 {
    // SAFETY: no arguments.
    let pid = unsafe { libc::getpid() };
    if TIMER_PID.load(Ordering::Relaxed) == pid {
        TIMER_TID.load(Ordering::Relaxed)
    } else {
        0
    }
}

/// Asks the lock holder to stop at its next block.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
    super::running::set_preempt_all(true);
}

/// Whether a request is up.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Lowers the request (the run loop, after emulation stopped).
#[inline]
pub fn clear() {
    if REQUESTED.load(Ordering::Relaxed) {
        REQUESTED.store(false, Ordering::SeqCst);
        super::running::set_preempt_all(false);
    }
}

/// Starts the timer thread, once per process (again in a `fork` child that had one in its
/// parent: threads do not survive a fork).
pub fn start_timer() {
    // SAFETY: no arguments.
    let pid = unsafe { libc::getpid() };
    if TIMER_PID.swap(pid, Ordering::Relaxed) == pid {
        return;
    }
    STOP.store(false, Ordering::Relaxed);
    TIMER_TID.store(0, Ordering::Relaxed);
    let spawn = super::spawn_host(std::thread::Builder::new().name("endgate-preempt".into()), || {
        TIMER_TID.store(super::gettid(), Ordering::Relaxed);
        // The timer takes no guest signals: it blocks everything it can.
        let all = !0u64;
        // SAFETY: an 8-byte kernel sigset for this thread only.
        unsafe { libc::syscall(libc::SYS_rt_sigprocmask, libc::SIG_SETMASK, &all as *const u64, 0usize, 8usize) };
        while !STOP.load(Ordering::Relaxed) {
            std::thread::sleep(TICK);
            if super::lock::held_since_last_tick() && !super::running::parallel_seen() {
                request();
            }
        }
    });
    match spawn {
        Ok(h) => {
            *TIMER.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(h);
            // Until the thread runs it carries its creator's name and no known id, and a guest
            // listing /proc/self/task would count it as its own: wait for it (std names the
            // thread before it runs the closure), at most about a second.
            for _ in 0..1000 {
                if TIMER_TID.load(Ordering::Relaxed) != 0 {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        Err(_) => crate::elog!("endgate: cannot start the preemption timer thread; threads run until they block"),
    }
}

/// Asks the timer thread to end.
static STOP: AtomicBool = AtomicBool::new(false);

/// The timer thread of this process, to wait for its end.
static TIMER: std::sync::Mutex<Option<std::thread::JoinHandle<()>>> = std::sync::Mutex::new(None);

/// Ends the timer thread of this process, if it runs one, and waits for it: for calls the
/// kernel refuses in a multi-threaded process, which a guest left with one thread may make
/// (`crate::syscall::ns`). A later thread starts the timer again.
pub fn stop_timer() {
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    if TIMER_PID.load(Ordering::Relaxed) != pid {
        return;
    }
    STOP.store(true, Ordering::Relaxed);
    if let Some(h) = TIMER.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
        let _ = h.join();
    }
    TIMER_PID.store(0, Ordering::Relaxed);
}

/// In the child of a `fork`: starts a timer of its own if the parent had one (it may start
/// threads again; with one thread the timer never requests anything).
pub fn after_fork_child() {
    // The parent's timer thread does not exist here: its handle is forgotten, not detached.
    if let Some(h) = TIMER.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
        std::mem::forget(h);
    }
    if TIMER_PID.load(Ordering::Relaxed) != 0 {
        start_timer();
    }
}
