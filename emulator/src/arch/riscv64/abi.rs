//! riscv64 struct layouts and flag values.
//!
//! riscv64 has no uapi headers of its own for these: `struct stat` is asm-generic
//! (include/uapi/asm-generic/stat.h, [`crate::abi::generic::Stat`]) and the open flags are
//! asm-generic (include/uapi/asm-generic/fcntl.h), the same values as the x86_64 host's, so
//! they pass through unchanged.

/// `AT_HWCAP` bit of a single-letter ISA extension: arch/riscv/include/uapi/asm/hwcap.h
/// defines `COMPAT_HWCAP_ISA_<X>` as `1 << ('X' - 'A')`.
const fn isa_bit(letter: u8) -> u64 {
    1 << (letter - b'A')
}

/// `AT_HWCAP` for RV64GC (`IMAFDC`), the extensions of unicorn's SiFive U54 model
/// (target/riscv/cpu.c `rv64gcsu_priv1_10_0_cpu_init`; S and U are privilege modes, which
/// Linux does not report).
pub const HWCAP_RV64GC: u64 =
    isa_bit(b'I') | isa_bit(b'M') | isa_bit(b'A') | isa_bit(b'F') | isa_bit(b'D') | isa_bit(b'C');

// What a Linux RV64GC system shows in LD_SHOW_AUXV=1: AT_HWCAP 112d.
const _: () = assert!(HWCAP_RV64GC == 0x112d);
