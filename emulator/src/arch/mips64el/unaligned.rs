//! A misaligned load or store (the address-error exceptions `AdEL` and `AdES`), answered as
//! Linux answers it.
//!
//! MIPS Linux does not send a signal for a misaligned user access: `do_ade`
//! (arch/mips/kernel/unaligned.c) emulates the instruction (user threads have `TIF_FIXADE`)
//! and the program goes on after it. That emulation ends in a signal in two cases:
//! - an address outside the user range (`access_ok` fails): `SIGBUS`, raised with
//!   `force_sig`, so `SI_KERNEL` and no address;
//! - an access the emulation's own user copy faults on (unmapped, or without the permission):
//!   `SIGSEGV`, also through `force_sig`: `SI_KERNEL` (0x80) and `si_addr` 0, not the
//!   `SEGV_MAPERR`/`SEGV_ACCERR` and address of an aligned access's page fault.
//!
//! endgate completes the integer loads and stores (`lh`, `lhu`, `lw`, `lwu`, `ld`, `sh`, `sw`,
//! `sd`) as Linux does, in a branch delay slot too (the branch before it is decoded and
//! completed, as Linux's `__compute_return_epc` does); a misaligned FPU load or store
//! (`lwc1`…), or one in the delay slot of an FPU condition branch, stays `SIGBUS`
//! `BUS_ADRALN` (README, Limitations). glibc's
//! `clock_gettime` and `gettimeofday` on mips64el store the vDSO's result into the caller's
//! buffer themselves, so a misaligned buffer reaches this path. The exception's PC is the
//! faulting instruction's (unicorn patch 0023).

use unicorn_engine::RegisterMIPS;

use crate::guard::Checked;
use crate::guest::Cpu;
use crate::mm::{GuestAddr, Prot};
use crate::signal::{SigInfo, Signal};

/// `si_code` `SI_KERNEL` (include/uapi/asm-generic/siginfo.h): what `force_sig` sends.
const SI_KERNEL: i32 = 0x80;

/// What became of a misaligned access.
pub(super) enum Outcome {
    /// Completed: the guest goes on at the next instruction.
    Done,
    /// The signal Linux's emulation ends in.
    Signal(SigInfo),
    /// Not one endgate completes: the exception's usual signal.
    Kept,
}

/// How a load's value is widened into its register.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Widen {
    Sign,
    Zero,
}

/// The size and direction of the loads and stores `do_ade`'s `emulate_load_store_insn`
/// completes, by major opcode (bits 31-26; MIPS64 Release 2, Volume II "CPU Instruction
/// Encoding"): `lh`, `lhu`, `lw`, `lwu`, `ld`, `sh`, `sw`, `sd` and the FPU's `lwc1`, `ldc1`,
/// `swc1`, `sdc1` (`fpu` true). `ll`/`sc` and the others are not emulated by Linux (`SIGBUS`).
fn access_of(insn: u32) -> Option<(u64, Prot, Widen, bool)> {
    use Widen::{Sign, Zero};
    Some(match insn >> 26 {
        0x21 => (2, Prot::READ, Sign, false),
        0x25 => (2, Prot::READ, Zero, false),
        0x23 => (4, Prot::READ, Sign, false),
        0x27 => (4, Prot::READ, Zero, false),
        0x37 => (8, Prot::READ, Sign, false),
        0x31 => (4, Prot::READ, Zero, true),
        0x35 => (8, Prot::READ, Zero, true),
        0x29 => (2, Prot::WRITE, Zero, false),
        0x2b => (4, Prot::WRITE, Zero, false),
        0x3f => (8, Prot::WRITE, Zero, false),
        0x39 => (4, Prot::WRITE, Zero, true),
        0x3d => (8, Prot::WRITE, Zero, true),
        _ => return None,
    })
}

