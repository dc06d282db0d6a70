//! `/proc/cpuinfo` as an arm kernel prints it for the guest's CPU (arch/arm/kernel/setup.c
//! `c_show`): unicorn's Cortex-A15 (`MIDR` 0x412fc0f1) with the `AT_HWCAP` the guest gets.

use std::fmt::Write as _;

/// `AT_HWCAP` bit names, bit 0 first (`hwcap_str`; the bits of
/// arch/arm/include/uapi/asm/hwcap.h).
pub(super) const HWCAP_NAMES: &[&str] = &[
    "swp", "half", "thumb", "26bit", "fastmult", "fpa", "vfp", "edsp", "java", "iwmmxt", "crunch", "thumbee", "neon",
    "vfpv3", "vfpv3d16", "tls", "vfpv4", "idiva", "idivt", "vfpd32", "lpae", "evtstrm",
];

/// The text for `ncpu` processors.
pub fn cpuinfo(ncpu: usize) -> String {
    let features = super::super::hwcap_names(super::INFO.hwcap.0, HWCAP_NAMES);
    let mut s = String::new();
    for i in 0..ncpu {
        let _ = write!(
            s,
            "processor\t: {i}\nmodel name\t: ARMv7 Processor rev 1 (v7l)\nBogoMIPS\t: 50.00\n\
             Features\t: {features}\nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x2\n\
             CPU part\t: 0xc0f\nCPU revision\t: 1\n\n"
        );
    }
    s.push_str("Hardware\t: Generic DT based system\nRevision\t: 0000\nSerial\t\t: 0000000000000000\n");
    s
}
