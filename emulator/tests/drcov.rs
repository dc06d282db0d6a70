//! `--drcov FILE` (docs/tracing.md): the files parse with a strict reader of DynamoRIO's drcov
//! version 2 format written here from the format's published description (a text header
//! `DRCOV VERSION: 2`, `DRCOV FLAVOR: …`, `Module Table: version 2, count N`, a `Columns:`
//! line and N rows, `BB Table: M bbs`, then exactly M 8-byte little-endian records
//! `{u32 start; u16 size; u16 mod_id}`, start relative to the module's base), and the file of
//! Debian's busybox `true` covers the ELF entry block at the entry's offset in the module:
//! `e_entry` (without arm's Thumb bit) minus the module base, which for these `ET_EXEC` files
//! is the page of the lowest `PT_LOAD` address. Fork children and programs started by execve write files of their own.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{busybox, busybox_arches, endgate, run_with_timeout, TempDir};

/// One module table row.
#[derive(Debug)]
struct Module {
    id: u32,
    base: u64,
    end: u64,
    entry: Option<u64>,
    path: String,
}

/// One basic block record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    start: u32,
    size: u16,
    mod_id: u16,
}

#[derive(Debug)]
struct Drcov {
    flavor: String,
    modules: Vec<Module>,
    blocks: Vec<Block>,
}

fn line<'a>(data: &'a [u8], at: &mut usize) -> Result<&'a str, String> {
    let rest = data.get(*at..).ok_or("past the end")?;
    let n = rest.iter().position(|&b| b == b'\n').ok_or("a header line without its newline")?;
    *at += n + 1;
    std::str::from_utf8(&rest[..n]).map_err(|e| format!("header line not UTF-8: {e}"))
}

fn hex(s: &str) -> Result<u64, String> {
    let h = s.strip_prefix("0x").ok_or_else(|| format!("'{s}' is not 0x-prefixed hex"))?;
    u64::from_str_radix(h, 16).map_err(|e| format!("'{s}': {e}"))
}

/// A strict drcov version 2 reader: every header line as the format has it, the module ids
/// 0..N in order with base < end, only known column names, the block count matching the bytes
/// that follow exactly, and every block inside its module.
fn parse(data: &[u8]) -> Result<Drcov, String> {
    let mut at = 0;
    if line(data, &mut at)? != "DRCOV VERSION: 2" {
        return Err("first line is not 'DRCOV VERSION: 2'".into());
    }
    let flavor = line(data, &mut at)?.strip_prefix("DRCOV FLAVOR: ").ok_or("no 'DRCOV FLAVOR: ' line")?.to_string();
    if flavor.is_empty() {
        return Err("empty flavor".into());
    }
    let count: usize = line(data, &mut at)?
        .strip_prefix("Module Table: version 2, count ")
        .ok_or("no 'Module Table: version 2, count N' line")?
        .parse()
        .map_err(|e| format!("module count: {e}"))?;
    let cols: Vec<&str> =
        line(data, &mut at)?.strip_prefix("Columns: ").ok_or("no 'Columns: ' line")?.split(", ").collect();
    const KNOWN: [&str; 9] =
        ["id", "containing_id", "base", "start", "end", "entry", "offset", "checksum", "timestamp"];
    if cols.first() != Some(&"id") || cols.last() != Some(&"path") {
        return Err(format!("columns must run from id to path: {cols:?}"));
    }
    if let Some(c) = cols[..cols.len() - 1].iter().find(|c| !KNOWN.contains(c)) {
        return Err(format!("unknown column '{c}'"));
    }
    let col = |name: &str| cols.iter().position(|c| *c == name);
    let (base_col, end_col) =
        (col("base").or(col("start")).ok_or("no base column")?, col("end").ok_or("no end column")?);
    let mut modules = Vec::new();
    for i in 0..count {
        let row = line(data, &mut at)?;
        // The path is the last column and may hold ", ".
        let fields: Vec<&str> = row.trim_start().splitn(cols.len(), ", ").collect();
        if fields.len() != cols.len() {
            return Err(format!("module row {i} has {} fields: '{row}'", fields.len()));
        }
        let id: u32 = fields[0].parse().map_err(|e| format!("module id '{}': {e}", fields[0]))?;
        if id as usize != i {
            return Err(format!("module {i} has id {id}"));
        }
        let (base, end) = (hex(fields[base_col])?, hex(fields[end_col])?);
        if base >= end {
            return Err(format!("module {i}: base {base:#x} not below end {end:#x}"));
        }
        let entry = col("entry").map(|c| hex(fields[c])).transpose()?;
        let path = fields[cols.len() - 1].to_string();
        if path.is_empty() {
            return Err(format!("module {i} has no path"));
        }
        modules.push(Module { id, base, end, entry, path });
    }
    let m: usize = line(data, &mut at)?
        .strip_prefix("BB Table: ")
        .and_then(|r| r.strip_suffix(" bbs"))
        .ok_or("no 'BB Table: M bbs' line")?
        .parse()
        .map_err(|e| format!("block count: {e}"))?;
    let rest = &data[at..];
    if rest.len() != m * 8 {
        return Err(format!("{m} blocks announced, {} bytes follow", rest.len()));
    }
    let blocks: Vec<Block> = rest
        .chunks_exact(8)
        .map(|c| Block {
            start: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            size: u16::from_le_bytes([c[4], c[5]]),
            mod_id: u16::from_le_bytes([c[6], c[7]]),
        })
        .collect();
    for b in &blocks {
        let m = modules.get(usize::from(b.mod_id)).ok_or_else(|| format!("block {b:?}: no module {}", b.mod_id))?;
        if b.size == 0 || u64::from(b.start) + u64::from(b.size) > m.end - m.base {
            return Err(format!("block {b:?} outside module {} ({:#x}-{:#x})", m.id, m.base, m.end));
        }
    }
    Ok(Drcov { flavor, modules, blocks })
}

