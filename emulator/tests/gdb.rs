//! `-g PORT` against Debian's `gdb-multiarch --batch` (issue 13's acceptance): on aarch64,
//! s390x, x86_64, riscv64 and arm, the guest `tests/gdb/gdb_guest.c` (static, `-g -O0`) is
//! debugged with one script: `break main`, `continue`, `info registers`, `x/4gx $sp`, `stepi`,
//! a watchpoint that triggers, `info proc mappings`, `info threads` while the guest has two
//! threads, `catch syscall write` (entry and return), and `continue` to the exit status.
//!
//! Every expected value comes from the program: the watched variable's old and new values and
//! the exit status are passed to the compiler (`-D`), the stack pointer and pc are the ones GDB
//! printed itself, the program path is the one built here. None comes from endgate's output.
//!
//! riscv64: GDB 13 (Debian 12's) has no `catch syscall` for riscv64 ("not supported on this
//! architecture yet"), so its script leaves those lines out and says so.
//!
//! The port is a free one the test found by binding port 0; GDB retries its connection
//! (`set tcp connect-timeout`) until endgate listens. Generous timeouts, no timing assertion.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

/// The values the guest is built with (`-D`): the watched variable starts at `OLD` and becomes
/// `SIX * 7`, and `main` returns `STATUS`.
const OLD: i64 = 41;
const SIX: i64 = 6;
const STATUS: i32 = 7;

fn gdb_multiarch() -> &'static str {
    let ok = Command::new("gdb-multiarch").arg("--version").stdout(Stdio::null()).status().is_ok_and(|s| s.success());
    assert!(ok, "gdb-multiarch is missing: run scripts/install-deps.sh (Debian's gdb-multiarch)");
    "gdb-multiarch"
}

fn build(a: &Arch, dir: &Path) -> PathBuf {
    let src = workspace().join("emulator/tests/gdb/gdb_guest.c");
    let out = dir.join(format!("gdb_guest-{}", a.name));
    let st = Command::new(a.cc)
        .args(a.cflags)
        .args(["-static", "-g", "-O0", "-pthread"])
        .arg(format!("-DOLD={OLD}"))
        .arg(format!("-DSIX={SIX}"))
        .arg(format!("-DSTATUS={STATUS}"))
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", a.cc));
    assert!(st.success(), "building {}", src.display());
    out
}

/// A TCP port nothing listens on now (the kernel's choice for port 0).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind 127.0.0.1:0");
    l.local_addr().expect("local address").port()
}

fn script(port: u16, catch: bool) -> String {
    let mut s = format!(
        "set pagination off\n\
         set confirm off\n\
         set tcp auto-retry on\n\
         set tcp connect-timeout 300\n\
         target remote 127.0.0.1:{port}\n\
         break main\n\
         continue\n\
         echo ==regs\\n\n\
         info registers\n\
         echo ==sp\\n\n\
         p/x $sp\n\
         x/4gx $sp\n\
         echo ==stepi\\n\n\
         p/x $pc\n\
         stepi\n\
         p/x $pc\n\
         echo ==watch\\n\n\
         watch watched\n\
         continue\n\
         delete\n\
         echo ==text\\n\n\
         set var *(unsigned char *) main = *(unsigned char *) main\n\
         p/x *(unsigned char *) main\n\
         echo ==maps\\n\n\
         info proc mappings\n\
         echo ==threads\\n\n\
         break both_threads\n\
         continue\n\
         info threads\n\
         delete\n"
    );
    if catch {
        s.push_str("echo ==catch\\n\ncatch syscall write\ncontinue\ncontinue\ndelete\n");
    }
    s.push_str("echo ==exit\\n\ncontinue\n");
    s
}

/// The text between `==NAME` and the next `==` marker.
fn section<'a>(out: &'a str, name: &str) -> &'a str {
    let start = out.find(&format!("=={name}\n")).unwrap_or_else(|| panic!("no section {name} in:\n{out}"));
    let rest = &out[start + name.len() + 3..];
    &rest[..rest.find("\n==").map_or(rest.len(), |e| e + 1)]
}

/// The values of GDB's `$N = 0x…` lines in `text`, in order.
fn printed_values(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix('$')?.split_once(" = 0x"))
        .filter_map(|(_, v)| u64::from_str_radix(v.trim(), 16).ok())
        .collect()
}

