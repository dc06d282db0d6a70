//! What endgate shows about a guest: the one-line report of a fatal signal, the `-d` log
//! (`debug`) and `--drcov` coverage files (`drcov`). (`--strace` lines are
//! the dispatcher's: `crate::syscall::strace`; endgate's own stderr lines: `crate::log`.)

pub mod debug;
pub mod drcov;
pub mod fault;
pub mod planted;
