//! `/proc/cpuinfo` as an arm64 kernel prints it for the guest's CPU (arch/arm64/kernel/
//! cpuinfo.c `c_show`): unicorn's `max` CPU (`MIDR_EL1` 0x000f0510: implementer 0, part 'Q')
//! with the `AT_HWCAP` and `AT_HWCAP2` the guest gets, so `Features` and `getauxval` agree.

use std::fmt::Write as _;

/// `AT_HWCAP` bit names, bit 0 first (`hwcap_str`; the bits of
/// arch/arm64/include/uapi/asm/hwcap.h).
pub(super) const HWCAP_NAMES: &[&str] = &[
    "fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32", "atomics", "fphp", "asimdhp", "cpuid",
    "asimdrdm", "jscvt", "fcma", "lrcpc", "dcpop", "sha3", "sm3", "sm4", "asimddp", "sha512", "sve", "asimdfhm", "dit",
    "uscat", "ilrcpc", "flagm", "ssbs", "sb", "paca", "pacg",
];

/// `AT_HWCAP2` bit names, bit 0 first (the `HWCAP2_*` bits of the same header).
pub(super) const HWCAP2_NAMES: &[&str] = &[
    "dcpodp",
    "sve2",
    "sveaes",
    "svepmull",
    "svebitperm",
    "svesha3",
    "svesm4",
    "flagm2",
    "frint",
    "svei8mm",
    "svef32mm",
    "svef64mm",
    "svebf16",
    "i8mm",
    "bf16",
    "dgh",
    "rng",
    "bti",
];

/// The text for `ncpu` processors.
pub fn cpuinfo(ncpu: usize) -> String {
    let (hwcap, hwcap2) = super::INFO.hwcap;
    let features = [super::super::hwcap_names(hwcap, HWCAP_NAMES), super::super::hwcap_names(hwcap2, HWCAP2_NAMES)]
        .join(" ")
        .trim()
        .to_string();
    let mut s = String::new();
    for i in 0..ncpu {
        let _ = write!(
            s,
            "processor\t: {i}\nBogoMIPS\t: 50.00\nFeatures\t: {features}\nCPU implementer\t: 0x00\n\
             CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x051\nCPU revision\t: 0\n\n"
        );
    }
    s
}