fn session(a: &Arch, use_env: bool) {
    let gdb = gdb_multiarch();
    let dir = TempDir::new(&format!("gdb-{}", a.name));
    let prog = build(a, dir.path());
    let port = free_port();
    let catch = a.name != "riscv64";
    if !catch {
        eprintln!("gdb {}: no `catch syscall` lines (GDB 13 has none for riscv64)", a.name);
    }
    let script_path = dir.path().join("script.gdb");
    std::fs::write(&script_path, script(port, catch)).unwrap();

    let mut cmd = Command::new(endgate());
    if use_env {
        cmd.env("ENDGATE_GDB", port.to_string());
    } else {
        cmd.arg("-g").arg(port.to_string());
    }
    cmd.arg(&prog);
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(600)));
    let t = run_with_timeout(
        Command::new(gdb).arg("--batch").arg("-nx").arg("-x").arg(&script_path).arg(&prog),
        None,
        Duration::from_secs(600),
    );
    let g = guest.join().expect("endgate thread");
    let out = String::from_utf8_lossy(&t.stdout).into_owned() + &String::from_utf8_lossy(&t.stderr);
    let ctx = format!("{}: gdb output:\n{out}\nendgate stderr:\n{}", a.name, String::from_utf8_lossy(&g.stderr));
    assert!(!t.timed_out && !g.timed_out, "{ctx}\ntimed out");

    // break main, continue.
    assert!(out.contains("Breakpoint 1, main ()"), "{ctx}\nno stop at main");
    // info registers: the pc register shows main.
    let pc_name = match a.name {
        "x86_64" => "rip",
        "s390x" => "pswa",
        _ => "pc",
    };
    let regs = section(&out, "regs");
    assert!(
        regs.lines().any(|l| l.starts_with(pc_name) && l.contains("<main+")),
        "{ctx}\ninfo registers has no {pc_name} in main"
    );
    // x/4gx $sp: four doublewords from the stack pointer GDB printed.
    let sp_text = section(&out, "sp");
    let sp = printed_values(sp_text)[0];
    let words: Vec<&str> = sp_text.lines().filter(|l| l.starts_with("0x") && l.contains(':')).collect();
    assert_eq!(words.len(), 2, "{ctx}\nx/4gx $sp shows two lines of two words");
    assert!(words[0].starts_with(&format!("{sp:#x}:")), "{ctx}\nx/4gx starts at $sp {sp:#x}");
    assert_eq!(words.iter().map(|l| l.split_whitespace().count() - 1).sum::<usize>(), 4, "{ctx}");
    // stepi: the pc moved on, within main.
    let pcs = printed_values(section(&out, "stepi"));
    assert_eq!(pcs.len(), 2, "{ctx}");
    assert!(pcs[1] != pcs[0], "{ctx}\nstepi did not move the pc");
    // The watchpoint: the program's own old and new values.
    let watch = section(&out, "watch");
    assert!(watch.contains(&format!("Old value = {OLD}")), "{ctx}\nwatchpoint old value");
    assert!(watch.contains(&format!("New value = {}", SIX * 7)), "{ctx}\nwatchpoint new value");
    // A write to read-only text, as ptrace may write it (the byte written is the one there).
    let text = section(&out, "text");
    assert!(!text.contains("Cannot access memory") && printed_values(text).len() == 1, "{ctx}\ntext write");
    // info proc mappings: the program and its stack.
    let maps = section(&out, "maps");
    let prog_s = prog.to_string_lossy();
    assert!(maps.lines().any(|l| l.ends_with(&*prog_s)), "{ctx}\nmappings name {prog_s}");
    assert!(maps.lines().any(|l| l.ends_with("[stack]")), "{ctx}\nmappings show the stack");
    // info threads: both threads, the first in both_threads.
    let threads = section(&out, "threads");
    // Rows of the table: "* 1    Thread 1.TID    frame" and "  2    Thread …".
    let rows: Vec<&str> = threads
        .lines()
        .filter(|l| l.trim_start_matches(['*', ' ']).starts_with(|c: char| c.is_ascii_digit()) && l.contains("Thread "))
        .collect();
    assert_eq!(rows.len(), 2, "{ctx}\ninfo threads shows two threads");
    assert!(rows.iter().any(|r| r.starts_with('*') && r.contains("both_threads ()")), "{ctx}");
    // catch syscall write: its entry and its return.
    if catch {
        let c = section(&out, "catch");
        assert!(c.contains("(call to syscall write)"), "{ctx}\ncatch syscall entry");
        assert!(c.contains("(returned from syscall write)"), "{ctx}\ncatch syscall return");
    }
    // continue to the exit status.
    assert!(section(&out, "exit").contains(&format!("exited with code {STATUS:02}")), "{ctx}\nexit status");
    assert_eq!(g.status, STATUS, "{ctx}\nendgate's status");
    assert_eq!(g.stdout, b"gdb guest\n", "{ctx}");
}

#[test]
fn gdb_aarch64() {
    session(&AARCH64, false);
}

#[test]
fn gdb_s390x() {
    session(&S390X, false);
}

#[test]
fn gdb_x86_64() {
    session(&X86_64, false);
}

#[test]
fn gdb_riscv64() {
    session(&RISCV64, false);
}

