//! A coverage counter on `endgate::api`: runs a guest program, counts how often each translated
//! block runs, and when the guest ends prints, on stderr, the blocks and executions per module
//! (each mapped file, by its guest path; `[anon]` for code outside files) and the `--top N`
//! blocks run most, as `module+offset`.
//!
//! ```text
//! cargo run --release -p endgate --example coverage -- [--top N] [-L SYSROOT] PROGRAM [ARGS...]
//! ```
//!
//! The block hook costs an engine callback and a hash-map update per block run; the module of
//! a block is looked up once, the first time it runs. The exit status is the guest's.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use endgate::api::Emulator;

/// One block: where it lies and how often it ran.
struct Block {
    module: usize,
    offset: u64,
    size: u32,
    runs: u64,
}

#[derive(Default)]
struct Coverage {
    blocks: HashMap<u64, Block>,
    modules: Vec<String>,
}

impl Coverage {
    fn module_id(&mut self, name: String) -> usize {
        match self.modules.iter().position(|m| *m == name) {
            Some(i) => i,
            None => {
                self.modules.push(name);
                self.modules.len() - 1
            }
        }
    }

    fn print(&self, top: usize) {
        let pid = std::process::id();
        let mut per_module = vec![(0u64, 0u64, 0u64); self.modules.len()];
        for b in self.blocks.values() {
            let m = &mut per_module[b.module];
            m.0 += 1;
            m.1 += b.runs;
            m.2 += u64::from(b.size);
        }
        eprintln!("coverage[{pid}]: {:>8} {:>12} {:>9}  module", "blocks", "executions", "bytes");
        let mut order: Vec<usize> = (0..self.modules.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(per_module[i].1));
        for i in order {
            let (n, runs, bytes) = per_module[i];
            eprintln!("coverage[{pid}]: {n:>8} {runs:>12} {bytes:>9}  {}", self.modules[i]);
        }
        let mut hot: Vec<(&u64, &Block)> = self.blocks.iter().collect();
        hot.sort_by_key(|(addr, b)| (std::cmp::Reverse(b.runs), **addr));
        eprintln!("coverage[{pid}]: top {top} blocks:");
        for (addr, b) in hot.into_iter().take(top) {
            let module = self.modules[b.module].rsplit('/').next().unwrap_or_default();
            eprintln!("coverage[{pid}]: {:>12}  {addr:#x}  {module}+{:#x} ({} bytes)", b.runs, b.offset, b.size);
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: coverage [--top N] [-L SYSROOT] PROGRAM [ARGS...]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let mut top = 10;
    let mut sysroot = None;
    let program = loop {
        let Some(a) = args.next() else { return usage() };
        match a.to_str() {
            Some("--top") => match args.next().and_then(|v| v.into_string().ok()?.parse().ok()) {
                Some(n) => top = n,
                None => return usage(),
            },
            Some("-L") => match args.next() {
                Some(v) => sysroot = Some(v),
                None => return usage(),
            },
            Some("-h" | "--help") => return usage(),
            _ => break a,
        }
    };
    let cov = Arc::new(Mutex::new(Coverage::default()));
    let (hook, report) = (cov.clone(), cov);
    let mut b = Emulator::builder(&program).args(args);
    if let Some(root) = sysroot {
        b = b.sysroot(root);
    }
    let run = b
        .on_block(move |ctx| {
            let mut c = hook.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(b) = c.blocks.get_mut(&ctx.addr()) {
                b.runs += 1;
                return;
            }
            // First run of this block: find its module.
            let (name, offset) = match ctx.mapping_at(ctx.addr()).filter(|m| m.file.is_some()) {
                Some(m) => (m.name.clone(), ctx.addr() - m.base()),
                None => ("[anon]".to_string(), ctx.addr()),
            };
            let module = c.module_id(name);
            c.blocks.insert(ctx.addr(), Block { module, offset, size: ctx.size(), runs: 1 });
        })
        .on_exit(move |_| {
            report.lock().unwrap_or_else(std::sync::PoisonError::into_inner).print(top);
        })
        .run();
    match run {
        Ok(status) => status.exit(),
        Err(e) => {
            eprintln!("coverage: {e}");
            ExitCode::from(e.exit_status())
        }
    }
}
