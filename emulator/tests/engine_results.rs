//! Engine results are checked, not ignored (docs/ARCHITECTURE.md, "Internal errors"): in
//! `emulator/src` no result of a unicorn call is dropped with `let _ =` unless a comment just
//! above says why, and no register read becomes a made-up value with `unwrap_or`. Checked
//! calls go through `guard::Checked` (`cpu.reg`, `cpu.set_reg`, `cpu.stop`…), whose refusal is
//! an internal error.

use std::path::{Path, PathBuf};

/// Engine calls (methods of `unicorn_engine::Unicorn` and the raw `uc_*` functions) whose
/// result must not be dropped.
const ENGINE_CALLS: &[&str] = &[
    "reg_read",
    "reg_write",
    "reg_read_long",
    "reg_write_long",
    "emu_start",
    "emu_stop",
    "ctl_",
    "mem_map",
    "mem_unmap",
    "mem_protect",
    "mem_read",
    "mem_write",
    "context_",
    "remove_hook",
    "uc_",
];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `true` if `text` calls one of [`ENGINE_CALLS`] (`.name(` or `name(` for `uc_*`).
fn calls_engine(text: &str) -> bool {
    ENGINE_CALLS.iter().any(|c| {
        text.match_indices(c).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = &text[i + c.len()..];
            let name_end = after.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_')).unwrap_or(after.len());
            let starts = matches!(before, Some('.') | Some(' ') | Some('(') | Some(':')) || before.is_none();
            starts && after[name_end..].starts_with('(') && (c.ends_with('_') || name_end == 0)
        })
    })
}

#[test]
fn no_engine_result_is_ignored_without_a_reason() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            // The statement `let _ = …;`, up to three lines long.
            let dropped = code.trim_start().starts_with("let _ =") && {
                let stmt: String = lines[i..(i + 3).min(lines.len())].concat();
                let stmt = &stmt[..stmt.find(';').unwrap_or(stmt.len())];
                calls_engine(stmt)
            };
            let commented = i > 0 && lines[i - 1].trim_start().starts_with("//");
            let made_up = code.contains("reg_read") && code.contains(").unwrap_or");
            if (dropped && !commented) || made_up {
                let rel = f.strip_prefix(&src).unwrap_or(f).display().to_string();
                bad.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "engine results ignored without a reason ({}):\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn the_scan_sees_what_it_looks_for() {
    assert!(calls_engine("let _ = cpu.reg_write(R::PC, 0);"));
    assert!(calls_engine("let _ = unsafe { uc_context_restore(uc, ctx) };"));
    assert!(calls_engine("let _ = cpu.ctl_flush_tlb();"));
    assert!(!calls_engine("let _ = cpu.get_data_mut().mm.write_i32(a, 1);"));
    assert!(!calls_engine("let _ = tx.send(Err(e));"));
}
