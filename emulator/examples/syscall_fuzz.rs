//! A syscall fuzzing harness on `endgate::api`: runs a guest program and, for the system calls
//! named with `--calls`, replaces arguments with values from a seeded PRNG (a bit flip, 0, -1,
//! a small number, a boundary value) at the rate `--rate` asks for; when the guest ends it
//! reports, per call, how often it was seen and mutated and which results the guest got. Each
//! mutation is logged on stderr as it happens (`--quiet` leaves that out), so that a guest the
//! host kernel kills at once (its `abort()` after a smashed stack: no report then) still
//! leaves the calls that led there.
//!
//! ```text
//! cargo run --release -p endgate --example syscall_fuzz -- [--seed N] [--rate PERCENT]
//!     [--calls read,write,...] [--quiet] [-L SYSROOT] PROGRAM [ARGS...]
//! ```
//!
//! The same seed gives the same mutations for a single-threaded guest. Whatever the guest
//! does with the mutated calls (fails, crashes, exits), the host is not harmed: bad pointers
//! are `EFAULT`, a guest fault is the guest's death (the report says which signal), and a
//! panic in a hook would be endgate's one-line internal error, never an unwind into the CPU
//! engine. The exit status is the guest's, as the `endgate` command gives it.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use endgate::api::{Emulator, SyscallAction};

/// The calls fuzzed by default: ones whose bad arguments the kernel rejects without harm.
const DEFAULT_CALLS: &str = "read,write,openat,close,lseek,fstat,newfstatat,ioctl,uname,getrandom,fcntl";

/// The mutation source: `fastrand`'s seeded generator (deterministic for a seed).
struct Rng(fastrand::Rng);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0.u64(..n)
    }

    /// A new value for an argument that was `v`.
    fn mutate(&mut self, v: u64) -> u64 {
        match self.below(6) {
            0 => v ^ (1 << self.below(64)),
            1 => 0,
            2 => u64::MAX,
            3 => self.below(4096),
            4 => [0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 1 << 63][usize::try_from(self.below(4)).unwrap_or(0)],
            _ => v.wrapping_add(self.below(64)).wrapping_sub(32),
        }
    }
}

/// What was seen of one call.
#[derive(Default)]
struct CallStats {
    seen: u64,
    mutated: u64,
    ok: u64,
    errors: BTreeMap<i32, u64>,
}

struct Fuzz {
    rng: Rng,
    rate: u64,
    calls: Vec<String>,
    stats: BTreeMap<&'static str, CallStats>,
    /// The last call this thread's entry hook mutated, for the exit hook.
    mutated_now: bool,
    /// Log each mutation and its result.
    verbose: bool,
}

fn usage() -> ExitCode {
    eprintln!(
        "usage: syscall_fuzz [--seed N] [--rate PERCENT] [--calls a,b,c] [--quiet] [-L SYSROOT] PROGRAM [ARGS...]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_secs() ^ u64::from(d.subsec_nanos()));
    let mut rate = 30;
    let mut calls = DEFAULT_CALLS.to_string();
    let mut sysroot = None;
    let mut verbose = true;
    let program = loop {
        let Some(a) = args.next() else { return usage() };
        let mut value = || args.next().and_then(|v| v.into_string().ok());
        match a.to_str() {
            Some("--seed") => match value().and_then(|v| v.parse().ok()) {
                Some(v) => seed = v,
                None => return usage(),
            },
            Some("--rate") => match value().and_then(|v| v.parse().ok()) {
                Some(v) if v <= 100 => rate = v,
                _ => return usage(),
            },
            Some("--calls") => match value() {
                Some(v) => calls = v,
                None => return usage(),
            },
            Some("-L") => match value() {
                Some(v) => sysroot = Some(v),
                None => return usage(),
            },
            Some("--quiet") => verbose = false,
            Some("-h" | "--help") => return usage(),
            _ => break a,
        }
    };
    eprintln!("syscall_fuzz: seed {seed}, rate {rate}%, calls {calls}");
    let fuzz = Arc::new(Mutex::new(Fuzz {
        rng: Rng(fastrand::Rng::with_seed(seed)),
        rate,
        calls: calls.split(',').map(str::to_string).collect(),
        stats: BTreeMap::new(),
        mutated_now: false,
        verbose,
    }));
    let (entry, exit, report) = (fuzz.clone(), fuzz.clone(), fuzz);
    let mut b = Emulator::builder(&program).args(args);
    if let Some(root) = sysroot {
        b = b.sysroot(root);
    }
    let run = b
        .on_syscall(move |ctx| {
            let mut f = entry.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some(name) = ctx.name() else { return SyscallAction::Continue };
            f.mutated_now = false;
            if !f.calls.iter().any(|c| c == name) {
                return SyscallAction::Continue;
            }
            f.stats.entry(name).or_default().seen += 1;
            if f.rng.below(100) >= f.rate {
                return SyscallAction::Continue;
            }
            let n = usize::try_from(f.rng.below(3)).unwrap_or(0);
            let old = ctx.arg(n);
            let new = f.rng.mutate(old);
            ctx.set_arg(n, new);
            if f.verbose {
                eprint!("syscall_fuzz: {name} arg {n}: {old:#x} -> {:#x}", ctx.arg(n));
            }
            f.mutated_now = true;
            f.stats.entry(name).or_default().mutated += 1;
            SyscallAction::Continue
        })
        .on_syscall_exit(move |ctx| {
            let mut f = exit.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (Some(name), true) = (ctx.name(), std::mem::take(&mut f.mutated_now)) else { return };
            let errno = ctx.errno();
            if f.verbose {
                eprintln!(" = {}", ctx.result().unwrap_or(0));
            }
            let s = f.stats.entry(name).or_default();
            match errno {
                Some(e) => *s.errors.entry(e).or_default() += 1,
                None => s.ok += 1,
            }
        })
        .on_exit(move |status| {
            // Here rather than after `run`: it runs however the guest ends (and in each
            // process the guest forks, whose lines carry its pid).
            let f = report.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let pid = std::process::id();
            eprintln!("syscall_fuzz[{pid}]: guest ended: code {:?}, signal {:?}", status.code(), status.signal());
            eprintln!(
                "syscall_fuzz[{pid}]: {:<12} {:>6} {:>7} {:>6}  errors after a mutation",
                "call", "seen", "mutated", "ok"
            );
            for (name, s) in &f.stats {
                let errors: Vec<String> = s
                    .errors
                    .iter()
                    .map(|(e, n)| format!("{}x{n}", syscalls::Errno::new(*e).name().unwrap_or("E?")))
                    .collect();
                eprintln!(
                    "syscall_fuzz[{pid}]: {name:<12} {:>6} {:>7} {:>6}  {}",
                    s.seen,
                    s.mutated,
                    s.ok,
                    errors.join(" ")
                );
            }
        })
        .run();
    match run {
        Ok(status) => status.exit(),
        Err(e) => {
            eprintln!("syscall_fuzz: {e}");
            ExitCode::from(e.exit_status())
        }
    }
}
