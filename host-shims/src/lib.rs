//! Host CPU facts for endgate: the host's byte order, the strategy endgate uses when a guest's
//! byte order differs from it, the POWER endian switches themselves and a cycle counter.
//!
//! # Byte-order strategies, fastest first
//! On POWER a thread can flip its CPU's byte order (MSR[LE]); everywhere else endgate byte-swaps
//! in software. [`probe`] tries, in this order (facts from the kernel sources and commits):
//! 1. **fast switch**: `sc` with r0 = 0x1ebe, handled at the top of the system-call vector
//!    (commit 745a14cc264b, 2008: ~60 ns vs ~300 ns through prctl on POWER6). Only with
//!    `CONFIG_PPC_FAST_ENDIAN_SWITCH`, off by default since 2017 (727f13616c45), removed in
//!    Linux 6.12 (29dbb984496d). Clobbers r12; r13 is reloaded and `rfid` returns.
//! 2. **`switch_endian`** (syscall 363, Linux 4.1, 529d235a0e19): 64-bit tasks only; keeps r3
//!    (`_TIF_RESTOREALL`), clobbers r9-r12, XER, CTR, CR0-1,5-7.
//! 3. **`prctl(PR_SET_ENDIAN)`** (Linux 2.6.18): POWER only (`kernel/sys.c` answers EINVAL
//!    elsewhere); an ordinary system call, so r3 = 0 and the syscall-volatile registers
//!    (r0, r3-r12, XER, CTR, CR0-1,5-7) are clobbered.
//! 4. **software byteswap**: always available.
//!
//! Every probe is safe on every kernel: an unknown syscall number gives ENOSYS, prctl gives
//! EINVAL, and on POWER each try is one asm sequence (`csrc/ppc64.S`) that switches, switches
//! back and only then returns, with a guard that takes the failure path when no switch
//! happened. qemu-user implements none of the three (linux-user/syscall.c, cpu_loop.c); a
//! real kernel under qemu-system-ppc64 honours them. The C/asm lives in `csrc/` and is also
//! built into the static POWER test programs (`tests/ppc/`, driven by [`lab`]).

use std::fmt;
use std::sync::OnceLock;

mod counter;
mod ffi;
pub mod lab;
pub mod safe_syscall;
mod switch;

pub use counter::{counter, counter_hz, counter_name};
pub use switch::{round_trips, run_other_endian, SwitchError};

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
    /// The POWER fast endian switch, `sc` with r0 = 0x1ebe (clobbers r12).
    FastSwitch,
    /// The POWER `switch_endian` system call, 363 (keeps r3; clobbers r9-r12, XER, CTR,
    /// CR0-1,5-7).
    SwitchEndian,
    /// `prctl(PR_SET_ENDIAN, mode)` on POWER (clobbers r0, r3-r12, XER, CTR, CR0-1,5-7).
    PrctlSetEndian,
    /// Every guest value endgate touches is byte-swapped in software (typed accessors).
    SoftwareByteswap,
}

impl Strategy {
    /// The number the C/asm shims use for this strategy (`enum endgate_strategy`).
    pub(crate) fn code(self) -> i32 {
        match self {
            Strategy::FastSwitch => 0,
            Strategy::SwitchEndian => 1,
            Strategy::PrctlSetEndian => 2,
            Strategy::SoftwareByteswap => 3,
        }
    }

    fn from_code(c: i32) -> Strategy {
        match c {
            0 => Strategy::FastSwitch,
            1 => Strategy::SwitchEndian,
            2 => Strategy::PrctlSetEndian,
            _ => Strategy::SoftwareByteswap,
        }
    }

    /// Whether this strategy flips the CPU's byte order (all but software byteswap).
    pub fn switches_cpu(self) -> bool {
        self != Strategy::SoftwareByteswap
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::FastSwitch => "fast endian switch (syscall 0x1ebe)",
            Strategy::SwitchEndian => "switch_endian (syscall 363)",
            Strategy::PrctlSetEndian => "prctl(PR_SET_ENDIAN)",
            Strategy::SoftwareByteswap => "software byteswap",
        })
    }
}

/// What one probe observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The call succeeded (for a switch: switched and came back).
    Works,
    /// The kernel returned this errno (e.g. 38 ENOSYS, 22 EINVAL).
    Errno(i32),
    /// The call succeeded but the byte order did not change.
    NoSwitch,
    /// Not tried: the mechanism exists only on POWER.
    NotTried,
}

