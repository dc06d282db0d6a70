//! `endgate-diff`: runs one guest program under endgate and under a reference (qemu-user,
//! or another endgate) with block traces and `-strace`, and reports the first divergence:
//! the first differing system call, and the first block whose entry registers differ, with
//! the block that produced the difference disassembled as each emulator showed it.
//! docs/diff.md describes the command.

mod compare;
mod log;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;

use compare::{BlockDiff, Layout};
use log::{Log, Syscall};

/// Runs a guest under endgate and under a reference emulator and reports where they first
/// differ (docs/diff.md). Exit status: 0 no difference, 1 a difference, 2 an error.
#[derive(Parser, Debug)]
#[command(name = "endgate-diff", version, trailing_var_arg = true)]
struct Args {
    /// The endgate to test [default: the endgate beside this program].
    #[arg(long, value_name = "PATH")]
    endgate: Option<PathBuf>,
    /// The reference: a qemu-user binary or another endgate [default: qemu-user 10.0.2 for the
    /// program's arch, from the workspace's .cache/qemu-10.0.2, else qemu-ARCH on PATH].
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
    /// What the reference is [default: qemu when its file name starts with "qemu-"].
    #[arg(long, value_enum)]
    reference_kind: Option<Kind>,
    /// An environment variable for the endgate run only (repeatable); the guest does not see
    /// it (it is removed with -U), so both guests get the same environment.
    #[arg(long = "env", value_name = "VAR=VALUE")]
    env: Vec<String>,
    /// An environment variable for the reference run only (repeatable), hidden from the guest.
    #[arg(long = "ref-env", value_name = "VAR=VALUE")]
    ref_env: Vec<String>,
    /// Sysroot for both (-L).
    #[arg(short = 'L', value_name = "PATH")]
    sysroot: Option<PathBuf>,
    /// Trace every instruction as a block of its own (-one-insn-per-tb) in both runs.
    #[arg(long)]
    insn: bool,
    /// Trace only blocks starting in these ranges (-dfilter, qemu's syntax) in both runs.
    #[arg(long, value_name = "RANGES")]
    dfilter: Option<String>,
    /// Compare each thread's blocks from its first block at this address or ELF symbol
    /// (e.g. main).
    #[arg(long, value_name = "ADDR|SYMBOL")]
    start: Option<String>,
    /// Leave this register out of the comparison (a -d cpu name: RFL, PSTATE…; repeatable).
    #[arg(long, value_name = "REG")]
    ignore: Vec<String>,
    /// Compare system calls, exit statuses and output only (no block trace: fast).
    #[arg(long)]
    syscalls_only: bool,
    /// Keep the logs and outputs in this directory (created) instead of a temporary one.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Seconds each run may take before it is killed.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// The guest program.
    program: PathBuf,
    /// Its arguments.
    #[arg(allow_hyphen_values = true)]
    args: Vec<std::ffi::OsString>,
}

/// The kind of emulator a run uses: the option spellings are shared, the log formats differ.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// qemu-user (its `-strace` goes to the `-D` log).
    Qemu,
    /// endgate (its `-strace` goes to stderr).
    Endgate,
}

/// One finished run.
struct Run {
    label: String,
    kind: Kind,
    log: Log,
    calls: Vec<Syscall>,
    stdout: Vec<u8>,
    status: String,
    pid: u32,
    log_path: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::from(1),
        Ok(false) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("endgate-diff: {e}");
            ExitCode::from(2)
        }
    }
}

/// The `qemu-<arch>` name for the ELF machine of `program`.
fn qemu_arch(program: &Path) -> Result<&'static str, String> {
    let mut head = [0u8; 20];
    let mut f = std::fs::File::open(program).map_err(|e| format!("{}: {e}", program.display()))?;
    std::io::Read::read_exact(&mut f, &mut head).map_err(|e| format!("{}: {e}", program.display()))?;
    if head[..4] != *b"\x7fELF" {
        return Err(format!("{}: not an ELF file", program.display()));
    }
    let machine =
        if head[5] == 2 { u16::from_be_bytes([head[18], head[19]]) } else { u16::from_le_bytes([head[18], head[19]]) };
    Ok(match machine {
        62 => "x86_64",
        3 => "i386",
        183 => "aarch64",
        40 => "arm",
        243 => "riscv64",
        22 => "s390x",
        8 => "mips64el",
        m => return Err(format!("{}: ELF machine {m} is not one endgate runs", program.display())),
    })
}

