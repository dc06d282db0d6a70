//! Classic BPF as seccomp uses it: the checks a filter passes at install time and an
//! interpreter that runs it over a guest's `struct seccomp_data`.
//!
//! A guest's seccomp filter is never handed to the host kernel (it would judge endgate's own
//! host system calls, not the guest's); [`super::seccomp`] keeps it and runs it here on every
//! guest system call.
//!
//! # The machine (include/uapi/linux/filter.h, include/uapi/linux/bpf_common.h)
//! An instruction is `struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; }`. The
//! program has a 32-bit accumulator `A`, an index register `X` and sixteen 32-bit scratch
//! words `M[]`; it ends by returning a 32-bit value, which for seccomp is the action
//! (include/uapi/linux/seccomp.h). Arithmetic is on 32 bits and wraps; jumps go forward only.
//!
//! # What the kernel accepts (net/core/filter.c `bpf_check_classic`, kernel/seccomp.c
//! `seccomp_check_filter`, Documentation/userspace-api/seccomp_filter.rst)
//! - 1 to [`BPF_MAXINSNS`] instructions, the last one a return;
//! - only the opcodes seccomp lists: loads of a 32-bit word of `seccomp_data` at an offset
//!   that is a multiple of 4 and inside the 64 bytes (`BPF_LD|BPF_W|BPF_ABS`), the length
//!   loads (which read as 64), immediates, scratch loads and stores, the ALU operations but
//!   `BPF_MOD`, `TAX`/`TXA`, `JA` and the four conditional jumps, `RET` of `K` or `A`;
//! - no division by a constant 0, no shift by a constant of 32 or more, scratch indexes below
//!   16, jump targets inside the program, and no scratch word read on a path that has not
//!   stored it.
//!
//! Anything else is `EINVAL`. A division by `X` = 0 at run time ends the program with 0 (the
//! kernel's conversion of classic BPF returns 0 there), which seccomp reads as
//! `SECCOMP_RET_KILL_THREAD`.

use syscalls::Errno;

/// `BPF_MAXINSNS`: the longest program.
pub const BPF_MAXINSNS: usize = 4096;
/// `BPF_MEMWORDS`: scratch words.
const BPF_MEMWORDS: u32 = 16;
/// `sizeof(struct seccomp_data)`: what a filter can load from, and what the length loads give.
pub const DATA_LEN: u32 = 64;

// Instruction classes, sizes, modes, operations and sources (bpf_common.h, filter.h).
const LD: u16 = 0x00;
const LDX: u16 = 0x01;
const ST: u16 = 0x02;
const STX: u16 = 0x03;
const ALU: u16 = 0x04;
const JMP: u16 = 0x05;
const RET: u16 = 0x06;
const MISC: u16 = 0x07;
const W: u16 = 0x00;
const IMM: u16 = 0x00;
const ABS: u16 = 0x20;
const MEM: u16 = 0x60;
const LEN: u16 = 0x80;
const ADD: u16 = 0x00;
const SUB: u16 = 0x10;
const MUL: u16 = 0x20;
const DIV: u16 = 0x30;
const OR: u16 = 0x40;
const AND: u16 = 0x50;
const LSH: u16 = 0x60;
const RSH: u16 = 0x70;
const NEG: u16 = 0x80;
const XOR: u16 = 0xa0;
const JA: u16 = 0x00;
const JEQ: u16 = 0x10;
const JGT: u16 = 0x20;
const JGE: u16 = 0x30;
const JSET: u16 = 0x40;
const K: u16 = 0x00;
const X: u16 = 0x08;
const RET_A: u16 = 0x10;
const TAX: u16 = 0x00;
const TXA: u16 = 0x80;

/// One instruction, `struct sock_filter`, with its members in host order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Opcode.
    pub code: u16,
    /// Jump offset when the condition holds.
    pub jt: u8,
    /// Jump offset when it does not.
    pub jf: u8,
    /// The constant operand.
    pub k: u32,
}

