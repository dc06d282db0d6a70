//! `-d` traces (docs/tracing.md): `in_asm` of the freestanding `asm_hello` guest of every arch
//! (guest-tests/programs/asm/<arch>/asm_hello.S, built here with the arch's Debian cross gcc as
//! the guest-test runner builds it) against expected text written from the source and
//! capstone's syntax, and against qemu-user 10.0.2's own `-d in_asm` where its disassembler
//! prints the same text (x86_64, i386, arm: both are capstone's AT&T/ARM syntax); `cpu`
//! against the registers the program must hold and against qemu-user 10.0.2's `-d cpu`;
//! `-dfilter`, `-one-insn-per-tb`, `int`, `unimp`, `page`, `strace` and `-D`.
//!
//! The expected addresses are those Debian 12's cross binutils give these sources (`ld`'s
//! default image bases); a toolchain that lays the programs out otherwise fails here with
//! both texts shown.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{arch, endgate, run_with_timeout, TempDir, Timed};

const TIMEOUT: Duration = Duration::from_secs(60);

/// Builds `asm_hello` for `arch_name` into `dir`.
fn build_hello(dir: &Path, arch_name: &str) -> PathBuf {
    let src = common::workspace().join("guest-tests/programs/asm").join(arch_name).join("asm_hello.S");
    build_asm(dir, arch_name, &src, &format!("hello_{arch_name}"))
}

