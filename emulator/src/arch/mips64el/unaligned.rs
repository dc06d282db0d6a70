//! What Linux makes of a misaligned load or store (the address-error exceptions `AdEL` and
//! `AdES`) when it cannot complete it.
//!
//! MIPS Linux does not send a signal for a misaligned user access: `do_ade`
//! (arch/mips/kernel/unaligned.c) emulates the instruction (user threads have `TIF_FIXADE`).
//! That emulation ends in a signal in two cases, and these are what this module reports:
//! - an address outside the user range (`access_ok` fails): `SIGBUS`, raised with
//!   `force_sig`, so `SI_KERNEL` and no address;
//! - an access the emulation's own user copy faults on (unmapped, or without the permission):
//!   `SIGSEGV`, also through `force_sig`: `SI_KERNEL` (0x80) and `si_addr` 0, not the
//!   `SEGV_MAPERR`/`SEGV_ACCERR` and address of an aligned access's page fault.
//!
//! A misaligned access to memory the guest may use is completed by Linux; endgate does not
//! emulate it yet and keeps `SIGBUS` `BUS_ADRALN` for it (README, Limitations). glibc's
//! `clock_gettime` and `gettimeofday` on mips64el store the vDSO's result into the caller's
//! buffer themselves, so a misaligned bad buffer reaches this path.

use crate::guard::Checked;
use crate::guest::Cpu;
use crate::mm::{GuestAddr, Prot};
use crate::signal::{SigInfo, Signal};

/// `si_code` `SI_KERNEL` (include/uapi/asm-generic/siginfo.h): what `force_sig` sends.
const SI_KERNEL: i32 = 0x80;

/// The size and direction of the loads and stores `do_ade`'s `emulate_load_store_insn`
/// completes, by major opcode (bits 31-26; MIPS64 Release 2, Volume II "CPU Instruction
/// Encoding"): `lh`, `lhu`, `lw`, `lwu`, `ld`, `sh`, `sw`, `sd` and the FPU's `lwc1`, `ldc1`,
/// `swc1`, `sdc1`. `ll`/`sc` and the others are not emulated by Linux (`SIGBUS`).
fn access_of(insn: u32) -> Option<(u64, Prot)> {
    Some(match insn >> 26 {
        0x21 | 0x25 => (2, Prot::READ),
        0x23 | 0x27 | 0x31 => (4, Prot::READ),
        0x37 | 0x35 => (8, Prot::READ),
        0x29 => (2, Prot::WRITE),
        0x2b | 0x39 => (4, Prot::WRITE),
        0x3f | 0x3d => (8, Prot::WRITE),
        _ => return None,
    })
}

/// The signal Linux's emulation of the misaligned access at `pc` ends in, or `None` when
/// Linux would complete the access (or the instruction is not one it emulates). When the
/// access is in a branch delay slot the PC may name the branch: its delay slot is tried next.
pub(super) fn emulation_fault(cpu: &Cpu<'_>, pc: u64) -> Option<SigInfo> {
    let mm = &cpu.get_data().mm;
    let (insn, (len, need)) = [pc, pc.wrapping_add(4)].into_iter().find_map(|at| {
        let insn = mm.read_u32(GuestAddr::new(at)).ok()?;
        Some((insn, access_of(insn)?))
    })?;
    let base = cpu.reg(super::GPR0 + i32::try_from((insn >> 21) & 31).unwrap_or(0));
    #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    // the 16-bit offset, sign-extended
    let addr = base.wrapping_add(i64::from(insn as u16 as i16) as u64);
    let end = addr.checked_add(len);
    if end.is_none_or(|e| e > mm.task_size) {
        return Some(SigInfo::fault(Signal::SIGBUS, SI_KERNEL, 0));
    }
    (mm.accessible_prefix(addr, len, need) < len).then(|| SigInfo::fault(Signal::SIGSEGV, SI_KERNEL, 0))
}
