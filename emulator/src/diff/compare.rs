//! Comparing two runs: values that legitimately differ are rewritten to names both runs
//! share (stack, mapping and id normalisation), then blocks and system calls are compared in
//! order and the first difference is kept. docs/diff.md says what is compared and why.

use std::collections::{BTreeMap, HashSet};

use super::log::{Block, Log, Syscall};

/// How far below its first stack pointer a value still counts as a stack address.
const STACK_BELOW: u64 = 16 << 20;
/// How far above it (the arguments, environment, auxiliary vector and their strings).
const STACK_ABOVE: u64 = 1 << 20;
/// Process and thread ids below this are not renamed: small numbers are too common in
/// registers (Linux hands out ids from 300 once they wrap).
const LOWEST_ID: u64 = 300;
/// Values below this are never taken for addresses.
const LOWEST_ADDRESS: u64 = 0x10000;

/// Where one run put the things that differ between runs: its stack, the mappings its system
/// calls returned, its process and thread ids.
#[derive(Debug, Default)]
pub struct Layout {
    /// (name, first address, length, the address the name stands for), searched in order.
    regions: Vec<(String, u64, u64, u64)>,
    /// (value, name): process and thread ids.
    ids: Vec<(u64, String)>,
    /// The start-up data above the argument and environment pointer arrays (auxiliary
    /// vector, strings), as one place: set only between different emulators.
    startup: Option<(u64, u64)>,
}

impl Layout {
    /// `v` as both runs can compare it: `sp0-0x20`, `mmap#3+0x10`, `pid#0`, or hex.
    pub fn norm(&self, v: u64) -> String {
        if let Some((_, name)) = self.ids.iter().find(|(id, _)| *id == v && v >= LOWEST_ID) {
            return name.clone();
        }
        if let Some((lo, hi)) = self.startup {
            if (lo..hi).contains(&v) {
                return "start-up data".into();
            }
        }
        if v >= LOWEST_ADDRESS {
            for (name, base, len, origin) in &self.regions {
                if v.wrapping_sub(*base) < *len {
                    return if v >= *origin {
                        format!("{name}+{:#x}", v - origin)
                    } else {
                        format!("{name}-{:#x}", origin - v)
                    };
                }
            }
        }
        format!("{v:#x}")
    }
}

/// Whether value `x` of run a and `y` of run b agree: equal, or standing for the same place
/// or id in each run's layout. (Equal values are never told apart by their names: a count
/// that happens to equal one run's process id is still the same count.)
pub fn same_value(x: u64, y: u64, la: &Layout, lb: &Layout) -> bool {
    x == y || la.norm(x) == lb.norm(y)
}

/// The stack pointer's name in a `cpu` dump, from the names the log has.
fn stack_pointer_name(log: &Log) -> Option<&'static str> {
    let has = |n: &str| log.names.iter().any(|x| x == n);
    if has("RSP") {
        Some("RSP")
    } else if has("ESP") {
        Some("ESP")
    } else if has("X00") || has("X30") {
        Some("SP")
    } else if has("x2/sp") {
        Some("x2/sp")
    } else if has("ra") && has("sp") {
        Some("sp")
    } else if has("R13") && has("PSR") {
        // arm (its dump ends with PC and PSR)
        Some("R13")
    } else if has("R15") {
        // s390x (its PSW line has no NAME=hex pairs)
        Some("R15")
    } else {
        None
    }
}