fn build_asm(dir: &Path, arch_name: &str, src: &Path, name: &str) -> PathBuf {
    let a = arch(arch_name);
    let out = dir.join(name);
    let st = Command::new(a.cc)
        .args(a.cflags)
        .args(["-nostdlib", "-static", "-o"])
        .arg(&out)
        .arg(src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", a.cc));
    assert!(st.success(), "building {}", src.display());
    out
}

fn run(cmd: &mut Command) -> Timed {
    let t = run_with_timeout(cmd, None, TIMEOUT);
    assert!(!t.timed_out, "{cmd:?} timed out");
    t
}

/// Runs `endgate OPTS PROG` with the log in a `-D` file; returns the run and the log.
fn endgate_log(dir: &Path, opts: &[&str], prog: &Path) -> (Timed, String) {
    let log = dir.join(format!("log-{}", opts.join("_").replace(['/', ' '], "-")));
    let t = run(Command::new(endgate()).args(opts).arg("-D").arg(&log).arg(prog));
    let text = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    (t, text)
}

/// qemu-user 10.0.2's log for the same options, if its binary is there.
fn qemu_log(dir: &Path, arch_name: &str, opts: &[&str], prog: &Path) -> Option<String> {
    let q = arch(arch_name).qemu10();
    if !q.exists() {
        eprintln!("{} is missing (scripts/fetch-qemu10.sh): not compared with qemu-user 10.0.2", q.display());
        return None;
    }
    let log = dir.join(format!("qemu-log-{arch_name}"));
    let t = run(Command::new(&q).args(opts).arg("-D").arg(&log).arg(prog));
    assert_eq!(t.status, 7, "qemu's run of {}", prog.display());
    Some(std::fs::read_to_string(&log).unwrap_or_default())
}

/// The expected `-d in_asm` text of asm_hello: the three blocks the program runs (the write,
/// the compare and branch, the exit), as capstone 5 disassembles them in the guest's syntax
/// (x86: AT&T with size suffixes; s390x: `%r` registers; mips: `$` o32 register names, which
/// n64's $t0 (register 12) is called, as by qemu's own disassembler).
fn expected_in_asm(arch_name: &str) -> &'static str {
    match arch_name {
        "x86_64" => {
            "\
----------------
IN: 
0x00401000:  b8 01 00 00 00           movl     $1, %eax
0x00401005:  bf 01 00 00 00           movl     $1, %edi
0x0040100a:  48 8d 35 ef 0f 00 00     leaq     0xfef(%rip), %rsi
0x00401011:  ba 0f 00 00 00           movl     $0xf, %edx
0x00401016:  0f 05                    syscall  

----------------
IN: 
0x00401018:  48 83 f8 0f              cmpq     $0xf, %rax
0x0040101c:  75 0c                    jne      0x40102a

----------------
IN: 
0x0040101e:  b8 e7 00 00 00           movl     $0xe7, %eax
0x00401023:  bf 07 00 00 00           movl     $7, %edi
0x00401028:  0f 05                    syscall  

"
        }
        // capstone 5 shows `movz` by its alias `mov` (qemu 10's Debian build, with an older
        // capstone, prints `movz x8, #0x40`).
        "aarch64" => {
            "\
----------------
IN: 
0x004000d4:  d2800808  mov      x8, #0x40
0x004000d8:  d2800020  mov      x0, #1
0x004000dc:  10000161  adr      x1, #0x400108
0x004000e0:  d28001e2  mov      x2, #0xf
0x004000e4:  d4000001  svc      #0

----------------
IN: 
0x004000e8:  f1003c1f  cmp      x0, #0xf
0x004000ec:  54000081  b.ne     #0x4000fc

----------------
IN: 
0x004000f0:  d2800bc8  mov      x8, #0x5e
0x004000f4:  d28000e0  mov      x0, #7
0x004000f8:  d4000001  svc      #0

"
        }
        // `li` is `addi` (4 bytes) or `c.li` (2 bytes) by the immediate's size; `la` in a
        // static program is auipc+ld of a GOT entry; capstone gives a branch's offset.
        "riscv64" => {
            "\
----------------
IN: 
0x00010144:  04000893  addi     a7, zero, 0x40
0x00010148:  4505      c.li     a0, 1
0x0001014a:  00001597  auipc    a1, 1
0x0001014e:  0565b583  ld       a1, 0x56(a1)
0x00010152:  463d      c.li     a2, 0xf
0x00010154:  00000073  ecall    

----------------
IN: 
0x00010158:  42bd      c.li     t0, 0xf
0x0001015a:  00551763  bne      a0, t0, 0xe

----------------
IN: 
0x0001015e:  05e00893  addi     a7, zero, 0x5e
0x00010162:  451d      c.li     a0, 7
0x00010164:  00000073  ecall    

"
        }
        "arm" => {
            "\
----------------
IN: 
0x00010098:  e3a07004  mov      r7, #4
0x0001009c:  e3a00001  mov      r0, #1
0x000100a0:  e59f1024  ldr      r1, [pc, #0x24]
0x000100a4:  e3a0200f  mov      r2, #0xf
0x000100a8:  ef000000  svc      #0

----------------
IN: 
0x000100ac:  e350000f  cmp      r0, #0xf
0x000100b0:  1a000002  bne      #0x100c0

----------------
IN: 
0x000100b4:  e3a070f8  mov      r7, #0xf8
0x000100b8:  e3a00007  mov      r0, #7
0x000100bc:  ef000000  svc      #0

"
        }
        "i386" => {
            "\
----------------
IN: 
0x08049000:  b8 04 00 00 00           movl     $4, %eax
0x08049005:  bb 01 00 00 00           movl     $1, %ebx
0x0804900a:  b9 00 a0 04 08           movl     $0x804a000, %ecx
0x0804900f:  ba 0f 00 00 00           movl     $0xf, %edx
0x08049014:  cd 80                    int      $0x80

----------------
IN: 
0x08049016:  83 f8 0f                 cmpl     $0xf, %eax
0x08049019:  75 0c                    jne      0x8049027

----------------
IN: 
0x0804901b:  b8 fc 00 00 00           movl     $0xfc, %eax
0x08049020:  bb 07 00 00 00           movl     $7, %ebx
0x08049025:  cd 80                    int      $0x80

"
        }
        // capstone 5 knows `svc` (qemu 10's Debian build prints `.byte 0x0a, 0x04`).
        "s390x" => {
            "\
----------------
IN: 
0x010000d4:  a729 0001       lghi     %r2, 1
0x010000d8:  c030 0000 0010  larl     %r3, 0x10000f8
0x010000de:  a749 000f       lghi     %r4, 0xf
0x010000e2:  0a04            svc      4

----------------
IN: 
0x010000e4:  a72f 000f       cghi     %r2, 0xf
0x010000e8:  a774 0005       jne      0x10000f2

----------------
IN: 
0x010000ec:  a729 0007       lghi     %r2, 7
0x010000f0:  0af8            svc      0xf8

"
        }
        // `li` is `addiu` from $zero, `dla` of a 64-bit address six instructions; the branch's
        // delay slot belongs to its block.
        "mips64el" => {
            "\
----------------
IN: 
0x120000150:  24021389  addiu    $v0, $zero, 0x1389
0x120000154:  24040001  addiu    $a0, $zero, 1
0x120000158:  3c050000  lui      $a1, 0
0x12000015c:  3c012000  lui      $at, 0x2000
0x120000160:  64a50001  daddiu   $a1, $a1, 1
0x120000164:  642101a0  daddiu   $at, $at, 0x1a0
0x120000168:  0005283c  dsll32   $a1, $a1, 0
0x12000016c:  00a1282d  daddu    $a1, $a1, $at
0x120000170:  2406000f  addiu    $a2, $zero, 0xf
0x120000174:  0000000c  syscall  

----------------
IN: 
0x120000178:  240c000f  addiu    $t4, $zero, 0xf
0x12000017c:  144c0004  bne      $v0, $t4, 0x120000190
0x120000180:  00000000  nop      

----------------
IN: 
0x120000184:  24021455  addiu    $v0, $zero, 0x1455
0x120000188:  24040007  addiu    $a0, $zero, 7
0x12000018c:  0000000c  syscall  

"
        }
        other => panic!("no expected text for {other}"),
    }
}

/// The address and instruction-bytes columns of an `in_asm` log (qemu's disassemblers for
/// riscv and mips print other columns, so only lines with a hex word after the address count).
fn addr_bytes(log: &str) -> Vec<(String, String)> {
    log.lines()
        .filter_map(|l| {
            let (addr, rest) = l.split_once(":  ")?;
            let bytes = rest.split("  ").next()?.trim().to_string();
            (addr.starts_with("0x") && bytes.chars().all(|c| c.is_ascii_hexdigit() || c == ' '))
                .then(|| (addr.to_string(), bytes))
        })
        .collect()
}

#[test]
fn in_asm_of_asm_hello_on_every_arch() {
    let dir = TempDir::new("trace-in-asm");
    for a in ["x86_64", "aarch64", "riscv64", "arm", "i386", "s390x", "mips64el"] {
        let prog = build_hello(dir.path(), a);
        let (t, log) = endgate_log(dir.path(), &["-d", "in_asm"], &prog);
        assert_eq!((t.status, t.stdout.as_slice()), (7, &b"hello from asm\n"[..]), "{a}");
        assert_eq!(log, expected_in_asm(a), "{a}: endgate's -d in_asm (left) and the expected text (right)");
        if let Some(q) = qemu_log(dir.path(), a, &["-d", "in_asm"], &prog) {
            if matches!(a, "x86_64" | "i386" | "arm") {
                assert_eq!(log, q, "{a}: endgate's -d in_asm (left) and qemu-user 10.0.2's (right)");
            } else if matches!(a, "aarch64" | "s390x") {
                // Same blocks, addresses and bytes; qemu's older capstone names some
                // instructions otherwise (see expected_in_asm).
                assert_eq!(addr_bytes(&log), addr_bytes(&q), "{a}: addresses and bytes against qemu-user 10.0.2");
                assert_eq!(log.matches("IN: ").count(), q.matches("IN: ").count(), "{a}: blocks");
            } else {
                // qemu's own riscv and mips disassemblers: same blocks, same addresses.
                let addrs = |s: &str| {
                    s.lines().filter_map(|l| l.split_once(":  ").map(|(x, _)| x.to_string())).collect::<Vec<_>>()
                };
                assert_eq!(addrs(&log), addrs(&q), "{a}: addresses against qemu-user 10.0.2");
            }
        }
    }
}

#[test]
fn in_asm_of_thumb_code_matches_qemu() {
    // Debian's armhf busybox is Thumb-2: its entry block, as qemu-user 10.0.2 shows it
    // (halfword units, capstone's Thumb syntax).
    let dir = TempDir::new("trace-thumb");
    let bb = common::busybox("armhf");
    let first = |log: &str| log.split("\n\n").next().unwrap_or_default().to_string();
    let log = dir.path().join("log");
    let t = run(Command::new(endgate()).args(["-d", "in_asm", "-D"]).arg(&log).arg(&bb).arg("true"));
    assert_eq!(t.status, 0);
    let ours = first(&std::fs::read_to_string(&log).expect("log"));
    assert!(ours.contains(":  f04f 0b00  mov.w    fp, #0\n"), "{ours}");
    let q = arch("arm").qemu10();
    if q.exists() {
        let qlog = dir.path().join("qlog");
        let t = run(Command::new(&q).args(["-d", "in_asm", "-D"]).arg(&qlog).arg(&bb).arg("true"));
        assert_eq!(t.status, 0);
        assert_eq!(ours, first(&std::fs::read_to_string(&qlog).expect("qemu log")), "against qemu-user 10.0.2");
    }
}

#[test]
fn in_asm_of_a_long_x86_instruction() {
    // A 10-byte instruction: the bytes past the eighth go on a line of their own, at their
    // address, as qemu-user prints them.
    let dir = TempDir::new("trace-long");
    let src = dir.path().join("long.S");
    std::fs::write(
        &src,
        "    .text\n    .globl _start\n_start:\n    movabs $0x1122334455667788, %rax\n    mov $60, %eax\n    xor %edi, %edi\n    syscall\n",
    )
    .expect("write source");
    let prog = build_asm(dir.path(), "x86_64", &src, "long");
    let (t, log) = endgate_log(dir.path(), &["-d", "in_asm"], &prog);
    assert_eq!(t.status, 0);
    let want = "\
----------------
IN: 
0x00401000:  48 b8 88 77 66 55 44 33  movabsq  $0x1122334455667788, %rax
0x00401008:  22 11
0x0040100a:  b8 3c 00 00 00           movl     $0x3c, %eax
0x0040100f:  31 ff                    xorl     %edi, %edi
0x00401011:  0f 05                    syscall  

";
    assert_eq!(log, want);
    let q = arch("x86_64").qemu10();
    if q.exists() {
        let qlog = dir.path().join("qlog");
        run(Command::new(&q).args(["-d", "in_asm", "-D"]).arg(&qlog).arg(&prog));
        assert_eq!(log, std::fs::read_to_string(&qlog).expect("qemu log"), "against qemu-user 10.0.2");
    }
}

/// The register blocks of a `-d exec,cpu` log: for each `Trace` line, its pc and the
/// `NAME=value` pairs that follow it.
fn cpu_blocks(log: &str) -> Vec<(u64, BTreeMap<String, u64>)> {
    let mut out: Vec<(u64, BTreeMap<String, u64>)> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.strip_prefix("Trace ") {
            let pc = rest.split('/').nth(1).and_then(|p| u64::from_str_radix(p, 16).ok()).expect("pc field");
            out.push((pc, BTreeMap::new()));
            continue;
        }
        let Some((_, regs)) = out.last_mut() else { continue };
        // "X00=0000000000000000 X01=…", "R8 =…" (qemu pads names to 3).
        let mut rest = line.trim_start();
        while let Some(eq) = rest.find('=') {
            let name = rest[..eq].trim().to_string();
            let after = &rest[eq + 1..];
            let end = after.find(' ').unwrap_or(after.len());
            if let Ok(v) = u64::from_str_radix(&after[..end], 16) {
                regs.insert(name, v);
            }
            rest = after[end..].trim_start();
            // Skip words that are not NAME=VALUE (flag letters, "EL0t").
            while !rest.is_empty() && rest.split(' ').next().is_some_and(|w| !w.contains('=')) {
                rest = rest.split_once(' ').map_or("", |(_, r)| r).trim_start();
            }
        }
    }
    out
}

