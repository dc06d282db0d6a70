//! endgate's own diagnostics on stderr. The bottom layer: every module may log.

/// Writes one line to stderr and ignores failures: a closed or full stderr must not stop the
/// guest, and a panic inside a unicorn hook would abort endgate.
pub fn log(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    // One `write` for the whole line: stderr is unbuffered, so `writeln!` would write each
    // piece on its own, and another process's line (a fork child's `--strace` output) could
    // land between them.
    let line = format!("{args}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// `eprintln!` that never panics: see [`log`].
#[macro_export]
macro_rules! elog {
    ($($t:tt)*) => { $crate::log::log(format_args!($($t)*)) };
}

/// The `-d` log (qemu-user's `-d`/`-D`): on stderr, or in the `-D` file. Lines are buffered
/// and written out at [`flush_debug`], which the process calls before it forks, execs or ends
/// (so a fork child does not write its parent's lines again); stderr is written at once.
static DEBUG_LOG: std::sync::Mutex<Option<std::io::BufWriter<std::fs::File>>> = std::sync::Mutex::new(None);

/// The lowest descriptor the `-D` file goes at, above those a guest usually uses and below
/// endgate's own handles at the top of the range (`syscall::selfref`).
const DEBUG_LOG_FD_BASE: i32 = 900;

/// Opens the `-D` file: created if missing, truncated unless `append` (the endgate a guest's
/// execve starts appends to its predecessor's log), at a close-on-exec descriptor of 900 or
/// above, so the guest's own descriptors start where they would without it. Errors: the
/// open's, as a message naming the file.
pub fn open_debug_log(path: &std::path::Path, append: bool) -> Result<(), String> {
    use std::os::fd::{FromRawFd, IntoRawFd};
    let mut o = std::fs::OpenOptions::new();
    o.create(true);
    if append {
        o.append(true);
    } else {
        o.write(true).truncate(true);
    }
    let f = o.open(path).map_err(|e| format!("-D {}: {e}", path.display()))?;
    let fd = f.into_raw_fd();
    // SAFETY: duplicating and closing a descriptor this function owns.
    let high = unsafe {
        let high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, DEBUG_LOG_FD_BASE);
        if high >= 0 {
            libc::close(fd);
            high
        } else {
            fd
        }
    };
    // SAFETY: `high` is an open descriptor owned by nothing else from here on.
    let file = unsafe { std::fs::File::from_raw_fd(high) };
    *DEBUG_LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
        Some(std::io::BufWriter::with_capacity(64 << 10, file));
    Ok(())
}

/// The `-D` file's descriptor, if one is open.
pub fn debug_log_fd() -> Option<i32> {
    use std::os::fd::AsRawFd;
    DEBUG_LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref().map(|w| w.get_ref().as_raw_fd())
}

/// For an `execve`: the `-D` file's descriptor loses close-on-exec (`true`), so the new
/// endgate writes on through it ([`adopt_debug_log`]), or gets it back (`false`, when the
/// exec failed).
pub fn set_debug_log_inherited(inherit: bool) {
    if let Some(fd) = debug_log_fd() {
        // SAFETY: our own descriptor.
        unsafe { libc::fcntl(fd, libc::F_SETFD, if inherit { 0 } else { libc::FD_CLOEXEC }) };
    }
}

/// In the endgate a guest's `execve` started: takes over the `-D` file its predecessor had
/// open at `fd` (exec state), close-on-exec again. The file is the one the first endgate
/// opened by its path on the host, whatever root the guest has chosen since (a `chroot`
/// before the exec would make the path name another file, or none). `false` if `fd` is not
/// an open descriptor.
pub fn adopt_debug_log(fd: i32) -> bool {
    use std::os::fd::FromRawFd;
    // SAFETY: a descriptor the previous endgate passed us; only marked close-on-exec.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        return false;
    }
    // SAFETY: `fd` is open and owned by nothing else from here on.
    let file = unsafe { std::fs::File::from_raw_fd(fd) };
    *DEBUG_LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
        Some(std::io::BufWriter::with_capacity(64 << 10, file));
    true
}

/// Writes `text` (whole lines, each ending in `\n`) to the `-d` log; a failed write is
/// ignored, as for [`log`].
pub fn debug_write(text: &str) {
    use std::io::Write;
    let mut g = DEBUG_LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match g.as_mut() {
        Some(w) => {
            let _ = w.write_all(text.as_bytes());
        }
        None => {
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
    }
}

/// Writes out what the `-d` log holds buffered.
pub fn flush_debug() {
    use std::io::Write;
    if let Some(w) = DEBUG_LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
        let _ = w.flush();
    }
}

/// Writes one line of `--strace` output (a system call, a signal, the closing `+++` line):
/// into the `-D` file when one is open, as qemu-user's `-strace` goes to its log, else on
/// stderr at once. Failures are ignored, as for [`log`].
pub fn trace_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let prefix = if TRACE_PIDS.load(std::sync::atomic::Ordering::Relaxed) {
        // SAFETY: no arguments.
        format!("[pid {:>5}] ", unsafe { libc::gettid() })
    } else {
        String::new()
    };
    let mut g = DEBUG_LOG.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match g.as_mut() {
        Some(w) => {
            let _ = writeln!(w, "{prefix}{args}");
        }
        None => {
            drop(g);
            log(format_args!("{prefix}{args}"));
        }
    }
}

/// Set once the guest has more than one thread or process to trace: `--strace` lines then
/// start with `[pid TID] `, as `strace -f` marks them.
static TRACE_PIDS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on `--strace` lines carry the thread's id (a guest `fork` or new thread; an
/// `execve` passes it on in its exec state, `trace-pids`).
pub fn trace_pids() {
    TRACE_PIDS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// `true` once [`trace_pids`] was called.
pub fn tracing_pids() -> bool {
    TRACE_PIDS.load(std::sync::atomic::Ordering::Relaxed)
}

/// `eprintln!` for `--strace` lines: see [`trace_line`].
#[macro_export]
macro_rules! tlog {
    ($($t:tt)*) => { $crate::log::trace_line(format_args!($($t)*)) };
}

/// `format!` into the `-d` log: see [`debug_write`].
#[macro_export]
macro_rules! dlog {
    ($($t:tt)*) => { $crate::log::debug_write(&format!($($t)*)) };
}