/// The two runs' layouts: each run's stack (from the first block's stack pointer: it is
/// compared as an offset from there), the mappings `mmap`/`mmap2`/`mremap` returned paired in
/// call order, the `brk` heap, and the ids of the process and of the threads
/// `gettid`/`set_tid_address`/`clone`/`fork` returned, paired in order.
///
/// `startup`: between two different emulators, the bytes from `sp0` to the end of the
/// environment pointers (argc, argv[], NULL, envp[], NULL): every address above them (the
/// auxiliary vector and the strings, which each emulator lays out its own way) is then one
/// place, "start-up data".
pub fn layouts(a: (&Log, &[Syscall], u32), b: (&Log, &[Syscall], u32), startup: Option<u64>) -> (Layout, Layout) {
    let mut la = Layout::default();
    let mut lb = Layout::default();
    la.ids.push((u64::from(a.2), "pid".into()));
    lb.ids.push((u64::from(b.2), "pid".into()));
    let maps = |calls: &[Syscall]| -> Vec<(u64, u64)> {
        calls
            .iter()
            .filter_map(|c| {
                let len_arg = match c.name.as_str() {
                    "mmap" | "mmap2" => 1,
                    "mremap" => 2,
                    _ => return None,
                };
                let at = number(c.result.as_deref()?.split_whitespace().next()?)?;
                let len = number(c.args.get(len_arg)?)?;
                (LOWEST_ADDRESS..u64::MAX - 4096).contains(&at).then_some((at, len))
            })
            .collect()
    };
    for (k, ((x, xl), (y, yl))) in maps(a.1).into_iter().zip(maps(b.1)).enumerate() {
        la.regions.push((format!("mmap#{k}"), x, xl, x));
        lb.regions.push((format!("mmap#{k}"), y, yl, y));
    }
    let heap = |calls: &[Syscall]| -> Option<(u64, u64)> {
        let brks: Vec<u64> = calls
            .iter()
            .filter(|c| c.name == "brk")
            .filter_map(|c| number(c.result.as_deref()?.split_whitespace().next()?))
            .collect();
        Some((*brks.first()?, *brks.iter().max()?))
    };
    if let (Some((x, xe)), Some((y, ye))) = (heap(a.1), heap(b.1)) {
        if x != y {
            la.regions.push(("brk".into(), x, (xe - x).max(1 << 20), x));
            lb.regions.push(("brk".into(), y, (ye - y).max(1 << 20), y));
        }
    }
    // The stack last: the mappings a run's calls returned may lie close below its stack.
    for ((log, _, _), l) in [(a, &mut la), (b, &mut lb)] {
        let sp = stack_pointer_name(log).and_then(|n| log.blocks.first().and_then(|blk| log.reg(blk, n)));
        if let Some(sp) = sp.filter(|&sp| sp >= LOWEST_ADDRESS) {
            let lo = sp.saturating_sub(STACK_BELOW);
            l.regions.push(("sp0".into(), lo, sp - lo + STACK_ABOVE, sp));
            l.startup = startup.map(|n| (sp + n, sp + STACK_ABOVE));
        }
    }
    let ids = |calls: &[Syscall]| -> Vec<u64> {
        calls
            .iter()
            .filter(|c| matches!(c.name.as_str(), "gettid" | "set_tid_address" | "clone" | "clone3" | "fork" | "vfork"))
            .filter_map(|c| number(c.result.as_deref()?.split_whitespace().next()?))
            .filter(|&v| v > 1 && v < 1 << 32)
            .collect()
    };
    for (k, (x, y)) in ids(a.1).into_iter().zip(ids(b.1)).enumerate() {
        la.ids.push((x, format!("tid#{k}")));
        lb.ids.push((y, format!("tid#{k}")));
    }
    (la, lb)
}

/// A number as `-strace` prints it: decimal (maybe negative), `0x` hex, or `NULL`.
pub fn number(s: &str) -> Option<u64> {
    let s = s.trim();
    if s == "NULL" {
        return Some(0);
    }
    if let Some(h) = s.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Some(d) = s.strip_prefix('-') {
        return d.parse::<u64>().ok().map(u64::wrapping_neg);
    }
    s.parse().ok()
}

/// What to compare.
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Compare each thread's blocks from its first block at this address.
    pub start: Option<u64>,
    /// Registers left out.
    pub ignore: Vec<String>,
    /// Registers compared only in some bits: (name, the bits).
    pub masks: Vec<(String, u64)>,
}

/// The first difference of two block streams.
#[derive(Debug)]
pub struct BlockDiff {
    /// The thread (`Trace N:`).
    pub thread: u32,
    /// The position in that thread's stream (from `--start`).
    pub position: usize,
    /// Indices into each log's `blocks` of the differing block (`None`: the stream ended).
    pub a: Option<usize>,
    /// See `a`.
    pub b: Option<usize>,
    /// Indices of the block before it (the one that ran from equal registers).
    pub prev: Option<(usize, usize)>,
    /// The registers that differ (empty when the pcs differ or a stream ended).
    pub regs: Vec<String>,
    /// True when the two blocks start at different addresses.
    pub pc_differs: bool,
}

/// What the block comparison found.
#[derive(Debug, Default)]
pub struct BlockReport {
    /// The first difference of each thread that has one, thread 0 first.
    pub diffs: Vec<BlockDiff>,
    /// Blocks compared (pairs), over all threads.
    pub compared: usize,
    /// Registers that differed at a thread's first block (the emulators' start states) and
    /// were compared only from the block where they first agreed: (name, that position or
    /// `None` when they never agreed).
    pub start_state: BTreeMap<String, Option<usize>>,
}