#[test]
fn cpu_shows_the_registers_at_each_block() {
    let dir = TempDir::new("trace-cpu");
    // aarch64: the write's result and arguments are in the registers at the compare's block.
    let prog = build_hello(dir.path(), "aarch64");
    let (t, log) = endgate_log(dir.path(), &["-d", "exec,cpu,nochain"], &prog);
    assert_eq!(t.status, 7);
    let blocks = cpu_blocks(&log);
    let pcs: Vec<u64> = blocks.iter().map(|b| b.0).collect();
    assert_eq!(pcs, [0x4000d4, 0x4000e8, 0x4000f0], "{log}");
    for (pc, regs) in &blocks {
        for n in 0..31 {
            assert!(regs.contains_key(&format!("X{n:02}")), "X{n:02} missing at {pc:#x}: {log}");
        }
        assert_eq!(regs.get("PC"), Some(pc), "{log}");
        assert!(regs.get("SP").is_some_and(|&sp| sp != 0 && sp % 16 == 0), "{log}");
    }
    let second = &blocks[1].1;
    assert_eq!(second["X00"], 15, "write's result: 15 bytes");
    assert_eq!(second["X01"], 0x400108, "msg");
    assert_eq!(second["X02"], 15);
    assert_eq!(second["X08"], 64, "__NR_write");
    assert_eq!(blocks[0].1["X08"], 0);
    // qemu-user 10.0.2 runs the same blocks with the same general registers (the stack
    // pointer differs: each emulator places the stack itself).
    if let Some(q) = qemu_log(dir.path(), "aarch64", &["-d", "exec,cpu,nochain"], &prog) {
        let qb = cpu_blocks(&q);
        assert_eq!(qb.iter().map(|b| b.0).collect::<Vec<_>>(), pcs, "{q}");
        for ((pc, ours), (_, theirs)) in blocks.iter().zip(&qb) {
            for n in 0..31 {
                let k = format!("X{n:02}");
                assert_eq!(ours.get(&k), theirs.get(&k), "{k} at {pc:#x}");
            }
        }
    }
    // x86_64: the registers qemu names, RAX holding the write's result at the second block.
    let prog = build_hello(dir.path(), "x86_64");
    let (_, log) = endgate_log(dir.path(), &["-d", "cpu,exec"], &prog);
    let blocks = cpu_blocks(&log);
    assert_eq!(blocks.len(), 3, "{log}");
    assert_eq!(blocks[1].1["RAX"], 15);
    assert_eq!(blocks[1].1["RIP"], 0x401018);
    if let Some(q) = qemu_log(dir.path(), "x86_64", &["-d", "cpu,exec"], &prog) {
        let qb = cpu_blocks(&q);
        for ((pc, ours), (_, theirs)) in blocks.iter().zip(&qb) {
            for k in ["RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "R8", "R9", "R10", "R12", "R13", "R14", "R15", "RIP"] {
                assert_eq!(ours.get(k), theirs.get(k), "{k} at {pc:#x}");
            }
        }
    }
    // Every other arch prints a register block per block too.
    for a in ["riscv64", "arm", "i386", "s390x", "mips64el"] {
        let prog = build_hello(dir.path(), a);
        let (t, log) = endgate_log(dir.path(), &["-d", "exec,cpu"], &prog);
        assert_eq!(t.status, 7, "{a}");
        let blocks = cpu_blocks(&log);
        assert_eq!(blocks.len(), 3, "{a}: {log}");
        assert!(blocks.iter().all(|(_, r)| r.len() >= 8), "{a}: {log}");
    }
}