/// Also `ENDGATE_GDB=PORT` instead of `-g PORT`.
#[test]
fn gdb_arm_by_environment() {
    session(&ARM, true);
}

/// The address `gdb_fault.c` stores to (`-DBAD`): unmapped, so the store raises SIGSEGV.
const BAD: u64 = 0x10;

/// A fault under GDB: the thread stops with SIGSEGV before delivery, `$_siginfo`
/// (`qXfer:siginfo:read`) has the signal and the program's bad address, `info threads`
/// (`qXfer:threads:read`) names the thread after the program, and `continue` passes the
/// signal on, which kills the guest (status 139, as natively).
fn fault_session(a: &Arch) {
    let gdb = gdb_multiarch();
    let dir = TempDir::new(&format!("gdb-fault-{}", a.name));
    let src = workspace().join("emulator/tests/gdb/gdb_fault.c");
    let prog = dir.path().join("gdb_fault");
    let st = Command::new(a.cc)
        .args(a.cflags)
        .args(["-static", "-g", "-O0", &format!("-DBAD={BAD:#x}"), "-o"])
        .arg(&prog)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", a.cc));
    assert!(st.success(), "building {}", src.display());
    let port = free_port();
    let script_path = dir.path().join("fault.gdb");
    std::fs::write(
        &script_path,
        format!(
            "set pagination off\nset confirm off\nset tcp auto-retry on\nset tcp connect-timeout 300\n\
             target remote 127.0.0.1:{port}\ncontinue\necho ==siginfo\\n\np $_siginfo.si_signo\n\
             p/x (unsigned long) $_siginfo._sifields._sigfault.si_addr\necho ==threads\\n\ninfo threads\n\
             echo ==end\\n\ncontinue\n"
        ),
    )
    .unwrap();
    let mut cmd = Command::new(endgate());
    cmd.arg("-g").arg(port.to_string()).arg(&prog);
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(600)));
    let t = run_with_timeout(
        Command::new(gdb).arg("--batch").arg("-nx").arg("-x").arg(&script_path).arg(&prog),
        None,
        Duration::from_secs(600),
    );
    let g = guest.join().expect("endgate thread");
    let out = String::from_utf8_lossy(&t.stdout).into_owned() + &String::from_utf8_lossy(&t.stderr);
    let ctx = format!("{}: gdb output:\n{out}\nendgate stderr:\n{}", a.name, String::from_utf8_lossy(&g.stderr));
    assert!(!t.timed_out && !g.timed_out, "{ctx}\ntimed out");
    assert!(out.contains("Program received signal SIGSEGV"), "{ctx}");
    let si = section(&out, "siginfo");
    assert!(si.contains("= 11\n"), "{ctx}\nsi_signo is SIGSEGV's 11");
    assert_eq!(printed_values(si), vec![BAD], "{ctx}\nsi_addr is the program's bad address");
    let rows = section(&out, "threads");
    assert!(rows.lines().any(|l| l.starts_with('*') && l.contains("\"gdb_fault\"")), "{ctx}\nthread name");
    assert!(section(&out, "end").contains("Program terminated with signal SIGSEGV"), "{ctx}");
    assert_eq!(g.status, 139, "{ctx}");
}

#[test]
fn gdb_fault_aarch64() {
    fault_session(&AARCH64);
}

#[test]
fn gdb_fault_x86_64() {
    fault_session(&X86_64);
}

/// The status `gdb_fork.c`'s child exits with (`-DCHILD_STATUS`); the parent returns one more.
const CHILD_STATUS: i32 = 5;

/// `tests/gdb/gdb_fork.c` built for `a` in `dir`.
fn build_fork(a: &Arch, dir: &Path) -> PathBuf {
    let src = workspace().join("emulator/tests/gdb/gdb_fork.c");
    let prog = dir.join(format!("gdb_fork-{}", a.name));
    let st = Command::new(a.cc)
        .args(a.cflags)
        .args(["-static", "-g", "-O0", &format!("-DCHILD_STATUS={CHILD_STATUS}"), "-o"])
        .arg(&prog)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", a.cc));
    assert!(st.success(), "building {}", src.display());
    prog
}

