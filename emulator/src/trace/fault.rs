//! The one-line report printed when a guest dies by a signal, and the exact faulting address.
//!
//! Unicorn's TLB fill hook learns only the *page* of a refused access. The exact address the
//! kernel would put in `si_addr` is recovered by decoding the faulting instruction with
//! capstone and evaluating its memory operand (base + index * scale + displacement) from the
//! guest registers (each arch's `ArchInfo::mem_operands` knows its operand forms); when that
//! result does not fall in the refused page (an operand form not modelled), the page address
//! is reported instead.

use capstone::prelude::*;

use crate::guest::Exit;
use crate::guest::{Cpu, InsnRegs};
use crate::mm::{Fault, GuestAddr, PAGE_SIZE};

/// The faulting instruction at `pc`, disassembled (`"mov dword ptr [rax], 1"`), if readable.
pub fn disassemble_at(cpu: &Cpu<'_>, pc: GuestAddr) -> Option<String> {
    let task = cpu.get_data();
    let (cs, pc) = task.arch.disassembler_at(pc.get())?;
    let code = read_code(cpu, GuestAddr::new(pc))?;
    let insns = cs.disasm_count(&code, pc, 1).ok()?;
    let i = insns.iter().next()?;
    let m = i.mnemonic().unwrap_or("?");
    Some(match i.op_str() {
        Some(o) if !o.is_empty() => format!("{m} {o}"),
        _ => m.to_string(),
    })
}

fn read_code(cpu: &Cpu<'_>, pc: GuestAddr) -> Option<Vec<u8>> {
    let mm = &cpu.get_data().mm;
    // Up to 16 bytes, not crossing into an unmapped page.
    let room = (PAGE_SIZE - pc.get() % PAGE_SIZE).min(16);
    let mut code = mm.read_vec(pc, room as usize).ok()?;
    if room < 16 {
        if let Ok(more) = mm.read_vec(pc + room, crate::abi::u64_to_usize(16 - room)) {
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
    let code = read_code(cpu, GuestAddr::new(pc))?;
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
    let by_name = |name: &str| arch.read_reg_by_name(cpu, name);
    let name = |id: RegId| cs.reg_name(id);
    let mnemonic = insn.mnemonic().unwrap_or("");
    let regs = InsnRegs { reg: &reg, by_name: &by_name, name: &name, mnemonic };
    let candidates = (arch.info().mem_operands)(&detail.arch_detail(), &regs)?;
    // A 32-bit guest's effective address wraps at 4 GiB (a displacement of -1 is 0xffffffff).
    let word = arch.info().word_mask();
    candidates.into_iter().map(|a| arch.untag(a) & word).find(|a| a & !(PAGE_SIZE - 1) == f.page)
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
    match disassemble_at(cpu, GuestAddr::new(pc)) {
        Some(i) => s.push_str(&format!(": {i}")),
        None => match read_code(cpu, GuestAddr::new(insn_at)) {
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
