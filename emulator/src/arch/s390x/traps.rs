//! What the kernel learns from the interruption codes that unicorn keeps to itself.
//!
//! On a real machine an `svc` or a program check stores an interruption code and the
//! instruction length in the lowcore, and Linux reads them (`pt_regs::int_code`). Unicorn
//! keeps them in its CPU state (`int_svc_code`, `int_pgm_code`) and raises the interrupt hook
//! with the PSW address still *on* the instruction.
//! - An `svc`'s code and length are read as registers (unicorn patch 0030: [`SVC_CODE`],
//!   [`SVC_ILEN`]): the 8-bit number of `svc I` (`0a ii`, 2 bytes), or of an `svc` run by `EX`
//!   (4 bytes) or `EXRL` (6 bytes) with the low byte of `R1` ORed in when `R1` is not r0
//!   (Principles of Operation, "EXECUTE"), and the length of the *executing* instruction, which
//!   the PSW moves past, as on hardware.
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

/// The interruption code of the `svc` being served (its number), a read-only `uint32_t`
/// register of unicorn patch 0030 (`UC_S390X_REG_SVC_CODE`).
pub const SVC_CODE: i32 = 200;
/// The length of the instruction that ran the `svc` (2, or 4/6 for `EX`/`EXRL`), read-only
/// (`UC_S390X_REG_SVC_ILEN`).
pub const SVC_ILEN: i32 = 201;
/// The PSW address, for the `svc`'s hook to move past the instruction without the PC write's
/// request to leave the running block (`UC_S390X_REG_SVC_PSW_ADDR`; the hook ends the block).
pub const SVC_PSW_ADDR: i32 = 202;

/// Copies `buf.len()` instruction bytes at `addr` (which must be guest-executable).
fn fetch(cpu: &Cpu<'_>, addr: GuestAddr, buf: &mut [u8]) -> Option<()> {
    let p = cpu.get_data().mm.host_range(addr, buf.len() as u64, Prot::EXEC).ok()?;
    // SAFETY: `host_range` checked the whole range is mapped.
    unsafe { std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), buf.len()) };
    Some(())
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