/// Answers the misaligned access of the instruction at `pc` as Linux's `do_ade` does.
pub(super) fn complete(cpu: &mut Cpu<'_>, pc: u64) -> Outcome {
    let Ok(insn) = cpu.get_data().mm.read_u32(GuestAddr::new(pc)) else { return Outcome::Kept };
    let Some((len, need, widen, fpu)) = access_of(insn) else { return Outcome::Kept };
    let reg = |field: u32| super::GPR0 + i32::try_from(field & 31).unwrap_or(0);
    let (base, rt) = (reg(insn >> 21), reg(insn >> 16));
    #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    // the 16-bit offset, sign-extended
    let addr = cpu.reg(base).wrapping_add(i64::from(insn as u16 as i16) as u64);
    let mm = &cpu.get_data().mm;
    if addr.checked_add(len).is_none_or(|e| e > mm.task_size) {
        return Outcome::Signal(SigInfo::fault(Signal::SIGBUS, SI_KERNEL, 0));
    }
    if mm.accessible_prefix(addr, len, need) < len {
        return Outcome::Signal(SigInfo::fault(Signal::SIGSEGV, SI_KERNEL, 0));
    }
    if fpu {
        return Outcome::Kept;
    }
    // In a delay slot the branch before it has run but not yet jumped: where it goes is
    // decided from registers this access has not changed yet.
    let Some(in_slot) = super::delay_slot::in_delay_slot(cpu) else { return Outcome::Kept };
    let next = if in_slot { branch_next(cpu, pc) } else { Some(pc.wrapping_add(4)) };
    let Some(next) = next else { return Outcome::Kept };
    let n = crate::abi::u64_to_usize(len);
    if need == Prot::WRITE {
        let v = if rt == super::GPR0 { 0 } else { cpu.reg(rt) };
        if cpu.get_data_mut().mm.write_bytes(GuestAddr::new(addr), &v.to_le_bytes()[..n]).is_err() {
            return Outcome::Kept;
        }
    } else {
        let mut b = [0u8; 8];
        if cpu.get_data().mm.read_bytes(GuestAddr::new(addr), &mut b[..n]).is_err() {
            return Outcome::Kept;
        }
        let raw = u64::from_le_bytes(b);
        let bits = 64 - 8 * u32::try_from(n).unwrap_or(8);
        // Sign-extend by shifting the value to the top and back arithmetically.
        #[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)] // reinterpreting the bits
        let v = if widen == Widen::Sign { (((raw << bits) as i64) >> bits) as u64 } else { raw };
        if rt != super::GPR0 {
            cpu.set_reg(rt, v);
        }
    }
    // Unicorn has recorded the exception as the run's error: the run stops here and the run
    // loop starts the next one at the instruction after this (`Task::retry_fill`).
    cpu.set_reg(RegisterMIPS::PC as i32, next);
    if in_slot {
        // The branch is complete: the next instruction is not a delay slot.
        super::delay_slot::leave_delay_slot(cpu);
    }
    cpu.get_data_mut().retry_fill = true;
    cpu.stop();
    Outcome::Done
}

/// Where the branch or jump right before the delay slot at `slot` goes once the slot has run:
/// its target if taken, else the instruction after the slot (MIPS64 Release 2, Volume II:
/// `beq`, `bne`, `blez`, `bgtz` and their "likely" forms, the `REGIMM` `bltz`/`bgez` family
/// with and without link, `j`, `jal`, `jr`, `jalr`). `None` for the others (FPU condition
/// branches), whose delay-slot access stays `SIGBUS`.
fn branch_next(cpu: &Cpu<'_>, slot: u64) -> Option<u64> {
    let branch = cpu.get_data().mm.read_u32(GuestAddr::new(slot.wrapping_sub(4))).ok()?;
    let gpr = |field: u32| {
        let n = field & 31;
        if n == 0 {
            0
        } else {
            cpu.reg(super::GPR0 + i32::try_from(n).unwrap_or(0))
        }
    };
    #[allow(clippy::cast_possible_wrap)] // comparisons of the registers as signed values
    let (rs, rt) = (gpr(branch >> 21) as i64, gpr(branch >> 16) as i64);
    #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    // the 16-bit word offset, sign-extended, from the delay slot
    let target = slot.wrapping_add((i64::from(branch as u16 as i16) << 2) as u64);
    let after = slot.wrapping_add(4);
    let taken = match branch >> 26 {
        0x04 | 0x14 => rs == rt,
        0x05 | 0x15 => rs != rt,
        0x06 | 0x16 => rs <= 0,
        0x07 | 0x17 => rs > 0,
        0x01 => match (branch >> 16) & 31 {
            0x00 | 0x02 | 0x10 | 0x12 => rs < 0,
            0x01 | 0x03 | 0x11 | 0x13 => rs >= 0,
            _ => return None,
        },
        0x02 | 0x03 => return Some((slot & !0x0fff_ffff) | u64::from((branch & 0x03ff_ffff) << 2)),
        0x00 if matches!(branch & 0x3f, 0x08 | 0x09) => return Some(gpr(branch >> 21)),
        _ => return None,
    };
    Some(if taken { target } else { after })
}
