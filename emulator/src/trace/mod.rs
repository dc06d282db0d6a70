//! What endgate shows about a guest: the one-line report of a fatal signal. (`--strace` lines are
//! the dispatcher's: `crate::syscall::strace`; endgate's own stderr lines: `crate::log`.)

pub mod fault;
