//! A misaligned load or store (the address-error exceptions `AdEL` and `AdES`), answered as
//! Linux answers it.
//!
//! MIPS Linux does not send a signal for a misaligned user access: `do_ade`
//! (arch/mips/kernel/unaligned.c) emulates the instruction (user threads have `TIF_FIXADE`)
//! and the program goes on after it. That emulation ends in a signal in two cases:
//! - an address outside the user range (`access_ok` fails): `SIGBUS`, raised with
//!   `force_sig`, so `SI_KERNEL` and no address;
//! - an access the emulation's own user copy faults on (unmapped, or without the permission,
//!   or a shared file's page another process truncated away, which endgate's copy sees as a
//!   host fault: `mm::safe_copy`): `SIGSEGV`, also through `force_sig`: `SI_KERNEL` (0x80) and
//!   `si_addr` 0, not the `SEGV_MAPERR`/`SEGV_ACCERR` and address of an aligned access's page
//!   fault.
//!
//! endgate completes the integer loads and stores (`lh`, `lhu`, `lw`, `lwu`, `ld`, `sh`, `sw`,
//! `sd`) as Linux does, in a branch delay slot too (the branch before it is decoded and
//! completed, as Linux's `__compute_return_epc` does). The FPU loads and stores (`lwc1`,
//! `ldc1`, `swc1`, `sdc1`, and `COP1X`'s `lwxc1`, `ldxc1`, `swxc1`, `sdxc1`) Linux hands to its
//! FPU emulator instead, which ends in other signals: `complete_fpu`. glibc's
//! `clock_gettime` and `gettimeofday` on mips64el store the vDSO's result into the caller's
//! buffer themselves, so a misaligned buffer reaches this path. The exception's PC is the
//! faulting instruction's (unicorn patch 0023).

use unicorn_engine::RegisterMIPS;

use crate::guard::Checked;
use crate::guest::Cpu;
use crate::mm::{GuestAddr, Prot};
use crate::signal::{si_code, SigInfo, Signal};

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

/// The size and direction of the integer loads and stores `do_ade`'s
/// `emulate_load_store_insn` completes itself, by major opcode (bits 31-26; MIPS64 Release 2,
/// Volume II "CPU Instruction Encoding"): `lh`, `lhu`, `lw`, `lwu`, `ld`, `sh`, `sw`, `sd`.
/// `ll`/`sc` and the others are not emulated by Linux (`SIGBUS`); the FPU's are `fpu_access`'s.
fn access_of(insn: u32) -> Option<(u64, Prot, Widen)> {
    use Widen::{Sign, Zero};
    Some(match insn >> 26 {
        0x21 => (2, Prot::READ, Sign),
        0x25 => (2, Prot::READ, Zero),
        0x23 => (4, Prot::READ, Sign),
        0x27 => (4, Prot::READ, Zero),
        0x37 => (8, Prot::READ, Sign),
        0x29 => (2, Prot::WRITE, Zero),
        0x2b => (4, Prot::WRITE, Zero),
        0x3f => (8, Prot::WRITE, Zero),
        _ => return None,
    })
}