#[test]
fn dfilter_and_one_insn_per_tb() {
    let dir = TempDir::new("trace-filter");
    let prog = build_hello(dir.path(), "aarch64");
    // One block per instruction: 5 + 2 + 3 instructions run.
    let (_, log) = endgate_log(dir.path(), &["-d", "exec", "-one-insn-per-tb"], &prog);
    assert_eq!(log.matches("Trace ").count(), 10, "{log}");
    let (_, log) = endgate_log(dir.path(), &["-d", "in_asm", "--one-insn-per-tb"], &prog);
    assert_eq!(log.matches("IN: ").count(), 10, "{log}");
    // Ranges select blocks by their first address, with qemu's three forms.
    for f in ["0x4000e8+1", "0x4000e8-1", "0x4000e0..0x4000e8", "0x4000e8+4,0x100+0x10"] {
        let (_, log) = endgate_log(dir.path(), &["-d", "exec", "-dfilter", f], &prog);
        let pcs: Vec<&str> = log.lines().filter_map(|l| l.split('/').nth(1)).collect();
        assert_eq!(pcs, ["00000000004000e8"], "-dfilter {f}: {log}");
    }
    let (_, log) = endgate_log(dir.path(), &["-d", "exec", "--dfilter", "0x4000e0..0x4000e7"], &prog);
    assert_eq!(log, "", "a range ending before the block's start");
    for bad in ["0x4000e8+0", "0x10..0x8", "zzz", "0x1000"] {
        let t = run(Command::new(endgate()).args(["-d", "exec", "-dfilter", bad]).arg(&prog));
        assert_eq!(t.status, 2, "-dfilter {bad}");
        assert!(String::from_utf8_lossy(&t.stderr).contains("-dfilter: bad range"), "{bad}");
    }
}