/// The address `--start` names: a number, or a symbol of the program's ELF symbol table.
fn start_address(program: &Path, start: &str) -> Result<u64, String> {
    if let Some(v) = compare::number(start) {
        return Ok(v);
    }
    let bytes = std::fs::read(program).map_err(|e| format!("{}: {e}", program.display()))?;
    let elf = goblin::elf::Elf::parse(&bytes).map_err(|e| format!("{}: {e}", program.display()))?;
    let arm = elf.header.e_machine == goblin::elf::header::EM_ARM;
    elf.syms
        .iter()
        .find(|s| s.st_value != 0 && elf.strtab.get_at(s.st_name) == Some(start))
        .map(|s| if arm { s.st_value & !1 } else { s.st_value })
        .ok_or_else(|| format!("{}: no symbol '{start}' (a stripped program needs an address)", program.display()))
}

/// `VAR=VALUE` split, for `--env` and `--ref-env`.
fn env_pair(s: &str) -> Result<(&str, &str), String> {
    s.split_once('=').filter(|(k, _)| !k.is_empty()).ok_or_else(|| format!("--env wants VAR=VALUE, got '{s}'"))
}

fn run(args: &Args) -> Result<bool, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find myself: {e}"))?;
    let bin_dir = me.parent().unwrap_or(Path::new(".")).to_path_buf();
    let endgate = args.endgate.clone().unwrap_or_else(|| bin_dir.join("endgate"));
    let arch = qemu_arch(&args.program)?;
    let reference = match &args.reference {
        Some(r) => r.clone(),
        None => {
            // target/release/endgate-diff → the workspace's qemu-user 10.0.2.
            let cached = bin_dir.join("../../.cache/qemu-10.0.2/usr/bin").join(format!("qemu-{arch}"));
            if cached.exists() {
                cached
            } else {
                PathBuf::from(format!("qemu-{arch}"))
            }
        }
    };
    let ref_kind = args.reference_kind.unwrap_or_else(|| {
        let name = reference.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.starts_with("qemu-") {
            Kind::Qemu
        } else {
            Kind::Endgate
        }
    });
    let start = args.start.as_deref().map(|s| start_address(&args.program, s)).transpose()?;
    let (dir, _cleanup) = match &args.keep {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
            (d.clone(), None)
        }
        None => {
            let d = std::env::temp_dir().join(format!("endgate-diff-{}", std::process::id()));
            std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
            (d.clone(), Some(RemoveOnDrop(d)))
        }
    };
    let a_env: Vec<(&str, &str)> = args.env.iter().map(|s| env_pair(s)).collect::<Result<_, _>>()?;
    let b_env: Vec<(&str, &str)> = args.ref_env.iter().map(|s| env_pair(s)).collect::<Result<_, _>>()?;
    let a_label = format!("a: {}", endgate.display());
    let b_label = format!("b: {}", reference.display());
    let b_label = b_label.replace("/target/release/../../", "/");
    let timeout = Duration::from_secs(args.timeout);
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| run_side(args, &endgate, Kind::Endgate, &a_env, &dir.join("a"), &a_label, timeout));
        let rb = run_side(args, &reference, ref_kind, &b_env, &dir.join("b"), &b_label, timeout);
        (ha.join().unwrap_or_else(|_| Err("the endgate run's thread panicked".into())), rb)
    });
    let (a, b) = (ra?, rb?);
    Ok(report(args, arch, start, &a, &b))
}

