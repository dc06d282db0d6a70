//! Switching the CPU's byte order on POWER: timed round trips and "run this code block in the
//! other byte order, then come back" ([`run_other_endian`]). The sequences are in
//! `csrc/ppc64.S`; on every other host these functions return [`SwitchError::Unsupported`].
//!
//! Registers each strategy clobbers across one switch (besides what any C call may clobber):
//! - fast switch (0x1ebe): r12 (r13 is reloaded by the kernel, `rfid` returns);
//! - `switch_endian`: r9-r12, XER, CTR, CR0-1,5-7; r3 is kept;
//! - `prctl(PR_SET_ENDIAN)`: r0, r3-r12, XER, CTR, CR0-1,5-7 (r3 = 0).
//!
//! The shims are ordinary C functions, so to Rust callers all of this is hidden behind the C
//! ABI; it matters only to the byte-reversed code a block runs.

use crate::Strategy;
use std::fmt;

/// Why a switch did not happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchError {
    /// This host cannot switch (not POWER, or the strategy is software byteswap).
    Unsupported,
    /// The kernel refused the first switch with this errno.
    Errno(i32),
    /// The call returned success without switching.
    NoSwitch,
}

impl fmt::Display for SwitchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SwitchError::Unsupported => f.write_str("this host cannot switch byte order"),
            SwitchError::Errno(e) => write!(f, "the kernel refused the switch: errno {e}"),
            SwitchError::NoSwitch => f.write_str("the call returned without switching"),
        }
    }
}

impl std::error::Error for SwitchError {}

#[cfg(target_arch = "powerpc64")]
fn result_of(rc: core::ffi::c_long) -> Result<(), SwitchError> {
    match rc {
        0 => Ok(()),
        -1 => Err(SwitchError::NoSwitch),
        e => Err(SwitchError::Errno(i32::try_from(e).unwrap_or(i32::MAX))),
    }
}

/// Switches to the other byte order and back `n` times with `strategy` (for timing: one round
/// trip is two switches). Safe on every kernel: a refused switch is an error, nothing else.
pub fn round_trips(strategy: Strategy, n: u64) -> Result<(), SwitchError> {
    #[cfg(target_arch = "powerpc64")]
    {
        use crate::ffi;
        // SAFETY: each shim switches and switches back inside one asm sequence that follows
        // the C ABI, or returns an error without having switched.
        let rc = unsafe {
            match strategy {
                Strategy::FastSwitch => ffi::endgate_ppc_fast_round_trips(n),
                Strategy::SwitchEndian => ffi::endgate_ppc_switch_endian_round_trips(n),
                Strategy::PrctlSetEndian => ffi::endgate_ppc_prctl_round_trips(n),
                Strategy::SoftwareByteswap => return Err(SwitchError::Unsupported),
            }
        };
        result_of(rc)
    }
    #[cfg(not(target_arch = "powerpc64"))]
    {
        let _ = (strategy, n);
        Err(SwitchError::Unsupported)
    }
}

/// Runs the byte-reversed code at `code` in the other byte order with r3 = `arg`, comes back
/// and returns the block's r3. The scoped "run this host code block in the other endianness".
///
/// # Safety
/// `code` must point to executable, byte-reversed POWER instructions (each 4-byte word stored
/// in the other byte order, e.g. built with `objcopy --reverse-bytes=4`) that form a leaf
/// function under the C ABI: entered with `bctrl`, ending with `blr`, keeping r1, r2, r13-r31
/// and CR2-4, and touching only memory that is valid for it. It runs with the byte order
/// flipped, so its loads and stores see memory in the other byte order.
pub unsafe fn run_other_endian(strategy: Strategy, code: *const u32, arg: u64) -> Result<u64, SwitchError> {
    #[cfg(target_arch = "powerpc64")]
    {
        if strategy == Strategy::SoftwareByteswap {
            return Err(SwitchError::Unsupported);
        }
        let mut inout = arg;
        // SAFETY: the caller guarantees `code` (see above); `inout` is a valid u64.
        let rc = unsafe { crate::ffi::endgate_ppc_run_other_endian(strategy.code().into(), code, &mut inout) };
        result_of(rc).map(|()| inout)
    }
    #[cfg(not(target_arch = "powerpc64"))]
    {
        let _ = (strategy.code(), code, arg);
        Err(SwitchError::Unsupported)
    }
}