#[test]
fn int_unimp_page_strace_items() {
    let dir = TempDir::new("trace-items");
    // An aarch64 program that makes a system call no kernel has, then runs an undefined
    // instruction.
    let src = dir.path().join("unimp.S");
    std::fs::write(&src, "    .text\n    .globl _start\n_start:\n    mov x8, #999\n    svc #0\n    udf #0\n")
        .expect("write source");
    let prog = build_asm(dir.path(), "aarch64", &src, "unimp");
    let (t, log) = endgate_log(dir.path(), &["-d", "int,unimp,page"], &prog);
    assert_eq!(t.status, 128 + 4, "SIGILL: {}", String::from_utf8_lossy(&t.stderr));
    assert!(log.contains("Unsupported syscall: 999 (unknown): -ENOSYS\n"), "{log}");
    assert!(log.lines().any(|l| l.starts_with("exception ") && l.ends_with(": SIGILL")), "{log}");
    // page: the program's text mapping, as qemu-user prints its page table.
    assert!(log.contains("0000000000400000-0000000000401000 0000000000001000 r-x\n"), "{log}");
    assert!(log.lines().any(|l| l.starts_with("entry       0x")), "{log}");
    // Nothing asked, nothing logged; -d strace is --strace.
    let hello = build_hello(dir.path(), "aarch64");
    let t = run(Command::new(endgate()).arg(&hello));
    assert_eq!((t.status, t.stderr.as_slice()), (7, &b""[..]));
    let t = run(Command::new(endgate()).args(["-d", "strace"]).arg(&hello));
    let err = String::from_utf8_lossy(&t.stderr);
    assert!(
        err.contains("write(1, \"hello from asm\\n\", 15) = 15\n") && err.contains("+++ exited with 7 +++"),
        "{err}"
    );
    // -d help lists the items; an unknown item is a usage error.
    let t = run(Command::new(endgate()).args(["-d", "help"]));
    assert_eq!(t.status, 0);
    let out = String::from_utf8_lossy(&t.stdout);
    for item in ["in_asm", "exec", "cpu", "nochain", "int", "strace", "page", "unimp"] {
        assert!(out.lines().any(|l| l.starts_with(item)), "{item}: {out}");
    }
    let t = run(Command::new(endgate()).args(["-d", "in_asm,op"]).arg(&hello));
    assert_eq!(t.status, 2);
    assert!(String::from_utf8_lossy(&t.stderr).contains("unknown item 'op'"));
}

#[test]
fn strace_goes_to_the_log_file() {
    // qemu-user writes its -strace lines into the -D file (its log) and nothing on stderr;
    // endgate does the same, down to the closing line.
    let dir = TempDir::new("trace-strace-file");
    let hello = build_hello(dir.path(), "aarch64");
    for opts in [&["--strace"][..], &["-d", "strace"]] {
        let (t, log) = endgate_log(dir.path(), opts, &hello);
        assert_eq!((t.status, String::from_utf8_lossy(&t.stderr).as_ref()), (7, ""), "{opts:?}");
        assert_eq!(t.stdout, b"hello from asm\n");
        assert!(
            log.ends_with("write(1, \"hello from asm\\n\", 15) = 15\nexit_group(7) = ?\n+++ exited with 7 +++\n"),
            "{opts:?}: {log}"
        );
    }
    let q = arch("aarch64").qemu10();
    if q.exists() {
        let log = dir.path().join("qemu-log");
        let t = run(Command::new(&q).arg("-strace").arg("-D").arg(&log).arg(&hello));
        assert_eq!((t.status, t.stderr.as_slice()), (7, &b""[..]));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains(" write(1,0x") && text.contains(" exit_group(7)"), "{text}");
    }
}

#[test]
fn log_file_keeps_guest_descriptors_free() {
    // The -D file sits at a descriptor of 900 or more: the guest's first open still gets 3.
    let dir = TempDir::new("trace-fd");
    let busybox = common::busybox("arm64");
    let log = dir.path().join("log");
    let fds = |opts: &[&std::ffi::OsStr]| {
        let t = run(Command::new(endgate()).args(opts).arg(&busybox).args(["ls", "/proc/self/fd"]));
        assert_eq!(t.status, 0, "{}", String::from_utf8_lossy(&t.stderr));
        let out = String::from_utf8_lossy(&t.stdout).into_owned();
        out.split_whitespace().filter_map(|w| w.parse().ok()).filter(|&n: &u32| n < 900).collect::<Vec<u32>>()
    };
    let plain = fds(&[]);
    assert_eq!(fds(&["-d".as_ref(), "page".as_ref(), "-D".as_ref(), log.as_os_str()]), plain);
    assert!(plain.contains(&3), "{plain:?}");
    assert!(std::fs::read_to_string(&log).is_ok_and(|l| l.contains("start_brk")));
}

const FORK_ONCE: &str = r#"
#include <unistd.h>
#include <sys/wait.h>
int main(void) {
    getppid();
    pid_t p = fork();
    if (p == 0) {
        getpid();
        _exit(3);
    }
    waitpid(p, 0, 0);
    return 0;
}
"#;

