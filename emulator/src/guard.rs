//! Internal errors: a panic in endgate's own code never unwinds into C and never aborts.
//!
//! Every function endgate hands the engine (hooks, `uc_set_*_cb` callbacks), its host signal
//! handlers, `main` and every host thread it starts run their bodies under [`guarded`]. A panic
//! below one of them ends the whole process at once, from whichever thread panicked, with one
//! line on stderr and status 70 (`EX_SOFTWARE`, [`STATUS`]):
//!
//! ```text
//! endgate: internal error in TLB fill: index out of bounds: the len is 0 but the index is 0 at emulator/src/mm/mod.rs:120
//! ```
//!
//! The panic hook ([`install`]) formats the message and location into the panicking thread's
//! fixed buffer instead of printing Rust's multi-line text (which it still prints first when
//! `RUST_BACKTRACE` asks for a backtrace). Inside [`guarded`] code it then prints the line with
//! `write(2)` and ends the process with `_exit(2)` itself, before anything unwinds: nothing on
//! that path allocates or takes a lock, so it is as safe in a host signal handler as the panic
//! itself can be (the standard library boxes the panic's payload). Nothing runs at exit: the
//! guest's `-d` log lines still buffered and a `--drcov` file are not written, `--strace`
//! prints no closing line.
//!
//! A guard is one thread-local word, replaced on the way in and restored on the way out (a
//! system call's handler marks itself in the same word): the hot callbacks (the TLB fill, the
//! trap, the gate's code hook) pay no call, allocation or system call for it. It catches no unwind (a `catch_unwind` is a frame of its own unless the compiler inlines
//! it, and a frame live across the host system call costs a mispredicted return:
//! [`crate::syscall::install_trap_hooks`]). So a panic under a guard before [`install`] ran
//! (unit tests only) unwinds as Rust's do, and aborts where it would leave through the engine.
//!
//! Engine calls whose refusal would be endgate's bug (a register id of the instance's own
//! arch, a stop or a flush of a live instance) go through [`Checked`], which turns a refusal
//! into such a panic, with the caller's location.
//!
//! For tests, `ENDGATE_TEST_PANIC=<callback>` ([`test_panic`]) makes one callback panic; the
//! choice is made when the hook is installed, so a normal run has no check of its own.

use std::cell::Cell;
use std::fmt::{self, Write as _};
use unicorn_engine::{uc_error, Unicorn};

/// The exit status of an internal error: `EX_SOFTWARE` (sysexits.h).
pub const STATUS: i32 = 70;

/// The longest line printed (longer messages are cut).
const LINE_MAX: usize = 1024;
/// The longest message and location kept by the panic hook.
const RECORD_MAX: usize = 768;

/// A fixed buffer that text is formatted into without allocating; text past its end is
/// dropped, and line breaks become spaces (the report is one line).
#[derive(Clone, Copy)]
struct FixedText<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> FixedText<N> {
    const fn new() -> Self {
        FixedText { buf: [0; N], len: 0 }
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.len == N {
                return;
            }
            self.buf[self.len] = if b == b'\n' || b == b'\r' { b' ' } else { b };
            self.len += 1;
        }
    }
}

impl<const N: usize> fmt::Write for FixedText<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

thread_local! {
    /// The last panic on this thread, as the panic hook recorded it: "MESSAGE at FILE:LINE".
    static LAST_PANIC: Cell<Option<FixedText<RECORD_MAX>>> = const { Cell::new(None) };
    /// What this thread runs innermost ([`Current`]).
    static CURRENT: Cell<Current> = const { Cell::new(Current::NONE) };
}

/// A callback's or handler's name: a reference to the `&'static str`, one word where the
/// string reference is two.
pub type Name = &'static &'static str;

/// What a thread runs innermost, in one word: nothing (null), a [`guarded`] callback (its
/// [`Name`]'s address), or a system call's handler inside one (the handler's [`Name`]'s address
/// with bit 0 set; a `&str` is 8-byte aligned). Every system call enters a guard and a handler
/// and leaves both: kept as two two-word names, those thread-local moves cost 3-4 ns of a
/// 33 ns gated `getpid` (`guarded` and `enter_handler` emptied: 29 ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Current(*const &'static str);

