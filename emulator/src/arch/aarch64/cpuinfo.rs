//! `/proc/cpuinfo` as an arm64 kernel prints it for the guest's CPU (arch/arm64/kernel/
//! cpuinfo.c `c_show`): unicorn's Cortex-A72 (`MIDR_EL1` 0x410fd083) with the `AT_HWCAP` the
//! guest gets, so `Features` and `getauxval(AT_HWCAP)` agree.

use std::fmt::Write as _;

/// `AT_HWCAP` bit names, bit 0 first (`hwcap_str`; the bits of
/// arch/arm64/include/uapi/asm/hwcap.h).
pub(super) const HWCAP_NAMES: &[&str] = &[
    "fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32", "atomics", "fphp", "asimdhp", "cpuid",
    "asimdrdm", "jscvt", "fcma", "lrcpc", "dcpop", "sha3", "sm3", "sm4", "asimddp", "sha512", "sve", "asimdfhm", "dit",
    "uscat", "ilrcpc", "flagm", "ssbs", "sb", "paca", "pacg",
];

/// The text for `ncpu` processors.
pub fn cpuinfo(ncpu: usize) -> String {
    let features = super::super::hwcap_names(super::INFO.hwcap.0, HWCAP_NAMES);
    let mut s = String::new();
    for i in 0..ncpu {
        let _ = write!(
            s,
            "processor\t: {i}\nBogoMIPS\t: 50.00\nFeatures\t: {features}\nCPU implementer\t: 0x41\n\
             CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n"
        );
    }
    s
}