#[test]
fn strace_names_the_thread_once_there_are_two() {
    // As `strace -f`: a line before the first fork has no prefix; after it, the parent's and
    // the child's lines each start with `[pid TID] ` (right-aligned to five places).
    let d = TempDir::new("strace_pids");
    let src = d.path().join("fork.c");
    std::fs::write(&src, FORK_ONCE).unwrap();
    let b = common::build_static(arch("aarch64").cc, &src, &d.path().join("fork"), &[]);
    let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.lines().any(|l| l.starts_with("getppid() = ")), "{err}");
    let with = |call: &str| {
        err.lines().find(|l| l.contains(call)).and_then(|l| l.strip_prefix("[pid ")).and_then(|l| l.split_once("] "))
    };
    let (child, _) = with("getpid() = ").unwrap_or_else(|| panic!("no [pid] getpid line:\n{err}"));
    let (parent, _) = with("wait4(").unwrap_or_else(|| panic!("no [pid] wait4 line:\n{err}"));
    assert_ne!(child.trim(), parent.trim(), "{err}");
    assert!(err.contains(&format!("[pid {child}] +++ exited with 3 +++")), "{err}");
}

/// What `sigprocmask` needs: the three `how` values (MIPS numbers them 1-3, the others 0-2).
const SIGPROCMASK_HOWS: &str = r#"
#include <signal.h>
int main(void) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigprocmask(SIG_BLOCK, &s, 0);
    sigprocmask(SIG_UNBLOCK, &s, 0);
    sigprocmask(SIG_SETMASK, &s, 0);
    return 0;
}
"#;

#[test]
fn strace_names_flags_and_options_as_strace_does() {
    // strace 6.x natively prints `rt_sigprocmask(SIG_BLOCK, ...)`, `wait4(-1, ..., WNOHANG,
    // NULL)` and `prctl(PR_GET_NAME, ...)`: names where numbers used to be.
    let d = TempDir::new("strace_names");
    let src = d.path().join("spm.c");
    std::fs::write(&src, SIGPROCMASK_HOWS).unwrap();
    for a in ["aarch64", "mips64el"] {
        let b = common::build_static(arch(a).cc, &src, &d.path().join(format!("spm-{a}")), &[]);
        let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{a}: {err}");
        for how in ["SIG_BLOCK", "SIG_UNBLOCK", "SIG_SETMASK"] {
            assert!(err.lines().any(|l| l.starts_with(&format!("rt_sigprocmask({how}, "))), "{a}: {how}:\n{err}");
        }
    }
    let bb = common::busybox("arm64");
    let script = format!("{} true; echo", bb.display());
    let o = Command::new(endgate()).arg("--strace").arg(&bb).args(["sh", "-c", &script]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.lines().any(|l| l.contains("wait4(-1, ") && l.contains(", WNOHANG, NULL)")), "{err}");
    assert!(err.lines().any(|l| l.contains("prctl(PR_GET_NAME, ")), "{err}");
}

/// Calls whose operations, advice, resources and flags strace names.
const NAMED_ARGUMENTS: &str = r#"
#define _GNU_SOURCE
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
    static int w;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    char b[8];
    getrandom(b, 8, GRND_NONBLOCK | GRND_INSECURE);
    syscall(SYS_futex, &w, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
    syscall(SYS_futex, &w, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 1, 0, 0, FUTEX_BITSET_MATCH_ANY);
    void *p = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(p, 4096, MADV_DONTNEED);
    mremap(p, 8192, 16384, MREMAP_MAYMOVE);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return 0;
}
"#;

#[test]
fn strace_names_futex_operations_advice_and_resources() {
    // strace 6.1 natively (x86_64) prints NAMED_ARGUMENTS' calls so (addresses vary); mips64el
    // numbers RLIMIT_NOFILE 5 (arch/mips/include/uapi/asm/resource.h) and SIGTERM 15 but its
    // sigset_t is 16 bytes.
    let want = [
        "prlimit64(0, RLIMIT_NOFILE, NULL, ",
        ", 8, GRND_NONBLOCK|GRND_INSECURE) = 8",
        ", FUTEX_WAKE_PRIVATE, 1) = 0",
        ", FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 1, NULL, FUTEX_BITSET_MATCH_ANY) = -1 EAGAIN",
        ", 4096, MADV_DONTNEED) = 0",
        ", 8192, 16384, MREMAP_MAYMOVE) = 0x",
        "rt_sigprocmask(SIG_BLOCK, [INT TERM], [], ",
        "rt_sigprocmask(SIG_SETMASK, [], NULL, ",
    ];
    let d = TempDir::new("strace_named_args");
    let src = d.path().join("named.c");
    std::fs::write(&src, NAMED_ARGUMENTS).unwrap();
    for a in ["aarch64", "mips64el", "x86_64"] {
        let b = common::build_static(arch(a).cc, &src, &d.path().join(format!("named-{a}")), &[]);
        let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{a}: {err}");
        for w in want {
            assert!(err.lines().any(|l| l.contains(w)), "{a}: no line with `{w}`:\n{err}");
        }
    }
}

