//! qemu-user's `-d` log items `in_asm`, `exec`, `cpu` (with `-dfilter` and `-one-insn-per-tb`)
//! and `page`, in qemu-user 10's text formats; `int` and `unimp` lines come from the run loop
//! and the dispatcher through [`crate::dlog!`]. docs/tracing.md describes every line.
//!
//! Nothing here exists unless asked for: [`install`] adds one unicorn hook to an instance only
//! when `-d` names `in_asm`, `exec` or `cpu`: a block hook, or with `-one-insn-per-tb` a code
//! hook (each instruction traced as a block of its own; unicorn has no switch that makes its
//! translation blocks one instruction long). The hooks cover guest addresses from
//! `mmap_min_addr` up, where every guest mapping is: code endgate runs below it for itself (the
//! i386 start-up `iret`) is not traced.
//!
//! What endgate can and cannot know about blocks: unicorn calls a block hook before every
//! block it runs, chained or not, so `exec` and `cpu` are complete traces with or without
//! `nochain`. It has no hook at translation: `in_asm` shows a block the first time this
//! thread's instance runs it (each guest thread has its own instance and translation cache),
//! which is when the instance translated it, except for code rewritten at the same address
//! with the same block size, which is not shown again.

use crate::guard::Checked;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, Ordering};

use capstone::Capstone;
use unicorn_engine::{uc_error, RegisterARM, RegisterARM64, RegisterMIPS, RegisterRISCV, RegisterS390X, RegisterX86};

use crate::cli::DebugItem;
use crate::guest::{Cpu, GuestArch};
use crate::mm::{GuestAddr, Prot, MMAP_MIN_ADDR as GUEST_LOWEST};

/// The next instance number `exec` lines name ("Trace N:"): 0 for the process's first
/// instance, then one more for each thread's.
static NEXT_INDEX: AtomicU32 = AtomicU32::new(0);

/// Adds the hook `-d in_asm,exec,cpu` need to a new instance; nothing when none was asked for.
pub fn install(cpu: &mut Cpu<'static>) -> Result<(), uc_error> {
    let opts = &cpu.get_data().opts.trace;
    if !opts.traces_blocks() {
        return Ok(());
    }
    let mut state = BlockTrace {
        index: NEXT_INDEX.fetch_add(1, Ordering::Relaxed),
        seen: HashSet::new(),
        in_asm: opts.has(DebugItem::InAsm),
        exec: opts.has(DebugItem::Exec),
        regs: opts.has(DebugItem::Cpu),
    };
    if opts.one_insn_per_tb {
        cpu.add_code_hook(GUEST_LOWEST, u64::MAX, move |cpu, addr, size| {
            crate::guard::guarded(&"-d block hook", || state.block(cpu, addr, size));
        })?;
    } else {
        cpu.add_block_hook(GUEST_LOWEST, u64::MAX, move |cpu, addr, size| {
            crate::guard::guarded(&"-d block hook", || state.block(cpu, addr, size));
        })?;
    }
    Ok(())
}

/// One instance's hook state.
struct BlockTrace {
    index: u32,
    /// Blocks (start, size) this instance has shown under `in_asm`.
    seen: HashSet<(u64, u32)>,
    in_asm: bool,
    exec: bool,
    regs: bool,
}

impl BlockTrace {
    fn block(&mut self, cpu: &mut Cpu<'_>, addr: u64, size: u32) {
        if !cpu.get_data().opts.trace.in_filter(addr) {
            return;
        }
        let mut out = String::new();
        if self.in_asm && self.seen.insert((addr, size)) {
            out.push_str(&in_asm(cpu, addr, size));
        }
        if self.exec {
            // qemu's fields are its host code pointer, cs_base, pc, flags and cflags; endgate
            // has no host pointer: it shows the pc there, cs_base and flags 0, and the block's
            // size in bytes in the last field.
            let _ = writeln!(out, "Trace {}: {addr:#018x} [00000000/{addr:016x}/00000000/{size:08x}] ", self.index);
        }
        if self.regs {
            out.push_str(&registers(cpu));
        }
        crate::log::debug_write(&out);
    }
}

