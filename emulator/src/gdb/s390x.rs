//! s390x for the GDB remote protocol, which `gdbstub_arch` does not have: the register set of
//! GDB's `org.gnu.gdb.s390.core`, `org.gnu.gdb.s390.acr` and `org.gnu.gdb.s390.fpr` features
//! (GDB manual, "S/390 and System z Features"), in that order and big-endian, and the target
//! description `s390x.xml` naming them.

use gdbstub::arch::{Arch, Registers};

/// 64-bit s390x (z/Architecture) as GDB's `s390:64-bit`.
pub enum S390x {}

impl Arch for S390x {
    type Usize = u64;
    type Registers = S390xRegs;
    type BreakpointKind = usize;
    type RegId = ();

    fn target_description_xml() -> Option<&'static str> {
        Some(include_str!("s390x.xml"))
    }
}

/// The registers of the three features, in the description's order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct S390xRegs {
    /// The PSW mask.
    pub pswm: u64,
    /// The PSW address: the program counter.
    pub pswa: u64,
    /// General registers r0-r15.
    pub r: [u64; 16],
    /// Access registers acr0-acr15.
    pub acr: [u32; 16],
    /// The floating-point control register.
    pub fpc: u32,
    /// Floating-point registers f0-f15.
    pub f: [u64; 16],
}

impl Registers for S390xRegs {
    type ProgramCounter = u64;

    fn pc(&self) -> u64 {
        self.pswa
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        let mut put = |b: &[u8]| b.iter().for_each(|&x| write_byte(Some(x)));
        put(&self.pswm.to_be_bytes());
        put(&self.pswa.to_be_bytes());
        self.r.iter().for_each(|v| put(&v.to_be_bytes()));
        self.acr.iter().for_each(|v| put(&v.to_be_bytes()));
        put(&self.fpc.to_be_bytes());
        self.f.iter().for_each(|v| put(&v.to_be_bytes()));
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        // 18 doublewords, 17 words, 16 doublewords.
        if bytes.len() != 18 * 8 + 17 * 4 + 16 * 8 {
            return Err(());
        }
        let mut at = 0;
        let u64_at = |at: &mut usize| {
            let v = u64::from_be_bytes(bytes[*at..*at + 8].try_into().unwrap_or_default());
            *at += 8;
            v
        };
        self.pswm = u64_at(&mut at);
        self.pswa = u64_at(&mut at);
        for r in &mut self.r {
            *r = u64_at(&mut at);
        }
        let u32_at = |at: &mut usize| {
            let v = u32::from_be_bytes(bytes[*at..*at + 4].try_into().unwrap_or_default());
            *at += 4;
            v
        };
        for a in &mut self.acr {
            *a = u32_at(&mut at);
        }
        self.fpc = u32_at(&mut at);
        for f in &mut self.f {
            *f = u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
            at += 8;
        }
        Ok(())
    }
}
