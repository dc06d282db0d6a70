//! Leaving a branch delay slot when a stopped thread's PC moves elsewhere.
//!
//! When emulation stops between a branch and its delay slot (a fault in the delay slot, a
//! stop request), QEMU's `restore_state_to_opc` leaves the branch's delay-slot bits in
//! `env->hflags` and the PC on the delay-slot instruction, so that resuming there completes
//! the branch. A signal handler started from that state would be run as if it were the
//! delay slot: `leave_delay_slot` clears the bits first. `hflags` is not a unicorn register:
//! the repair goes through a CPU context (`uc_context_save`/`uc_context_restore`, a copy of
//! QEMU's `CPUMIPSState`), in which the offset of `hflags` is found once by toggling
//! `Status.FR`, whose only effect on `hflags` is `MIPS_HFLAG_F64`.
//!
//! (unicorn 2.1.5 also set these bits after every successful TLB fill of a load or store in a
//! delay slot, which made the next block start as a delay slot; unicorn patch 0010 removed that
//! restore, and with it the repair this module did after each fill.)

use std::sync::OnceLock;

use unicorn_engine::unicorn_const::{
    uc_context, uc_context_alloc, uc_context_free, uc_context_restore, uc_context_save,
};
use unicorn_engine::RegisterMIPS;

use crate::guest::Cpu;

/// QEMU target/mips/cpu.h: `MIPS_HFLAG_BMASK` (branch and delay-slot state) and
/// `MIPS_HFLAG_F64` (64-bit FPU registers, follows `Status.FR`).
const MIPS_HFLAG_BMASK: u32 = 0x80_3800 | 0x7_C000;
const MIPS_HFLAG_F64: u32 = 0x40;
/// `Status.FR`.
const STATUS_FR: u64 = 1 << 26;

/// Offset of the CPU state in a `struct uc_context` (include/uc_priv.h: `size_t
/// context_size; uc_mode mode; uc_arch arch; int snapshot_level; bool ramblock_freed;
/// RAMBlock *last_block; FlatView *fv; char data[]`, on LP64).
const CONTEXT_DATA: usize = 40;

/// Byte offset of `hflags` in the saved CPU state, once found.
static HFLAGS_AT: OnceLock<Option<usize>> = OnceLock::new();

/// A CPU context owned for the length of one call.
struct Ctx(*mut uc_context);

impl Ctx {
    fn save(cpu: &Cpu<'_>) -> Option<Ctx> {
        let mut p = std::ptr::null_mut();
        // SAFETY: a live handle and an out pointer; on success `p` owns a context of
        // `uc_context_size` bytes, filled by the save.
        unsafe {
            if !matches!(uc_context_alloc(cpu.get_handle(), &mut p), unicorn_engine::uc_error::OK) {
                return None;
            }
            let c = Ctx(p);
            matches!(uc_context_save(cpu.get_handle(), c.0), unicorn_engine::uc_error::OK).then_some(c)
        }
    }

    /// The saved CPU state (`context_size` bytes after the header).
    fn data(&mut self) -> &mut [u8] {
        // SAFETY: the header's first field is the state's size; the state follows at
        // CONTEXT_DATA and the allocation holds both.
        unsafe {
            let size = *(self.0 as *const usize);
            std::slice::from_raw_parts_mut((self.0 as *mut u8).add(CONTEXT_DATA), size)
        }
    }

    fn restore(&self, cpu: &Cpu<'_>) {
        // SAFETY: a context saved from this same engine.
        unsafe { uc_context_restore(cpu.get_handle(), self.0) };
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: allocated by uc_context_alloc and freed once.
        unsafe { uc_context_free(self.0) };
    }
}

fn word(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]])
}

/// Finds the offset of `hflags` (call once the CPU is set up, with `Status.FR` set).
pub fn locate_hflags(cpu: &mut Cpu<'_>) {
    HFLAGS_AT.get_or_init(|| {
        let status = cpu.reg_read(RegisterMIPS::CP0_STATUS).ok()?;
        let mut with = Ctx::save(cpu)?;
        cpu.reg_write(RegisterMIPS::CP0_STATUS, status ^ STATUS_FR).ok()?;
        let without = Ctx::save(cpu);
        cpu.reg_write(RegisterMIPS::CP0_STATUS, status).ok()?;
        let mut without = without?;
        let (a, b) = (with.data().to_vec(), without.data());
        let hits: Vec<usize> = (0..a.len().min(b.len()) / 4)
            .map(|i| i * 4)
            .filter(|&i| word(&a, i) ^ word(b, i) == MIPS_HFLAG_F64)
            .collect();
        (hits.len() == 1).then(|| hits[0])
    });
}

/// Whether the engine stopped on a branch delay slot's instruction (`hflags` has branch
/// bits); `None` if `hflags` could not be read.
pub fn in_delay_slot(cpu: &Cpu<'_>) -> Option<bool> {
    let Some(&Some(at)) = HFLAGS_AT.get() else { return None };
    let mut ctx = Ctx::save(cpu)?;
    Some(word(ctx.data(), at) & MIPS_HFLAG_BMASK != 0)
}

/// Clears the branch and delay-slot bits of `hflags`; returns `true` if any were set.
fn clear_branch_state(cpu: &Cpu<'_>) -> bool {
    let Some(&Some(at)) = HFLAGS_AT.get() else { return false };
    let Some(mut ctx) = Ctx::save(cpu) else { return false };
    let d = ctx.data();
    let h = word(d, at);
    if h & MIPS_HFLAG_BMASK == 0 {
        return false;
    }
    d[at..at + 4].copy_from_slice(&(h & !MIPS_HFLAG_BMASK).to_le_bytes());
    ctx.restore(cpu);
    true
}

/// Takes a stopped thread out of a branch delay slot before its PC moves elsewhere (a
/// signal handler): returns `true` if the PC was on a delay-slot instruction (emulation
/// stopped, or a fault was raised, between a branch and its delay slot), whose branch is
/// then at PC - 4. Without this the engine would treat the next instruction run as a delay
/// slot and jump to the stale branch target after it.
pub fn leave_delay_slot(cpu: &Cpu<'_>) -> bool {
    clear_branch_state(cpu)
}
