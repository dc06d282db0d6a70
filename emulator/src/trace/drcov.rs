//! `--drcov FILE`: the blocks a guest process ran, as a DynamoRIO drcov file of version 2
//! (the format Lighthouse, Dragon Dance and other coverage viewers read). docs/tracing.md
//! describes the file and how it is named.
//!
//! A block hook (a code hook under `-one-insn-per-tb`) exists only when `--drcov` is given.
//! Each instance remembers the blocks it has seen and hands a new one to the process's set
//! (one lock per new block, none for a block seen before). The file is written when the
//! program image ends: at the process's exit, at a fatal signal, and just before an execve
//! replaces the image ([`crate::guest::image_ending`]). The module table is the guest's file
//! mappings at that moment (plus the vDSO): a module per mapped file, from the mapping at its
//! file offset 0 to the end of the last following mapping of the same file; blocks outside
//! every module (anonymous memory: JIT code) are left out, as are blocks of a library unmapped
//! before the end.

use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use unicorn_engine::uc_error;

use crate::guest::{Cpu, Task};
use crate::mm::VmaName;
use crate::mm::MMAP_MIN_ADDR as GUEST_LOWEST;

/// The process's blocks: start address → size in bytes (the largest seen), and the process
/// generation ([`crate::guest::process_generation`]) they belong to.
struct Store {
    generation: u32,
    blocks: HashMap<u64, u32>,
}

static STORE: Mutex<Option<Store>> = Mutex::new(None);

fn store() -> std::sync::MutexGuard<'static, Option<Store>> {
    STORE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Adds the coverage hook to a new instance when `--drcov` was given; nothing otherwise.
pub fn install(cpu: &mut Cpu<'static>) -> Result<(), uc_error> {
    let opts = &cpu.get_data().opts.trace;
    if opts.drcov.is_none() {
        return Ok(());
    }
    crate::guest::on_image_end(write_for);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut generation = crate::guest::process_generation();
    let mut hook = move |_cpu: &mut Cpu<'_>, addr: u64, size: u32| {
        let g = crate::guest::process_generation();
        if g != generation {
            // A fork child: its file holds what it runs itself.
            seen.clear();
            generation = g;
        }
        if seen.insert(addr) {
            record(g, addr, size);
        }
    };
    if opts.one_insn_per_tb {
        cpu.add_code_hook(GUEST_LOWEST, u64::MAX, move |cpu, addr, size| {
            crate::guard::guarded(&"drcov hook", || hook(cpu, addr, size));
        })?;
    } else {
        cpu.add_block_hook(GUEST_LOWEST, u64::MAX, move |cpu, addr, size| {
            crate::guard::guarded(&"drcov hook", || hook(cpu, addr, size));
        })?;
    }
    Ok(())
}

fn record(generation: u32, addr: u64, size: u32) {
    let mut s = store();
    let s = s.get_or_insert_with(|| Store { generation, blocks: HashMap::new() });
    if s.generation != generation {
        s.generation = generation;
        s.blocks.clear();
    }
    let e = s.blocks.entry(addr).or_insert(size);
    *e = (*e).max(size);
}

/// One row of the module table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// Lowest guest address of the module.
    pub base: u64,
    /// One past its highest address.
    pub end: u64,
    /// Its entry point (the program's `AT_ENTRY`), or 0.
    pub entry: u64,
    /// The file's guest path (`[vdso]` for the vDSO).
    pub path: String,
}

/// The module table of `t`'s address space (see the module doc).
pub fn modules(t: &Task) -> Vec<Module> {
    let entry = t.auxv.iter().find(|&&(k, _)| k == 9).map_or(0, |&(_, v)| v);
    let mut out: Vec<Module> = Vec::new();
    let mut open: Option<(String, usize)> = None;
    for (start, v) in t.mm.vmas() {
        let path = match &v.name {
            VmaName::File(p) => p.clone(),
            VmaName::Gate(g) => (*g).to_string(),
            _ => {
                continue;
            }
        };
        match &open {
            Some((p, i)) if *p == path && v.offset != 0 => {
                if let Some(m) = out.get_mut(*i) {
                    m.end = v.end;
                }
            }
            _ => {
                // A module starts at a mapping of the file's start (or of the gate).
                if v.offset != 0 && !matches!(v.name, VmaName::Gate(_)) {
                    open = None;
                    continue;
                }
                out.push(Module { base: start, end: v.end, entry: 0, path: path.clone() });
                open = Some((path, out.len() - 1));
            }
        }
    }
    for m in &mut out {
        if (m.base..m.end).contains(&entry) {
            m.entry = entry;
        }
    }
    out
}