impl Outcome {
    fn from_raw(v: i32) -> Outcome {
        match v {
            0 => Outcome::Works,
            -1 => Outcome::NoSwitch,
            v if v > 0 => Outcome::Errno(v),
            _ => Outcome::NotTried,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Works => f.write_str("works"),
            Outcome::Errno(e) => write!(f, "errno {e}"),
            Outcome::NoSwitch => f.write_str("no switch"),
            Outcome::NotTried => f.write_str("not tried"),
        }
    }
}

/// Everything [`probe`] observed, in the order it tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeReport {
    /// Fast switch: a 0x1ebe round trip on POWER, `syscall(0x1ebe)` elsewhere.
    pub fast: Outcome,
    /// `switch_endian` round trip (POWER only).
    pub switch_endian: Outcome,
    /// `prctl(PR_GET_ENDIAN, &mode)`.
    pub prctl_get: Outcome,
    /// The mode PR_GET_ENDIAN reported (0 big, 1 little, 2 PPC little), when it worked.
    pub prctl_mode: Option<u32>,
    /// `prctl(PR_SET_ENDIAN)`: a round trip on POWER, PR_ENDIAN_BIG elsewhere (no effect there).
    pub prctl_set: Outcome,
    /// The first strategy that works.
    pub chosen: Strategy,
}

/// Runs the fallback chain once (the result is cached) and reports every step.
pub fn probe_report() -> ProbeReport {
    static REPORT: OnceLock<ProbeReport> = OnceLock::new();
    *REPORT.get_or_init(|| {
        let mut raw = ffi::RawProbe::default();
        // SAFETY: `raw` is a valid, writable struct endgate_probe; every probe is safe on every
        // kernel (see the module docs and csrc/shims.c).
        unsafe { ffi::endgate_probe_chain(&mut raw) };
        ProbeReport {
            fast: Outcome::from_raw(raw.fast),
            switch_endian: Outcome::from_raw(raw.switch_endian),
            prctl_get: Outcome::from_raw(raw.prctl_get),
            prctl_mode: (raw.prctl_get == 0).then_some(raw.prctl_mode),
            prctl_set: Outcome::from_raw(raw.prctl_set),
            chosen: Strategy::from_code(raw.chosen),
        }
    })
}

/// The fastest strategy this host and kernel offer (the first of the chain that works).
pub fn probe() -> Strategy {
    probe_report().chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Native x86_64: the chain is observed, not assumed. Expected values come from the kernel:
    /// 0x1ebe is beyond x86_64's syscall table (ENOSYS), and kernel/sys.c's generic
    /// GET_ENDIAN/SET_ENDIAN return EINVAL on every architecture but powerpc.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x86_64_chain_observes_enosys_and_einval() {
        let r = probe_report();
        assert_eq!(r.fast, Outcome::Errno(libc::ENOSYS), "{r:?}");
        assert_eq!(r.prctl_get, Outcome::Errno(libc::EINVAL), "{r:?}");
        assert_eq!(r.prctl_set, Outcome::Errno(libc::EINVAL), "{r:?}");
        assert_eq!(r.switch_endian, Outcome::NotTried, "{r:?}");
        assert_eq!(r.prctl_mode, None);
        assert_eq!(r.chosen, Strategy::SoftwareByteswap);
        assert_eq!(probe(), Strategy::SoftwareByteswap);
        assert_eq!(probe().to_string(), "software byteswap");
    }

    /// The same two facts, asked of the kernel directly through libc (not through the shims).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x86_64_kernel_answers_directly() {
        // SAFETY: an out-of-range syscall number with no arguments: the kernel returns ENOSYS.
        let rc = unsafe { libc::syscall(0x1ebe) };
        assert_eq!((rc, std::io::Error::last_os_error().raw_os_error()), (-1, Some(libc::ENOSYS)));
        let mut mode: libc::c_uint = 0xdead;
        // SAFETY: PR_GET_ENDIAN writes at most one unsigned int through a valid pointer.
        let rc = unsafe { libc::prctl(libc::PR_GET_ENDIAN, &mut mode as *mut libc::c_uint) };
        assert_eq!((rc, std::io::Error::last_os_error().raw_os_error()), (-1, Some(libc::EINVAL)));
        assert_eq!(mode, 0xdead, "PR_GET_ENDIAN must not write on x86_64");
    }

    #[cfg(not(target_arch = "powerpc64"))]
    #[test]
    fn switching_is_refused_off_power() {
        assert_eq!(round_trips(Strategy::SwitchEndian, 1), Err(SwitchError::Unsupported));
        assert_eq!(round_trips(Strategy::SoftwareByteswap, 1), Err(SwitchError::Unsupported));
    }

    #[test]
    fn host_endian_matches_the_compiler() {
        assert_eq!(host_endian(), if u16::from_ne_bytes([1, 0]) == 1 { "little" } else { "big" });
    }
}