/// `e_entry` and the page of the lowest `PT_LOAD` address of an ELF file.
fn entry_and_base(path: &Path) -> (u64, u64) {
    let data = std::fs::read(path).expect("read busybox");
    let is64 = data[4] == 2;
    let be = data[5] == 2;
    let rd = |off: usize, n: usize| -> u64 {
        let b = &data[off..off + n];
        let mut v = 0u64;
        for k in 0..n {
            let byte = u64::from(if be { b[k] } else { b[n - 1 - k] });
            v = (v << 8) | byte;
        }
        v
    };
    let rdu = |off: usize, n: usize| usize::try_from(rd(off, n)).expect("a header field that fits");
    let (entry, phoff, phentsize, phnum) = if is64 {
        (rd(24, 8), rdu(32, 8), rdu(54, 2), rdu(56, 2))
    } else {
        (rd(24, 4), rdu(28, 4), rdu(42, 2), rdu(44, 2))
    };
    let mut low = u64::MAX;
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if rd(ph, 4) == 1 {
            let vaddr = if is64 { rd(ph + 16, 8) } else { rd(ph + 8, 4) };
            low = low.min(vaddr);
        }
    }
    (entry, low & !0xfff)
}

fn drcov_run(dir: &Path, name: &str, bb: &Path, args: &[&str]) -> std::path::PathBuf {
    let file = dir.join(name);
    // A relative FILE, from the directory endgate starts in.
    let mut cmd = Command::new(endgate());
    cmd.current_dir(dir).arg("--drcov").arg(name).arg(bb).args(args);
    let t = run_with_timeout(&mut cmd, None, Duration::from_secs(60));
    assert!(!t.timed_out && t.status == 0, "{cmd:?}: {} {}", t.status, String::from_utf8_lossy(&t.stderr));
    file
}

#[test]
fn busybox_true_covers_its_entry_block() {
    let dir = TempDir::new("drcov-true");
    for arch in busybox_arches() {
        let bb = busybox(arch);
        let file = drcov_run(dir.path(), &format!("true-{arch}.drcov"), &bb, &["true"]);
        let data = std::fs::read(&file).expect("the drcov file");
        let cov = parse(&data).unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(cov.flavor, "endgate");
        let (entry, base) = entry_and_base(&bb);
        let main = cov
            .modules
            .iter()
            .find(|m| Path::new(&m.path) == bb.as_path())
            .unwrap_or_else(|| panic!("{arch}: no module for {}: {:?}", bb.display(), cov.modules));
        assert_eq!(main.base, base, "{arch}: module base");
        assert_eq!(main.entry, Some(entry), "{arch}: the entry column");
        // An arm entry with bit 0 set is Thumb code at the even address (ARM ELF ABI).
        let insn = if arch == "armhf" { entry & !1 } else { entry };
        let off = u32::try_from(insn - base).expect("offset");
        let id = u16::try_from(main.id).expect("id");
        assert!(
            cov.blocks.iter().any(|b| b.mod_id == id && b.start == off),
            "{arch}: no block at the entry offset {off:#x}: {:?}",
            &cov.blocks[..cov.blocks.len().min(8)]
        );
        // Unique blocks, sorted, a few hundred for `true` (the C library's start-up).
        assert!(cov.blocks.len() > 50, "{arch}: {} blocks", cov.blocks.len());
        let mut keys: Vec<(u16, u32)> = cov.blocks.iter().map(|b| (b.mod_id, b.start)).collect();
        keys.dedup();
        assert_eq!(keys.len(), cov.blocks.len(), "{arch}: repeated blocks");
    }
}