/// Runs `tests/gdb/gdb_fork.c` for `a` under endgate's `-g` and one `gdb-multiarch --batch`
/// with `commands` after `target remote`; returns GDB's output, endgate's result and a
/// context for messages.
fn fork_session(a: &Arch, name: &str, commands: &str) -> (String, Timed, String) {
    let gdb = gdb_multiarch();
    let dir = TempDir::new(&format!("gdb-fork-{name}-{}", a.name));
    let prog = build_fork(a, dir.path());
    let port = free_port();
    let script_path = dir.path().join("fork.gdb");
    std::fs::write(
        &script_path,
        format!(
            "set pagination off\nset confirm off\nset tcp auto-retry on\nset tcp connect-timeout 300\n\
             target remote 127.0.0.1:{port}\n{commands}"
        ),
    )
    .unwrap();
    let mut cmd = Command::new(endgate());
    cmd.arg("-g").arg(port.to_string()).arg(&prog);
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(600)));
    let t = run_with_timeout(
        Command::new(gdb).arg("--batch").arg("-nx").arg("-x").arg(&script_path).arg(&prog),
        None,
        Duration::from_secs(600),
    );
    let g = guest.join().expect("endgate thread");
    let out = String::from_utf8_lossy(&t.stdout).into_owned() + &String::from_utf8_lossy(&t.stderr);
    let ctx = format!("{} {name}: gdb output:\n{out}\nendgate stderr:\n{}", a.name, String::from_utf8_lossy(&g.stderr));
    assert!(!t.timed_out && !g.timed_out, "{ctx}\ntimed out");
    // Both processes ran to their end: the child's mark and the parent's, and the parent's
    // status (the child's plus one: it saw the child's).
    let stdout = String::from_utf8_lossy(&g.stdout);
    assert!(stdout.contains("mark 1\n") && stdout.contains("mark 2\n"), "{ctx}\nstdout {stdout}");
    assert_eq!(g.status, CHILD_STATUS + 1, "{ctx}");
    (out, g, ctx)
}

/// A guest `fork` under GDB's defaults (follow-fork-mode parent, detach-on-fork on), with fork
/// events: GDB is told of the fork and detaches the child, which runs free (its `mark(1)`
/// does not stop); the parent's `mark(2)` stops, and GDB sees the parent's status.
#[test]
fn gdb_fork_follows_the_parent() {
    let (out, _, ctx) = fork_session(&AARCH64, "parent", "break mark\ncontinue\necho ==end\\n\ncontinue\n");
    assert!(out.contains("[Detaching after fork from child process "), "{ctx}\nGDB saw the fork");
    assert_eq!(out.matches("Breakpoint 1, mark").count(), 1, "{ctx}\none stop");
    assert!(out.contains("Breakpoint 1, mark (who=2)"), "{ctx}\nthe parent's stop");
    let status = CHILD_STATUS + 1;
    assert!(section(&out, "end").contains(&format!("exited with code {status:02}")), "{ctx}");
}

/// `set follow-fork-mode child`: GDB detaches the parent, which runs free (its `mark(2)` does
/// not stop), and goes on with the child on the same connection: the child stops at its
/// `mark(1)`, its heap (allocated after GDB connected) reads as the program wrote it, and
/// GDB sees the child's exit status.
fn follows_the_child(a: &Arch) {
    let (out, _, ctx) = fork_session(
        a,
        "child",
        "set follow-fork-mode child\nbreak mark\ncontinue\necho ==heap\\n\np heap\necho ==end\\n\ncontinue\n",
    );
    assert!(out.contains("[Attaching after ") && out.contains(" fork to child "), "{ctx}\nGDB followed the child");
    assert!(out.contains("[Detaching after fork from parent process "), "{ctx}\nGDB detached the parent");
    assert_eq!(out.matches(", mark (who=").count(), 1, "{ctx}\none stop");
    assert!(out.contains(" hit Breakpoint 1, mark (who=1)"), "{ctx}\nthe child's stop");
    assert!(section(&out, "heap").contains("\"heap text\""), "{ctx}\nthe child's heap");
    let end = section(&out, "end");
    assert!(
        end.contains("[Inferior 2 (process ") && end.contains(&format!("exited with code {CHILD_STATUS:02}")),
        "{ctx}"
    );
}

#[test]
fn gdb_fork_follows_the_child_aarch64() {
    follows_the_child(&AARCH64);
}

#[test]
fn gdb_fork_follows_the_child_x86_64() {
    follows_the_child(&X86_64);
}

#[test]
fn gdb_fork_follows_the_child_s390x() {
    follows_the_child(&S390X);
}

/// i386's glibc makes its system calls through `__kernel_vsyscall` (endgate's gate): a fork
/// stop there, and a caught call's stop after which GDB changes its points, leave the slot for
/// the landing, so the call is not made again with its result as the number.
#[test]
fn gdb_fork_follows_the_child_i386() {
    follows_the_child(&I386);
}

#[test]
fn gdb_catch_syscall_through_the_gate_i386() {
    let (out, g, ctx) =
        fork_session(&I386, "catch", "catch syscall write\ncontinue\ncontinue\ndelete\necho ==end\\n\ncontinue\n");
    assert!(out.contains("(call to syscall write)") && out.contains("(returned from syscall write)"), "{ctx}");
    assert_eq!(String::from_utf8_lossy(&g.stdout), "mark 1\nmark 2\n", "{ctx}\neach write once");
    assert!(section(&out, "end").contains(&format!("exited with code {:02}", CHILD_STATUS + 1)), "{ctx}");
}