/// The drcov file's bytes for `modules` and `blocks` (start → size): the text header, the
/// module table (`Columns: id, base, end, entry, path`), then `BB Table: N bbs` and N
/// little-endian `{u32 start; u16 size; u16 mod_id}` records, start relative to the module's
/// base, sorted by address. Blocks in no module are left out; a size above 65535 is cut to it.
pub fn file_bytes(modules: &[Module], blocks: &HashMap<u64, u32>) -> Vec<u8> {
    let mut recs: Vec<(u64, u32, u16)> = Vec::new();
    let mut sorted: Vec<(u64, u32)> = blocks.iter().map(|(&a, &s)| (a, s)).collect();
    sorted.sort_unstable();
    for (addr, size) in sorted {
        let found = modules.iter().enumerate().find(|(_, m)| (m.base..m.end).contains(&addr));
        let Some((id, m)) = found else { continue };
        let (Ok(off), Ok(id)) = (u32::try_from(addr - m.base), u16::try_from(id)) else { continue };
        recs.push((u64::from(off), size, id));
    }
    let mut out = Vec::new();
    let _ = writeln!(out, "DRCOV VERSION: 2");
    let _ = writeln!(out, "DRCOV FLAVOR: endgate");
    let _ = writeln!(out, "Module Table: version 2, count {}", modules.len());
    let _ = writeln!(out, "Columns: id, base, end, entry, path");
    for (id, m) in modules.iter().enumerate() {
        let _ = writeln!(out, "{id:3}, {:#018x}, {:#018x}, {:#018x}, {}", m.base, m.end, m.entry, m.path);
    }
    let _ = writeln!(out, "BB Table: {} bbs", recs.len());
    for (off, size, id) in recs {
        out.extend_from_slice(&u32::try_from(off).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&u16::try_from(size).unwrap_or(u16::MAX).to_le_bytes());
        out.extend_from_slice(&id.to_le_bytes());
    }
    out
}

/// The file name for this program image: FILE for the first program of the process endgate
/// was started on, FILE.PID in a process a guest forked, FILE.PID.N for the program the Nth
/// execve started.
fn file_name(t: &Task) -> Option<PathBuf> {
    let base = t.opts.trace.drcov.as_ref()?;
    let execs = t.opts.trace.execs;
    let forked = crate::guest::process_generation() != 0;
    // SAFETY: no arguments.
    let pid = unsafe { libc::getpid() };
    let mut name = base.clone().into_os_string();
    if execs > 0 {
        name.push(format!(".{pid}.{execs}"));
    } else if forked {
        name.push(format!(".{pid}"));
    }
    Some(PathBuf::from(name))
}

/// Checks at start that the coverage file `path` can be written, as `-D` opens its log at
/// start, so that a bad name fails before the guest runs (one line, status 1) rather than
/// when it ends. Opens it for writing, creating it (empty) if missing; the image's end writes
/// it whole.
pub fn check_file(path: &std::path::Path) -> Result<(), String> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map(drop)
        .map_err(|e| format!("--drcov {}: {e}", path.display()))
}

/// Writes the coverage file of the image ending now (registered with
/// [`crate::guest::on_image_end`]). A file that cannot be written is named in one line on
/// stderr.
fn write_for(t: &Task) {
    let Some(path) = file_name(t) else { return };
    let blocks =
        store().as_ref().filter(|s| s.generation == crate::guest::process_generation()).map(|s| s.blocks.clone());
    let bytes = file_bytes(&modules(t), &blocks.unwrap_or_default());
    if let Err(e) = std::fs::write(&path, bytes) {
        crate::elog!("endgate: --drcov {}: {e}", path.display());
    }
}
