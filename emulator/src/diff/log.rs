//! Reading the two runs' output: the `-d in_asm,exec,cpu` log (endgate's and qemu-user's
//! text formats, docs/tracing.md) and the `-strace` lines (endgate's strace-like ones on
//! stderr, qemu-user's `PID name(args) = result` ones in its `-D` log).

use std::collections::HashMap;

/// One traced block: the engine instance (thread) that ran it, its first address and the
/// registers at its entry, in the log's order.
#[derive(Debug, Clone)]
pub struct Block {
    /// The `Trace N:` number: 0 for the first thread.
    pub thread: u32,
    /// The guest pc (the second bracketed field).
    pub pc: u64,
    /// (index into [`Log::names`], value) for every `NAME=hex` of the `cpu` dump.
    pub regs: Vec<(u16, u64)>,
}

/// One system call line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Syscall {
    /// The line as the emulator printed it.
    pub line: String,
    /// The call's name.
    pub name: String,
    /// Its arguments as printed, split at top-level commas.
    pub args: Vec<String>,
    /// What follows ` = `, if the line has it (`exit_group` has none).
    pub result: Option<String>,
    /// qemu-user's format (`PID name(a,b)`) rather than endgate's (`name(a, b)`).
    pub qemu: bool,
}

/// A parsed `-d` log.
#[derive(Debug, Default)]
pub struct Log {
    /// The blocks, in the order they ran.
    pub blocks: Vec<Block>,
    /// Register names ([`Block::regs`] index into this).
    pub names: Vec<String>,
    /// `in_asm` texts by their first address: (number of blocks logged before it, the
    /// instruction lines); a block's text is the last one logged before it ran.
    pub asm: HashMap<u64, Vec<(usize, String)>>,
    /// System call lines found in the log (qemu-user writes `-strace` there).
    pub syscalls: Vec<Syscall>,
}

impl Log {
    /// The index of register `name`, added when new.
    fn name_index(&mut self, name: &str) -> u16 {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return u16::try_from(i).unwrap_or(u16::MAX);
        }
        self.names.push(name.to_string());
        u16::try_from(self.names.len() - 1).unwrap_or(u16::MAX)
    }

    /// The `in_asm` text shown for the block at `pc` that was the `index`th logged.
    pub fn asm_at(&self, pc: u64, index: usize) -> Option<&str> {
        let versions = self.asm.get(&pc)?;
        versions.iter().rev().find(|(at, _)| *at <= index).or(versions.first()).map(|(_, t)| t.as_str())
    }

    /// The value of register `name` in `block`.
    pub fn reg(&self, block: &Block, name: &str) -> Option<u64> {
        block.regs.iter().find(|(i, _)| self.names[usize::from(*i)] == name).map(|&(_, v)| v)
    }
}

/// Reads a `-d in_asm,exec,cpu` log (with qemu-user's `-strace` lines, if any, in it).
pub fn parse_log(text: &str) -> Log {
    let mut log = Log::default();
    let mut lines = text.lines().peekable();
    // True while the lines after a `Trace` line are its register dump.
    let mut in_regs = false;
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("Trace ") {
            in_regs = false;
            let Some((thread, fields)) = rest.split_once(':') else { continue };
            let Ok(thread) = thread.trim().parse() else { continue };
            let Some(pc) = fields.split('/').nth(1).and_then(|p| u64::from_str_radix(p.trim(), 16).ok()) else {
                continue;
            };
            log.blocks.push(Block { thread, pc, regs: Vec::new() });
            in_regs = true;
            continue;
        }
        if line.starts_with("----------------") {
            in_regs = false;
            // "IN: [symbol]", then instruction lines up to an empty line.
            if lines.peek().is_some_and(|l| l.starts_with("IN:")) {
                lines.next();
            }
            let mut text = String::new();
            let mut first = None;
            while let Some(l) = lines.next_if(|l| !l.trim().is_empty()) {
                if first.is_none() {
                    first = l
                        .split(':')
                        .next()
                        .and_then(|a| u64::from_str_radix(a.trim().trim_start_matches("0x"), 16).ok());
                }
                text.push_str(l);
                text.push('\n');
            }
            if let Some(pc) = first {
                log.asm.entry(pc).or_default().push((log.blocks.len(), text));
            }
            continue;
        }
        if let Some(call) = parse_syscall(line) {
            in_regs = false;
            log.syscalls.push(call);
            continue;
        }
        if let Some(rest) = line.strip_prefix(" = ") {
            // qemu-user's result on a line of its own (another log line came in between).
            if let Some(last) = log.syscalls.last_mut().filter(|c| c.result.is_none()) {
                last.result = Some(rest.trim().to_string());
                last.line.push_str(line);
            }
            continue;
        }
        if in_regs {
            if let Some(last) = log.blocks.len().checked_sub(1) {
                for (name, value) in reg_pairs(line) {
                    let i = log.name_index(&name);
                    log.blocks[last].regs.push((i, value));
                }
            }
        }
    }
    log
}