/// Under `--root`, GDB reads the program through `vFile` at the path endgate gives it, which
/// is the program's path inside the root: its symbols load and `break mark` stops there.
#[test]
fn gdb_under_root_loads_the_program() {
    let a = &AARCH64;
    let gdb = gdb_multiarch();
    let dir = TempDir::new("gdb-root");
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let prog = build_fork(a, dir.path());
    std::fs::copy(&prog, root.join("prog")).unwrap();
    let port = free_port();
    let mut cmd = Command::new(endgate());
    cmd.arg("-g").arg(port.to_string()).arg("--root").arg(&root).arg("/prog");
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(600)));
    let t = run_with_timeout(
        Command::new(gdb)
            .args(["--batch", "-nx", "-ex", "set tcp auto-retry on", "-ex", "set tcp connect-timeout 300"])
            .args([
                "-ex",
                &format!("target remote 127.0.0.1:{port}"),
                "-ex",
                "break mark",
                "-ex",
                "continue",
                "-ex",
                "continue",
            ]),
        None,
        Duration::from_secs(600),
    );
    let g = guest.join().expect("endgate thread");
    let out = String::from_utf8_lossy(&t.stdout).into_owned() + &String::from_utf8_lossy(&t.stderr);
    let ctx = format!("gdb output:\n{out}\nendgate stderr:\n{}", String::from_utf8_lossy(&g.stderr));
    assert!(!t.timed_out && !g.timed_out, "{ctx}\ntimed out");
    assert!(out.contains("Breakpoint 1, mark (who=2)"), "{ctx}\nthe program's symbols");
    assert_eq!(g.status, CHILD_STATUS + 1, "{ctx}");
}

/// GDB detaches before the guest forks: the fork makes no stop and leaves no process waiting
/// for a connection that is gone; both run to their end.
#[test]
fn gdb_fork_after_detach() {
    let (out, _, ctx) = fork_session(&AARCH64, "detached", "detach\n");
    assert!(out.contains("detached]"), "{ctx}");
}

/// `set detach-on-fork off` with `follow-fork-mode child`: GDB keeps both processes; the
/// child stops at its `mark(1)` and exits while the parent waits, stopped; then GDB turns to
/// the parent (`inferior 1`), which goes on from its fork, reaps the child, stops at its
/// `mark(2)` and exits with the child's status plus one.
#[test]
fn gdb_fork_keeps_both_processes() {
    let (out, _, ctx) = fork_session(
        &AARCH64,
        "both",
        "set detach-on-fork off\nset follow-fork-mode child\nbreak mark\ncontinue\n\
         echo ==child\\n\ncontinue\ninferior 1\necho ==parent\\n\ncontinue\necho ==end\\n\ncontinue\n",
    );
    assert!(out.contains(" hit Breakpoint 1.2, mark (who=1)"), "{ctx}\nthe child's stop");
    assert!(section(&out, "child").contains(&format!("exited with code {CHILD_STATUS:02}")), "{ctx}");
    assert!(section(&out, "parent").contains(" hit Breakpoint 1.1, mark (who=2)"), "{ctx}\nthe parent's stop");
    let status = CHILD_STATUS + 1;
    assert!(section(&out, "end").contains("[Inferior 1 (process "), "{ctx}");
    assert!(section(&out, "end").contains(&format!("exited with code {status:02}")), "{ctx}");
}

/// Two TCP ports in a row nothing listens on now (the first the kernel's choice).
fn free_port_pair() -> u16 {
    loop {
        let l = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind 127.0.0.1:0");
        let p = l.local_addr().expect("local address").port();
        if p < u16::MAX && std::net::TcpListener::bind(("127.0.0.1", p + 1)).is_ok() {
            return p;
        }
    }
}