/// Compares the block streams of `a` and `b`, thread by thread.
pub fn compare_blocks(a: &Log, b: &Log, la: &Layout, lb: &Layout, opts: &Options) -> BlockReport {
    let mut report = BlockReport::default();
    let threads: std::collections::BTreeSet<u32> = a.blocks.iter().chain(&b.blocks).map(|x| x.thread).collect();
    let names: Vec<&String> = a
        .names
        .iter()
        .filter(|n| b.names.contains(n) && !opts.ignore.iter().any(|i| i.eq_ignore_ascii_case(n)))
        .collect();
    for t in threads {
        let stream = |log: &Log| -> Vec<usize> {
            let all = (0..log.blocks.len()).filter(|&i| log.blocks[i].thread == t);
            match opts.start {
                Some(s) => all.skip_while(|&i| log.blocks[i].pc != s).collect(),
                None => all.collect(),
            }
        };
        let (sa, sb) = (stream(a), stream(b));
        // Registers not compared yet: those that differ at the first block.
        let mut waiting: HashSet<&str> = HashSet::new();
        let mask = |n: &str| opts.masks.iter().find(|(m, _)| m == n).map_or(u64::MAX, |&(_, bits)| bits);
        let value = |log: &Log, blk: &Block, n: &str| log.reg(blk, n).map(|v| v & mask(n));
        for k in 0..sa.len().max(sb.len()) {
            let (ia, ib) = (sa.get(k).copied(), sb.get(k).copied());
            let prev = k.checked_sub(1).map(|p| (sa[p], sb[p]));
            let (Some(ia), Some(ib)) = (ia, ib) else {
                report.diffs.push(BlockDiff {
                    thread: t,
                    position: k,
                    a: ia,
                    b: ib,
                    prev,
                    regs: vec![],
                    pc_differs: false,
                });
                break;
            };
            report.compared += 1;
            let (ba, bb) = (&a.blocks[ia], &b.blocks[ib]);
            let pc_differs = !same_value(ba.pc, bb.pc, la, lb);
            let mut differ = Vec::new();
            for n in &names {
                let same = match (value(a, ba, n), value(b, bb, n)) {
                    (Some(x), Some(y)) => same_value(x, y, la, lb),
                    (x, y) => x == y,
                };
                if k == 0 && !same {
                    waiting.insert(n.as_str());
                    report.start_state.insert(n.to_string(), None);
                    continue;
                }
                if waiting.contains(n.as_str()) {
                    if same {
                        waiting.remove(n.as_str());
                        report.start_state.insert(n.to_string(), Some(k));
                    }
                    continue;
                }
                if !same {
                    differ.push(n.to_string());
                }
            }
            if pc_differs || !differ.is_empty() {
                report.diffs.push(BlockDiff {
                    thread: t,
                    position: k,
                    a: Some(ia),
                    b: Some(ib),
                    prev,
                    regs: differ,
                    pc_differs,
                });
                break;
            }
        }
    }
    report
}

/// System calls whose results and output arguments change from run to run (time, random
/// bytes, resource use): only their names are compared.
const VOLATILE: &[&str] = &[
    "getrandom",
    "clock_gettime",
    "clock_gettime64",
    "gettimeofday",
    "time",
    "times",
    "getrusage",
    "sysinfo",
    "clock_nanosleep",
    "nanosleep",
];

/// A `-strace` result as both formats can compare it: the number and, for an error, the
/// message in parentheses (`-1 ENOENT (No such file…)` and qemu-user's
/// `-1 errno=2 (No such file…)` agree); `None` for no result (`?`, or none printed).
fn result_key(r: Option<&str>) -> Option<(Option<u64>, String)> {
    let r = r?.trim();
    if r == "?" {
        return None;
    }
    let first = r.split_whitespace().next().unwrap_or("");
    let Some(v) = number(first) else { return Some((None, r.to_string())) };
    let mut message = String::new();
    if first.starts_with('-') {
        if let (Some(open), Some(close)) = (r.find('('), r.rfind(')')) {
            message = r[open..=close].to_string();
        }
    }
    Some((Some(v), message))
}