/// Removes a temporary directory when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs one emulator on the program with the traces asked for; `stem` names its files
/// (`stem.log`, `stem.out`, `stem.err`).
fn run_side(
    args: &Args,
    exe: &Path,
    kind: Kind,
    env: &[(&str, &str)],
    stem: &Path,
    label: &str,
    timeout: Duration,
) -> Result<Run, String> {
    let file = |ext: &str| stem.with_extension(ext);
    let log_path = file("log");
    let mut cmd = Command::new(exe);
    if !args.syscalls_only {
        cmd.args(["-d", "in_asm,exec,cpu,nochain"]);
        if args.insn {
            cmd.arg("-one-insn-per-tb");
        }
        if let Some(r) = &args.dfilter {
            cmd.args(["-dfilter", r]);
        }
    }
    // The same random bytes (AT_RANDOM, getrandom) in every run of an emulator: two runs of
    // one endgate then make the same choices (glibc's stack guard and pointer mangling).
    cmd.args(["-seed", "1"]);
    cmd.arg("-D").arg(&log_path).arg("-strace");
    if let Some(l) = &args.sysroot {
        cmd.arg("-L").arg(l);
    }
    for (k, v) in env {
        cmd.env(k, v).args(["-U", k]);
    }
    cmd.arg(&args.program).args(&args.args);
    let out = std::fs::File::create(file("out")).map_err(|e| format!("{}: {e}", file("out").display()))?;
    let err = std::fs::File::create(file("err")).map_err(|e| format!("{}: {e}", file("err").display()))?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    let mut child = cmd.spawn().map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let pid = child.id();
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{label}: still running after {} s (--timeout)", timeout.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |p: &Path| std::fs::read(p).unwrap_or_default();
    let log_text = String::from_utf8_lossy(&read(&log_path)).into_owned();
    let mut log = log::parse_log(&log_text);
    let stderr = String::from_utf8_lossy(&read(&file("err"))).into_owned();
    // Both write -strace into the -D log (an older endgate wrote it on stderr).
    let calls = if kind == Kind::Qemu || !log.syscalls.is_empty() {
        std::mem::take(&mut log.syscalls)
    } else {
        log::syscalls_in(&stderr)
    };
    use std::os::unix::process::ExitStatusExt;
    let status = match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "?".into(),
    };
    Ok(Run { label: label.to_string(), kind, log, calls, stdout: read(&file("out")), status, pid, log_path })
}

/// Prints the comparison; true when something differs.
fn report(args: &Args, arch: &str, start: Option<u64>, a: &Run, b: &Run) -> bool {
    let color = std::io::stdout().is_terminal();
    let mut o = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(o, "endgate-diff: {} ({arch})", args.program.display());
    for r in [a, b] {
        let _ = writeln!(
            o,
            "  {}: {}, {} blocks, {} system calls, log {}",
            r.label,
            r.status,
            r.log.blocks.len(),
            r.calls.len(),
            r.log_path.display()
        );
    }
    // Between different emulators, the start-up data above the pointer arrays is one place.
    let startup = (a.kind != b.kind).then(|| {
        let word: u64 = if matches!(arch, "arm" | "i386") { 4 } else { 8 };
        let argc = 1 + args.args.len() as u64;
        let envc = std::env::vars_os().count() as u64;
        word * (argc + envc + 3)
    });
    let (la, lb) = compare::layouts((&a.log, &a.calls, a.pid), (&b.log, &b.calls, b.pid), startup);
    let mut differs = false;
    if a.status != b.status {
        differs = true;
        let _ = writeln!(o, "exit statuses differ: a {}, b {}", a.status, b.status);
    }
    if a.stdout != b.stdout {
        differs = true;
        let at = a.stdout.iter().zip(&b.stdout).position(|(x, y)| x != y).unwrap_or(a.stdout.len().min(b.stdout.len()));
        let _ = writeln!(
            o,
            "standard outputs differ from byte {at} (a {} bytes, b {} bytes)",
            a.stdout.len(),
            b.stdout.len()
        );
    }
    match compare::compare_calls(&a.calls, &b.calls, &la, &lb) {
        Some((k, why)) => {
            differs = true;
            let name = a.calls.get(k).or(b.calls.get(k)).map_or("", |c| c.name.as_str());
            let _ = writeln!(o, "first differing system call: #{k} {name}: {why}");
            for (tag, r) in [("a", a), ("b", b)] {
                let line = r.calls.get(k).map_or("(none)", |c| c.line.as_str());
                let _ = writeln!(o, "  {tag}: {line}");
            }
            if let Some(p) = k.checked_sub(1).and_then(|p| a.calls.get(p)) {
                let _ = writeln!(o, "  after: {}", p.line);
            }
        }
        None => {
            let _ = writeln!(o, "system calls: {} compared, no difference", a.calls.len().min(b.calls.len()));
        }
    }
    if !args.syscalls_only {
        // endgate's aarch64 PSTATE holds only NZCV; qemu-user's also BTYPE and more.
        let masks = if a.kind != b.kind { vec![("PSTATE".to_string(), 0xf000_0000)] } else { vec![] };
        let opts = compare::Options { start, ignore: args.ignore.clone(), masks };
        let blocks = compare::compare_blocks(&a.log, &b.log, &la, &lb, &opts);
        if !blocks.start_state.is_empty() {
            let _ = write!(o, "start-state differences, compared from where they agree:");
            for (n, at) in &blocks.start_state {
                match at {
                    Some(k) => {
                        let _ = write!(o, " {n} (from block #{k})");
                    }
                    None => {
                        let _ = write!(o, " {n} (not yet where the comparison stopped)");
                    }
                }
            }
            o.push('\n');
        }
        if blocks.diffs.is_empty() {
            let _ = writeln!(o, "blocks: {} compared, no difference", blocks.compared);
        }
        for d in &blocks.diffs {
            differs = true;
            block_report(&mut o, a, b, &la, &lb, d, color);
        }
        if a.log.blocks.is_empty() && b.log.blocks.is_empty() {
            let _ = writeln!(o, "(no blocks were traced: check -dfilter / --start)");
        }
    }
    if !differs {
        let _ = writeln!(o, "no differences");
    }
    let _ = std::io::stdout().write_all(o.as_bytes());
    differs
}

