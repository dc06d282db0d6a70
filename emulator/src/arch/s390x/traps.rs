//! What the kernel learns from the interruption codes that unicorn keeps to itself.
//!
//! On a real machine an `svc` or a program check stores an interruption code and the
//! instruction length in the lowcore, and Linux reads them (`pt_regs::int_code`). Unicorn
//! keeps them in its CPU state (`int_svc_code`, `int_pgm_code`) without a register to read
//! them by, and raises the interrupt hook with the PSW address still *on* the instruction.
//! So they are recovered here from the instruction itself:
//! - `svc I` (`0a ii`, 2 bytes); or `svc` run by `EX` (`44`, 4 bytes) or `EXRL` (`c6 r0`,
//!   6 bytes), whose target's second byte is ORed with the low byte of `R1` when `R1` is not
//!   r0 (Principles of Operation, "EXECUTE"); the PSW then moves past the *executing*
//!   instruction, as on hardware.
//! - A program check becomes one of three codes by what the signal needs: a nonzero data
//!   exception code in the FPC (unicorn stores the DXC/VXC there, as the CPU does with AFP on)
//!   is a data exception (SIGFPE, as Linux `data_exception`/`vector_exception` raise it); a
//!   fixed-point divide instruction is a divide exception (SIGFPE, `FPE_INTDIV`); anything
//!   else is reported as an operation exception (SIGILL) — privileged-operation,
//!   specification and execute exceptions give the same signal.

use crate::guard::Checked;
use unicorn_engine::RegisterS390X;

use crate::guest::Cpu;
use crate::mm::{GuestAddr, Prot};

/// Program-interruption codes (Principles of Operation; QEMU target/s390x/cpu.h `PGM_*`).
pub mod pgm {
    /// Operation exception: an opcode the CPU does not have.
    pub const OPERATION: u32 = 0x01;
    /// Privileged-operation exception.
    pub const PRIVILEGED: u32 = 0x02;
    /// Execute exception (`EX` of an `EX`).
    pub const EXECUTE: u32 = 0x03;
    /// Protection exception.
    pub const PROTECTION: u32 = 0x04;
    /// Addressing exception.
    pub const ADDRESSING: u32 = 0x05;
    /// Specification exception (odd register pair, misaligned operand).
    pub const SPECIFICATION: u32 = 0x06;
    /// Data exception; the kind is in the DXC.
    pub const DATA: u32 = 0x07;
    /// Fixed-point overflow (only with the PSW program mask bit on).
    pub const FIXPT_OVERFLOW: u32 = 0x08;
    /// Fixed-point divide: division by zero or quotient too large.
    pub const FIXPT_DIVIDE: u32 = 0x09;
    /// Segment-translation exception.
    pub const SEGMENT_TRANS: u32 = 0x10;
    /// Page-translation exception.
    pub const PAGE_TRANS: u32 = 0x11;
    /// Vector-processing exception; the kind is in the VXC.
    pub const VECTOR_PROCESSING: u32 = 0x1b;
}

/// Copies `buf.len()` instruction bytes at `addr` (which must be guest-executable).
fn fetch(cpu: &Cpu<'_>, addr: GuestAddr, buf: &mut [u8]) -> Option<()> {
    let p = cpu.get_data().mm.host_range(addr, buf.len() as u64, Prot::EXEC).ok()?;
    // SAFETY: `host_range` checked the whole range is mapped.
    unsafe { std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), buf.len()) };
    Some(())
}

fn gpr(cpu: &Cpu<'_>, r: u8) -> u64 {
    cpu.reg(RegisterS390X::R0 as i32 + i32::from(r))
}