/// Whether two results agree (see [`result_key`]); true when either has none.
fn same_result(a: Option<&str>, b: Option<&str>, la: &Layout, lb: &Layout) -> bool {
    match (result_key(a), result_key(b)) {
        (Some((Some(x), mx)), Some((Some(y), my))) => same_value(x, y, la, lb) && mx == my,
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// Why two calls differ, or `None` when they agree.
pub fn call_differs(a: &Syscall, b: &Syscall, la: &Layout, lb: &Layout) -> Option<String> {
    if a.name != b.name {
        return Some(format!("different calls: {} and {}", a.name, b.name));
    }
    if VOLATILE.contains(&a.name.as_str()) {
        return None;
    }
    let (ra, rb) = (a.result.as_deref(), b.result.as_deref());
    if !same_result(ra, rb, la, lb) {
        return Some(format!("results differ: {} and {}", ra.unwrap_or_default(), rb.unwrap_or_default()));
    }
    if a.args.len() != b.args.len() && a.qemu == b.qemu {
        return Some(format!("{} and {} arguments", a.args.len(), b.args.len()));
    }
    for (k, (x, y)) in a.args.iter().zip(&b.args).enumerate() {
        let differs = match (number(x), number(y)) {
            (Some(x), Some(y)) => !same_value(x, y, la, lb),
            // The two formats name flags and show buffers differently: text is compared
            // only between two runs of the same format.
            (None, None) if a.qemu == b.qemu => x != y,
            _ => false,
        };
        if differs {
            return Some(format!("argument {} differs: {x} and {y}", k + 1));
        }
    }
    None
}

/// The first differing system call: (index, reason); a missing call on one side is a
/// difference too.
pub fn compare_calls(a: &[Syscall], b: &[Syscall], la: &Layout, lb: &Layout) -> Option<(usize, String)> {
    for k in 0..a.len().max(b.len()) {
        match (a.get(k), b.get(k)) {
            (Some(x), Some(y)) => {
                if let Some(why) = call_differs(x, y, la, lb) {
                    return Some((k, why));
                }
            }
            (Some(_), None) => return Some((k, "the reference made no more system calls".into())),
            (None, Some(_)) => return Some((k, "endgate made no more system calls".into())),
            (None, None) => break,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::log::{parse_log, parse_syscall};
    use super::*;

    fn log(sp: u64, x0: &[u64]) -> Log {
        let mut text = String::new();
        for (k, v) in x0.iter().enumerate() {
            text.push_str(&format!(
                "Trace 0: 0x0 [00000000/{:016x}/00000000/00000004] \nX00={v:016x} X30=0000000000000000  SP={:016x}\nPSTATE={} ---- EL0t\n",
                0x400000 + 4 * k,
                sp - 16 * k as u64,
                if k == 0 { 0 } else { 0x4000_0000 }
            ));
        }
        parse_log(&text)
    }

    #[test]
    fn stacks_compare_by_offset_and_start_state_waits() {
        let a = log(0xfffffffff820, &[1, 2, 3]);
        let b = log(0x7f5bc73fe820, &[1, 2, 3]);
        let (la, lb) = layouts((&a, &[], 4242), (&b, &[], 4343), None);
        assert_eq!(la.norm(0xfffffffff810), lb.norm(0x7f5bc73fe810));
        let r = compare_blocks(&a, &b, &la, &lb, &Options::default());
        assert!(r.diffs.is_empty(), "{r:?}");
        let mut c = log(0x7f5bc73fe820, &[1, 2, 4]);
        // PSTATE differs at the first block (a start state): compared from where it agrees.
        let p = u16::try_from(c.names.iter().position(|n| n == "PSTATE").unwrap()).unwrap();
        c.blocks[0].regs.iter_mut().filter(|(i, _)| *i == p).for_each(|r| r.1 = 0x2000_0000);
        let r = compare_blocks(&a, &c, &la, &lb, &Options::default());
        assert_eq!(r.start_state.get("PSTATE"), Some(&Some(1)));
        assert_eq!(r.diffs.len(), 1);
        assert_eq!(r.diffs[0].position, 2);
        assert_eq!(r.diffs[0].regs, ["X00"]);
        assert_eq!(r.diffs[0].prev, Some((1, 1)));
    }

    #[test]
    fn calls_compare_across_formats() {
        let l = Layout::default();
        let e = parse_syscall("set_robust_list(0x4980e0, 24) = 0").unwrap();
        let q = parse_syscall("77 set_robust_list(0x4980e0,24) = -1 errno=38 (Function not implemented)").unwrap();
        assert!(call_differs(&e, &q, &l, &l).is_some());
        let e = parse_syscall("openat(AT_FDCWD, \"/nope\", O_RDONLY) = -1 ENOENT (No such file or directory)").unwrap();
        let q =
            parse_syscall("77 openat(AT_FDCWD,\"/nope\",O_RDONLY) = -1 errno=2 (No such file or directory)").unwrap();
        assert_eq!(call_differs(&e, &q, &l, &l), None);
        let w0 = parse_syscall("write(0, \"hi\", 2) = 2").unwrap();
        let w1 = parse_syscall("write(1, \"hi\", 2) = 2").unwrap();
        assert!(call_differs(&w0, &w1, &l, &l).is_some_and(|w| w.contains("argument 1")));
    }
}
