//! Instructions that trap at EL0 and that the arm64 kernel completes for user space.
//!
//! Linux advertises `HWCAP_CPUID` and emulates `mrs` of the ID register space (op0 3, op1 0,
//! CRn 0: MIDR_EL1, MPIDR_EL1, REVIDR_EL1, ID_AA64*_EL1) when EL0 reads it
//! (Documentation/arch/arm64/cpu-feature-registers.rst); glibc reads MIDR_EL1 at start-up to
//! pick string routines. Any other undefined instruction stays SIGILL.

use crate::guard::Checked;
use unicorn_engine::{RegisterARM64, RegisterARM64CP};

use crate::guest::Cpu;
use crate::mm::GuestAddr;

/// Completes a trapped `mrs Xt, <ID register>` at the PC: writes the register's value (0 for
/// unallocated encodings, which read as zero) to Xt and steps over it. `false` if the
/// instruction is not one the kernel emulates.
pub fn emulate_id_mrs(cpu: &mut Cpu<'_>) -> bool {
    let pc = cpu.reg(RegisterARM64::PC);
    let Ok(insn) = cpu.get_data().mm.read_u32(GuestAddr::new(pc)) else { return false };
    // MRS: 1101 0101 0011 o0 op1 CRn CRm op2 Rt, op0 = 2 + o0.
    if insn & 0xfff0_0000 != 0xd530_0000 {
        return false;
    }
    let op0 = 2 + ((insn >> 19) & 1);
    let (op1, crn, crm, op2, rt) =
        ((insn >> 16) & 7, (insn >> 12) & 0xf, (insn >> 8) & 0xf, (insn >> 5) & 7, insn & 0x1f);
    if op0 != 3 || op1 != 0 || crn != 0 {
        return false;
    }
    let mut reg = RegisterARM64CP::new().op0(op0).op1(op1).crn(crn).crm(crm).op2(op2);
    let value = if cpu.reg_read_arm64_coproc(&mut reg).is_ok() { reg.val & !hidden(crm, op2) } else { 0 };
    if rt != 31 {
        let x = if rt == 29 {
            RegisterARM64::X29 as i32
        } else if rt == 30 {
            RegisterARM64::X30 as i32
        } else {
            RegisterARM64::X0 as i32 + crate::abi::int32(rt)
        };
        cpu.set_reg(x, value);
    }
    // Writing the PC makes unicorn leave emu_start; the run loop resumes there.
    cpu.reg_write(RegisterARM64::PC, pc + 4).is_ok()
}

/// The ID-register fields of features the CPU has but the guest does not get (as `AT_HWCAP`
/// leaves them out, see `HWCAP_MAX`): they read as 0, "not implemented". Field positions from
/// the Arm ARM (D13.2). The other fields read as the engine's CPU has them: Linux's fuller
/// sanitising (Documentation/arch/arm64/cpu-feature-registers.rst: EL1-EL3 and the debug and
/// memory-model registers shown as safe values) is not done.
fn hidden(crm: u32, op2: u32) -> u64 {
    const NIBBLE: u64 = 0xf;
    match (crm, op2) {
        // ID_AA64PFR0_EL1.SVE [35:32].
        (4, 0) => NIBBLE << 32,
        // ID_AA64PFR1_EL1.BT [3:0].
        (4, 1) => NIBBLE,
        // ID_AA64ZFR0_EL1: all SVE.
        (4, 4) => u64::MAX,
        // ID_AA64ISAR1_EL1.APA [7:4], API [11:8], GPA [27:24], GPI [31:28].
        (6, 1) => NIBBLE << 4 | NIBBLE << 8 | NIBBLE << 24 | NIBBLE << 28,
        _ => 0,
    }
}