#[test]
fn strace_names_clone_flags_where_the_arch_passes_them() {
    // strace 6.x natively: clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID
    // |SIGCHLD, ...) for glibc's fork; endgate prints the arguments in the arch's order, the
    // flags first, or second on s390x (CONFIG_CLONE_BACKWARDS2).
    for (a, prefix) in [
        ("arm64", "clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, 0, "),
        ("s390x", "clone(0, CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "),
    ] {
        let bb = common::busybox(a);
        let script = format!("{} true; echo", bb.display());
        let o = Command::new(endgate()).arg("--strace").arg(&bb).args(["sh", "-c", &script]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.lines().any(|l| l.contains(prefix)), "{a}: no `{prefix}` line:\n{err}");
    }
}

/// A guest that takes six signals, each with a handler: `kill` (SI_USER), `tgkill` (SI_TKILL),
/// `sigqueue` (SI_QUEUE), a child's exit (SIGCHLD), a POSIX timer (SI_TIMER) and a store to
/// address 8 (SIGSEGV).
const SIX_SIGNALS: &str = r#"
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static sigjmp_buf jb;
static void h(int s) { (void)s; }
static void out(int s) { (void)s; siglongjmp(jb, 1); }
int main(void) {
    struct sigaction sa = {0};
    sa.sa_handler = h;
    sigaction(SIGUSR1, &sa, 0); sigaction(SIGUSR2, &sa, 0); sigaction(SIGRTMIN, &sa, 0);
    sigaction(SIGCHLD, &sa, 0); sigaction(SIGALRM, &sa, 0);
    kill(getpid(), SIGUSR1);
    syscall(SYS_tgkill, getpid(), gettid(), SIGUSR2);
    union sigval v = {.sival_int = 7};
    sigqueue(getpid(), SIGRTMIN, v);
    if (fork() == 0) _exit(3);
    wait(NULL);
    struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM};
    ev.sigev_value.sival_int = 5;
    timer_t t;
    timer_create(CLOCK_MONOTONIC, &ev, &t);
    struct itimerspec its = {.it_value = {0, 1000000}};
    timer_settime(t, 0, &its, 0);
    usleep(50000);
    sa.sa_handler = out;
    sigaction(SIGSEGV, &sa, 0);
    if (!sigsetjmp(jb, 1)) *(volatile int *)8 = 1;
    return 0;
}
"#;

#[test]
fn strace_signal_lines_are_straces() {
    // strace 6.1 natively (Debian 12) prints these for SIX_SIGNALS on x86_64 (pids vary):
    let want = [
        "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=N, si_uid=0} ---",
        "--- SIGUSR2 {si_signo=SIGUSR2, si_code=SI_TKILL, si_pid=N, si_uid=0} ---",
        "--- SIGRT_2 {si_signo=SIGRT_2, si_code=SI_QUEUE, si_pid=N, si_uid=0, si_int=7, si_ptr=0x7} ---",
        "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=N, si_uid=0, si_status=3, si_utime=0, si_stime=0} ---",
        "--- SIGALRM {si_signo=SIGALRM, si_code=SI_TIMER, si_timerid=0, si_overrun=0, si_int=5, si_ptr=0x5} ---",
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x8} ---",
    ];
    // si_pid=1234 -> si_pid=N; a `[pid  N] ` prefix goes.
    let normal = |l: &str| {
        let l = l.find("--- ").map_or(l, |i| &l[i..]);
        let mut out = String::new();
        let mut rest = l;
        while let Some(i) = rest.find("si_pid=") {
            out.push_str(&rest[..i + 7]);
            out.push('N');
            rest = rest[i + 7..].trim_start_matches(|c: char| c.is_ascii_digit());
        }
        out.push_str(rest);
        out
    };
    let d = TempDir::new("strace_signals");
    let src = d.path().join("six.c");
    std::fs::write(&src, SIX_SIGNALS).unwrap();
    for a in ["x86_64", "aarch64", "mips64el"] {
        let b = common::build_static(arch(a).cc, &src, &d.path().join(format!("six-{a}")), &[]);
        let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{a}: {err}");
        let got: Vec<String> = err.lines().filter(|l| l.contains("--- SIG")).map(normal).collect();
        assert_eq!(got, want, "{a}:\n{err}");
    }
}

/// A program that ends by a signal at its default action: a fault of its own, `abort`, or a
/// `kill` of itself (the argument says which).
const FATAL_SIGNALS: &str = r#"
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    if (argv[1][0] == 'a')
        abort();
    if (argv[1][0] == 'k')
        kill(getpid(), SIGTERM);
    *(volatile int *)8 = 1;
    return 0;
}
"#;

