//! Forgets the "exception in flight" of unicorn's x86 CPU after endgate has served an
//! exception as a signal (x86_64 and i386 guests).
//!
//! QEMU's x86 CPU remembers the last contributory exception (#DE, #TS, #NP, #SS, #GP) or page
//! fault in `CPUX86State::old_exception` until its interrupt-delivery code has run
//! (target/i386/excp_helper.c `check_exception`; `x86_cpu_do_interrupt` resets it to -1).
//! Unicorn calls the interrupt hook *instead of* delivering, so the field stays set: the
//! guest's next #DE after a handled one turns into a double fault (#DF, vector 8), and the
//! one after that into a triple fault, which resets the CPU. A program that survives
//! `SIGFPE` twice (or a `SIGSEGV` from #GP and then a `SIGFPE`) would be misreported.
//!
//! Unicorn has no API for the field, but its CPU context (`uc_context_save`) is a byte copy
//! of `CPUX86State` up to `end_reset_fields`, which includes `old_exception`. Its offset in
//! the context is found once at run time, by fingerprint, on a scratch instance: fresh (-1),
//! after one #DE (0), after a second #DE (8, the double fault). [`clear`] then saves the
//! context, writes -1 there and restores it.
//!
//! The same saved context tells a software interrupt (`int N`) from an exception the CPU
//! raised with the same vector: `CPUX86State::exception_is_int`, which QEMU's
//! `raise_interrupt2` sets (target/i386/excp_helper.c) and which the interrupt hook sees still
//! set. Linux opens only vectors 3, 4 and 0x80 to `int` from user mode (DPL 3 gates in its IDT);
//! any other `int N` is a general-protection fault, so `int $0` is SIGSEGV where a division by
//! zero, vector 0 too, is SIGFPE. Its offset is found the same way: after `int $0x42` it is 1
//! and the `exception_next_eip` after it holds the address after the instruction; after a
//! `div` fault it is 0.

use crate::guard::Checked;
use std::sync::OnceLock;

use unicorn_engine::unicorn_const::{
    uc_context, uc_context_alloc, uc_context_restore, uc_context_save, uc_context_size, uc_engine, uc_free,
};
use unicorn_engine::{Arch, Mode, Prot, RegisterX86, Unicorn};

/// Byte offset of `old_exception` in a saved context allocation (`None`: not found; then
/// [`clear`] does nothing).
static OFFSET: OnceLock<Option<usize>> = OnceLock::new();

/// A saved context as raw bytes (the whole `uc_context` allocation).
fn snapshot(uc: *mut uc_engine) -> Option<Vec<u8>> {
    // SAFETY: a live engine; the context is allocated with the size unicorn reports, saved,
    // copied out and freed.
    unsafe {
        let size = uc_context_size(uc);
        let mut ctx: *mut uc_context = std::ptr::null_mut();
        if uc_context_alloc(uc, &mut ctx) != unicorn_engine::unicorn_const::uc_error::OK || ctx.is_null() {
            return None;
        }
        let ok = uc_context_save(uc, ctx) == unicorn_engine::unicorn_const::uc_error::OK;
        let bytes = std::slice::from_raw_parts(ctx.cast::<u8>(), size).to_vec();
        uc_free(ctx.cast());
        ok.then_some(bytes)
    }
}

fn find_offset() -> Option<usize> {
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).ok()?;
    uc.mem_map(0x1000, 0x1000, Prot::ALL).ok()?;
    // xor edx,edx; xor eax,eax; xor ecx,ecx; div ecx
    uc.mem_write(0x1000, &[0x31, 0xd2, 0x31, 0xc0, 0x31, 0xc9, 0xf7, 0xf1]).ok()?;
    uc.add_intr_hook(|uc, _intno| {
        crate::guard::guarded(&"exception-state probe hook", || uc.stop());
    })
    .ok()?;
    let h = uc.get_handle();
    let fresh = snapshot(h)?;
    // Both runs end in the division fault, which the hook stops: their error is expected, and
    // what they leave is read from the snapshots.
    let _ = uc.emu_start(0x1000, 0x2000, 0, 0);
    let once = snapshot(h)?;
    uc.set_reg(RegisterX86::RIP, 0x1006);
    // As above: the fault ends it.
    let _ = uc.emu_start(0x1006, 0x2000, 0, 0);
    let twice = snapshot(h)?;
    let int_at = |v: &[u8], i: usize| i32::from_ne_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
    let n = fresh.len().min(once.len()).min(twice.len());
    let hits: Vec<usize> = (0..n.saturating_sub(3))
        .step_by(4)
        .filter(|&i| int_at(&fresh, i) == -1 && int_at(&once, i) == 0 && int_at(&twice, i) == 8)
        .collect();
    (hits.len() == 1).then(|| hits[0])
}