/// The `in_asm` text of the block at `addr`: a rule, `IN: `, one line per instruction
/// (address, the instruction's bytes in the arch's units, capstone's mnemonic and operands),
/// then an empty line, as qemu-user prints it.
pub fn in_asm(cpu: &mut Cpu<'_>, addr: u64, size: u32) -> String {
    let arch = cpu.get_data().arch;
    let thumb = arch.info().name == "armv7l" && arch.pc(cpu) & 1 == 1;
    let len = if size == 0 { 16 } else { size };
    let code = crate::guest::locked(cpu, |cpu| read_code(cpu, addr, len));
    let mut out = String::from("----------------\nIN: \n");
    match disassembler(arch, addr | u64::from(thumb)) {
        Some(cs) => {
            let insns = cs.disasm_all(&code, addr);
            let mut end = addr;
            if let Ok(insns) = &insns {
                for i in insns.iter().take_while(|i| size != 0 || i.address() == addr) {
                    let bytes = i.bytes();
                    let _ = writeln!(
                        out,
                        "{}",
                        insn_line(arch.info().name, thumb, i.address(), bytes, i.mnemonic(), i.op_str())
                    );
                    end = i.address() + bytes.len() as u64;
                }
            }
            // Bytes capstone could not decode (or could not read).
            if size != 0 && end < addr + u64::from(size) {
                let _ = writeln!(out, "{:#010x}:  <{} bytes not decoded>", end, addr + u64::from(size) - end);
            }
        }
        None => {
            let _ = writeln!(out, "{addr:#010x}:  <no disassembler>");
        }
    }
    out.push('\n');
    out
}

/// Up to `len` bytes of guest code from `addr`, stopping at the first page the guest cannot
/// read (e.g. execute-only).
fn read_code(cpu: &Cpu<'_>, addr: u64, len: u32) -> Vec<u8> {
    let mm = &cpu.get_data().mm;
    let mut out = Vec::with_capacity(len as usize);
    let end = addr.saturating_add(u64::from(len));
    let mut at = addr;
    while at < end {
        let page_end = (at | (crate::mm::PAGE_SIZE - 1)).saturating_add(1).min(end);
        let n = crate::abi::u64_to_usize(page_end - at);
        match mm.read_vec(GuestAddr::new(at), n) {
            Ok(v) => out.extend(v),
            Err(_) => break,
        }
        at = page_end;
    }
    out
}

/// The arch's disassembler for code at `pc` (arm: bit 0 set for Thumb), in the syntax
/// qemu-user's log uses: AT&T for x86 (as gdb and objdump show Linux code), capstone's default
/// elsewhere.
fn disassembler(arch: &dyn GuestArch, pc: u64) -> Option<Capstone> {
    let (mut cs, _) = arch.disassembler_at(pc)?;
    if matches!(arch.info().name, "x86_64" | "i686") {
        cs.set_syntax(capstone::Syntax::Att).ok()?;
    }
    Some(cs)
}

/// One instruction line: `0x%08x:  ` (the address, at least 8 hex digits), the bytes grouped
/// in the arch's units and padded to the width of the units of one line, then the mnemonic
/// padded to 8 and the operands; units beyond one line's go on continuation lines. Units: x86 single bytes (8 a line), s390x and Thumb
/// big-/little-endian halfwords (3 and 2 a line), the other arches the whole instruction as
/// one number in the guest's byte order (aarch64, arm, mips 4 bytes; riscv 2 or 4).
pub fn insn_line(
    arch_name: &str,
    thumb: bool,
    addr: u64,
    bytes: &[u8],
    mnemonic: Option<&str>,
    ops: Option<&str>,
) -> String {
    let (unit, per_line, big_endian) = match arch_name {
        "x86_64" | "i686" => (1usize, 8usize, false),
        "s390x" => (2, 3, true),
        "armv7l" if thumb => (2, 2, false),
        "riscv64" => (bytes.len().clamp(1, 4), 1, false),
        _ => (4, 1, false),
    };
    // riscv's 2-byte instructions are padded as wide as its 4-byte ones.
    let unit_width = if arch_name == "riscv64" { 4 } else { unit };
    let units: Vec<String> = bytes
        .chunks(unit)
        .map(|chunk| {
            let mut v: u64 = 0;
            for (k, &x) in chunk.iter().enumerate() {
                if big_endian {
                    v = (v << 8) | u64::from(x);
                } else {
                    v |= u64::from(x) << (8 * k);
                }
            }
            format!("{v:0w$x}", w = chunk.len() * 2)
        })
        .collect();
    let width = per_line * (unit_width * 2 + 1);
    let m = mnemonic.unwrap_or("?");
    let first: String = units.iter().take(per_line).map(|u| format!("{u} ")).collect();
    let mut out = format!("{addr:#010x}:  {first:<width$} {m:<8} {}", ops.unwrap_or(""));
    // Bytes past one line's units go on lines of their own, at their addresses (x86's
    // longest instructions), as qemu-user prints them.
    for (k, rest) in units.chunks(per_line).enumerate().skip(1) {
        let at = addr + (k * per_line * unit) as u64;
        out.push_str(&format!("\n{at:#010x}:  {}", rest.join(" ")));
    }
    out
}

