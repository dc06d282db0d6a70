//! A Go program under endgate: goroutines on several threads, channels, timers, a
//! `sync.WaitGroup` over 8 goroutines x 100,000 increments, `os/signal.Notify` with a
//! self-sent SIGUSR1, and `os/exec` of a guest binary (guest-tests/go/main.go). The Go runtime
//! exercises what user-mode emulators get wrong in public bug reports: `rt_sigaction` for
//! every signal, per-thread `sigaltstack`, `clone` of threads, futexes, SIGURG preemption,
//! and fork+exec through `clone(CLONE_VM|CLONE_VFORK)`.
//!
//! The program is built with Debian's `golang-go` (CGO off, so static) for each guest arch
//! Go and endgate share; its native amd64 run gives the expected output, and each guest arch
//! must print exactly that and exit 0, ten runs in a row.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use common::{endgate, run_with_timeout, workspace, ARCHES, X86_64};

/// How many runs in a row must succeed.
const RUNS: usize = 10;

/// Builds guest-tests/go/main.go for `goarch` into target/go-tests/, once per test process;
/// panics with the compiler's message when `go` is missing or fails. The tests run in
/// parallel and share the binaries: a second `go build -o` of a file another test is running
/// rewrites it in place (the build cache copies into the output with `O_TRUNC`), under a guest
/// whose segments endgate maps from that file.
fn build(goarch: &str, env: &[(&str, &str)]) -> PathBuf {
    static BUILT: Mutex<BTreeMap<String, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = built.get(goarch) {
        return p.clone();
    }
    let out_dir = workspace().join("target/go-tests");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join(format!("gotest-{goarch}"));
    let src = workspace().join("guest-tests/go/main.go");
    let mut cmd = Command::new("go");
    cmd.args(["build", "-o"]).arg(&out).arg(&src);
    cmd.env("CGO_ENABLED", "0").env("GOARCH", goarch).env("GOOS", "linux");
    cmd.env("GOCACHE", out_dir.join("cache")).env("GOPATH", out_dir.join("gopath")).env("GO111MODULE", "off");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("`go` not found: scripts/install-deps.sh installs golang-go");
    assert!(o.status.success(), "go build for {goarch}: {}", String::from_utf8_lossy(&o.stderr));
    built.insert(goarch.to_string(), out.clone());
    out
}

fn run(prog: &Path, native: bool, env: &[(&str, &str)]) -> (String, String, i32) {
    let mut cmd = if native {
        Command::new(prog)
    } else {
        let mut c = Command::new(endgate());
        c.arg(prog);
        c
    };
    cmd.envs(env.iter().copied());
    let t = run_with_timeout(&mut cmd, None, Duration::from_secs(120));
    assert!(!t.timed_out, "{} timed out", prog.display());
    (String::from_utf8_lossy(&t.stdout).into_owned(), String::from_utf8_lossy(&t.stderr).into_owned(), t.status)
}

/// Runs the program natively and then [`RUNS`] times on each arch under `run_env`.
fn ten_in_a_row(run_env: &[(&str, &str)]) {
    let native = build(X86_64.goarch, X86_64.goenv);
    let want = run(&native, true, run_env);
    assert_eq!(want.2, 0, "native run: {want:?}");
    for &common::Arch { goarch, goenv: env, .. } in ARCHES {
        let prog = build(goarch, env);
        for i in 0..RUNS {
            let got = run(&prog, false, run_env);
            assert_eq!((&got.0, got.2), (&want.0, 0), "{goarch} {run_env:?}, run {}: stderr: {}", i + 1, got.1);
        }
    }
}

#[test]
fn go_program_runs_ten_times_in_a_row() {
    ten_in_a_row(&[]);
}

/// The same with far more Go threads running goroutines than the machine has cores
/// (`GOMAXPROCS=16`; the default is the number of CPUs): each guest thread runs on its own
/// host thread at the same time as the others (issue 12's "high GOMAXPROCS" runs).
#[test]
fn go_program_runs_ten_times_in_a_row_with_gomaxprocs_16() {
    ten_in_a_row(&[("GOMAXPROCS", "16")]);
}

/// Go's runtime finds the vDSO itself (`runtime/vdso_linux.go`: its own ELF reader, GNU or
/// SysV hash, symbol versions) and reads its clocks there: under `--strace` a run shows no
/// `clock_gettime` system call on any of the seven arches (s390x needs the `.gnu.hash` table:
/// Go reads `.hash` words as 4 bytes, s390x's are 8).
#[test]
fn go_runtime_reads_clocks_through_the_vdso() {
    for &common::Arch { goarch, goenv: env, .. } in ARCHES {
        let prog = build(goarch, env);
        let mut cmd = Command::new(endgate());
        cmd.arg("--strace").arg(&prog);
        let t = run_with_timeout(&mut cmd, None, Duration::from_secs(120));
        let err = String::from_utf8_lossy(&t.stderr);
        assert_eq!(t.status, 0, "{goarch}: {err}");
        assert!(err.contains("nanosleep(") || err.contains("futex("), "{goarch}: the run was traced");
        let clock_calls = err
            .lines()
            .filter(|l| {
                l.trim_start_matches(|c: char| c == '[' || c == ']' || c.is_ascii_digit() || c == ' ')
                    .starts_with("clock_gettime")
            })
            .count();
        assert_eq!(clock_calls, 0, "{goarch}: clock_gettime system calls under --strace");
    }
}