/// Byte offset of `exception_is_int` in a saved context allocation (`None`: not found; then
/// every exception counts as the CPU's own).
static IS_INT: OnceLock<Option<usize>> = OnceLock::new();

fn find_is_int() -> Option<usize> {
    const INT: u64 = 0x1000;
    const DIV: u64 = 0x1010;
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).ok()?;
    uc.mem_map(0x1000, 0x1000, Prot::ALL).ok()?;
    // int $0x42; at DIV: xor edx,edx; xor eax,eax; xor ecx,ecx; div ecx
    uc.mem_write(INT, &[0xcd, 0x42]).ok()?;
    uc.mem_write(DIV, &[0x31, 0xd2, 0x31, 0xc0, 0x31, 0xc9, 0xf7, 0xf1]).ok()?;
    uc.add_intr_hook(|uc, _intno| {
        crate::guard::guarded(&"exception-state probe hook", || uc.stop());
    })
    .ok()?;
    let h = uc.get_handle();
    // Both runs end in the interrupt, which the hook stops: their error is expected.
    let _ = uc.emu_start(INT, 0x2000, 0, 0);
    let soft = snapshot(h)?;
    uc.set_reg(RegisterX86::RIP, DIV);
    // As above: the division fault ends it.
    let _ = uc.emu_start(DIV, 0x2000, 0, 0);
    let hard = snapshot(h)?;
    let int_at = |v: &[u8], i: usize| i32::from_ne_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
    let u64_at = |v: &[u8], i: usize| v.get(i..i + 8).map(|b| u64::from_ne_bytes(b.try_into().unwrap_or([0; 8])));
    // `int exception_is_int; target_ulong exception_next_eip;` (target/i386/cpu.h).
    let next = |i: usize| (i + 4 + 7) & !7;
    let n = soft.len().min(hard.len());
    let hits: Vec<usize> = (0..n.saturating_sub(3))
        .step_by(4)
        .filter(|&i| int_at(&soft, i) == 1 && int_at(&hard, i) == 0 && u64_at(&soft, next(i)) == Some(INT + 2))
        .collect();
    (hits.len() == 1).then(|| hits[0])
}

/// Resets the CPU's exception in flight after an exception was served (see the module doc);
/// returns `true` if the exception was a software interrupt (`int N`, `int3`, `into`).
pub fn clear<D>(cpu: &mut Unicorn<'_, D>) -> bool {
    let Some(off) = *OFFSET.get_or_init(find_offset) else { return false };
    let is_int = *IS_INT.get_or_init(find_is_int);
    let uc = cpu.get_handle();
    // SAFETY: a live engine; the context allocation is `uc_context_size` bytes, `off + 4` and
    // `is_int + 4` lie inside it (found within a snapshot of the same size, and checked), and
    // it is freed after use.
    unsafe {
        let size = uc_context_size(uc);
        if off + 4 > size {
            return false;
        }
        let mut ctx: *mut uc_context = std::ptr::null_mut();
        if uc_context_alloc(uc, &mut ctx) != unicorn_engine::unicorn_const::uc_error::OK || ctx.is_null() {
            return false;
        }
        let mut soft = false;
        if uc_context_save(uc, ctx) == unicorn_engine::unicorn_const::uc_error::OK {
            if let Some(i) = is_int.filter(|&i| i + 4 <= size) {
                soft = ctx.cast::<u8>().add(i).cast::<i32>().read_unaligned() != 0;
            }
            ctx.cast::<u8>().add(off).cast::<i32>().write_unaligned(-1);
            crate::guard::check("uc_context_restore", uc_context_restore(uc, ctx));
        }
        uc_free(ctx.cast());
        soft
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn old_exception_is_found() {
        assert!(super::find_offset().is_some());
    }

    #[test]
    fn exception_is_int_is_found() {
        assert!(super::find_is_int().is_some());
    }
}