/// The `svc` at `pc`: its 8-bit number and the length of the instruction that ran it (2 for
/// `svc` itself, 4 for `EX`, 6 for `EXRL`). `None` if the bytes cannot be read or are not an
/// `svc`.
pub fn decode_svc(cpu: &Cpu<'_>, pc: GuestAddr) -> Option<(u8, u64)> {
    let mut b = [0u8; 6];
    fetch(cpu, pc, &mut b[..2])?;
    let (target, r1, ilen) = match b[0] {
        0x0a => return Some((b[1], 2)),
        // EX R1,D2(X2,B2): RX format.
        0x44 => {
            fetch(cpu, pc, &mut b[..4])?;
            let (x2, b2) = (b[1] & 0xf, b[2] >> 4);
            let d2 = u64::from(u16::from_be_bytes([b[2] & 0xf, b[3]]));
            let base = if b2 != 0 { gpr(cpu, b2) } else { 0 };
            let index = if x2 != 0 { gpr(cpu, x2) } else { 0 };
            (GuestAddr::new(base.wrapping_add(index).wrapping_add(d2)), b[1] >> 4, 4)
        }
        // EXRL R1,RI2: RIL format, target at PC + 2 * I2.
        0xc6 if b[1] & 0xf == 0 => {
            fetch(cpu, pc, &mut b)?;
            let i2 = i64::from(i32::from_be_bytes([b[2], b[3], b[4], b[5]]));
            (pc + crate::abi::bits64(i2 * 2), b[1] >> 4, 6)
        }
        _ => return None,
    };
    let mut t = [0u8; 2];
    fetch(cpu, target, &mut t)?;
    if t[0] != 0x0a {
        return None;
    }
    let modifier = if r1 != 0 { crate::abi::low8(gpr(cpu, r1)) } else { 0 };
    Some((t[1] | modifier, ilen))
}

/// `true` if the instruction bytes are a fixed-point divide (`D`, `DR`, `DL`, `DLR`, `DLG`,
/// `DLGR`, `DSG`, `DSGR`, `DSGF`, `DSGFR`), the instructions that raise a fixed-point divide
/// exception.
fn is_fixed_point_divide(b: &[u8; 6]) -> bool {
    match b[0] {
        0x1d | 0x5d => true,
        0xb9 => matches!(b[1], 0x97 | 0x87 | 0x0d | 0x1d),
        0xe3 => matches!(b[5], 0x97 | 0x87 | 0x0d | 0x1d),
        _ => false,
    }
}

/// The length of an instruction from its first byte (its top two bits: 00 two bytes, 01 and
/// 10 four, 11 six).
fn len_from_opcode(op: u8) -> usize {
    match op >> 6 {
        0 => 2,
        1 | 2 => 4,
        _ => 6,
    }
}

/// The length in bytes of the instruction at `pc`, the instruction-length code a program
/// check stores; `None` if it cannot be read.
pub fn insn_len(cpu: &Cpu<'_>, pc: GuestAddr) -> Option<u64> {
    let mut b = [0u8; 1];
    fetch(cpu, pc, &mut b)?;
    Some(len_from_opcode(b[0]) as u64)
}

/// The program-interruption code of the program check whose instruction is at `pc` (see the
/// module doc for how much of it can be known).
pub fn program_check_code(cpu: &Cpu<'_>, pc: GuestAddr) -> u32 {
    let fpc = cpu.reg(RegisterS390X::FPC);
    if (fpc >> 8) & 0xff != 0 {
        return pgm::DATA;
    }
    let mut b = [0u8; 6];
    // The instruction may end at a page boundary; its length is in the top two bits.
    if fetch(cpu, pc, &mut b[..2]).is_some() {
        let len = len_from_opcode(b[0]);
        if fetch(cpu, pc, &mut b[..len]).is_some() && is_fixed_point_divide(&b) {
            return pgm::FIXPT_DIVIDE;
        }
    }
    pgm::OPERATION
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divide_encodings() {
        // dsgr %r2,%r3 = b9 0d 00 23; dlg %r2,0(%r3) = e3 20 30 00 00 87; dr %r2,%r3 = 1d 23.
        assert!(is_fixed_point_divide(&[0xb9, 0x0d, 0x00, 0x23, 0, 0]));
        assert!(is_fixed_point_divide(&[0xe3, 0x20, 0x30, 0x00, 0x00, 0x87]));
        assert!(is_fixed_point_divide(&[0x1d, 0x23, 0, 0, 0, 0]));
        // lgr %r2,%r3 = b9 04 00 23; lg %r2,0(%r3) = e3 20 30 00 00 04.
        assert!(!is_fixed_point_divide(&[0xb9, 0x04, 0x00, 0x23, 0, 0]));
        assert!(!is_fixed_point_divide(&[0xe3, 0x20, 0x30, 0x00, 0x00, 0x04]));
    }
}