/// The `NAME=hex` pairs of a register dump line (`X00=…`, `R8 =…`, ` PC=…`, `x2/sp =…`);
/// words that are not such pairs (flag letters, `EL0t`, `[-------]`) are skipped.
pub fn reg_pairs(line: &str) -> Vec<(String, u64)> {
    let mut joined = line.to_string();
    while joined.contains(" =") {
        joined = joined.replace(" =", "=");
    }
    joined
        .split_whitespace()
        .filter_map(|w| {
            let (name, value) = w.split_once('=')?;
            if name.is_empty() || value.is_empty() || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            Some((name.to_string(), u64::from_str_radix(value, 16).ok()?))
        })
        .collect()
}

/// One `-strace` line, in endgate's (`name(a, b) = r`, optionally after `[pid N] `) or
/// qemu-user's (`PID name(a,b) = r`) format; `None` for any other line.
pub fn parse_syscall(line: &str) -> Option<Syscall> {
    let mut rest = line;
    let mut qemu = false;
    if let Some(r) = rest.strip_prefix("[pid ") {
        rest = r.split_once("] ")?.1;
    } else if let Some((pid, r)) = rest.split_once(' ') {
        if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) {
            rest = r;
            qemu = true;
        }
    }
    let open = rest.find('(')?;
    let name = &rest[..open];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_') {
        return None;
    }
    let inner_start = open + 1;
    let close = matching_paren(rest, open)?;
    let args = split_args(&rest[inner_start..close]);
    let after = rest[close + 1..].trim_start();
    let result = after.strip_prefix('=').map(|r| r.trim().to_string());
    if result.is_none() && !after.is_empty() {
        return None;
    }
    Some(Syscall { line: line.to_string(), name: name.to_string(), args, result, qemu })
}

/// The index of the `)` closing the `(` at `open`, skipping quoted strings and nested
/// brackets.
fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut k = open;
    while k < b.len() {
        let c = b[k];
        if quoted {
            if c == b'\\' {
                k += 1;
            } else if c == b'"' {
                quoted = false;
            }
        } else {
            match c {
                b'"' => quoted = true,
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (c == b')').then_some(k);
                    }
                }
                _ => {}
            }
        }
        k += 1;
    }
    None
}

/// Arguments split at commas outside quotes and brackets, each trimmed.
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut escaped = false;
    for c in s.chars() {
        if quoted {
            cur.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// System call lines of a stream (endgate's stderr): the lines that parse as calls.
pub fn syscalls_in(text: &str) -> Vec<Syscall> {
    text.lines().filter_map(parse_syscall).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_endgate_and_qemu_logs() {
        let endgate = "----------------\nIN: \n0x004000d4:  d2800808  mov      x8, #0x40\n\nTrace 0: 0x00000000004000d4 [00000000/00000000004000d4/00000000/00000008] \nX00=0000000000000001 X01=0000000000000002\nX30=0000000000000000  SP=0000fffffffff820\n PC=00000000004000d4 PSTATE=00000000 ---- EL0t\n";
        let log = parse_log(endgate);
        assert_eq!(log.blocks.len(), 1);
        assert_eq!(log.blocks[0].pc, 0x4000d4);
        assert_eq!(log.reg(&log.blocks[0], "X01"), Some(2));
        assert_eq!(log.reg(&log.blocks[0], "SP"), Some(0xfffffffff820));
        assert_eq!(log.reg(&log.blocks[0], "PSTATE"), Some(0));
        assert!(log.asm_at(0x4000d4, 0).is_some_and(|t| t.contains("mov      x8")));
        let qemu = "Trace 0: 0x7fbac4000100 [00000000/000000000040103c/1040c0b3/00000200] _start\nR8 =0000000000000005 RSP=00007fbac3fff830\nRIP=000000000040103c RFL=00000202 [-------] CPL=3 II=0\nES =0000 0000000000000000 00000000 00000000\n4242 brk(NULL) = 0x0000000000498000\n4242 exit_group(0)\n";
        let log = parse_log(qemu);
        assert_eq!(log.blocks[0].pc, 0x40103c);
        assert_eq!(log.reg(&log.blocks[0], "R8"), Some(5));
        assert_eq!(log.reg(&log.blocks[0], "RFL"), Some(0x202));
        assert_eq!(log.syscalls.len(), 2);
        assert!(log.syscalls[0].qemu);
        assert_eq!(log.syscalls[0].result.as_deref(), Some("0x0000000000498000"));
        assert_eq!(log.syscalls[1].result, None);
    }

    #[test]
    fn reads_strace_lines() {
        let c = parse_syscall(r#"write(1, "a, \"b\")\n", 7) = 7"#).unwrap();
        assert_eq!(c.name, "write");
        assert_eq!(c.args, ["1", r#""a, \"b\")\n""#, "7"]);
        assert_eq!(c.result.as_deref(), Some("7"));
        let c =
            parse_syscall("newfstatat(AT_FDCWD, \"/nope\", 0xfffffffff438, 0) = -1 ENOENT (No such file or directory)")
                .unwrap();
        assert_eq!(c.args.len(), 4);
        let c = parse_syscall("77 set_robust_list(0x4980e0,24) = -1 errno=38 (Function not implemented)").unwrap();
        assert!(c.qemu);
        assert_eq!(c.args, ["0x4980e0", "24"]);
        assert!(parse_syscall("hello world").is_none());
        assert!(parse_syscall("sum 500500").is_none());
        assert!(parse_syscall("+++ exited with 0 +++").is_none());
    }
}
