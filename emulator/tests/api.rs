//! The library API (`endgate::api`, docs/api.md) on a small guest compiled here for aarch64
//! and x86_64 (`-static`): a syscall hook that serves `getppid` itself, one that changes a
//! `write`'s length, an exit hook that changes `getpid`'s result, a block hook that counts
//! blocks, memory hooks that count loads and stores, and a signal hook that sees the SIGSEGV
//! the guest raises.
//!
//! `run()` runs the guest in the calling process, once per process, and a fatal signal ends
//! it: each case runs in a child process, this test binary again (`--exact api_child`) with
//! `ENDGATE_API_CHILD=<case>,<guest path>`; the parent checks its output and status.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{run_with_timeout, TempDir, AARCH64};
use endgate::api::{Access, Emulator, SignalAction, SyscallAction};

const PROBE: &str = r#"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    printf("ppid=%ld\n", (long)getppid());
    printf("pid=%ld\n", (long)getpid());
    fflush(stdout);
    write(1, "abcdef\n", 7);
    if (argc > 1 && strcmp(argv[1], "segv") == 0) {
        *(volatile int *)8 = 1;
        printf("not reached\n");
    }
    return 3;
}
"#;

/// The probe compiled for `cc` into `dir`; `None` (with a note) when the compiler is missing.
fn probe(dir: &Path, cc: &str, name: &str) -> Option<PathBuf> {
    let src = dir.join("probe.c");
    std::fs::write(&src, PROBE).expect("write probe.c");
    let out = dir.join(name);
    match Command::new(cc).args(["-static", "-O1", "-o"]).arg(&out).arg(&src).status() {
        Ok(s) if s.success() => Some(out),
        r => {
            eprintln!("skipping {name}: {cc} failed ({r:?})");
            None
        }
    }
}

/// Runs `case` on the guest at `guest` in a child process; its stdout (guest and test lines
/// mixed, in order) and shell status.
fn child(case: &str, guest: &Path) -> (String, i32) {
    let exe = std::env::current_exe().expect("test binary");
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", "api_child", "--nocapture", "--test-threads=1"])
        .env("ENDGATE_API_CHILD", format!("{case},{}", guest.display()));
    let t = run_with_timeout(&mut cmd, None, Duration::from_secs(60));
    let out = String::from_utf8_lossy(&t.stdout).into_owned();
    let err = String::from_utf8_lossy(&t.stderr).into_owned();
    eprintln!("--- {case} on {}:\n{out}\n{err}", guest.display());
    (out, t.status)
}

fn guests(dir: &TempDir) -> Vec<PathBuf> {
    [(AARCH64.cc, "probe-aarch64"), ("gcc", "probe-x86_64")]
        .iter()
        .filter_map(|(cc, name)| probe(dir.path(), cc, name))
        .collect()
}

#[test]
fn syscall_hooks_skip_change_arguments_and_results() {
    let dir = TempDir::new("api");
    for g in guests(&dir) {
        let (out, status) = child("syscalls", &g);
        assert!(out.contains("ppid=4242\n"), "{out}");
        assert!(out.contains("pid=31337\n"), "{out}");
        // The write's length became 3.
        assert!(out.contains("abc") && !out.contains("abcdef"), "{out}");
        assert!(out.contains("write returned 3"), "{out}");
        assert!(out.contains("status code=Some(3)"), "{out}");
        assert_eq!(status, 3, "{out}");
    }
}

#[test]
fn block_and_memory_hooks_count() {
    let dir = TempDir::new("api");
    for g in guests(&dir) {
        let (out, status) = child("blocks", &g);
        let n = |key: &str| -> u64 {
            out.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("no {key} in {out}"))
        };
        assert!(n("blocks=") > 100, "{out}");
        assert!(n("reads=") > 0, "{out}");
        assert!(n("writes=") > 0, "{out}");
        assert!(out.contains("ppid=") && !out.contains("ppid=4242"), "{out}");
        assert_eq!(status, 3, "{out}");
    }
}

#[test]
fn signal_hook_sees_the_guest_fault() {
    let dir = TempDir::new("api");
    for g in guests(&dir) {
        let (out, status) = child("segv", &g);
        assert!(out.contains("signal SIGSEGV fault=true addr=Some(8)"), "{out}");
        assert!(out.contains("exit hook: signal Some(11)"), "{out}");
        assert!(!out.contains("not reached"), "{out}");
        assert!(out.contains("signal=Some(11) addr=Some(8)"), "{out}");
        assert_eq!(status, 139, "{out}");
    }
}

#[test]
fn run_refuses_a_missing_program() {
    let (out, status) = child("missing", Path::new("/nonexistent/probe"));
    assert!(out.contains("error: ") && out.contains("/nonexistent/probe"), "{out}");
    assert_eq!(status, 127, "{out}");
}

