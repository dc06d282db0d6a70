//! The kuser helpers page: the "vectors" page Linux maps read-and-execute at 0xffff0000 in
//! every arm process, whose last 160 bytes are small routines user space calls at fixed
//! addresses (Documentation/arch/arm/kernel_user_helpers.rst). glibc uses them on old CPUs;
//! other runtimes (Go's `runtime/internal/atomic`, some libgcc atomics, Android bionic) call
//! `__kuser_cmpxchg`, `__kuser_get_tls` and `__kuser_memory_barrier` directly.
//!
//! Each helper is A32 code assembled by hand for an ARMv7 CPU (the encodings are spelled out
//! beside each word); the atomic ones are `ldrex`/`strex` retry loops, which unicorn executes
//! atomically because one guest thread runs at a time. Their contracts (registers, return
//! value, C flag) are the kernel's. Callers reach them with `blx`/`bl` from ARM or Thumb code;
//! each returns with `bx lr`, which goes back to the caller's state.
//!
//! | address    | helper                     | contract |
//! |------------|----------------------------|----------|
//! | 0xffff0ffc | `__kuser_helper_version`   | a word: the number of 32-byte helper slots, 5 |
//! | 0xffff0fe0 | `__kuser_get_tls`          | r0 = TPIDRURO |
//! | 0xffff0fc0 | `__kuser_cmpxchg`          | if `*r2 == r0` store r1; r0 = 0 and C set on success |
//! | 0xffff0fa0 | `__kuser_memory_barrier`   | `dmb ish` |
//! | 0xffff0f60 | `__kuser_cmpxchg64`        | 64-bit compare-and-swap through pointers r0, r1, r2 |

use super::a32::{BX_LR, UDF};
use crate::mm::{AddressSpace, GuestAddr, Prot, VmaName, PAGE_SIZE};

/// Guest address of the vectors page (arch/arm/include/asm/memory.h `VECTORS_BASE` for high
/// vectors; arm64's `AARCH32_VECTORS_BASE`).
pub const VECTORS_BASE: u64 = 0xffff_0000;

/// `__kuser_helper_version`: five 32-byte helper slots from 0xffff0f60 to the page end.
const HELPER_VERSION: u32 = 5;

/// `__kuser_cmpxchg64` at 0xffff0f60 (r0: &oldval, r1: &newval, r2: ptr; returns r0 = 0 and
/// C = 1 when `*ptr` held oldval and now holds newval).
const CMPXCHG64: [u32; 12] = [
    0xe92d_00f0, // push {r4, r5, r6, r7}         (stmdb sp!, register list 0x00f0)
    0xe1c0_40d0, // ldrd r4, r5, [r0]             (P=1 U=1 W=0, imm 0: the old value)
    0xe1c1_60d0, // ldrd r6, r7, [r1]             (the new value)
    0xe1b2_0f9f, // 1: ldrexd r0, r1, [r2]        (exclusive load of the current value)
    0xe030_3004, // eors r3, r0, r4               (low words equal?)
    0x0031_3005, // eorseq r3, r1, r5             (then high words equal?)
    0x01a2_3f96, // strexdeq r3, r6, r7, [r2]     (store the new value; r3 = 1 if it failed)
    0x0333_0001, // teqeq r3, #1                  (store attempted and failed?)
    0x0aff_fff9, // beq 1b                        (retry: offset -7 words from pc+8)
    0xe8bd_00f0, // pop {r4, r5, r6, r7}
    0xe273_0000, // rsbs r0, r3, #0               (r0 = 0 and C = 1 exactly when r3 == 0)
    BX_LR,
];

/// `__kuser_memory_barrier` at 0xffff0fa0.
const MEMORY_BARRIER: [u32; 2] = [
    0xf57f_f05b, // dmb ish                       (unconditional space, option 0b1011)
    BX_LR,
];

/// `__kuser_cmpxchg` at 0xffff0fc0 (r0: oldval, r1: newval, r2: ptr; returns r0 = 0 and C = 1
/// on success, r0 != 0 and C = 0 when `*ptr != oldval`).
const CMPXCHG: [u32; 7] = [
    0xe192_3f9f, // 1: ldrex r3, [r2]
    0xe053_3000, // subs r3, r3, r0               (Z when *ptr == oldval)
    0x0182_3f91, // strexeq r3, r1, [r2]          (r3 = 0 stored, 1 lost the reservation)
    0x0333_0001, // teqeq r3, #1
    0x0aff_fffa, // beq 1b                        (offset -6 words from pc+8)
    0xe273_0000, // rsbs r0, r3, #0
    BX_LR,
];

/// `__kuser_get_tls` at 0xffff0fe0.
const GET_TLS: [u32; 2] = [
    0xee1d_0f70, // mrc p15, 0, r0, c13, c0, 3    (TPIDRURO; cp15 opc1=0 CRn=13 CRm=0 opc2=3)
    BX_LR,
];

/// The page's contents, as words at their offsets.
fn page_words() -> Vec<u32> {
    let mut words = vec![UDF; (PAGE_SIZE / 4) as usize];
    let mut put = |offset: usize, code: &[u32]| words[offset / 4..offset / 4 + code.len()].copy_from_slice(code);
    put(0xf60, &CMPXCHG64);
    put(0xfa0, &MEMORY_BARRIER);
    put(0xfc0, &CMPXCHG);
    put(0xfe0, &GET_TLS);
    put(0xffc, &[HELPER_VERSION]);
    words
}

/// Maps the vectors page at [`VECTORS_BASE`], read and execute for the guest, filled with the
/// helpers. It shows as `[vectors]` in `/proc/self/maps`, as on Linux. Errors: `ENOMEM` if the
/// address space has no window there.
pub fn map_vectors_page(mm: &mut AddressSpace) -> Result<(), syscalls::Errno> {
    mm.map_anon(VECTORS_BASE, PAGE_SIZE, Prot::READ | Prot::EXEC, VmaName::Gate("[vectors]"))?;
    let bytes: Vec<u8> = page_words().iter().flat_map(|w| w.to_le_bytes()).collect();
    mm.poke_bytes(GuestAddr::new(VECTORS_BASE), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_fit_their_slots() {
        assert!(CMPXCHG64.len() * 4 <= 0x40);
        assert!(MEMORY_BARRIER.len() * 4 <= 0x20);
        assert!(CMPXCHG.len() * 4 <= 0x20);
        assert!(GET_TLS.len() * 4 <= 0x1c);
        let w = page_words();
        assert_eq!(w[0xffc / 4], 5);
        assert_eq!(w[0xfe0 / 4], 0xee1d_0f70);
    }

    #[test]
    fn branch_offsets_reach_the_loop_heads() {
        // A32 B: target = insn address + 8 + sign_extend(imm24) * 4.
        let target = |at: i64, insn: u32| at + 8 + i64::from(crate::abi::int32(insn << 8) >> 8) * 4;
        assert_eq!(target(0xfc0 + 16, CMPXCHG[4]), 0xfc0);
        assert_eq!(target(0xf60 + 32, CMPXCHG64[8]), 0xf60 + 12);
    }
}
