//! arm and riscv64 with their floating-point registers, which `gdbstub_arch`'s types lack
//! (`Armv4t` has the core registers only, `Riscv64` x0-x31 and pc): endgate's register sets
//! and target descriptions (`arm.xml`, `riscv64.xml`) with GDB's feature and register names
//! (GDB manual, "ARM Features" and "RISC-V Features"), in the descriptions' order,
//! little-endian.

use gdbstub::arch::{Arch, Registers};

/// 32-bit arm with VFPv3 (d0-d31, fpscr), as a hard-float Linux guest has it.
pub enum ArmVfp {}

impl Arch for ArmVfp {
    type Usize = u32;
    type Registers = ArmVfpRegs;
    type BreakpointKind = gdbstub_arch::arm::ArmBreakpointKind;
    type RegId = ();

    fn target_description_xml() -> Option<&'static str> {
        Some(include_str!("arm.xml"))
    }
}

/// `org.gnu.gdb.arm.core` and `org.gnu.gdb.arm.vfp`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ArmVfpRegs {
    /// r0-r12.
    pub r: [u32; 13],
    /// r13.
    pub sp: u32,
    /// r14.
    pub lr: u32,
    /// r15.
    pub pc: u32,
    /// The CPSR.
    pub cpsr: u32,
    /// d0-d31 (bit patterns).
    pub d: [u64; 32],
    /// The FPSCR.
    pub fpscr: u32,
}

/// Reads little-endian words from the front of a `G` packet's bytes.
struct Le<'a>(&'a [u8]);

impl Le<'_> {
    fn u32(&mut self) -> Result<u32, ()> {
        let (h, t) = self.0.split_at_checked(4).ok_or(())?;
        self.0 = t;
        Ok(u32::from_le_bytes(h.try_into().map_err(|_| ())?))
    }

    fn u64(&mut self) -> Result<u64, ()> {
        let (h, t) = self.0.split_at_checked(8).ok_or(())?;
        self.0 = t;
        Ok(u64::from_le_bytes(h.try_into().map_err(|_| ())?))
    }

    fn end(&self) -> Result<(), ()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(())
        }
    }
}

impl Registers for ArmVfpRegs {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        let mut put = |b: &[u8]| b.iter().for_each(|&x| write_byte(Some(x)));
        self.r.iter().for_each(|v| put(&v.to_le_bytes()));
        put(&self.sp.to_le_bytes());
        put(&self.lr.to_le_bytes());
        put(&self.pc.to_le_bytes());
        put(&self.cpsr.to_le_bytes());
        self.d.iter().for_each(|v| put(&v.to_le_bytes()));
        put(&self.fpscr.to_le_bytes());
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let mut b = Le(bytes);
        for r in &mut self.r {
            *r = b.u32()?;
        }
        self.sp = b.u32()?;
        self.lr = b.u32()?;
        self.pc = b.u32()?;
        self.cpsr = b.u32()?;
        for d in &mut self.d {
            *d = b.u64()?;
        }
        self.fpscr = b.u32()?;
        b.end()
    }
}

/// 64-bit RISC-V with the F and D extensions (RV64GC).
pub enum Riscv64F {}

impl Arch for Riscv64F {
    type Usize = u64;
    type Registers = Riscv64FRegs;
    type BreakpointKind = usize;
    type RegId = ();

    fn target_description_xml() -> Option<&'static str> {
        Some(include_str!("riscv64.xml"))
    }
}

/// `org.gnu.gdb.riscv.cpu` and `org.gnu.gdb.riscv.fpu`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Riscv64FRegs {
    /// x0-x31.
    pub x: [u64; 32],
    /// The pc.
    pub pc: u64,
    /// f0-f31 (bit patterns; a single is NaN-boxed).
    pub f: [u64; 32],
    /// fcsr's accrued exceptions (bits 0-4), as GDB shows them apart.
    pub fflags: u32,
    /// fcsr's rounding mode (bits 5-7), as GDB shows it apart.
    pub frm: u32,
    /// fcsr.
    pub fcsr: u32,
}

impl Riscv64FRegs {
    /// The fcsr a write asks for: GDB's `fcsr` when it changed, else one made of `fflags` and
    /// `frm` (which GDB writes as registers of their own).
    pub fn fcsr_written(&self, old_fcsr: u32) -> u32 {
        if self.fcsr != old_fcsr {
            self.fcsr
        } else {
            (old_fcsr & !0xff) | (self.frm & 7) << 5 | (self.fflags & 0x1f)
        }
    }
}

impl Registers for Riscv64FRegs {
    type ProgramCounter = u64;

    fn pc(&self) -> u64 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        let mut put = |b: &[u8]| b.iter().for_each(|&x| write_byte(Some(x)));
        self.x.iter().for_each(|v| put(&v.to_le_bytes()));
        put(&self.pc.to_le_bytes());
        self.f.iter().for_each(|v| put(&v.to_le_bytes()));
        put(&self.fflags.to_le_bytes());
        put(&self.frm.to_le_bytes());
        put(&self.fcsr.to_le_bytes());
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let mut b = Le(bytes);
        for x in &mut self.x {
            *x = b.u64()?;
        }
        self.pc = b.u64()?;
        for f in &mut self.f {
            *f = b.u64()?;
        }
        self.fflags = b.u32()?;
        self.frm = b.u32()?;
        self.fcsr = b.u32()?;
        b.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm_vfp_round_trip() {
        let mut r = ArmVfpRegs { pc: 0x1000, cpsr: 0x10, fpscr: 0x0300_0000, ..Default::default() };
        r.d[1] = 2.5f64.to_bits();
        let mut bytes = Vec::new();
        r.gdb_serialize(|b| bytes.push(b.unwrap_or(0)));
        assert_eq!(bytes.len(), 17 * 4 + 32 * 8 + 4);
        let mut back = ArmVfpRegs::default();
        back.gdb_deserialize(&bytes).unwrap();
        assert_eq!(back, r);
        assert!(back.gdb_deserialize(&bytes[1..]).is_err());
    }

    #[test]
    fn riscv_fcsr_from_parts() {
        let r = Riscv64FRegs { fflags: 1, frm: 2, fcsr: 0, ..Default::default() };
        assert_eq!(r.fcsr_written(0), 0x41);
        let r = Riscv64FRegs { fflags: 1, frm: 2, fcsr: 0x20, ..Default::default() };
        assert_eq!(r.fcsr_written(0), 0x20);
    }
}