/// Register names and unicorn ids of one arch's `cpu` dump: general registers `per_line` to a
/// line, then one line for the program counter and flags.
struct RegDump {
    gprs: Vec<(String, i32)>,
    per_line: usize,
    digits: usize,
}

/// The unicorn id of the register the `cpu` dump of `arch_name` names `name` (case and the
/// dump's padding ignored: `X00`, `x0`, `RAX`, `a0`, `x10/a0`), for
/// [`crate::trace::planted`].
pub fn register_id(arch_name: &str, name: &str) -> Option<i32> {
    let want = name.trim().to_ascii_lowercase();
    let d = reg_dump(arch_name)?;
    d.gprs.iter().find_map(|(n, id)| {
        let n = n.trim().to_ascii_lowercase();
        // "x10/a0" answers to "x10", "a0" and itself; "X05" also to "x5".
        let loose = n.strip_prefix('x').map(|num| format!("x{}", num.trim_start_matches('0')));
        let hit = n == want
            || n.split('/').any(|part| part == want)
            || loose.is_some_and(|l| l == want || (l == "x" && want == "x0"));
        hit.then_some(*id)
    })
}

fn reg_dump(arch_name: &str) -> Option<RegDump> {
    let named = |names: &[&str], ids: &[i32]| names.iter().map(|n| n.to_string()).zip(ids.iter().copied()).collect();
    Some(match arch_name {
        "x86_64" => {
            use RegisterX86::*;
            let names = [
                "RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "RSP", "R8", "R9", "R10", "R11", "R12", "R13", "R14",
                "R15",
            ];
            let ids = [RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15].map(|r| r as i32);
            RegDump { gprs: named(&names, &ids), per_line: 4, digits: 16 }
        }
        "i686" => {
            use RegisterX86::*;
            let names = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"];
            let ids = [EAX, EBX, ECX, EDX, ESI, EDI, EBP, ESP].map(|r| r as i32);
            RegDump { gprs: named(&names, &ids), per_line: 4, digits: 8 }
        }
        "aarch64" => {
            let mut gprs: Vec<(String, i32)> =
                (0..29).map(|n| (format!("X{n:02}"), RegisterARM64::X0 as i32 + n)).collect();
            gprs.push(("X29".into(), RegisterARM64::X29 as i32));
            gprs.push(("X30".into(), RegisterARM64::X30 as i32));
            gprs.push((" SP".into(), RegisterARM64::SP as i32));
            RegDump { gprs, per_line: 4, digits: 16 }
        }
        "armv7l" => {
            let mut gprs: Vec<(String, i32)> =
                (0..13).map(|n| (format!("R{n:02}"), RegisterARM::R0 as i32 + n)).collect();
            gprs.push(("R13".into(), RegisterARM::SP as i32));
            gprs.push(("R14".into(), RegisterARM::LR as i32));
            gprs.push(("R15".into(), RegisterARM::PC as i32));
            RegDump { gprs, per_line: 4, digits: 8 }
        }
        "riscv64" => {
            let abi = [
                "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6",
                "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
            ];
            let gprs = (0..32i32).zip(abi).map(|(n, a)| (format!("x{n}/{a}"), RegisterRISCV::X0 as i32 + n)).collect();
            RegDump { gprs, per_line: 4, digits: 16 }
        }
        "s390x" => {
            let gprs = (0..16).map(|n| (format!("R{n:02}"), RegisterS390X::R0 as i32 + n)).collect();
            RegDump { gprs, per_line: 4, digits: 16 }
        }
        "mips64" => {
            let abi = [
                "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3", "s0",
                "s1", "s2", "s3", "s4", "s5", "s6", "s7", "t8", "t9", "k0", "k1", "gp", "sp", "s8", "ra",
            ];
            let gprs = (0..32i32).zip(abi).map(|(n, a)| (a.to_string(), RegisterMIPS::R0 as i32 + n)).collect();
            RegDump { gprs, per_line: 4, digits: 16 }
        }
        _ => return None,
    })
}

