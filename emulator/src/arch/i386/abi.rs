//! i386 struct layouts and flag values that differ from other arches.
//!
//! Open flags are asm-generic (arch/x86 has no `fcntl.h` of its own), the same values as the
//! x86_64 host's, so they pass through unchanged; `O_LARGEFILE` (0o100000), which i386 glibc
//! adds to every `open`, is a flag the host kernel accepts and ignores. `struct stat` and
//! `struct stat64` are arm's too: [`crate::abi::stat32`] (`stat64` packed to 96 bytes here).

use zerocopy::byteorder::little_endian::U32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// `CPUID.1:EDX` of QEMU's `qemu32` model, the CPU endgate gives i386 guests: QEMU's
/// `PPRO_FEATURES` (fpu de pse tsc msr pae mce cx8 apic sep pge cmov pat mmx fxsr sse sse2;
/// target/i386/cpu.c). Linux passes this word as `AT_HWCAP` on x86
/// (`boot_cpu_data.x86_capability[CPUID_1_EDX]`).
pub const HWCAP_QEMU32: u64 = 0x0781_abfd;

/// `struct user_desc` (layout: arch/x86/include/uapi/asm/ldt.h), 16 bytes: the argument of
/// `set_thread_area`/`get_thread_area` and of `clone(CLONE_SETTLS)` on i386. `flags` holds
/// the bit fields, lowest bit first: `seg_32bit:1, contents:2, read_exec_only:1,
/// limit_in_pages:1, seg_not_present:1, useable:1`.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct UserDesc {
    pub entry_number: U32,
    pub base_addr: U32,
    pub limit: U32,
    pub flags: U32,
}

const _: () = assert!(std::mem::size_of::<UserDesc>() == 16);

/// Bit positions inside [`UserDesc::flags`].
pub mod user_desc {
    /// `seg_32bit`.
    pub const SEG_32BIT: u32 = 1 << 0;
    /// `contents` (2 bits: 0 data, 1 stack (expand-down), 2 code).
    pub const CONTENTS_SHIFT: u32 = 1;
    /// `read_exec_only`.
    pub const READ_EXEC_ONLY: u32 = 1 << 3;
    /// `limit_in_pages`.
    pub const LIMIT_IN_PAGES: u32 = 1 << 4;
    /// `seg_not_present`.
    pub const SEG_NOT_PRESENT: u32 = 1 << 5;
    /// `useable`.
    pub const USEABLE: u32 = 1 << 6;
    /// Every bit the kernel reads.
    pub const ALL: u32 = 0x7f;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hwcap_is_ppro_features() {
        // fpu de pse tsc msr mce cx8 pge cmov pat fxsr mmx sse sse2 pae sep apic.
        let bits = [0, 2, 3, 4, 5, 7, 8, 13, 15, 16, 24, 23, 25, 26, 6, 11, 9];
        assert_eq!(HWCAP_QEMU32, bits.iter().fold(0, |a, b| a | 1 << b));
    }
}