impl Current {
    /// No callback.
    const NONE: Current = Current(std::ptr::null());

    /// The callback `name`.
    #[inline(always)]
    fn callback(name: Name) -> Current {
        Current(name)
    }

    /// The handler of the system call `name`.
    #[inline(always)]
    fn handler(name: Name) -> Current {
        Current(std::ptr::from_ref(name).map_addr(|a| a | 1))
    }

    /// The name, and whether it is a handler's; `None` for no callback.
    fn get(self) -> Option<(Name, bool)> {
        let handler = self.0.addr() & 1 != 0;
        // SAFETY: a non-null value is the address of a `&'static str` (bit 0 cleared), made
        // only by `callback` and `handler` from a `Name`.
        unsafe { self.0.map_addr(|a| a & !1).as_ref() }.map(|n| (n, handler))
    }
}

/// Installs the panic hook that records a panic's message and location and, under a guard,
/// ends the process with the internal error's line (see the module doc). With `RUST_BACKTRACE` set to anything but `0` the hook
/// that was there before (Rust's, which prints the message and a backtrace) runs first.
/// Idempotent; called by [`crate::launch`] and [`guarded`]'s callers at start-up.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let backtrace = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
        // Unit tests keep the harness's report of a failed assertion (but for the child
        // process of `guarded_panic_ends_the_process_with_one_line`).
        let tests = cfg!(test) && std::env::var_os("ENDGATE_GUARD_CHILD").is_none();
        let previous = (backtrace || tests).then(std::panic::take_hook);
        std::panic::set_hook(Box::new(move |info| {
            if let Some(previous) = &previous {
                previous(info);
            }
            let mut text = FixedText::new();
            let payload = info.payload();
            match payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            {
                Some(m) => text.push(m.as_bytes()),
                None => text.push(b"panic without a message"),
            }
            if let Some(l) = info.location() {
                let _ = write!(text, " at {}:{}", l.file(), l.line());
            }
            let _ = LAST_PANIC.try_with(|p| p.set(Some(text)));
            // Under a guard the process ends here, before anything unwinds.
            match CURRENT.try_with(Cell::get).ok().and_then(Current::get) {
                Some((call, true)) => internal_error(format_args!("the {call} handler")),
                Some((callback, false)) => internal_error(format_args!("{callback}")),
                None => {}
            }
        }));
    });
}

/// Runs `body`; if it panics, ends the process as an internal error in `what` (a callback's
/// name: "TLB fill", "gate code hook") with one line on stderr and status 70, from the panic
/// hook ([`install`]). Costs one thread-local word replaced and restored.
#[inline(always)]
pub fn guarded<R>(what: Name, body: impl FnOnce() -> R) -> R {
    let outer = CURRENT.with(|c| c.replace(Current::callback(what)));
    let r = body();
    CURRENT.with(|c| c.set(outer));
    r
}

/// Runs `body`, the engine running guest code (the run loop's `emu_start`), with no callback
/// named: until a hook or callback enters [`guarded`] again, the thread is in translated code or
/// in the engine's own C code ([`in_callback`] is false), where a host fault of a guest
/// access can be handed back to the engine (`signal::host::fault_handler`). A panic can only
/// come from inside a callback, which names itself.
#[inline(always)]
pub fn engine_runs<R>(body: impl FnOnce() -> R) -> R {
    let outer = CURRENT.with(|c| c.replace(Current::NONE));
    let r = body();
    CURRENT.with(|c| c.set(outer));
    r
}

/// Whether the calling thread runs a [`guarded`] callback (or `main`, or a host thread's body
/// outside [`engine_runs`]): false only while the engine runs guest code and no callback of
/// endgate's is on the stack. Async-signal-safe (one thread-local read).
#[inline]
pub fn in_callback() -> bool {
    CURRENT.try_with(|c| c.get() != Current::NONE).unwrap_or(true)
}

