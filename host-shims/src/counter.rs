//! The host's cycle / time-base counter for benchmarks: `rdtsc` on x86_64 (TSC reference
//! ticks, not core cycles), `cntvct_el0` on aarch64 (the generic timer), `mftb` on POWER (the
//! Time Base, 512 MHz on POWER7-9 and under qemu pseries, not the core clock).

use crate::ffi;

/// The counter's current value in its own ticks; 0 on hosts without one (see [`counter_name`]).
pub fn counter() -> u64 {
    // SAFETY: endgate_counter reads a user-readable counter register; no memory is touched.
    unsafe { ffi::endgate_counter() }
}

/// The instruction [`counter`] uses on this host.
pub fn counter_name() -> &'static str {
    if cfg!(target_arch = "x86_64") {
        "rdtsc"
    } else if cfg!(target_arch = "aarch64") {
        "cntvct_el0"
    } else if cfg!(target_arch = "powerpc64") {
        "mftb"
    } else {
        "none"
    }
}

/// The counter's frequency in Hz where the platform reports it: CPUID leaf 0x15 on x86_64
/// (often absent in VMs), `cntfrq_el0` on aarch64, glibc's `__ppc_get_timebase_freq` or the
/// `timebase` line of /proc/cpuinfo on POWER. `None` when nothing reports it.
pub fn counter_hz() -> Option<u64> {
    // SAFETY: endgate_counter_hz executes cpuid / reads a register or asks glibc; no pointers.
    let hz = unsafe { ffi::endgate_counter_hz() };
    if hz != 0 {
        return Some(hz);
    }
    if cfg!(target_arch = "powerpc64") {
        return timebase_from_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").ok()?);
    }
    None
}

/// The `timebase : N` line of a powerpc /proc/cpuinfo (arch/powerpc/kernel/setup-common.c).
fn timebase_from_cpuinfo(text: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == "timebase").then(|| v.trim().parse().ok()).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_advances() {
        let a = counter();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = counter();
        if counter_name() != "none" {
            assert!(b > a, "{} did not advance: {a} -> {b}", counter_name());
        }
    }

    #[test]
    fn cpuinfo_timebase() {
        let t = "processor\t: 0\ncpu\t\t: POWER9 (architected)\ntimebase\t: 512000000\n";
        assert_eq!(timebase_from_cpuinfo(t), Some(512_000_000));
        assert_eq!(timebase_from_cpuinfo("cpu : x\n"), None);
    }
}
