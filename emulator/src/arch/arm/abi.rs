//! arm (EABI, little-endian) struct layouts and `AT_HWCAP` bits.
//!
//! - `struct stat` and `struct stat64` have i386's members: [`crate::abi::stat32`] (under EABI
//!   the 64-bit members of `stat64` are 8-aligned, 104 bytes).
//! - open flags (arch/arm/include/uapi/asm/fcntl.h) are arm64's: [`crate::abi::arm_fcntl`].
//! - `AT_HWCAP`: arch/arm/include/uapi/asm/hwcap.h.

/// `AT_HWCAP` of unicorn's Cortex-A15 model (ARMv7VE with VFPv4, 32 D registers, NEON,
/// hardware divide in ARM and Thumb, LPAE, TLS register): what a Linux kernel reports for a
/// Cortex-A15, plus `swp`, which QEMU's model executes.
pub const HWCAP_A15: u64 = crate::arch::hwcap_of(
    super::cpuinfo::HWCAP_NAMES,
    &[
        "swp", "half", "thumb", "fastmult", "vfp", "edsp", "neon", "vfpv3", "tls", "vfpv4", "idiva", "idivt", "vfpd32",
        "lpae",
    ],
);

// `LD_SHOW_AUXV=1` on such a kernel: AT_HWCAP 1fb0d7.
const _: () = assert!(HWCAP_A15 == 0x1f_b0d7);

/// Terminal ioctl requests (arch/arm/include/uapi/asm/ioctls.h) -> host: only `FIOQSIZE` differs, 0x545E here and
/// 0x5460 in include/uapi/asm-generic/ioctls.h.
pub fn ioctl_to_host(req: u64) -> u64 {
    match req {
        0x545E => 0x5460,
        r => r,
    }
}