/// Marks the start of the handler of the system call `name`: until [`leave_handler`] with what
/// this returned, a panic is an internal error in "the NAME handler" (a [`guarded`] callback
/// inside it names itself). A pair replaces and restores the same word; a plain pair of calls rather
/// than a closure, so that the handler stays in its caller's frame.
#[inline(always)]
pub fn enter_handler(name: Name) -> Current {
    CURRENT.with(|c| c.replace(Current::handler(name)))
}

/// Marks the end of a handler that [`enter_handler`] started; `outer` is what it returned.
#[inline(always)]
pub fn leave_handler(outer: Current) {
    CURRENT.with(|c| c.set(outer));
}

/// The line an internal error prints, without its newline: "endgate: internal error in WHAT:
/// MESSAGE at FILE:LINE" from the calling thread's last recorded panic.
fn report_line(what: fmt::Arguments<'_>) -> FixedText<LINE_MAX> {
    let mut line = FixedText::<LINE_MAX>::new();
    let _ = write!(line, "endgate: internal error in {what}: ");
    match LAST_PANIC.try_with(Cell::take).ok().flatten() {
        Some(t) => line.push(t.bytes()),
        None => line.push(b"a panic that left no record"),
    }
    line
}

/// Ends the process as an internal error in `what`: one line on stderr with the calling
/// thread's last recorded panic, then status [`STATUS`] for the whole process (every thread).
/// Allocates nothing and takes no lock.
#[cold]
pub fn internal_error(what: fmt::Arguments<'_>) -> ! {
    let mut line = report_line(what);
    if line.len == LINE_MAX {
        line.len -= 1;
    }
    line.buf[line.len] = b'\n';
    line.len += 1;
    let mut rest = line.bytes();
    while !rest.is_empty() {
        // SAFETY: writes bytes of a live buffer to descriptor 2.
        let n = unsafe { libc::write(2, rest.as_ptr().cast(), rest.len()) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => rest = &rest[n..],
            _ if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => break,
        }
    }
    // SAFETY: ends the process (every thread) without running anything more of it: its state
    // is not to be trusted after a panic.
    unsafe { libc::_exit(STATUS) }
}

/// The callback `ENDGATE_TEST_PANIC` names (read once), for tests: `tlb-fill`, `trap` (the
/// system-call entry every arch's trap hook calls) or `gate` (the gate's code hook). Asked
/// when a hook is installed, never while one runs.
pub fn test_panic(callback: &str) -> bool {
    static CHOICE: std::sync::OnceLock<Option<std::ffi::OsString>> = std::sync::OnceLock::new();
    CHOICE.get_or_init(|| std::env::var_os("ENDGATE_TEST_PANIC")).as_deref().is_some_and(|c| c == callback)
}

/// The panic `ENDGATE_TEST_PANIC=<callback>` asks for.
#[cold]
#[track_caller]
pub fn injected_panic(callback: &str) -> ! {
    panic!("panic injected by ENDGATE_TEST_PANIC={callback}")
}

/// The refusal of an engine call endgate makes only in ways the engine accepts: endgate's bug,
/// reported as an internal error at the caller's location.
#[cold]
#[track_caller]
fn refused(call: &str, id: i32, e: uc_error) -> ! {
    panic!("the CPU engine refused {call}({id}): {e:?}")
}