impl Insn {
    /// An instruction (for tests and callers building programs).
    pub const fn new(code: u16, jt: u8, jf: u8, k: u32) -> Insn {
        Insn { code, jt, jf, k }
    }
}

/// The opcodes seccomp allows (kernel/seccomp.c `seccomp_check_filter`), before its
/// rewriting of the length loads.
fn seccomp_allows(code: u16) -> bool {
    const ALLOWED: &[u16] = &[
        LD | W | ABS,
        LD | W | LEN,
        LDX | W | LEN,
        RET | K,
        RET | RET_A,
        ALU | ADD | K,
        ALU | ADD | X,
        ALU | SUB | K,
        ALU | SUB | X,
        ALU | MUL | K,
        ALU | MUL | X,
        ALU | DIV | K,
        ALU | DIV | X,
        ALU | AND | K,
        ALU | AND | X,
        ALU | OR | K,
        ALU | OR | X,
        ALU | XOR | K,
        ALU | XOR | X,
        ALU | LSH | K,
        ALU | LSH | X,
        ALU | RSH | K,
        ALU | RSH | X,
        ALU | NEG,
        LD | IMM,
        LDX | IMM,
        MISC | TAX,
        MISC | TXA,
        LD | MEM,
        LDX | MEM,
        ST,
        STX,
        JMP | JA,
        JMP | JEQ | K,
        JMP | JEQ | X,
        JMP | JGE | K,
        JMP | JGE | X,
        JMP | JGT | K,
        JMP | JGT | X,
        JMP | JSET | K,
        JMP | JSET | X,
    ];
    ALLOWED.contains(&code)
}

fn is_cond_jump(code: u16) -> bool {
    code & 0x07 == JMP && code & 0xf0 != JA
}

/// Checks a seccomp filter as the kernel does at install time (see the module doc). Errors:
/// `EINVAL`.
pub fn check(prog: &[Insn]) -> Result<(), Errno> {
    let len = prog.len();
    if len == 0 || len > BPF_MAXINSNS {
        return Err(Errno::EINVAL);
    }
    for (pc, i) in prog.iter().enumerate() {
        if !seccomp_allows(i.code) {
            return Err(Errno::EINVAL);
        }
        let code = i.code;
        let remaining = len - pc - 1;
        let bad = match code {
            c if c == ALU | DIV | K => i.k == 0,
            c if c == ALU | LSH | K || c == ALU | RSH | K => i.k >= 32,
            c if c == LD | MEM || c == LDX | MEM || c == ST || c == STX => i.k >= BPF_MEMWORDS,
            c if c == JMP | JA => usize::try_from(i.k).map_or(true, |k| k >= remaining),
            c if is_cond_jump(c) => usize::from(i.jt) >= remaining || usize::from(i.jf) >= remaining,
            c if c == LD | W | ABS => i.k >= DATA_LEN || i.k & 3 != 0,
            _ => false,
        };
        if bad {
            return Err(Errno::EINVAL);
        }
    }
    let last = prog[len - 1].code;
    if last != RET | K && last != RET | RET_A {
        return Err(Errno::EINVAL);
    }
    check_scratch(prog)
}

