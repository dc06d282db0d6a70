//! What endgate shows about a guest: `--strace` lines and the one-line report of a fatal signal.

pub mod fault;
pub mod strace;