/// Engine calls that cannot fail unless endgate is wrong, checked: a refusal panics (an
/// internal error under [`guarded`]) instead of being ignored or read as 0.
///
/// In unicorn 2.1.5 a register read or write fails only when the engine cannot be initialised
/// on first use (endgate's instances are, by their TLB set-up, when made); an id the arch lacks
/// is answered with success and a warning on stderr (`CHECK_RET_DEPRECATE`; `UC_ERR_ARG` from
/// 2.2.0 on), and `uc_reg_read` passes no size limit, so a wide register does not overflow.
/// `uc_emu_stop` and the TLB and translation-cache controls of a live instance do not fail
/// either. The checks cost a predicted branch and keep a future engine's refusal visible.
pub trait Checked {
    /// The register `id`.
    fn reg(&self, id: impl Into<i32> + Copy) -> u64;
    /// Sets the register `id` to `value`.
    fn set_reg(&mut self, id: impl Into<i32> + Copy, value: u64);
    /// Sets the register `id`, wider than 64 bits (x87, vector), from `bytes`.
    fn set_reg_long(&mut self, id: impl Into<i32> + Copy, bytes: &[u8]);
    /// Asks the engine to stop at the next instruction boundary.
    fn stop(&mut self);
    /// Drops every TLB entry.
    fn flush_tlb(&mut self);
    /// Drops the TLB entries of the pages of `[begin, end)` (unicorn patch 0049).
    fn flush_tlb_range(&mut self, begin: u64, end: u64);
    /// Drops every translated block.
    fn flush_tb(&mut self);
    /// Drops the blocks translated from `begin..end`.
    fn remove_cache(&mut self, begin: u64, end: u64);
}

impl<D> Checked for Unicorn<'_, D> {
    #[inline]
    #[track_caller]
    fn reg(&self, id: impl Into<i32> + Copy) -> u64 {
        match self.reg_read(id) {
            Ok(v) => v,
            Err(e) => refused("reg_read", id.into(), e),
        }
    }
    #[inline]
    #[track_caller]
    fn set_reg(&mut self, id: impl Into<i32> + Copy, value: u64) {
        if let Err(e) = self.reg_write(id, value) {
            refused("reg_write", id.into(), e)
        }
    }
    #[inline]
    #[track_caller]
    fn set_reg_long(&mut self, id: impl Into<i32> + Copy, bytes: &[u8]) {
        if let Err(e) = self.reg_write_long(id, bytes) {
            refused("reg_write_long", id.into(), e)
        }
    }
    #[inline]
    #[track_caller]
    fn stop(&mut self) {
        if let Err(e) = self.emu_stop() {
            refused("emu_stop", 0, e)
        }
    }
    #[track_caller]
    fn flush_tlb(&mut self) {
        if let Err(e) = self.ctl_flush_tlb() {
            refused("ctl_flush_tlb", 0, e)
        }
    }
    #[track_caller]
    fn flush_tlb_range(&mut self, begin: u64, end: u64) {
        // SAFETY: a live engine, on its own thread (not running, or inside one of its hooks).
        let r = unsafe { unicorn_engine::uc_flush_tlb_range(self.get_handle(), begin, end) };
        if r != uc_error::OK {
            refused("uc_flush_tlb_range", 0, r)
        }
    }
    #[track_caller]
    fn flush_tb(&mut self) {
        if let Err(e) = self.ctl_flush_tb() {
            refused("ctl_flush_tb", 0, e)
        }
    }
    #[track_caller]
    fn remove_cache(&mut self, begin: u64, end: u64) {
        if let Err(e) = self.ctl_remove_cache(begin, end) {
            refused("ctl_remove_cache", 0, e)
        }
    }
}