/// The child side (does nothing unless `ENDGATE_API_CHILD` is set).
#[test]
fn api_child() {
    let Some(spec) = std::env::var_os("ENDGATE_API_CHILD") else { return };
    let spec = spec.into_string().expect("utf-8");
    let (case, guest) = spec.split_once(',').expect("case,guest");
    let b = Emulator::builder(guest).env_clear().env("LANG", "C");
    let status = match case {
        "syscalls" => {
            let wrote = Arc::new(Mutex::new(None));
            let w = wrote.clone();
            let r = b
                .on_syscall(|ctx| match ctx.name() {
                    Some("getppid") => SyscallAction::Skip(4242),
                    Some("write") => {
                        let buf = ctx.read_vec(ctx.arg(1), 6).unwrap_or_default();
                        if buf == b"abcdef" {
                            ctx.set_arg(2, 3);
                        }
                        SyscallAction::Continue
                    }
                    _ => SyscallAction::Continue,
                })
                .on_syscall_exit(move |ctx| match ctx.name() {
                    Some("getpid") => ctx.set_result(31337),
                    Some("write") if ctx.read_vec(ctx.arg(1), 6).is_ok_and(|b| b == b"abcdef") => {
                        *w.lock().unwrap() = ctx.result();
                    }
                    _ => {}
                })
                .run();
            println!("\nwrite returned {}", wrote.lock().unwrap().unwrap_or(-1));
            r
        }
        "blocks" => {
            let blocks = Arc::new(AtomicU64::new(0));
            let (reads, writes) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
            let (bl, rd, wr) = (blocks.clone(), reads.clone(), writes.clone());
            let r = b
                .on_block(move |ctx| {
                    assert!(ctx.size() > 0);
                    bl.fetch_add(1, Ordering::Relaxed);
                })
                .on_mem_access(0x1000..u64::MAX, Access::Read, move |ctx| {
                    assert!(!ctx.is_write());
                    rd.fetch_add(1, Ordering::Relaxed);
                })
                .on_mem_access(0x1000..u64::MAX, Access::Write, move |ctx| {
                    assert!(ctx.is_write() && ctx.value().is_some());
                    wr.fetch_add(1, Ordering::Relaxed);
                })
                .run();
            println!("blocks={}", blocks.load(Ordering::Relaxed));
            println!("reads={}", reads.load(Ordering::Relaxed));
            println!("writes={}", writes.load(Ordering::Relaxed));
            r
        }
        "segv" => b
            .arg("segv")
            .on_signal(|ctx| {
                println!("signal {} fault={} addr={:?}", ctx.name(), ctx.is_fault(), ctx.fault_addr());
                SignalAction::Deliver
            })
            .on_exit(|st| println!("exit hook: signal {:?}", st.signal()))
            .run(),
        "missing" => b.run(),
        _ => panic!("unknown case {case}"),
    };
    match status {
        Ok(st) => {
            println!("status code={:?} signal={:?} addr={:?}", st.code(), st.signal(), st.fault_addr());
            st.exit()
        }
        Err(e) => {
            println!("error: {e}");
            std::process::exit(i32::from(e.exit_status()))
        }
    }
}

/// An example binary (`emulator/examples/NAME.rs`), which `cargo test` builds beside the
/// test binaries (`target/<profile>/examples/`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary");
    let p = exe.parent().and_then(Path::parent).expect("target dir").join("examples").join(name);
    assert!(p.exists(), "{} is missing: cargo test builds the examples", p.display());
    p
}

#[test]
fn the_examples_run_guests() {
    let dir = TempDir::new("api");
    for g in guests(&dir) {
        let t = run_with_timeout(
            Command::new(example("coverage")).args(["--top", "3"]).arg(&g),
            None,
            Duration::from_secs(60),
        );
        let err = String::from_utf8_lossy(&t.stderr);
        assert_eq!(t.status, 3, "{err}");
        assert!(err.contains("top 3 blocks:") && err.contains(&*g.to_string_lossy()), "{err}");
        let t = run_with_timeout(
            Command::new(example("syscall_fuzz"))
                .args(["--seed", "5", "--rate", "100", "--calls", "getpid,write"])
                .arg(&g),
            None,
            Duration::from_secs(60),
        );
        let err = String::from_utf8_lossy(&t.stderr);
        // Whatever the mutations did to the guest, the harness reports how it ended.
        assert!(err.contains("syscall_fuzz: seed 5, rate 100%"), "{err}");
        assert!(err.contains("guest ended: ") && err.contains("write "), "{err}");
        assert!(!err.contains("internal error"), "{err}");
    }
}
