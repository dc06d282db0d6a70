//! arm (EABI, little-endian) struct layouts and `AT_HWCAP` bits.
//!
//! - `struct stat` and `struct stat64` have i386's members: [`crate::abi::stat32`] (under EABI
//!   the 64-bit members of `stat64` are 8-aligned, 104 bytes).
//! - open flags (arch/arm/include/uapi/asm/fcntl.h) are arm64's: [`crate::abi::arm_fcntl`].
//! - `AT_HWCAP`: arch/arm/include/uapi/asm/hwcap.h.

/// `AT_HWCAP` bits (arch/arm/include/uapi/asm/hwcap.h).
#[allow(missing_docs)]
pub mod hwcap {
    pub const SWP: u64 = 1 << 0;
    pub const HALF: u64 = 1 << 1;
    pub const THUMB: u64 = 1 << 2;
    pub const FAST_MULT: u64 = 1 << 4;
    pub const VFP: u64 = 1 << 6;
    pub const EDSP: u64 = 1 << 7;
    pub const NEON: u64 = 1 << 12;
    pub const VFPV3: u64 = 1 << 13;
    pub const TLS: u64 = 1 << 15;
    pub const VFPV4: u64 = 1 << 16;
    pub const IDIVA: u64 = 1 << 17;
    pub const IDIVT: u64 = 1 << 18;
    pub const VFPD32: u64 = 1 << 19;
    pub const LPAE: u64 = 1 << 20;
}

/// `AT_HWCAP` of unicorn's Cortex-A15 model (ARMv7VE with VFPv4, 32 D registers, NEON,
/// hardware divide in ARM and Thumb, LPAE, TLS register): what a Linux kernel reports for a
/// Cortex-A15 (`half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae`),
/// plus `swp`, which QEMU's model executes.
pub const HWCAP_A15: u64 = hwcap::SWP
    | hwcap::HALF
    | hwcap::THUMB
    | hwcap::FAST_MULT
    | hwcap::VFP
    | hwcap::EDSP
    | hwcap::NEON
    | hwcap::VFPV3
    | hwcap::TLS
    | hwcap::VFPV4
    | hwcap::IDIVA
    | hwcap::IDIVT
    | hwcap::VFPD32
    | hwcap::LPAE;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hwcap_value() {
        assert_eq!(HWCAP_A15, 0x1f_b0d7);
    }
}