/// Checks the `uc_err` of a raw engine call that cannot fail unless endgate is wrong (see
/// [`Checked`]).
#[inline]
#[track_caller]
pub fn check(call: &str, r: uc_error) {
    if r != uc_error::OK {
        refused(call, 0, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::catch_unwind;

    #[test]
    fn fixed_text_cuts_and_keeps_one_line() {
        let mut t = FixedText::<8>::new();
        t.push(b"ab\ncd\r");
        assert_eq!(t.bytes(), b"ab cd ");
        let _ = write!(t, "{}", 12345);
        assert_eq!(t.bytes(), b"ab cd 12");
    }

    #[test]
    fn guarded_passes_results_through() {
        assert_eq!(guarded(&"test", || 41 + 1), 42);
    }

    #[test]
    fn the_hook_records_message_and_location() {
        install();
        let line = std::thread::spawn(|| {
            let r = catch_unwind(|| {
                let v: Vec<u8> = Vec::new();
                let i = v.len() + 3;
                assert!(i < v.len(), "index {i} past\nthe end");
            });
            assert!(r.is_err());
            let line = report_line(format_args!("test hook"));
            String::from_utf8(line.bytes().to_vec()).expect("utf-8")
        })
        .join()
        .expect("thread");
        assert!(
            line.starts_with("endgate: internal error in test hook: index 3 past the end at emulator/src/guard.rs:"),
            "{line}"
        );
        assert!(!line.contains('\n'));
        // Taken once: a later report has no record.
        let again = report_line(format_args!("x"));
        assert!(again.bytes().ends_with(b"a panic that left no record"));
    }

    #[test]
    fn an_engine_refusal_names_the_call_and_the_caller() {
        install();
        let line = std::thread::spawn(|| {
            assert!(catch_unwind(|| check("uc_reg_read_batch", uc_error::ARG)).is_err());
            String::from_utf8(report_line(format_args!("t")).bytes().to_vec()).expect("utf-8")
        })
        .join()
        .expect("thread");
        assert!(line.contains("the CPU engine refused uc_reg_read_batch(0): ARG at emulator/src/guard.rs:"), "{line}");
    }

    #[test]
    fn checked_calls_pass_through() {
        let mut uc = Unicorn::new(unicorn_engine::Arch::ARM64, unicorn_engine::Mode::ARM).expect("engine");
        let x1 = unicorn_engine::RegisterARM64::X1;
        uc.set_reg(x1, 0x1234);
        assert_eq!(uc.reg(x1), 0x1234);
        uc.stop();
        uc.flush_tlb();
        uc.flush_tb();
    }

    /// A panic under [`guarded`] ends the process with status 70 and one line: run in a child
    /// process (this test binary again, asked for the one test below by name).
    #[test]
    fn guarded_panic_ends_the_process_with_one_line() {
        if std::env::var_os("ENDGATE_GUARD_CHILD").is_some() {
            install();
            guarded(&"unit-test callback", || panic!("boom\nsecond line"));
        }
        let line = child_line("guard::tests::guarded_panic_ends_the_process_with_one_line");
        assert!(
            line.starts_with(
                "endgate: internal error in unit-test callback: boom second line at emulator/src/guard.rs:"
            ),
            "{line}"
        );
    }

    #[test]
    fn a_handler_panic_names_the_call_and_a_callback_inside_it_names_itself() {
        match std::env::var("ENDGATE_GUARD_CHILD").as_deref() {
            Ok("handler") => {
                install();
                guarded(&"unit-test hook", || {
                    let _outer = enter_handler(&"getppid");
                    panic!("in the handler");
                });
            }
            Ok("nested") => {
                install();
                guarded(&"unit-test hook", || {
                    let outer = enter_handler(&"execve");
                    guarded(&"nested hook", || panic!("in a nested callback"));
                    leave_handler(outer);
                    // Back in the handler after the nested callback returned.
                });
            }
            _ => {}
        }
        let name = "guard::tests::a_handler_panic_names_the_call_and_a_callback_inside_it_names_itself";
        let line = child_line_with(name, "handler");
        assert!(line.starts_with("endgate: internal error in the getppid handler: in the handler at "), "{line}");
        let line = child_line_with(name, "nested");
        assert!(line.starts_with("endgate: internal error in nested hook: in a nested callback at "), "{line}");
    }

    /// Runs the unit test `name` in a child process with `ENDGATE_GUARD_CHILD=1`; checks
    /// status 70 and returns its one line.
    fn child_line(name: &str) -> String {
        child_line_with(name, "1")
    }

    /// [`child_line`] with `ENDGATE_GUARD_CHILD=value`.
    fn child_line_with(name: &str, value: &str) -> String {
        let exe = std::env::current_exe().expect("test binary");
        let out = std::process::Command::new(exe)
            .args(["--exact", name, "--nocapture"])
            .env("ENDGATE_GUARD_CHILD", value)
            .env_remove("RUST_BACKTRACE")
            .output()
            .expect("run the child");
        assert_eq!(out.status.code(), Some(STATUS), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("endgate:") || l.contains("panicked")).collect();
        assert_eq!(lines.len(), 1, "{err}");
        lines[0].to_string()
    }
}