/// `ENDGATE_GDB_FORK=wait`: the fork child stops right after the fork and waits for a GDB of
/// its own on the parent's port plus one (saying so on stderr with its pid). A second GDB
/// attaches there: the child is stopped where its `fork` returned 0, its `mark(1)` stops
/// there, and it exits with its own status; the parent's GDB sees only the parent's
/// `mark(2)` and the parent's status. The two GDBs run at once; each retries its connection
/// until its endgate listens.
#[test]
fn gdb_fork_child_waits_for_its_gdb() {
    let a = &AARCH64;
    let gdb = gdb_multiarch();
    let dir = TempDir::new("gdb-fork-wait");
    let prog = build_fork(a, dir.path());
    let port = free_port_pair();
    let script = |port: u16, first: &str| {
        format!(
            "set pagination off\nset confirm off\nset tcp auto-retry on\nset tcp connect-timeout 300\n\
             target remote 127.0.0.1:{port}\n{first}break mark\ncontinue\necho ==end\\n\ncontinue\n"
        )
    };
    let parent_script = dir.path().join("parent.gdb");
    std::fs::write(&parent_script, script(port, "")).unwrap();
    let child_script = dir.path().join("child.gdb");
    std::fs::write(&child_script, script(port + 1, "echo ==first\\n\np $x0\n")).unwrap();
    let mut cmd = Command::new(endgate());
    cmd.env("ENDGATE_GDB_FORK", "wait").arg("-g").arg(port.to_string()).arg(&prog);
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(600)));
    let gdb_run = |script: PathBuf, prog: PathBuf| {
        std::thread::spawn(move || {
            run_with_timeout(
                Command::new(gdb).arg("--batch").arg("-nx").arg("-x").arg(&script).arg(&prog),
                None,
                Duration::from_secs(600),
            )
        })
    };
    let child_gdb = gdb_run(child_script, prog.clone());
    let parent_gdb = gdb_run(parent_script, prog.clone());
    let (pt, ct) = (parent_gdb.join().expect("gdb thread"), child_gdb.join().expect("gdb thread"));
    let g = guest.join().expect("endgate thread");
    let text = |o: &Timed| String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    let (pout, cout) = (text(&pt), text(&ct));
    let err = String::from_utf8_lossy(&g.stderr);
    let ctx = format!("parent gdb:\n{pout}\nchild gdb:\n{cout}\nendgate stderr:\n{err}");
    assert!(!pt.timed_out && !ct.timed_out && !g.timed_out, "{ctx}\ntimed out");
    // The parent's GDB: only the parent's stop, and its status.
    assert_eq!(pout.matches("Breakpoint 1, mark").count(), 1, "{ctx}");
    assert!(pout.contains("Breakpoint 1, mark (who=2)"), "{ctx}");
    let status = CHILD_STATUS + 1;
    assert!(section(&pout, "end").contains(&format!("exited with code {status:02}")), "{ctx}");
    // The child's GDB: the fork's return value 0, the child's stop, its status.
    assert!(section(&cout, "first").contains("= 0\n"), "{ctx}\nfork returned 0 in the child");
    assert_eq!(cout.matches("Breakpoint 1, mark").count(), 1, "{ctx}");
    assert!(cout.contains("Breakpoint 1, mark (who=1)"), "{ctx}");
    assert!(section(&cout, "end").contains(&format!("exited with code {CHILD_STATUS:02}")), "{ctx}");
    // The child named itself and its port.
    assert!(err.contains(&format!(" waits for GDB on 127.0.0.1:{}", port + 1)), "{ctx}");
    assert_eq!(g.status, status, "{ctx}");
    let stdout = String::from_utf8_lossy(&g.stdout);
    assert!(stdout.contains("mark 1\n") && stdout.contains("mark 2\n"), "{ctx}\nstdout {stdout}");
}

/// One remote-protocol packet, framed (`$body#checksum`).
fn packet(body: &str) -> Vec<u8> {
    let sum = body.bytes().fold(0u8, |s, b| s.wrapping_add(b));
    format!("${body}#{sum:02x}").into_bytes()
}

