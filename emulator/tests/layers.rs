//! The layers of `emulator/src` point one way: a top-level module names (`crate::m…`) only
//! modules of a lower layer, so no two top-level modules import each other, directly or
//! through others. The layers are drawn in docs/ARCHITECTURE.md ("Layers"); this test holds
//! the same table and fails with the files that break it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules by layer, lowest first (docs/ARCHITECTURE.md draws the same).
const LAYERS: &[&[&str]] = &[
    &["abi", "cli", "guard", "log", "seed"],
    &["mm", "thread"],
    &["signal", "gate"],
    &["guest"],
    &["arch"],
    &["loader"],
    &["syscall", "trace"],
    &["gdb"],
    &["task"],
    &["binfmt"],
    &["api", "diff", "fuzz"],
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

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

/// The source with `//` comments (docs included) and string literals blanked, so that only
/// code is searched.
fn code_only(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' && (i == 0 || b[i - 1] != b'\'') {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// Every top-level module a piece of code names through `crate::`, including the first names
/// of a `crate::{a, b::c}` group.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `$crate::` in a macro, or a longer identifier.
        }
        if let Some(group) = rest.strip_prefix('{') {
            // Only the outermost names of the group: split at commas outside nested braces.
            let mut depth = 0;
            let mut start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_ascii_alphabetic() || c == '_') => {
                        found.insert(ident_at(&group[k..]).to_string());
                        start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident_at(rest).to_string());
        }
    }
    found
}

/// module -> (module it names -> files that name it).
fn import_graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = src_dir();
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let tops: BTreeSet<String> = files
        .iter()
        .filter_map(|p| p.strip_prefix(&src).ok())
        .filter_map(|r| r.components().next())
        .map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string())
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for p in &files {
        let rel = p.strip_prefix(&src).expect("under src");
        let top = rel.components().next().expect("component").as_os_str().to_string_lossy();
        let top = top.trim_end_matches(".rs").to_string();
        if !tops.contains(&top) {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(p).expect("read source"));
        for m in named_modules(&code) {
            if m != top && tops.contains(&m) {
                let file = rel.display().to_string();
                graph.entry(top.clone()).or_default().entry(m).or_default().insert(file);
            }
        }
        graph.entry(top).or_default();
    }
    graph
}

#[test]
fn every_top_level_module_has_a_layer() {
    let graph = import_graph();
    let listed: BTreeSet<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    for m in graph.keys() {
        assert!(
            listed.contains(m.as_str()),
            "module `{m}` is in no layer: add it to LAYERS and to docs/ARCHITECTURE.md"
        );
    }
}

#[test]
fn imports_only_point_down() {
    let graph = import_graph();
    let layer_of = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    let mut bad = Vec::new();
    for (from, tos) in &graph {
        for (to, files) in tos {
            if let (Some(a), Some(b)) = (layer_of(from), layer_of(to)) {
                if b >= a {
                    bad.push(format!("{from} (layer {a}) -> {to} (layer {b}) in {files:?}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "imports that do not point down:\n{}", bad.join("\n"));
}

#[test]
fn no_cycle_between_top_level_modules() {
    let graph = import_graph();
    // Depth-first search; a back edge closes a cycle, reported with the files behind each edge.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        path.push(m.to_string());
        for to in graph.get(m).map(|t| t.keys().cloned().collect::<Vec<_>>()).unwrap_or_default() {
            match state.get(&to).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|p| *p == to).unwrap_or(0);
                    let mut cycle = path[start..].to_vec();
                    cycle.push(to);
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(&to, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in graph.keys() {
        if state.get(m).copied().unwrap_or(0) == 0 {
            if let Some(cycle) = visit(m, &graph, &mut state, &mut Vec::new()) {
                let edges: Vec<String> =
                    cycle.windows(2).map(|w| format!("{} -> {}: {:?}", w[0], w[1], graph[&w[0]][&w[1]])).collect();
                panic!("import cycle {}:\n{}", cycle.join(" -> "), edges.join("\n"));
            }
        }
    }
}

#[test]
fn the_scanner_sees_imports() {
    let code = code_only("use crate::{mm::{A, B}, signal};\n// crate::task\nlet x = crate::abi::f(\"crate::gate\");");
    let found = named_modules(&code);
    assert_eq!(found, ["abi", "mm", "signal"].iter().map(|s| s.to_string()).collect());
}