/// No scratch word is read on a path that has not stored it (net/core/filter.c
/// `check_load_and_stores`: one bit per word, and-ed over the paths into each instruction).
fn check_scratch(prog: &[Insn]) -> Result<(), Errno> {
    let mut masks = vec![u16::MAX; prog.len()];
    let mut valid: u16 = 0;
    for (pc, i) in prog.iter().enumerate() {
        valid &= masks[pc];
        match i.code {
            c if c == ST || c == STX => valid |= 1 << i.k,
            c if (c == LD | MEM || c == LDX | MEM) && valid & (1 << i.k) == 0 => return Err(Errno::EINVAL),
            c if c == JMP | JA => {
                // `check` has bounded the target.
                masks[pc + 1 + i.k as usize] &= valid;
                valid = u16::MAX;
            }
            c if is_cond_jump(c) => {
                masks[pc + 1 + usize::from(i.jt)] &= valid;
                masks[pc + 1 + usize::from(i.jf)] &= valid;
                valid = u16::MAX;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Runs a program that passed [`check`] over `data` (a `struct seccomp_data` laid out as the
/// guest's kernel lays it out); `load` reads the 32-bit word at a byte offset in the guest's
/// byte order. Returns the program's return value.
pub fn run(prog: &[Insn], data: &[u8; DATA_LEN as usize], big_endian: bool) -> u32 {
    let load = |k: u32| {
        let o = k as usize;
        let w = [data[o], data[o + 1], data[o + 2], data[o + 3]];
        if big_endian {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        }
    };
    let (mut a, mut x) = (0u32, 0u32);
    let mut m = [0u32; BPF_MEMWORDS as usize];
    let mut pc = 0usize;
    while let Some(i) = prog.get(pc) {
        pc += 1;
        let k = i.k;
        let src = if i.code & X != 0 { x } else { k };
        match i.code {
            c if c == LD | W | ABS => a = load(k),
            c if c == LD | W | LEN => a = DATA_LEN,
            c if c == LDX | W | LEN => x = DATA_LEN,
            c if c == LD | IMM => a = k,
            c if c == LDX | IMM => x = k,
            c if c == LD | MEM => a = m[k as usize],
            c if c == LDX | MEM => x = m[k as usize],
            c if c == ST => m[k as usize] = a,
            c if c == STX => m[k as usize] = x,
            c if c == MISC | TAX => x = a,
            c if c == MISC | TXA => a = x,
            c if c == RET | K => return k,
            c if c == RET | RET_A => return a,
            c if c & 0x07 == ALU => {
                a = match c & 0xf0 {
                    ADD => a.wrapping_add(src),
                    SUB => a.wrapping_sub(src),
                    MUL => a.wrapping_mul(src),
                    DIV => match a.checked_div(src) {
                        Some(q) => q,
                        None => return 0,
                    },
                    OR => a | src,
                    AND => a & src,
                    XOR => a ^ src,
                    LSH => a.wrapping_shl(src),
                    RSH => a.wrapping_shr(src),
                    NEG => a.wrapping_neg(),
                    _ => return 0,
                }
            }
            c if c == JMP | JA => pc += k as usize,
            c if is_cond_jump(c) => {
                let taken = match c & 0xf0 {
                    JEQ => a == src,
                    JGT => a > src,
                    JGE => a >= src,
                    JSET => a & src != 0,
                    _ => false,
                };
                pc += usize::from(if taken { i.jt } else { i.jf });
            }
            // `check` admits nothing else.
            _ => return 0,
        }
    }
    // `check` makes the last instruction a return.
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_ERRNO: u32 = 0x0005_0000;

    fn data(nr: u32) -> [u8; 64] {
        let mut d = [0u8; 64];
        d[..4].copy_from_slice(&nr.to_le_bytes());
        d[4..8].copy_from_slice(&0xc000_003eu32.to_le_bytes());
        d
    }

    #[test]
    fn a_filter_on_the_number_picks_its_action() {
        let p = [
            Insn::new(LD | W | ABS, 0, 0, 0),
            Insn::new(JMP | JEQ | K, 0, 1, 39),
            Insn::new(RET | K, 0, 0, RET_ERRNO | 1),
            Insn::new(RET | K, 0, 0, RET_ALLOW),
        ];
        assert_eq!(check(&p), Ok(()));
        assert_eq!(run(&p, &data(39), false), RET_ERRNO | 1);
        assert_eq!(run(&p, &data(40), false), RET_ALLOW);
    }

    #[test]
    fn loads_follow_the_guest_byte_order() {
        let p = [Insn::new(LD | W | ABS, 0, 0, 4), Insn::new(RET | RET_A, 0, 0, 0)];
        let mut d = [0u8; 64];
        d[4..8].copy_from_slice(&0x8000_0016u32.to_be_bytes());
        assert_eq!(run(&p, &d, true), 0x8000_0016);
    }

    #[test]
    fn the_kernel_checks_refuse_what_they_refuse() {
        let ret = Insn::new(RET | K, 0, 0, RET_ALLOW);
        assert_eq!(check(&[]), Err(Errno::EINVAL));
        assert_eq!(check(&vec![ret; BPF_MAXINSNS + 1]), Err(Errno::EINVAL));
        assert_eq!(check(&vec![ret; BPF_MAXINSNS]), Ok(()));
        // Not ending in a return; a byte load; an unaligned or out-of-range word load; MOD.
        assert_eq!(check(&[Insn::new(LD | IMM, 0, 0, 1)]), Err(Errno::EINVAL));
        assert_eq!(check(&[Insn::new(LD | 0x10 | ABS, 0, 0, 0), ret]), Err(Errno::EINVAL));
        assert_eq!(check(&[Insn::new(LD | W | ABS, 0, 0, 2), ret]), Err(Errno::EINVAL));
        assert_eq!(check(&[Insn::new(LD | W | ABS, 0, 0, 64), ret]), Err(Errno::EINVAL));
        assert_eq!(check(&[Insn::new(ALU | 0x90 | K, 0, 0, 3), ret]), Err(Errno::EINVAL));
        // Division by a constant 0, shift by 32, scratch index 16.
        assert_eq!(check(&[Insn::new(ALU | DIV | K, 0, 0, 0), ret]), Err(Errno::EINVAL));
        assert_eq!(check(&[Insn::new(ALU | LSH | K, 0, 0, 32), ret]), Err(Errno::EINVAL));
        assert_eq!(check(&[Insn::new(ST, 0, 0, 16), ret]), Err(Errno::EINVAL));
        // Jumps past the end.
        assert_eq!(check(&[Insn::new(JMP | JA, 0, 0, 1), ret]), Err(Errno::EINVAL));
        assert_eq!(check(&[Insn::new(JMP | JEQ | K, 1, 0, 0), ret]), Err(Errno::EINVAL));
        // A scratch word read before any store, and one stored on only one path.
        assert_eq!(check(&[Insn::new(LD | MEM, 0, 0, 3), ret]), Err(Errno::EINVAL));
        let one_path = [
            Insn::new(JMP | JEQ | K, 0, 1, 0),
            Insn::new(ST, 0, 0, 2),
            Insn::new(LD | MEM, 0, 0, 2),
            Insn::new(RET | RET_A, 0, 0, 0),
        ];
        assert_eq!(check(&one_path), Err(Errno::EINVAL));
        let both = [Insn::new(ST, 0, 0, 2), one_path[0], one_path[1], one_path[2], one_path[3]];
        assert_eq!(check(&both), Ok(()));
    }

    #[test]
    fn arithmetic_wraps_and_division_by_x_zero_returns_zero() {
        let p = [
            Insn::new(LD | IMM, 0, 0, 0xffff_fff0),
            Insn::new(ALU | ADD | K, 0, 0, 0x20),
            Insn::new(ALU | LSH | K, 0, 0, 4),
            Insn::new(ALU | NEG, 0, 0, 0),
            Insn::new(RET | RET_A, 0, 0, 0),
        ];
        assert_eq!(check(&p), Ok(()));
        assert_eq!(run(&p, &[0; 64], false), 0u32.wrapping_sub(0x100));
        let div = [
            Insn::new(LD | W | LEN, 0, 0, 0),
            Insn::new(LDX | IMM, 0, 0, 0),
            Insn::new(ALU | DIV | X, 0, 0, 0),
            Insn::new(RET | K, 0, 0, RET_ALLOW),
        ];
        assert_eq!(check(&div), Ok(()));
        assert_eq!(run(&div, &[0; 64], false), 0);
        let len = [Insn::new(LD | W | LEN, 0, 0, 0), Insn::new(RET | RET_A, 0, 0, 0)];
        assert_eq!(run(&len, &[0; 64], false), 64);
    }
}