/// The report of one thread's first differing block.
fn block_report(o: &mut String, a: &Run, b: &Run, la: &Layout, lb: &Layout, d: &BlockDiff, color: bool) {
    use std::fmt::Write as _;
    let pc = |r: &Run, i: Option<usize>| i.map(|i| r.log.blocks[i].pc);
    let hex = |v: Option<u64>| v.map_or("(end of trace)".to_string(), |v| format!("{v:#x}"));
    let (pa, pb) = (pc(a, d.a), pc(b, d.b));
    let at = if pa == pb { hex(pa) } else { format!("{} (a) / {} (b)", hex(pa), hex(pb)) };
    let prev = d.prev.map(|(x, _)| a.log.blocks[x].pc);
    let _ = writeln!(
        o,
        "first differing block: thread {}, block #{} at pc {at}{}",
        d.thread,
        d.position,
        prev.map_or(String::new(), |p| format!(", produced by the block at {p:#x}"))
    );
    let what = if d.a.is_none() || d.b.is_none() {
        format!("the trace of {} ends here", if d.a.is_none() { "a" } else { "b" })
    } else if d.pc_differs {
        "control flow differs: the blocks start at different addresses".to_string()
    } else {
        format!("entry registers differ: {}", d.regs.join(" "))
    };
    let _ = writeln!(o, "  {what}");
    let show = |o: &mut String, r: &Run, i: usize| {
        let blk = &r.log.blocks[i];
        let _ = writeln!(o, "  {}:", r.label);
        match r.log.asm_at(blk.pc, i) {
            Some(t) => {
                for l in t.lines() {
                    let _ = writeln!(o, "    {l}");
                }
            }
            None => {
                let _ = writeln!(o, "    (no in_asm text for {:#x} in the log)", blk.pc);
            }
        }
    };
    if let Some((x, y)) = d.prev {
        let _ = writeln!(
            o,
            "block #{} at {:#x}, entered with equal registers, as each emulator disassembled it:",
            d.position - 1,
            a.log.blocks[x].pc
        );
        show(o, a, x);
        show(o, b, y);
    }
    if d.pc_differs {
        let _ = writeln!(o, "block #{} on each side:", d.position);
        if let (Some(x), Some(y)) = (d.a, d.b) {
            show(o, a, x);
            show(o, b, y);
        }
    }
    let (Some(x), Some(y)) = (d.a, d.b) else { return };
    let (ba, bb) = (&a.log.blocks[x], &b.log.blocks[y]);
    let _ = writeln!(o, "registers at the entry of block #{} (differing ones marked):", d.position);
    let _ = writeln!(o, "    {:<8} {:<30} b", "", "a");
    for (i, v) in &ba.regs {
        let name = &a.log.names[usize::from(*i)];
        let Some(w) = b.log.reg(bb, name) else { continue };
        let (na, nb) = (la.norm(*v), lb.norm(w));
        let mark = d.regs.contains(name);
        let shown = |raw: u64, n: &str| {
            if n.starts_with("0x") {
                format!("{raw:016x}")
            } else {
                format!("{raw:016x} ({n})")
            }
        };
        let line = format!("{:<8} {:<30} {}", name, shown(*v, &na), shown(w, &nb));
        let _ = if mark && color {
            writeln!(o, "  \x1b[1;31m* {line}\x1b[0m")
        } else if mark {
            writeln!(o, "  * {line}")
        } else {
            writeln!(o, "    {line}")
        };
    }
}
