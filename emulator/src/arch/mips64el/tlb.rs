//! Wired MIPS TLB entries over the guest's address-space windows.
//!
//! Guest memory is translated by unicorn's virtual TLB hook, as on every arch, except in one
//! place: QEMU's `ll`/`lld` helpers (target/mips/op_helper.c `HELPER_LD_ATOMIC`) also ask the
//! CPU's own R4000-style TLB for a physical address to put in CP0 `LLAddr`. With that TLB empty,
//! every `ll` raises a TLB refill exception, and glibc uses `ll`/`sc` for every atomic. So
//! before the guest starts, endgate writes global, valid, dirty TLB entries of the largest page
//! size (2 × 256 MiB per entry) over the windows of [`Layout`]: the physical address they give
//! (0) only ends up in `LLAddr`, which nothing reads; `sc` compares virtual addresses.
//!
//! The entries are written by running a six-instruction stub (`mtc0`/`dmtc0` to PageMask,
//! EntryHi, EntryLo0/1 and Index, then `tlbwi`) once per entry in a scratch page below the
//! initial stack pointer, which is restored afterwards.

use unicorn_engine::RegisterMIPS;

use crate::guest::Cpu;
use crate::mm::{GuestAddr, Layout};

/// Bytes one TLB entry maps with PageMask 0x1FFFE000: an even/odd pair of 256 MiB pages.
pub const ENTRY_SPAN: u64 = 512 << 20;

/// PageMask for 256 MiB pages (MIPS64 PRA, "PageMask Register").
const PAGEMASK_256M: u64 = 0x1FFF_E000;
/// EntryLo: G (global), V (valid), D (dirty/writable), PFN 0.
const ENTRYLO_GVD: u64 = 0b111;

/// `mtc0`/`dmtc0 rt, rd` (sel 0) and `tlbwi` encodings (MIPS64 ISA, COP0 format).
const fn mtc0(rt: u32, rd: u32) -> u32 {
    0x4080_0000 | rt << 16 | rd << 11
}
const fn dmtc0(rt: u32, rd: u32) -> u32 {
    0x40a0_0000 | rt << 16 | rd << 11
}
const TLBWI: u32 = 0x4200_0002;

/// CP0 register numbers: Index 0, EntryLo0 2, EntryLo1 3, PageMask 5, EntryHi 10.
const STUB: [u32; 6] = [mtc0(11, 5), dmtc0(8, 10), dmtc0(9, 2), dmtc0(9, 3), mtc0(10, 0), TLBWI];

/// The 512 MiB-aligned entry bases that cover `layout`'s three windows, at most `max` of them.
pub fn entry_bases(layout: &Layout, max: usize) -> Vec<u64> {
    let windows = [
        (0, layout.low_len),
        (layout.dyn_base, layout.dyn_base + layout.dyn_len),
        (layout.task_size - layout.top_len, layout.task_size),
    ];
    let mut bases = Vec::new();
    for (start, end) in windows {
        let mut b = start & !(ENTRY_SPAN - 1);
        while b < end && bases.len() < max {
            if !bases.contains(&b) {
                bases.push(b);
            }
            b += ENTRY_SPAN;
        }
    }
    bases
}

/// Writes one wired entry per base in `bases` (index 0, 1, …) by running the stub at `scratch`,
/// a mapped, 4 KiB-aligned guest page whose contents are restored afterwards.
pub fn wire_entries(cpu: &mut Cpu<'_>, scratch: GuestAddr, bases: &[u64]) -> Result<(), unicorn_engine::uc_error> {
    let code: Vec<u8> = STUB.iter().flat_map(|i| i.to_le_bytes()).collect();
    let mut saved = vec![0u8; code.len()];
    let mm = &mut cpu.get_data_mut().mm;
    mm.read_bytes(scratch, &mut saved).map_err(|_| unicorn_engine::uc_error::READ_UNMAPPED)?;
    mm.poke_bytes(scratch, &code).map_err(|_| unicorn_engine::uc_error::WRITE_UNMAPPED)?;
    mm.permissive = true;
    let gpr = RegisterMIPS::R0 as i32;
    let mut result = Ok(());
    for (i, &base) in bases.iter().enumerate() {
        let regs = [(8, base), (9, ENTRYLO_GVD), (10, i as u64), (11, PAGEMASK_256M)];
        for (r, v) in regs {
            cpu.reg_write(gpr + r, v)?;
        }
        result = cpu.emu_start(scratch.get(), (scratch + code.len() as u64).get(), 0, 0);
        if result.is_err() {
            break;
        }
    }
    let _ = cpu.get_data_mut().mm.poke_bytes(scratch, &saved);
    // Still permissive: the removal fetches through the TLB, and the page need not be
    // executable (see `task::apply_invalidate`).
    let _ = cpu.ctl_remove_cache(scratch.get(), (scratch + code.len() as u64).get());
    cpu.get_data_mut().mm.permissive = false;
    let _ = cpu.ctl_flush_tlb();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        // `mtc0 $11, $5` and `tlbwi` as binutils assembles them.
        assert_eq!(mtc0(11, 5), 0x408b_2800);
        assert_eq!(dmtc0(8, 10), 0x40a8_5000);
    }
}
