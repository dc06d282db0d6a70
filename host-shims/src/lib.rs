//! Host CPU facts for endgate: the host's byte order and the strategy endgate uses when a
//! guest's byte order differs from it.
//!
//! On POWER a process can flip its CPU's byte order; everywhere else endgate byte-swaps in
//! software. This crate is the one place that knows which host it runs on.

use std::fmt;

/// The host's byte order, as a word for messages (`"little"` or `"big"`).
pub fn host_endian() -> &'static str {
    if cfg!(target_endian = "little") {
        "little"
    } else {
        "big"
    }
}

/// How endgate handles a guest whose byte order differs from the host's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Every guest value endgate touches is byte-swapped in software (typed accessors).
    SoftwareByteswap,
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::SoftwareByteswap => f.write_str("software byteswap"),
        }
    }
}

/// The strategy this host offers. Hosts other than POWER have no way to switch the CPU's byte
/// order from user space, so this is software byteswap there.
pub fn probe() -> Strategy {
    Strategy::SoftwareByteswap
}