/// The `cpu` text: the general registers as `NAME=hex`, then the program counter and the
/// flags as the arch keeps them (x86 `RFL`/`EFL`, arm `PSR`, aarch64 `PSTATE` with the
/// condition flags as letters, s390x the PSW mask and condition code, mips `HI`/`LO`).
pub fn registers(cpu: &Cpu<'_>) -> String {
    let arch = cpu.get_data().arch;
    let name = arch.info().name;
    let Some(d) = reg_dump(name) else { return String::new() };
    let read = |id: i32| cpu.reg(id);
    let mut out = String::new();
    for (k, (n, id)) in d.gprs.iter().enumerate() {
        let sep = if k % d.per_line == d.per_line - 1 || k + 1 == d.gprs.len() { "\n" } else { " " };
        let _ = write!(out, "{n:<3}={:0w$x}{sep}", read(*id), w = d.digits);
    }
    let nzcv = |v: u64| -> String {
        [(31, 'N'), (30, 'Z'), (29, 'C'), (28, 'V')]
            .iter()
            .map(|&(bit, c)| if v >> bit & 1 == 1 { c } else { '-' })
            .collect()
    };
    let pc = arch.pc(cpu);
    let _ = match name {
        "x86_64" => writeln!(out, "RIP={pc:016x} RFL={:08x}", read(RegisterX86::EFLAGS as i32)),
        "i686" => writeln!(out, "EIP={pc:08x} EFL={:08x}", read(RegisterX86::EFLAGS as i32)),
        "aarch64" => {
            let n = read(RegisterARM64::NZCV as i32);
            writeln!(out, " PC={pc:016x} PSTATE={n:08x} {} EL0t", nzcv(n))
        }
        "armv7l" => {
            let p = read(RegisterARM::CPSR as i32);
            let t = if p >> 5 & 1 == 1 { 'T' } else { 'A' };
            writeln!(out, "PC={:08x} PSR={p:08x} {} {t} usr32", pc & !1, nzcv(p))
        }
        "riscv64" => writeln!(out, "pc={pc:016x}"),
        "s390x" => {
            let m = read(RegisterS390X::PSWM as i32);
            writeln!(out, "PSW=mask {m:016x} addr {pc:016x} cc {:02x}", m >> 44 & 3)
        }
        "mips64" => writeln!(
            out,
            "pc={pc:016x} HI={:016x} LO={:016x}",
            read(RegisterMIPS::HI as i32),
            read(RegisterMIPS::LO as i32)
        ),
        _ => Ok(()),
    };
    out
}

/// The `page` text, once the program is loaded: the guest's mappings (`start-end size prot`,
/// as qemu-user prints its page table) and the image layout qemu-user prints after it.
pub fn page_dump(cpu: &Cpu<'_>, layout: &[(&str, u64)]) -> String {
    let t = cpu.get_data();
    let w = if t.arch.info().is_64bit() { 16 } else { 8 };
    let mut out = String::new();
    let _ = writeln!(out, "page layout after binary load");
    let _ = writeln!(out, "{:<w$} {:<w$} {:<w$} prot", "start", "end", "size");
    for (start, v) in t.mm.vmas() {
        let p = |f: Prot, c: char| if v.prot.contains(f) { c } else { '-' };
        let _ = writeln!(
            out,
            "{start:0w$x}-{:0w$x} {:0w$x} {}{}{}",
            v.end,
            v.end - start,
            p(Prot::READ, 'r'),
            p(Prot::WRITE, 'w'),
            p(Prot::EXEC, 'x')
        );
    }
    for (name, v) in layout {
        let _ = writeln!(out, "{name:<11} {v:#018x}");
    }
    out
}