/// Reads from `s` until a whole packet (`$…#cc`) has arrived; returns everything read.
fn read_packet(s: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    let mut out = Vec::new();
    let mut b = [0u8; 1];
    while let Ok(1) = s.read(&mut b) {
        out.push(b[0]);
        if let Some(h) = out.iter().rposition(|&c| c == b'#') {
            if out.len() == h + 3 && out.contains(&b'$') {
                break;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// GDB's interrupt (0x03, Ctrl-C) while the guest spins stops it with SIGINT (`T02`, GDB's
/// number), and `vKill` ends it by SIGKILL; spoken by a small client of the protocol, since
/// GDB's batch mode cannot send an interrupt at a chosen moment.
#[test]
fn gdb_interrupt_then_kill() {
    use std::io::Write;
    let a = &AARCH64;
    let dir = TempDir::new("gdb-spin");
    let src = workspace().join("emulator/tests/gdb/gdb_spin.c");
    let prog = dir.path().join("gdb_spin");
    let st = Command::new(a.cc)
        .args(["-static", "-g", "-O0", "-o"])
        .arg(&prog)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", a.cc));
    assert!(st.success(), "building {}", src.display());
    let port = free_port();
    let mut cmd = Command::new(endgate());
    cmd.arg("-g").arg(port.to_string()).arg(&prog);
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(600)));
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    let mut s = loop {
        match std::net::TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => break s,
            Err(_) if std::time::Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("endgate does not listen on {port}: {e}"),
        }
    };
    s.set_read_timeout(Some(Duration::from_secs(300))).unwrap();
    s.write_all(&packet("qSupported:multiprocess+")).unwrap();
    let sup = read_packet(&mut s);
    assert!(sup.contains("qXfer:threads:read+") && sup.contains("QCatchSyscalls+"), "{sup}");
    s.write_all(&packet("?")).unwrap();
    assert!(read_packet(&mut s).contains("$T05"), "the first stop is SIGTRAP's");
    s.write_all(b"+").unwrap();
    s.write_all(&packet("vCont;c")).unwrap();
    // The guest spins; the interrupt may come at any point of it.
    std::thread::sleep(Duration::from_millis(300));
    s.write_all(b"\x03").unwrap();
    let stop = read_packet(&mut s);
    assert!(stop.contains("$T02"), "the interrupt stops with SIGINT: {stop}");
    s.write_all(b"+").unwrap();
    s.write_all(&packet("vKill;1")).unwrap();
    let g = guest.join().expect("endgate thread");
    assert!(!g.timed_out, "timed out");
    assert_eq!(g.status, 128 + 9, "killed by SIGKILL; stderr {}", String::from_utf8_lossy(&g.stderr));
}

/// `-g 0`: the host picks a free port and endgate says which on stderr; GDB connects there
/// and runs the guest to its end.
#[test]
fn gdb_port_zero_says_its_port() {
    use std::io::{BufRead, BufReader};
    let dir = TempDir::new("gdb-port-0");
    let prog = build(&AARCH64, dir.path());
    let mut child = Command::new(endgate())
        .args(["-g", "0"])
        .arg(&prog)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("endgate");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
    let port: u16 = line
        .trim_end()
        .strip_prefix("endgate: gdb: waiting for GDB on 127.0.0.1:")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    assert_ne!(port, 0);
    let g = run_with_timeout(
        Command::new(gdb_multiarch()).args([
            "--batch",
            "-nx",
            "-ex",
            &format!("target remote 127.0.0.1:{port}"),
            "-ex",
            "continue",
        ]),
        None,
        Duration::from_secs(300),
    );
    assert!(!g.timed_out, "gdb timed out");
    let out = String::from_utf8_lossy(&g.stdout);
    assert!(out.contains("exited normally") || out.contains("exited with code"), "{out}");
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(STATUS), "{out}");
}

/// Signals after GDB detached reach the guest: GDB stops at the first SIGUSR1 and detaches,
/// which delivers that one (as gdbserver does), and the other four come with no GDB there
/// (endgate dropped them all, and a guest that handles its own SIGSEGV spun forever).
#[test]
fn gdb_detach_passes_signals_on() {
    let a = &AARCH64;
    let dir = TempDir::new("gdb-detach-signals");
    let prog = common::build_static(
        a.cc,
        &workspace().join("emulator/tests/gdb/gdb_signals.c"),
        &dir.path().join("gdb_signals"),
        &["-g".as_ref(), "-O0".as_ref()],
    );
    let port = free_port();
    let mut cmd = Command::new(endgate());
    cmd.arg("-g").arg(port.to_string()).arg(&prog);
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(300)));
    let g = run_with_timeout(
        Command::new(gdb_multiarch()).arg("--batch").arg("-nx").arg(&prog).args([
            "-ex",
            &format!("target remote 127.0.0.1:{port}"),
            "-ex",
            "continue",
            "-ex",
            "detach",
        ]),
        None,
        Duration::from_secs(300),
    );
    let out = String::from_utf8_lossy(&g.stdout);
    assert!(out.contains("SIGUSR1"), "GDB stops at the signal: {out}");
    let e = guest.join().expect("endgate thread");
    assert!(!e.timed_out, "endgate timed out: {out}");
    assert_eq!((e.status, String::from_utf8_lossy(&e.stdout).as_ref()), (0, "handled 5\n"), "{out}");
}

/// `-g` on a port something else listens on: one line and status 1; a bad `ENDGATE_GDB`: a
/// usage error, status 2. Neither runs the guest.
#[test]
fn gdb_port_errors() {
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind 127.0.0.1:0");
    let port = taken.local_addr().unwrap().port();
    let dir = TempDir::new("gdb-port");
    let prog = build(&AARCH64, dir.path());
    let t = run_with_timeout(
        Command::new(endgate()).arg("-g").arg(port.to_string()).arg(&prog),
        None,
        Duration::from_secs(120),
    );
    let err = String::from_utf8_lossy(&t.stderr);
    assert_eq!(t.status, 1, "{err}");
    assert!(err.starts_with(&format!("endgate: gdb server on port {port}: ")), "{err}");
    let t =
        run_with_timeout(Command::new(endgate()).env("ENDGATE_GDB", "x").arg(&prog), None, Duration::from_secs(120));
    let err = String::from_utf8_lossy(&t.stderr);
    assert_eq!(t.status, 2, "{err}");
    assert_eq!(err, "endgate: ENDGATE_GDB wants a TCP port, got 'x'\n");
}

/// The values `gdb_fp.c` passes to `fp_mark` (`-DA`, `-DB`), and the one GDB writes over B.
const FP_A: &str = "1.25";
const FP_B: &str = "0.5";
const FP_SET: &str = "2.5";