#[test]
fn strace_shows_the_signal_that_ends_the_guest() {
    // strace 6.1 natively (Debian 12, x86_64) ends with these lines (pids vary); the system
    // call that sent the signal is shown before it.
    let want = [
        (
            "segv",
            vec!["--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x8} ---", "+++ killed by SIGSEGV +++"],
        ),
        (
            "abort",
            vec![
                "tgkill(N, N, SIGABRT) = 0",
                "--- SIGABRT {si_signo=SIGABRT, si_code=SI_TKILL, si_pid=N, si_uid=0} ---",
                "+++ killed by SIGABRT +++",
            ],
        ),
        (
            "kill",
            vec![
                "kill(N, SIGTERM) = 0",
                "--- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=N, si_uid=0} ---",
                "+++ killed by SIGTERM +++",
            ],
        ),
    ];
    // A decimal number after `(`, `, ` or `si_pid=` and before `,` or `)` -> N (the pids);
    // strace's column padding goes.
    let normal = |l: &str| {
        let b = l.as_bytes();
        let mut out = String::new();
        let mut i = 0;
        while i < b.len() {
            let at_start = out.ends_with('(') || out.ends_with(", ") || out.ends_with("si_pid=");
            let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
            if run > 0 && at_start && matches!(b.get(i + run), Some(b',' | b')')) {
                out.push('N');
                i += run;
            } else {
                out.push(char::from(b[i]));
                i += 1;
            }
        }
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let d = TempDir::new("strace_fatal");
    let src = d.path().join("fatal.c");
    std::fs::write(&src, FATAL_SIGNALS).unwrap();
    for a in ["x86_64", "aarch64", "s390x"] {
        let b = common::build_static(arch(a).cc, &src, &d.path().join(format!("fatal-{a}")), &[]);
        for (arg, lines) in &want {
            let o = Command::new(endgate()).arg("--strace").arg(&b).arg(arg).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            let sig = if *arg == "segv" {
                11
            } else if *arg == "abort" {
                6
            } else {
                15
            };
            assert_eq!(std::os::unix::process::ExitStatusExt::signal(&o.status), Some(sig), "{a} {arg}: {err}");
            // endgate's own one-line report of a fault comes last; strace's lines before it.
            let got: Vec<String> = err.lines().filter(|l| !l.starts_with("endgate: ")).map(normal).collect();
            let tail = &got[got.len().saturating_sub(lines.len())..];
            // s390x's fault address names only the page (arch/s390/mm/fault.c): page 0.
            let lines: Vec<String> = lines
                .iter()
                .map(|l| if a == "s390x" { l.replace("si_addr=0x8", "si_addr=NULL") } else { l.to_string() })
                .collect();
            assert_eq!(tail, lines.as_slice(), "{a} {arg}:\n{err}");
        }
    }
}

/// Blocking calls that a SIGALRM handler without `SA_RESTART` interrupts: `read` of an empty
/// pipe, `sigsuspend`, `nanosleep`, `epoll_wait`. A repeating 20 ms timer, so that one tick
/// lands while the call blocks however late the call starts.
const INTERRUPTED_CALLS: &str = r#"
#define _GNU_SOURCE 1
#include <signal.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
static void on_alarm(int s) { (void)s; }
static void timer(int on)
{
    struct itimerval it = {{0, on ? 20000 : 0}, {0, on ? 20000 : 0}};
    setitimer(ITIMER_REAL, &it, 0);
}
int main(void)
{
    struct sigaction sa = {.sa_handler = on_alarm};
    sigaction(SIGALRM, &sa, 0);
    int p[2];
    char b;
    sigset_t none;
    sigemptyset(&none);
    if (pipe(p))
        return 1;
    int e = epoll_create1(0);
    struct epoll_event ev = {EPOLLIN, {0}};
    epoll_ctl(e, EPOLL_CTL_ADD, p[0], &ev);
    struct timespec ts = {5, 0};
    timer(1);
    (void)!read(p[0], &b, 1);
    sigsuspend(&none);
    nanosleep(&ts, 0);
    epoll_wait(e, &ev, 1, -1);
    timer(0);
    return 0;
}
"#;

#[test]
fn strace_shows_what_the_kernel_returns_to_an_interrupted_call() {
    // strace 6.1 natively (Debian 12, x86_64, Linux 6.18) shows each blocking call's line with
    // the kernel's restart code, then the signal, then rt_sigreturn with the mask it restores
    // and the restored return register: here -1 EINTR, as no handler restarts.
    let want = [
        ("read(", "? ERESTARTSYS (To be restarted if SA_RESTART is set)"),
        ("rt_sigsuspend(", "? ERESTARTNOHAND (To be restarted if no handler)"),
        ("clock_nanosleep(", "? ERESTART_RESTARTBLOCK (Interrupted by signal)"),
        ("epoll_", "-1 EINTR (Interrupted system call)"),
    ];
    let d = TempDir::new("strace_restart");
    let src = d.path().join("intr.c");
    std::fs::write(&src, INTERRUPTED_CALLS).unwrap();
    for a in ["x86_64", "aarch64", "i386", "mips64el"] {
        let b = common::build_static(arch(a).cc, &src, &d.path().join(format!("intr-{a}")), &[]);
        let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{a}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        for (call, result) in want {
            // x86_64's glibc 2.36 `nanosleep` is the clock_nanosleep system call too.
            let at = lines
                .iter()
                .position(|l| l.starts_with(call) && !l.starts_with("epoll_create") && !l.starts_with("epoll_ctl"))
                .unwrap_or_else(|| panic!("{a}: no {call} line:\n{err}"));
            assert!(lines[at].ends_with(&format!("= {result}")), "{a}: {}\n{err}", lines[at]);
            assert!(lines[at + 1].starts_with("--- SIGALRM {si_signo=SIGALRM, si_code=SI_KERNEL} ---"), "{a}:\n{err}");
            // i386's glibc returns from a handler without SA_SIGINFO through the old sigreturn.
            let ret = if a == "i386" { "sigreturn" } else { "rt_sigreturn" };
            assert_eq!(
                lines[at + 2],
                format!("{ret}({{mask=[]}}) = -1 EINTR (Interrupted system call)"),
                "{a}:\n{err}"
            );
        }
    }
}