#[test]
fn fork_and_exec_write_their_own_files() {
    let dir = TempDir::new("drcov-procs");
    let bb = busybox("arm64");
    let bbs = bb.to_str().expect("utf-8 path");
    // A subshell is a fork; `exec` replaces the shell with busybox `true`, after a `cd` (the
    // relative FILE still names the first directory's file).
    let script = format!("(exit 0); echo $$ > {}/pid; cd /; exec {bbs} true", dir.path().display());
    let file = drcov_run(dir.path(), "sh.drcov", &bb, &["sh", "-c", &script]);
    let pid: u32 = std::fs::read_to_string(dir.path().join("pid")).expect("pid").trim().parse().expect("a pid");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("sh.drcov"))
        .collect();
    // The shell's file, the exec'd program's (FILE.PID.1) and the subshell's (FILE.CHILDPID).
    let exec_file = format!("sh.drcov.{pid}.1");
    assert!(names.contains(&"sh.drcov".to_string()) && names.contains(&exec_file), "{names:?}");
    let child = names.iter().find(|n| *n != "sh.drcov" && **n != exec_file).unwrap_or_else(|| panic!("{names:?}"));
    assert!(child.strip_prefix("sh.drcov.").is_some_and(|p| p.parse::<u32>().is_ok()), "{child}");
    for n in &names {
        let data = std::fs::read(dir.path().join(n)).expect("read");
        let cov = parse(&data).unwrap_or_else(|e| panic!("{n}: {e}"));
        assert!(!cov.blocks.is_empty(), "{n}");
    }
    let _ = file;
}

#[test]
fn the_reader_is_strict() {
    let good = b"DRCOV VERSION: 2\nDRCOV FLAVOR: t\nModule Table: version 2, count 1\nColumns: id, base, end, entry, path\n  0, 0x1000, 0x2000, 0x1000, /x\nBB Table: 1 bbs\n\x10\0\0\0\x04\0\0\0";
    assert!(parse(good).is_ok());
    let mut short = good.to_vec();
    short.pop();
    assert!(parse(&short).is_err(), "a truncated record");
    let bad_mod = String::from_utf8_lossy(good).replace("0, 0x1000, 0x2000", "0, 0x2000, 0x1000");
    assert!(parse(bad_mod.as_bytes()).is_err(), "base above end");
    let mut outside = good.to_vec();
    let n = outside.len();
    outside[n - 6] = 0x20; // start 0x2010: past the module's end
    assert!(parse(&outside).is_err(), "a block outside its module");
    assert!(parse(&good[..]).is_ok_and(|d| d.blocks == [Block { start: 0x10, size: 4, mod_id: 0 }]));
}

/// A coverage file that cannot be written fails at start, before the guest runs, as `-D` does:
/// one line naming it, status 1, and nothing from the guest.
#[test]
fn unwritable_file_fails_at_start_like_dash_d() {
    let bb = busybox(busybox_arches().next().expect("a busybox arch"));
    let run = |opt: &str| {
        let mut cmd = Command::new(endgate());
        cmd.arg(opt).arg("/nonexistent/dir/x").arg(&bb).args(["echo", "guest ran"]);
        let t = run_with_timeout(&mut cmd, None, Duration::from_secs(60));
        assert!(!t.timed_out);
        (t.status, String::from_utf8_lossy(&t.stdout).into_owned(), String::from_utf8_lossy(&t.stderr).into_owned())
    };
    let (d_status, d_out, d_err) = run("-D");
    assert_eq!((d_status, d_out.as_str(), d_err.lines().count()), (1, "", 1), "-D: {d_err}");
    let (status, out, err) = run("--drcov");
    assert_eq!((status, out.as_str()), (1, ""), "--drcov: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("endgate: --drcov /nonexistent/dir/x: "), "{err}");
    // The same reason as -D's.
    assert_eq!(
        err.split_once(": ").map(|x| x.1).and_then(|r| r.split_once(": ")).map(|x| x.1),
        d_err.split_once(": ").and_then(|x| x.1.split_once(": ")).map(|x| x.1),
        "{err} vs {d_err}"
    );
}