/// Answers the misaligned access of the instruction at `pc` as Linux's `do_ade` does.
pub(super) fn complete(cpu: &mut Cpu<'_>, pc: u64) -> Outcome {
    let Ok(insn) = cpu.get_data().mm.read_u32(GuestAddr::new(pc)) else { return Outcome::Kept };
    if matches!(insn >> 26, COP1X | LWC1 | LDC1 | SWC1 | SDC1) {
        return complete_fpu(cpu, pc, insn);
    }
    let Some((len, need, widen)) = access_of(insn) else { return Outcome::Kept };
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
    // In a delay slot the branch before it has run but not yet jumped: where it goes is
    // decided from registers this access has not changed yet.
    let Some(in_slot) = super::delay_slot::in_delay_slot(cpu) else { return Outcome::Kept };
    let next = if in_slot { branch_next(cpu, pc) } else { Some(pc.wrapping_add(4)) };
    let Some(next) = next else { return Outcome::Kept };
    let n = crate::abi::u64_to_usize(len);
    // A copy that fails now met a page whose host bytes are gone (a shared file another process
    // truncated): the fix-up's user access fails, and Linux sends its SIGSEGV.
    let copy_failed = || Outcome::Signal(SigInfo::fault(Signal::SIGSEGV, SI_KERNEL, 0));
    if need == Prot::WRITE {
        let v = if rt == super::GPR0 { 0 } else { cpu.reg(rt) };
        if cpu.get_data_mut().mm.write_bytes(GuestAddr::new(addr), &v.to_le_bytes()[..n]).is_err() {
            return copy_failed();
        }
    } else {
        let mut b = [0u8; 8];
        if cpu.get_data().mm.read_bytes(GuestAddr::new(addr), &mut b[..n]).is_err() {
            return copy_failed();
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
    go_on(cpu, next, in_slot)
}

/// Moves the guest on to `next` after a completed access.
fn go_on(cpu: &mut Cpu<'_>, next: u64, in_slot: bool) -> Outcome {
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

/// Major opcodes of the FPU loads and stores (MIPS64 Release 2, Volume II, "CPU Instruction
/// Encoding"): `COP1X` holds the indexed forms, told apart by the function field (bits 5-0).
const COP1X: u32 = 0x13;
const LWC1: u32 = 0x31;
const LDC1: u32 = 0x35;
const SWC1: u32 = 0x39;
const SDC1: u32 = 0x3d;
/// `COP1X` functions: `lwxc1`, `ldxc1`, `swxc1`, `sdxc1` (`luxc1` 0x05 and `suxc1` 0x0d are
/// not among those Linux's FPU emulator does).
const LWXC1: u32 = 0x00;
const LDXC1: u32 = 0x01;
const SWXC1: u32 = 0x08;
const SDXC1: u32 = 0x09;

/// An FPU load or store: its size, whether it stores, its FPR and its address.
struct FpuAccess {
    len: u64,
    store: bool,
    fpr: i32,
    addr: u64,
}

/// Decodes the FPU load or store `insn` as Linux's FPU emulator does (arch/mips/math-emu/
/// cp1emu.c, `cop1Emulate` and `fpux_emu`): `lwc1`/`ldc1`/`swc1`/`sdc1` at `base` plus the
/// sign-extended 16-bit offset, the FPR in bits 20-16; `lwxc1`/`ldxc1` (FPR `fd`, bits 10-6)
/// and `swxc1`/`sdxc1` (FPR `fs`, bits 15-11) at `base` (bits 25-21) plus `index` (bits 20-16).
/// `None` for another `COP1X` function, which the emulator answers with `SIGILL`.
fn fpu_access(cpu: &Cpu<'_>, insn: u32) -> Option<FpuAccess> {
    let gpr = |field: u32| {
        let n = field & 31;
        if n == 0 {
            0
        } else {
            cpu.reg(super::GPR0 + i32::try_from(n).unwrap_or(0))
        }
    };
    let fpr = |field: u32| RegisterMIPS::F0 as i32 + i32::try_from(field & 31).unwrap_or(0);
    if insn >> 26 == COP1X {
        let addr = gpr(insn >> 21).wrapping_add(gpr(insn >> 16));
        let (len, store, fpr) = match insn & 0x3f {
            LWXC1 => (4, false, fpr(insn >> 6)),
            LDXC1 => (8, false, fpr(insn >> 6)),
            SWXC1 => (4, true, fpr(insn >> 11)),
            SDXC1 => (8, true, fpr(insn >> 11)),
            _ => return None,
        };
        return Some(FpuAccess { len, store, fpr, addr });
    }
    #[allow(clippy::cast_possible_wrap, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    // the 16-bit offset, sign-extended
    let addr = gpr(insn >> 21).wrapping_add(i64::from(insn as u16 as i16) as u64);
    let (len, store) = match insn >> 26 {
        LWC1 => (4, false),
        LDC1 => (8, false),
        SWC1 => (4, true),
        _ => (8, true),
    };
    Some(FpuAccess { len, store, fpr: fpr(insn >> 16), addr })
}

/// Answers a misaligned FPU load or store as Linux does: `emulate_load_store_insn` hands
/// `lwc1`, `ldc1`, `swc1`, `sdc1` and every `COP1X` instruction to the FPU emulator
/// (`fpu_emulator_cop1Handler` with `has_fpu` set, so one instruction) and sends what
/// `process_fpemu_return` makes of its result:
/// - the emulator first reads the instruction at the exception PC and the one after it (with
///   `Cause.BD`, the PC is the branch's and these are the branch and the access); if either
///   read fails: `SIGBUS` `BUS_ADRERR` with `si_addr` 0 (no fault address was set);
/// - in a delay slot the branch is decoded (`isBranchInstr`, which knows the FPU condition
///   branches too) and the access done before the PC moves to where the branch goes;
/// - an address range outside the user range (`access_ok` fails): `SIGBUS` `BUS_ADRERR` with
///   the access's address;
/// - a user copy that faults: `SIGSEGV` with the access's (first byte's) address, `SEGV_ACCERR`
///   when a mapping holds that address (`vma_lookup`), else `SEGV_MAPERR`;
/// - another `COP1X` function (`luxc1`, `suxc1`, …): `SIGILL` through `force_sig`
///   (`SI_KERNEL`).
///
/// The registers are those of a 64-bit FPU (`Status.FR` set, as for every n64 process: the
/// kernel refuses `FR=0` to 64-bit tasks): a word load fills the low half of the FPR and
/// clears the upper half (`SITOREG`), a word store takes the low half (`SIFROMREG`), the
/// doubleword forms the whole register.
fn complete_fpu(cpu: &mut Cpu<'_>, pc: u64, insn: u32) -> Outcome {
    if cpu.reg(RegisterMIPS::CP0_STATUS as i32) & super::status::FR == 0 {
        return Outcome::Kept;
    }
    let Some(in_slot) = super::delay_slot::in_delay_slot(cpu) else { return Outcome::Kept };
    let epc = if in_slot { pc.wrapping_sub(4) } else { pc };
    let mm = &cpu.get_data().mm;
    if mm.read_u32(GuestAddr::new(epc)).is_err() || mm.read_u32(GuestAddr::new(epc.wrapping_add(4))).is_err() {
        return Outcome::Signal(SigInfo::fault(Signal::SIGBUS, si_code::BUS_ADRERR, 0));
    }
    let next = if in_slot { branch_next(cpu, pc) } else { Some(pc.wrapping_add(4)) };
    let Some(next) = next else { return Outcome::Kept };
    let Some(FpuAccess { len, store, fpr, addr }) = fpu_access(cpu, insn) else {
        return Outcome::Signal(SigInfo::fault(Signal::SIGILL, SI_KERNEL, 0));
    };
    let mm = &cpu.get_data().mm;
    if addr.checked_add(len).is_none_or(|e| e > mm.task_size) {
        return Outcome::Signal(SigInfo::fault(Signal::SIGBUS, si_code::BUS_ADRERR, addr));
    }
    let need = if store { Prot::WRITE } else { Prot::READ };
    if mm.accessible_prefix(addr, len, need) < len {
        let code = if mm.vma_at(addr).is_some() { si_code::SEGV_ACCERR } else { si_code::SEGV_MAPERR };
        return Outcome::Signal(SigInfo::fault(Signal::SIGSEGV, code, addr));
    }
    let n = crate::abi::u64_to_usize(len);
    // A copy that fails now met a page whose host bytes are gone (a shared file another process
    // truncated): the emulator's user access fails in a mapping, SIGSEGV SEGV_ACCERR.
    let copy_failed = || Outcome::Signal(SigInfo::fault(Signal::SIGSEGV, si_code::SEGV_ACCERR, addr));
    if store {
        // A word store takes the FPR's low half; the little-endian bytes' first four are it.
        let v = cpu.reg(fpr);
        if cpu.get_data_mut().mm.write_bytes(GuestAddr::new(addr), &v.to_le_bytes()[..n]).is_err() {
            return copy_failed();
        }
    } else {
        // A word load zero-extends: the upper half is cleared.
        let mut b = [0u8; 8];
        if cpu.get_data().mm.read_bytes(GuestAddr::new(addr), &mut b[..n]).is_err() {
            return copy_failed();
        }
        cpu.set_reg(fpr, u64::from_le_bytes(b));
    }
    go_on(cpu, next, in_slot)
}

/// Where the branch or jump right before the delay slot at `slot` goes once the slot has run:
/// its target if taken, else the instruction after the slot (MIPS64 Release 2, Volume II:
/// `beq`, `bne`, `blez`, `bgtz` and their "likely" forms, the `REGIMM` `bltz`/`bgez` family
/// with and without link, `j`, `jal`, `jr`, `jalr`, and the FPU condition branches `bc1f`,
/// `bc1t`, `bc1fl`, `bc1tl` on FCSR's condition codes, as Linux's `__compute_return_epc` and
/// the FPU emulator's `isBranchInstr` decide them). `None` for the others, whose delay-slot
/// access stays `SIGBUS`.
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
        // COP1 with rs = BC: `bc1f`, `bc1t`, `bc1fl`, `bc1tl` (bit 16 "true", bit 17 "likely")
        // on FCSR's condition code `cc` (bits 20-18): FCC0 is bit 23, FCC1-7 bits 25-31.
        0x11 if (branch >> 21) & 31 == 8 => {
            let cc = (branch >> 18) & 7;
            let bit = if cc == 0 { 23 } else { 24 + cc };
            let set = (cpu.reg(RegisterMIPS::FCSR as i32) >> bit) & 1 == 1;
            set == ((branch >> 16) & 1 == 1)
        }
        _ => return None,
    };
    Some(if taken { target } else { after })
}
