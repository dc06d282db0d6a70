//! What endgate shows about a guest: `--strace` lines and the one-line report of a fatal signal.

pub mod fault;
pub mod strace;

/// Writes one line to stderr and ignores failures: a closed or full stderr must not stop the
/// guest, and a panic inside a unicorn hook would abort endgate.
pub fn log(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{args}");
}

/// `eprintln!` that never panics: see [`log`].
#[macro_export]
macro_rules! elog {
    ($($t:tt)*) => { $crate::trace::log(format_args!($($t)*)) };
}