/// Floating-point registers under GDB: stopped at `fp_mark`'s first instruction, GDB reads
/// the first FP argument register (the guest's A), `info registers GROUP` lists the FP
/// registers, and GDB writes the second (B) with 2.5, which the guest then uses: it prints
/// A * 1000 + 2.5. `read` and `write` are the registers as GDB names them on this arch.
fn fp_session(a: &Arch, read: &str, write: &str, group: &str) {
    let gdb = gdb_multiarch();
    let dir = TempDir::new(&format!("gdb-fp-{}", a.name));
    let src = workspace().join("emulator/tests/gdb/gdb_fp.c");
    let prog = dir.path().join("gdb_fp");
    let mut cc = Command::new(a.cc);
    cc.args(a.cflags);
    if a.name == "i386" {
        cc.arg("-msse2");
    }
    let st = cc
        .args(["-static", "-g", "-O0", &format!("-DA={FP_A}"), &format!("-DB={FP_B}"), "-o"])
        .arg(&prog)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", a.cc));
    assert!(st.success(), "building {}", src.display());
    let port = free_port();
    let script_path = dir.path().join("fp.gdb");
    std::fs::write(
        &script_path,
        format!(
            "set pagination off\nset confirm off\nset tcp auto-retry on\nset tcp connect-timeout 300\n\
             target remote 127.0.0.1:{port}\nbreak *fp_mark\ncontinue\n\
             echo ==read\\n\np {read}\n\
             echo ==info\\n\ninfo registers {group}\n\
             echo ==write\\n\nset var {write} = {FP_SET}\np {write}\n\
             echo ==exit\\n\ndelete\ncontinue\n"
        ),
    )
    .unwrap();
    let mut cmd = Command::new(endgate());
    cmd.arg("-g").arg(port.to_string()).arg(&prog);
    let guest = std::thread::spawn(move || run_with_timeout(&mut cmd, None, Duration::from_secs(600)));
    let t = run_with_timeout(
        Command::new(gdb).arg("--batch").arg("-nx").arg("-x").arg(&script_path).arg(&prog),
        None,
        Duration::from_secs(600),
    );
    let g = guest.join().expect("endgate thread");
    let out = String::from_utf8_lossy(&t.stdout).into_owned() + &String::from_utf8_lossy(&t.stderr);
    let ctx = format!("{}: gdb output:\n{out}\nendgate stderr:\n{}", a.name, String::from_utf8_lossy(&g.stderr));
    assert!(!t.timed_out && !g.timed_out, "{ctx}\ntimed out");
    assert!(out.contains("Breakpoint 1, "), "{ctx}\nno stop at fp_mark");
    let has_value =
        |text: &str, v: &str| text.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).any(|w| w == v);
    assert!(has_value(section(&out, "read"), FP_A), "{ctx}\n{read} is not {FP_A}");
    // `info registers` shows a vector register's doubles as bit patterns (x86's sse group).
    let shown = |text: &str, v: &str| {
        has_value(text, v) || text.contains(&format!("{:#x}", v.parse::<f64>().unwrap().to_bits()))
    };
    let info = section(&out, "info");
    assert!(shown(info, FP_A) && shown(info, FP_B), "{ctx}\ninfo registers {group} lacks A and B");
    assert!(has_value(section(&out, "write"), FP_SET), "{ctx}\n{write} reads back");
    assert!(section(&out, "exit").contains("exited normally"), "{ctx}");
    let want = format!("{:.3}\n", FP_A.parse::<f64>().unwrap() * 1000.0 + FP_SET.parse::<f64>().unwrap());
    assert_eq!(String::from_utf8_lossy(&g.stdout), want, "{ctx}\nthe guest saw GDB's write");
    assert_eq!(g.status, 0, "{ctx}");
}

#[test]
fn gdb_fp_arm() {
    fp_session(&ARM, "$d0", "$d1", "vfp");
}

#[test]
fn gdb_fp_riscv64() {
    fp_session(&RISCV64, "$f10", "$f11", "float");
}

#[test]
fn gdb_fp_aarch64() {
    fp_session(&AARCH64, "$v0.d.f[0]", "$v1.d.f[0]", "float");
}

#[test]
fn gdb_fp_x86_64() {
    fp_session(&X86_64, "$xmm0.v2_double[0]", "$xmm1.v2_double[0]", "sse");
}

#[test]
fn gdb_fp_i386() {
    fp_session(&I386, "$xmm0.v2_double[0]", "$xmm1.v2_double[0]", "sse");
}

#[test]
fn gdb_fp_s390x() {
    fp_session(&S390X, "$f0", "$f2", "float");
}

#[test]
fn gdb_fp_mips64el() {
    fp_session(&MIPS64EL, "$f12", "$f13", "float");
}
