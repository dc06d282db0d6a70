//! endgate's own diagnostics on stderr. The bottom layer: every module may log.

/// Writes one line to stderr and ignores failures: a closed or full stderr must not stop the
/// guest, and a panic inside a unicorn hook would abort endgate.
pub fn log(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{args}");
}

/// `eprintln!` that never panics: see [`log`].
#[macro_export]
macro_rules! elog {
    ($($t:tt)*) => { $crate::log::log(format_args!($($t)*)) };
}
