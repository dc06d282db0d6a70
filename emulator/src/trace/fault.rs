//! The one-line report printed when a guest dies by a signal, and the exact faulting address.
//!
//! Unicorn's TLB fill hook learns only the *page* of a refused access. The exact address the
//! kernel would put in `si_addr` is recovered by decoding the faulting instruction with
//! capstone and evaluating its memory operand (base + index * scale + displacement) from the
//! guest registers; when that result does not fall in the refused page (an operand form not
//! modelled here), the page address is reported instead.

use capstone::arch::arm::ArmOperandType;
use capstone::arch::arm64::Arm64OperandType;
use capstone::arch::mips::MipsOperand;
use capstone::arch::riscv::RiscVOperand;
use capstone::arch::x86::X86OperandType;
use capstone::arch::ArchDetail;
use capstone::prelude::*;

use crate::guest::Cpu;
use crate::guest::Exit;
use crate::mm::{Fault, PAGE_SIZE};

/// The faulting instruction at `pc`, disassembled (`"mov dword ptr [rax], 1"`), if readable.
pub fn disassemble_at(cpu: &Cpu<'_>, pc: u64) -> Option<String> {
    let task = cpu.get_data();
    let (cs, pc) = task.arch.disassembler_at(pc)?;
    let code = read_code(cpu, pc)?;
    let insns = cs.disasm_count(&code, pc, 1).ok()?;
    let i = insns.iter().next()?;
    let m = i.mnemonic().unwrap_or("?");
    Some(match i.op_str() {
        Some(o) if !o.is_empty() => format!("{m} {o}"),
        _ => m.to_string(),
    })
}

fn read_code(cpu: &Cpu<'_>, pc: u64) -> Option<Vec<u8>> {
    let mm = &cpu.get_data().mm;
    // Up to 16 bytes, not crossing into an unmapped page.
    let room = (PAGE_SIZE - pc % PAGE_SIZE).min(16);
    let mut code = mm.read_vec(pc, room as usize).ok()?;
    if room < 16 {
        if let Ok(more) = mm.read_vec(pc + room, (16 - room) as usize) {
            code.extend(more);
        }
    }
    Some(code)
}

/// The exact guest address the instruction at the PC tried to access, if it can be decoded and
/// lies in the refused page `f.page`.
pub fn exact_fault_addr(cpu: &Cpu<'_>, f: Fault) -> Option<u64> {
    let task = cpu.get_data();
    let arch = task.arch;
    let (mut cs, pc) = arch.disassembler_at(arch.pc(cpu))?;
    cs.set_detail(true).ok()?;
    let code = read_code(cpu, pc)?;
    let insns = cs.disasm_count(&code, pc, 1).ok()?;
    let insn = insns.iter().next()?;
    let detail = cs.insn_detail(insn).ok()?;
    let reg = |id: RegId| -> Option<u64> {
        if id.0 == 0 {
            return Some(0);
        }
        let name = cs.reg_name(id)?;
        if name == "rip" {
            return Some(pc + insn.len() as u64);
        }
        arch.read_reg_by_name(cpu, &name)
    };
    let mut candidates = Vec::new();
    match detail.arch_detail() {
        ArchDetail::X86Detail(d) => {
            for op in d.operands() {
                if let X86OperandType::Mem(m) = op.op_type {
                    let base = reg(m.base())?;
                    let index = reg(m.index())?;
                    let seg = match cs.reg_name(m.segment()).as_deref() {
                        Some("fs") => arch.read_reg_by_name(cpu, "fs_base")?,
                        Some("gs") => arch.read_reg_by_name(cpu, "gs_base")?,
                        _ => 0,
                    };
                    let ea = seg
                        .wrapping_add(base)
                        .wrapping_add(index.wrapping_mul(m.scale() as u64))
                        .wrapping_add(m.disp() as u64);
                    candidates.push(ea);
                }
            }
        }
        ArchDetail::Arm64Detail(d) => {
            for op in d.operands() {
                if let Arm64OperandType::Mem(m) = op.op_type {
                    let base = reg(m.base())?;
                    let index = reg(m.index())?;
                    candidates.push(base.wrapping_add(index).wrapping_add(m.disp() as i64 as u64));
                }
            }
        }
        ArchDetail::ArmDetail(d) => {
            for op in d.operands() {
                if let ArmOperandType::Mem(m) = op.op_type {
                    let base = reg(m.base())?;
                    let index = reg(m.index())?.wrapping_mul(m.scale() as i64 as u64);
                    candidates.push(base.wrapping_add(index).wrapping_add(m.disp() as i64 as u64) & 0xffff_ffff);
                }
            }
        }
        ArchDetail::RiscVDetail(d) => {
            // Capstone gives `lw a0, 8(sp)` a memory operand, but compressed loads and stores
            // (`c.sw a1, 4(a0)`) as register, immediate, register: take imm + reg pairs too.
            let ops: Vec<RiscVOperand> = d.operands().collect();
            for (i, op) in ops.iter().enumerate() {
                match (op, ops.get(i + 1)) {
                    (RiscVOperand::Mem(m), _) => candidates.push(reg(m.base())?.wrapping_add(m.disp() as u64)),
                    (RiscVOperand::Imm(disp), Some(RiscVOperand::Reg(base))) => {
                        candidates.push(reg(*base)?.wrapping_add(*disp as u64))
                    }
                    _ => {}
                }
            }
        }
        ArchDetail::MipsDetail(d) => {
            for op in d.operands() {
                if let MipsOperand::Mem(m) = op {
                    candidates.push(reg(m.base())?.wrapping_add(m.disp() as u64));
                }
            }
        }
        _ => {}
    }
    candidates.into_iter().find(|a| a & !(PAGE_SIZE - 1) == f.page)
}

/// The one-line report for a guest killed by a signal:
/// `endgate: ./prog: killed by SIGSEGV at pc 0x401000 (fault address 0x0): mov dword ptr [rax], 1`.
pub fn report(cpu: &Cpu<'_>, exit: Exit) -> Option<String> {
    let Exit::Signal { sig, pc, addr } = exit else { return None };
    let task = cpu.get_data();
    let prog = &task.exe.guest_path;
    let insn_at = task.arch.disassembler_at(pc).map_or(pc, |(_, at)| at);
    let mut s = format!("endgate: {prog}: killed by {sig} at pc {insn_at:#x}");
    if let Some(a) = addr {
        s.push_str(&format!(" (fault address {a:#x})"));
    }
    match disassemble_at(cpu, pc) {
        Some(i) => s.push_str(&format!(": {i}")),
        None => match read_code(cpu, insn_at) {
            // Readable but not an instruction capstone knows: show the bytes.
            Some(code) => {
                let bytes: Vec<String> = code.iter().take(4).map(|b| format!("{b:02x}")).collect();
                s.push_str(&format!(": undecodable bytes {}", bytes.join(" ")));
            }
            None => s.push_str(": <instruction not readable>"),
        },
    }
    Some(s)
}
