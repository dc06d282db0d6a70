//! The `syscall_live` fuzz target: system calls from the fuzzer made by a live guest, through
//! the whole system-call path (the arch's trap, [`crate::syscall`]'s dispatch, the handler,
//! signal delivery, the run loop), with a fork server so that what one input changes is
//! thrown away (docs/fuzzing.md, "syscall_live").
//!
//! Three kinds of process:
//! - the fuzzer's own (libFuzzer's, or the test that replays kept inputs): [`syscall_live`]
//!   hands each input to the server of the input's arch and reads its verdict;
//! - one server per guest arch, forked from it on first use (one endgate process serves one
//!   arch: [`crate::syscall::DispatchTable::of`]). It runs a tiny static guest (built here:
//!   [`guest_elf`]) whose code is the arch's trap instruction and a branch back to it. A code
//!   hook on the trap runs before each call; the first time, in the server, it becomes the
//!   fork server: it waits for an input and forks a child per input, then waits for the child
//!   (at most [`child_ms`] milliseconds; a child still running is killed: a timeout, not a
//!   crash);
//! - the child, which returns from the hook into the guest: each time the trap comes round the
//!   hook puts the next record's number and six arguments in the registers, and after the last
//!   one `exit_group(0)`. The tool's system-call entry ([`entry`]) refuses (`EPERM`) what must
//!   not run on this host, whoever made the call (a guest signal handler or code the guest
//!   wrote can make calls too): the rows of the syscall table whose [`Reach`] is beyond the
//!   process (but for the child's own pid), the calls that start processes or programs, and
//!   signals that would look like endgate's own crash.
//!
//! The child is contained: it runs as `nobody` when the fuzzer runs as root (in new network,
//! UTS and IPC namespaces, made by the server while it still could), its paths go through
//! `--root` into a scratch directory with no bind points (emptied after every input), its
//! standard descriptors are a scratch file and `/dev/null`, its file size and core size are
//! limited.
//!
//! A child that ends with status 70 (endgate's internal error: a panic) or by SIGSEGV, SIGBUS,
//! SIGILL, SIGFPE, SIGABRT or SIGTRAP is a crash: the fuzzer's process prints the child's
//! output and aborts (libFuzzer then keeps the input). A guest that dies or exits ends the
//! child through the tool's exit hook, with status 0.
//!
//! Coverage: libFuzzer reads its 8-bit counters in its own process, so the child zeroes its
//! copy of them when it starts and, at its end, copies them into memory shared with the
//! fuzzer's process, which adds them to its own ([`counters`]; only in the fuzz build, whose
//! `--cfg fuzzing` has the linker's `__start___sancov_cntrs`/`__stop___sancov_cntrs`).

use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::abi::nr::Sys;
use crate::arch::ALL;
use crate::guard::Checked as _;
use crate::guest::tool::Tool;
use crate::guest::{Cpu, Exit, GuestArch, Options, SyscallArgs};
use crate::mm::GuestAddr;
use crate::signal::Signal;
use crate::syscall::table::Reach;
use crate::syscall::DispatchTable;

/// The guest's code page: ELF header and program headers, then the code at [`ENTRY`].
const CODE: u64 = 0x40_0000;
/// The trap instruction, the guest's entry point.
const ENTRY: u64 = CODE + 0x100;
/// The data pages that pointer arguments point into, filled with the input's bytes.
const DATA: u64 = 0x50_0000;
/// Their size; a `PROT_NONE` page follows them.
const DATA_LEN: u64 = 0x2000;
/// Records (calls) per input, at most.
const MAX_RECORDS: usize = 16;
/// The longest input the fuzzer's process hands over (longer ones are cut).
const MAX_INPUT: usize = 1 << 16;
/// The most of a crashing child's output that is shown.
const MSG_MAX: usize = 4096;

/// Offsets in the shared memory: the input's length and bytes, the crashing child's output
/// (length, bytes), whether the child left its counters, then the counters.
const SHM_LEN: usize = 0;
const SHM_INPUT: usize = 8;
const SHM_MSG_LEN: usize = SHM_INPUT + MAX_INPUT;
const SHM_MSG: usize = SHM_MSG_LEN + 8;
const SHM_COUNTERS_SET: usize = SHM_MSG + MSG_MAX;
const SHM_COUNTERS: usize = SHM_COUNTERS_SET + 8;

/// Verdicts a server writes back.
const VERDICT_OK: u8 = 0;
const VERDICT_TIMEOUT: u8 = 1;
const VERDICT_CRASH: u8 = 2;

/// Host signals that end a process when endgate's own code faults or aborts: a child that
/// dies by one crashed (guests cannot send them to themselves here: [`entry`]).
const CRASH_SIGNALS: [i32; 6] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT, libc::SIGTRAP];

/// libFuzzer's 8-bit coverage counters of this executable (start, length); none outside the
/// fuzz build.
fn counters() -> (*mut u8, usize) {
    #[cfg(fuzzing)]
    {
        extern "C" {
            static mut __start___sancov_cntrs: u8;
            static mut __stop___sancov_cntrs: u8;
        }
        // The linker's bounds of the counters section; only their addresses are taken.
        let (start, stop) =
            (std::ptr::addr_of_mut!(__start___sancov_cntrs), std::ptr::addr_of_mut!(__stop___sancov_cntrs));
        (start, (stop as usize).saturating_sub(start as usize))
    }
    #[cfg(not(fuzzing))]
    {
        (std::ptr::null_mut(), 0)
    }
}

/// The memory shared by the fuzzer's process, its servers and their children (made once, before
/// the first server).
fn shm() -> Option<*mut u8> {
    static SHM: OnceLock<usize> = OnceLock::new();
    let addr = *SHM.get_or_init(|| {
        let len = SHM_COUNTERS + counters().1;
        // SAFETY: a new shared anonymous mapping; nothing else is placed there.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            0
        } else {
            p as usize
        }
    });
    (addr != 0).then_some(addr as *mut u8)
}

/// Reads the `u64` at `off` of the shared memory.
fn shm_get(shm: *mut u8, off: usize) -> u64 {
    // SAFETY: `off` is one of the header's 8-byte-aligned words inside the mapping.
    unsafe { std::ptr::read_volatile(shm.add(off).cast::<u64>()) }
}

/// Writes the `u64` at `off` of the shared memory.
fn shm_set(shm: *mut u8, off: usize, v: u64) {
    // SAFETY: as for `shm_get`.
    unsafe { std::ptr::write_volatile(shm.add(off).cast::<u64>(), v) }
}

/// A running server: its pid and the two pipe ends the fuzzer's process keeps.
struct Server {
    pid: libc::pid_t,
    to: libc::c_int,
    from: libc::c_int,
}

/// The servers, by index in [`ALL`].
static SERVERS: Mutex<[Option<Server>; 7]> = Mutex::new([None, None, None, None, None, None, None]);

/// How many times a server gave no verdict (it could not start its guest, or something
/// killed it); the replay test checks it stays 0 ([`servers_lost`]).
static SERVERS_LOST: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many servers ended without a verdict so far in this process (see [`SERVERS_LOST`]).
pub fn servers_lost() -> usize {
    SERVERS_LOST.load(std::sync::atomic::Ordering::Relaxed)
}

/// The target: `bytes[0]` picks the guest arch (of [`ALL`]), the rest are the records and the
/// data pages' contents ([`Input::parse`]). Aborts when the child crashed.
pub fn syscall_live(bytes: &[u8]) {
    let Some(&first) = bytes.first() else { return };
    let which = usize::from(first) % ALL.len();
    let Some(shm) = shm() else { return };
    let mut servers = SERVERS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if servers[which].is_none() {
        servers[which] = spawn(which);
    }
    let Some(server) = &servers[which] else { return };
    let n = bytes.len().min(MAX_INPUT);
    // SAFETY: the input area holds MAX_INPUT bytes; no server reads it until the go byte.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), shm.add(SHM_INPUT), n) };
    shm_set(shm, SHM_LEN, n as u64);
    shm_set(shm, SHM_MSG_LEN, 0);
    shm_set(shm, SHM_COUNTERS_SET, 0);
    let verdict = if write_all(server.to, &[1]) { read_verdict(server.from) } else { None };
    let Some(verdict) = verdict else {
        // The server is gone (it could not start the guest, or something killed it): start
        // another next time.
        let s = servers[which].take();
        if let Some(s) = s {
            reap(s);
        }
        SERVERS_LOST.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        eprintln!("syscall_live: the {} server ended; starting another", ALL[which].0);
        return;
    };
    tally(which, verdict[0]);
    let (cnt, len) = counters();
    if shm_get(shm, SHM_COUNTERS_SET) != 0 && len > 0 {
        // SAFETY: both areas are `len` bytes; the child has ended, nothing else writes them.
        unsafe {
            let theirs = std::slice::from_raw_parts(shm.add(SHM_COUNTERS), len);
            let ours = std::slice::from_raw_parts_mut(cnt, len);
            for (o, t) in ours.iter_mut().zip(theirs) {
                *o = o.saturating_add(*t);
            }
        }
    }
    if verdict[0] == VERDICT_CRASH {
        let status = i32::from_le_bytes([verdict[1], verdict[2], verdict[3], verdict[4]]);
        let msg_len = usize::try_from(shm_get(shm, SHM_MSG_LEN)).unwrap_or(0).min(MSG_MAX);
        // SAFETY: the server wrote `msg_len` bytes there before its verdict.
        let msg = unsafe { std::slice::from_raw_parts(shm.add(SHM_MSG), msg_len) };
        let mut err = std::io::stderr().lock();
        let _ =
            writeln!(err, "syscall_live: endgate crashed on {} (wait status {status:#x}); its output:", ALL[which].0);
        let _ = err.write_all(msg);
        let _ = writeln!(err);
        drop(err);
        std::process::abort();
    }
}

/// Counts inputs and timeouts per arch, and prints the counts after every power of two inputs.
fn tally(which: usize, verdict: u8) {
    static COUNTS: Mutex<[[u64; 2]; 7]> = Mutex::new([[0; 2]; 7]);
    let mut c = COUNTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    c[which][0] += 1;
    if verdict == VERDICT_TIMEOUT {
        c[which][1] += 1;
    }
    let total: u64 = c.iter().map(|a| a[0]).sum();
    if total.is_power_of_two() && total >= 1024 {
        let per: Vec<String> = ALL.iter().zip(c.iter()).map(|((n, _), a)| format!("{n} {}/{}", a[0], a[1])).collect();
        eprintln!("syscall_live: {total} inputs (arch inputs/timeouts: {})", per.join(", "));
    }
}

/// Writes all of `buf` to `fd` (retrying after signals).
fn write_all(fd: libc::c_int, mut buf: &[u8]) -> bool {
    while !buf.is_empty() {
        // SAFETY: writes from a live buffer.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => buf = &buf[n..],
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return false,
        }
    }
    true
}

/// Reads exactly `buf.len()` bytes from `fd`; `false` at the end of the file or an error.
fn read_exact(fd: libc::c_int, buf: &mut [u8]) -> bool {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reads into the rest of a live buffer.
        let n = unsafe { libc::read(fd, buf[got..].as_mut_ptr().cast(), buf.len() - got) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => got += n,
            _ if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return false,
        }
    }
    true
}

/// A server's verdict: kind, then the child's wait status.
fn read_verdict(fd: libc::c_int) -> Option<[u8; 5]> {
    let mut v = [0u8; 5];
    read_exact(fd, &mut v).then_some(v)
}

/// Closes the fuzzer's ends of a server's pipes and reaps it.
fn reap(s: Server) {
    // SAFETY: our own descriptors and our own child.
    unsafe {
        libc::close(s.to);
        libc::close(s.from);
        libc::kill(s.pid, libc::SIGKILL);
        libc::waitpid(s.pid, std::ptr::null_mut(), 0);
    }
}

/// Forks the server of `ALL[which]`.
fn spawn(which: usize) -> Option<Server> {
    let mut to = [0; 2];
    let mut from = [0; 2];
    // SAFETY: two-element arrays for pipe2.
    if unsafe { libc::pipe2(to.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: as above.
    if unsafe { libc::pipe2(from.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        // SAFETY: the pipe just made.
        unsafe {
            libc::close(to[0]);
            libc::close(to[1]);
        }
        return None;
    }
    // SAFETY: the server child runs only `serve` and ends with `_exit`.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: the server's copies of the fuzzer's ends.
        unsafe {
            libc::close(to[1]);
            libc::close(from[0]);
        }
        // The fuzzer's process may hold the guest lock on another thread (the strace target's).
        crate::thread::lock::free_after_fork();
        let why = serve(which, to[0], from[1]);
        let _ = writeln!(std::io::stderr(), "syscall_live: the {} server cannot run: {why}", ALL[which].0);
        // SAFETY: ends the server without running the fuzzer's exit handlers.
        unsafe { libc::_exit(1) }
    }
    // SAFETY: the server's ends, which this process does not use.
    unsafe {
        libc::close(to[0]);
        libc::close(from[1]);
    }
    if pid < 0 {
        // SAFETY: our ends.
        unsafe {
            libc::close(to[1]);
            libc::close(from[0]);
        }
        return None;
    }
    Some(Server { pid, to: to[1], from: from[0] })
}

/// What the server and its children know of their set-up.
struct Ctx {
    /// The input pipe's read end and the verdict pipe's write end.
    input: libc::c_int,
    verdict: libc::c_int,
    /// The scratch directory (the guest program, the child's output) and the guest's root in it.
    dir: PathBuf,
    root: PathBuf,
    /// The numbers the arch's table serves.
    served: Vec<u64>,
}

static CTX: OnceLock<Ctx> = OnceLock::new();

/// The process's part: 0 until the first trap (the server), [`CHILD`] in a child.
static ROLE: AtomicU8 = AtomicU8::new(0);
const CHILD: u8 = 2;

/// The uid and gid of `nobody`, which the children run as when the fuzzer runs as root.
const NOBODY: u32 = 65534;

/// Sets the server up and runs its guest; returns only if that failed (why).
fn serve(which: usize, input: libc::c_int, verdict: libc::c_int) -> String {
    let arch: &'static dyn GuestArch = ALL[which].1;
    // The fuzzer's signal handlers and mask are not endgate's: every signal as a new process
    // has it.
    for sig in 1..=64 {
        if sig != libc::SIGKILL && sig != libc::SIGSTOP {
            // SAFETY: resets a disposition to its default.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }
    // SAFETY: an empty set for the mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
    // Only the pipes and the standard descriptors stay open, the pipes where no guest looks.
    // SAFETY: plain descriptor calls on this process's own descriptors.
    let (input, verdict) = unsafe {
        let (i, v) = (libc::fcntl(input, libc::F_DUPFD_CLOEXEC, 900), libc::fcntl(verdict, libc::F_DUPFD_CLOEXEC, 900));
        if i < 0 || v < 0 {
            return "no descriptor above 900".into();
        }
        for fd in 3..i.min(v) {
            libc::close(fd);
        }
        (i, v)
    };
    let dir = std::env::temp_dir().join(format!("endgate-syscall-live-{}", std::process::id()));
    let root = dir.join("root");
    if let Err(e) = std::fs::create_dir_all(&root) {
        return format!("{}: {e}", root.display());
    }
    let prog = dir.join("guest");
    if let Err(e) = std::fs::write(&prog, guest_elf(arch)) {
        return format!("{}: {e}", prog.display());
    }
    // A program needs execute permission, as for execve(2).
    if let Err(e) = std::fs::set_permissions(&prog, std::os::unix::fs::PermissionsExt::from_mode(0o700)) {
        return format!("{}: {e}", prog.display());
    }
    // SAFETY: plain calls with no pointers but the paths' C strings.
    unsafe {
        if libc::geteuid() == 0 {
            // New network, host name and IPC namespaces: the guest's sockets, host name and
            // System V objects are the child's alone.
            if libc::unshare(libc::CLONE_NEWNET | libc::CLONE_NEWUTS | libc::CLONE_NEWIPC) != 0 {
                return format!("unshare: {}", std::io::Error::last_os_error());
            }
            for p in [&dir, &root, &prog] {
                let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else { return "path".into() };
                libc::chown(c.as_ptr(), NOBODY, NOBODY);
            }
            let gid = NOBODY;
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(gid, gid, gid) != 0
                || libc::setresuid(NOBODY, NOBODY, NOBODY) != 0
            {
                return format!("becoming nobody: {}", std::io::Error::last_os_error());
            }
        }
        let limit = |res, v| {
            let r = libc::rlimit { rlim_cur: v, rlim_max: v };
            libc::setrlimit(res, &r);
        };
        limit(libc::RLIMIT_CORE, 0);
        limit(libc::RLIMIT_FSIZE, 16 << 20);
    }
    let table = DispatchTable::of(arch);
    let numbers = (arch.info().numbers)();
    let mut served: Vec<u64> =
        Sys::ALL.iter().filter_map(|&s| numbers.number_of(s)).filter(|&n| table.get(n).is_some()).collect();
    served.sort_unstable();
    served.dedup();
    if CTX.set(Ctx { input, verdict, dir, root, served }).is_err() {
        return "set up twice".into();
    }
    crate::guest::tool::set(Tool {
        syscall_entry: Some(entry),
        syscall_exit: Some(result),
        signal: None,
        instance: Some(instance),
        exit: Some(ended),
    });
    let opts = Options { exec_with: crate::guest::ExecWith::Refused, strace: show(), ..Options::default() };
    let path = prog.to_string_lossy().into_owned();
    let program =
        crate::Program { path: path.into(), argv: vec![b"syscall-live".to_vec()], envp: Vec::new(), comm: None };
    match crate::launch(opts, program) {
        Ok((exit, _)) => format!("the guest ended before its first call: {exit:?}"),
        Err(e) => e.to_string(),
    }
}

/// The tool's per-instance hooks: the code hook on the trap instruction.
fn instance(cpu: &mut Cpu<'static>) -> Result<(), unicorn_engine::uc_error> {
    cpu.add_code_hook(ENTRY, ENTRY, |cpu, _, _| {
        crate::guard::guarded(&"syscall_live trap hook", || crate::guest::locked(cpu, at_trap));
    })?;
    Ok(())
}

/// Before each trap: in the server, the fork server (returns in each child); in the child, the
/// next record's registers.
fn at_trap(cpu: &mut Cpu<'_>) {
    if ROLE.load(Ordering::Relaxed) != CHILD {
        fork_server(cpu);
    }
    next_call(cpu);
}

/// Waits for inputs and forks a child for each; returns in the child.
fn fork_server(cpu: &mut Cpu<'_>) {
    let Some(ctx) = CTX.get() else { crate::guard::internal_error(format_args!("syscall_live without its set-up")) };
    let Some(shm) = shm() else { crate::guard::internal_error(format_args!("syscall_live without shared memory")) };
    if let Err(e) = crate::syscall::rootfs::enter(&ctx.root, Vec::new(), Vec::new()) {
        let _ = writeln!(std::io::stderr(), "syscall_live: {e}");
        // SAFETY: ends the server.
        unsafe { libc::_exit(1) }
    }
    let out = ctx.dir.join("out");
    loop {
        let mut go = [0u8];
        if !read_exact(ctx.input, &mut go) {
            // The fuzzer's process is done (or gone).
            let _ = std::fs::remove_dir_all(&ctx.dir);
            // SAFETY: ends the server.
            unsafe { libc::_exit(0) }
        }
        crate::log::flush_debug();
        // SAFETY: the guest has one thread (this one) and no helper thread yet: nothing is
        // held across the fork.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            child_start(cpu, ctx, shm, &out);
            return;
        }
        let (kind, status) = if pid < 0 { (VERDICT_OK, 0) } else { wait_child(pid) };
        if kind == VERDICT_CRASH {
            let msg = std::fs::read(&out).unwrap_or_default();
            let tail = &msg[msg.len().saturating_sub(MSG_MAX)..];
            // SAFETY: at most MSG_MAX bytes into the message area.
            unsafe { std::ptr::copy_nonoverlapping(tail.as_ptr(), shm.add(SHM_MSG), tail.len()) };
            shm_set(shm, SHM_MSG_LEN, tail.len() as u64);
        }
        empty_dir(&ctx.root);
        let s = status.to_le_bytes();
        if !write_all(ctx.verdict, &[kind, s[0], s[1], s[2], s[3]]) {
            let _ = std::fs::remove_dir_all(&ctx.dir);
            // SAFETY: ends the server.
            unsafe { libc::_exit(0) }
        }
    }
}

/// `ENDGATE_FUZZ_SHOW` set: the children's calls under `--strace`, and their output on the
/// fuzzer's standard output and error instead of a scratch file (to see what an input does).
fn show() -> bool {
    std::env::var_os("ENDGATE_FUZZ_SHOW").is_some()
}

/// How long a child may run, in milliseconds: `ENDGATE_FUZZ_CHILD_MS`, 250 by default.
fn child_ms() -> i32 {
    static MS: OnceLock<i32> = OnceLock::new();
    *MS.get_or_init(|| {
        std::env::var("ENDGATE_FUZZ_CHILD_MS").ok().and_then(|v| v.parse().ok()).filter(|&v| v > 0).unwrap_or(250)
    })
}

/// Waits for the child `pid` for at most [`child_ms`] (killing it then): the verdict and its
/// wait status.
fn wait_child(pid: libc::pid_t) -> (u8, i32) {
    let ms = child_ms();
    let mut timed_out = false;
    // SAFETY: integer arguments; the pidfd is closed below.
    let pidfd = crate::abi::int32(unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) });
    if pidfd >= 0 {
        let mut p = libc::pollfd { fd: pidfd, events: libc::POLLIN, revents: 0 };
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(ms.unsigned_abs().into());
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let left = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
            // SAFETY: one pollfd.
            let r = unsafe { libc::poll(&mut p, 1, left) };
            if r > 0 {
                break;
            }
            if r == 0 {
                timed_out = true;
                break;
            }
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        // SAFETY: our pidfd.
        unsafe { libc::close(pidfd) };
    } else {
        let start = std::time::Instant::now();
        loop {
            let mut st = 0;
            // SAFETY: our own child.
            if unsafe { libc::waitpid(pid, &mut st, libc::WNOHANG) } == pid {
                return verdict_of(st, false);
            }
            if start.elapsed().as_millis() > ms.unsigned_abs().into() {
                timed_out = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    if timed_out {
        // SAFETY: our own child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let mut st = 0;
    // SAFETY: our own child.
    while unsafe { libc::waitpid(pid, &mut st, 0) } < 0 {
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return (VERDICT_OK, 0);
        }
    }
    verdict_of(st, timed_out)
}

/// A child's wait status as a verdict.
fn verdict_of(st: i32, timed_out: bool) -> (u8, i32) {
    let internal_error = libc::WIFEXITED(st) && libc::WEXITSTATUS(st) == crate::guard::STATUS;
    let kind = if internal_error || (libc::WIFSIGNALED(st) && CRASH_SIGNALS.contains(&libc::WTERMSIG(st))) {
        VERDICT_CRASH
    } else if timed_out {
        VERDICT_TIMEOUT
    } else {
        VERDICT_OK
    };
    (kind, st)
}

/// Removes everything in `dir` (what the last child made in the guest's root).
fn empty_dir(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        // A directory the guest made unreadable: readable again first.
        let _ = std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o700));
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = std::fs::remove_dir_all(&p);
        } else {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// One argument of a record, as the input gives it.
#[derive(Clone, Copy, Debug)]
enum Arg {
    /// This value.
    Value(u64),
    /// The result of the call this many records back (0 when there is none).
    Result(u8),
}

/// One call: the number and six arguments.
#[derive(Clone, Copy, Debug)]
struct Record {
    nr: u64,
    args: [Arg; 6],
}

/// An input: the records and the data pages' bytes.
struct Input {
    records: Vec<Record>,
    data: Vec<u8>,
}

/// Values an argument of kind 5 picks from.
const SPECIAL: [u64; 16] = [
    0,
    1,
    2,
    3,
    u64::MAX,
    0xffff_ffff_ffff_ff9c, // AT_FDCWD
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    1 << 63,
    4096,
    0x1000_0000,
    DATA + DATA_LEN - 1,
    ENTRY,
    8192,
    0x7fff_ffff_ffff_ffff,
];

impl Input {
    /// Reads an input (after its arch byte): a record count (1 to 16, from one byte), then
    /// per record a 16-bit number selector and six arguments, each a kind byte and its
    /// payload; the rest fills the data pages. A selector below 0x8000 picks one of the
    /// numbers the arch's table serves, otherwise its low 15 bits are the number. Argument
    /// kinds (the byte mod 8): 0 a pointer into the data pages or the first 256 bytes of the
    /// `PROT_NONE` page after them (16-bit offset), 1 a sign-extended byte, 2 a 32-bit value,
    /// 3 a 64-bit value, 4 the result of an earlier call (one byte: how far back), 5 one of
    /// [`SPECIAL`] (one byte), 6 a pointer up to 255 bytes before the end of the data pages
    /// (one byte), 7 zero.
    fn parse(bytes: &[u8], served: &[u64]) -> Input {
        let mut r = super::Reader(bytes);
        let n = usize::from(r.u8()) % MAX_RECORDS + 1;
        let mut records = Vec::with_capacity(n);
        for _ in 0..n {
            let sel = u16::from_le_bytes([r.u8(), r.u8()]);
            let nr = if sel < 0x8000 && !served.is_empty() {
                served[usize::from(sel) % served.len()]
            } else {
                u64::from(sel & 0x7fff)
            };
            let mut args = [Arg::Value(0); 6];
            for a in &mut args {
                *a = match r.u8() % 8 {
                    0 => Arg::Value(DATA + u64::from(u16::from_le_bytes([r.u8(), r.u8()])) % (DATA_LEN + 0x100)),
                    1 => Arg::Value(crate::abi::bits64(i8::from_le_bytes([r.u8()]))),
                    2 => Arg::Value(u64::from(u32::from_le_bytes([r.u8(), r.u8(), r.u8(), r.u8()]))),
                    3 => Arg::Value(r.u64()),
                    4 => Arg::Result(r.u8()),
                    5 => Arg::Value(SPECIAL[usize::from(r.u8() % 16)]),
                    6 => Arg::Value(DATA + DATA_LEN - u64::from(r.u8())),
                    _ => Arg::Value(0),
                };
            }
            records.push(Record { nr, args });
        }
        let data = r.0[..r.0.len().min(crate::abi::u64_to_usize(DATA_LEN))].to_vec();
        Input { records, data }
    }
}

/// The child's input and the results so far.
struct Calls {
    records: Vec<Record>,
    next: usize,
    results: Vec<u64>,
}

static CALLS: Mutex<Option<Calls>> = Mutex::new(None);

/// In a new child: its own process state, output and coverage; the input read and the data
/// pages filled.
fn child_start(cpu: &mut Cpu<'_>, ctx: &Ctx, shm: *mut u8, out: &Path) {
    crate::syscall::fork::after_fork_child();
    ROLE.store(CHILD, Ordering::Relaxed);
    // SAFETY: descriptor calls on this process's own descriptors; C strings of our paths.
    unsafe {
        libc::close(ctx.input);
        libc::close(ctx.verdict);
        libc::setpgid(0, 0);
        if let Some(c) = std::ffi::CString::new(out.as_os_str().as_bytes()).ok().filter(|_| !show()) {
            let fd = libc::open(c.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC, 0o600);
            if fd >= 0 {
                libc::dup2(fd, 1);
                libc::dup2(fd, 2);
                libc::close(fd);
            }
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::close(null);
        }
    }
    let (cnt, len) = counters();
    if len > 0 {
        // SAFETY: this process's own copy of the counters.
        unsafe { std::ptr::write_bytes(cnt, 0, len) };
    }
    let n = usize::try_from(shm_get(shm, SHM_LEN)).unwrap_or(0).min(MAX_INPUT);
    // SAFETY: the fuzzer's process wrote `n` bytes there before the go byte.
    let bytes = unsafe { std::slice::from_raw_parts(shm.add(SHM_INPUT), n) };
    let input = Input::parse(bytes.get(1..).unwrap_or(&[]), &ctx.served);
    let mm = &mut cpu.get_data_mut().mm;
    let _ = mm.write_bytes(GuestAddr::new(DATA), &[0; crate::abi::u64_to_usize(DATA_LEN)]);
    let _ = mm.write_bytes(GuestAddr::new(DATA), &input.data);
    *CALLS.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
        Some(Calls { records: input.records, next: 0, results: Vec::new() });
}

/// Puts the next call's number and arguments in the registers (`exit_group(0)` after the last).
fn next_call(cpu: &mut Cpu<'_>) {
    let arch = cpu.get_data().arch;
    let info = arch.info();
    let word = info.word_mask();
    let exit_group = (info.numbers)().number_of(Sys::exit_group).unwrap_or(0);
    let mut calls = CALLS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (nr, a) = match calls.as_mut() {
        Some(c) if c.next < c.records.len() => {
            let rec = c.records[c.next];
            c.next += 1;
            let mut a = [0u64; 6];
            for (v, arg) in a.iter_mut().zip(rec.args) {
                *v = match arg {
                    Arg::Value(x) => x,
                    Arg::Result(back) => {
                        let k = c.results.len();
                        if k == 0 {
                            0
                        } else {
                            c.results[k - 1 - usize::from(back) % k]
                        }
                    }
                } & word;
            }
            (rec.nr, a)
        }
        _ => (exit_group, [0; 6]),
    };
    drop(calls);
    let r = &info.regs;
    let ids = [r.nr, r.args[0], r.args[1], r.args[2], r.args[3], r.args[4], r.args[5]];
    let vals = [nr & word, a[0], a[1], a[2], a[3], a[4], a[5]];
    for (id, v) in ids.iter().zip(vals) {
        cpu.set_reg(*id, v);
    }
}

/// The tool's system-call entry: `Some(-EPERM)` refuses a call that must not run here.
fn entry(cpu: &mut Cpu<'_>, a: &mut SyscallArgs) -> Option<u64> {
    let arch = cpu.get_data().arch;
    let def = DispatchTable::of(arch).get(a.nr)?;
    let refuse = Some(crate::abi::bits64(-i64::from(libc::EPERM)));
    // SAFETY: no arguments.
    let pid = u64::from(unsafe { libc::getpid() }.unsigned_abs());
    match def.reach {
        Reach::Process => {}
        Reach::Pid(n) if a.a[usize::from(n)] & 0xffff_ffff == pid => {}
        Reach::Pid(_) | Reach::Pidfd(_) | Reach::Host => return refuse,
    }
    let crash_signal =
        |guest: u64| (arch.info().signal_to_host)(guest).is_some_and(|s: Signal| CRASH_SIGNALS.contains(&s.as_c_int()));
    // Where a signal number is, for the calls that send one (or have one sent later).
    let sig_at = match def.sys {
        // Processes and programs: a child the server does not wait for, an endgate it did
        // not start.
        Sys::fork | Sys::vfork | Sys::clone | Sys::clone3 | Sys::execve | Sys::execveat => return refuse,
        Sys::kill | Sys::tkill => Some(a.a[1]),
        Sys::tgkill | Sys::rt_tgsigqueueinfo => Some(a.a[2]),
        Sys::rt_sigqueueinfo => Some(a.a[1]),
        // F_SETSIG.
        Sys::fcntl | Sys::fcntl64 if a.a[1] & 0xffff_ffff == 10 => Some(a.a[2]),
        // A `struct sigevent`: sigev_signo after the pointer-sized sigev_value.
        Sys::timer_create | Sys::mq_notify => {
            let p = a.a[1];
            let off = if arch.info().is_64bit() { 8 } else { 4 };
            let signo = cpu.get_data().mm.read_u32(GuestAddr::new(p.wrapping_add(off))).ok();
            if p != 0 && signo.is_some_and(|s| crash_signal(u64::from(s))) {
                return refuse;
            }
            None
        }
        _ => None,
    };
    if sig_at.is_some_and(|s| crash_signal(s & 0xffff_ffff)) {
        return refuse;
    }
    None
}

/// The tool's system-call exit: keeps the result for later records.
fn result(_: &mut Cpu<'_>, _: &SyscallArgs, ret: u64) -> u64 {
    if let Some(c) = CALLS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
        c.results.push(ret);
    }
    ret
}

/// The guest process ended: in a child, its coverage goes to the fuzzer's process and the
/// child ends with status 0.
fn ended(_: Exit) {
    if ROLE.load(Ordering::Relaxed) != CHILD {
        return;
    }
    let (cnt, len) = counters();
    if let Some(shm) = shm() {
        if len > 0 {
            // SAFETY: both areas are `len` bytes; only this child writes the shared one now.
            unsafe { std::ptr::copy_nonoverlapping(cnt, shm.add(SHM_COUNTERS), len) };
            shm_set(shm, SHM_COUNTERS_SET, 1);
        }
    }
    // SAFETY: ends the child at once (its guest has ended).
    unsafe { libc::_exit(0) }
}

/// The branch back to the trap instruction that follows it, per ELF machine.
fn branch_back(machine: u16) -> &'static [u8] {
    match machine {
        // jmp .-4 (after the 2-byte syscall / int 0x80)
        62 | 3 => &[0xeb, 0xfc],
        // b .-4
        183 => &[0xff, 0xff, 0xff, 0x17],
        // b .-4 (A32: PC reads 8 ahead)
        40 => &[0xfd, 0xff, 0xff, 0xea],
        // j .-4
        243 => &[0x6f, 0xf0, 0xdf, 0xff],
        // j .-2 (brc 15, back one halfword pair)
        22 => &[0xa7, 0xf4, 0xff, 0xff],
        // b .-4, then the delay slot's nop
        8 => &[0xfe, 0xff, 0x00, 0x10, 0, 0, 0, 0],
        _ => &[],
    }
}

/// The guest program for `arch`: a static `ET_EXEC` whose entry is the arch's trap
/// instruction followed by a branch back to it, with the data pages (read-write) and a
/// `PROT_NONE` page after them as two more `PT_LOAD` segments.
pub fn guest_elf(arch: &dyn GuestArch) -> Vec<u8> {
    let info = arch.info();
    let is64 = info.is_64bit();
    let big = info.endian() == crate::abi::Endian::Big;
    let mut code = info.regs.trap.to_vec();
    code.extend_from_slice(branch_back(info.elf_machine));
    let mut f: Vec<u8> = Vec::new();
    let put = |f: &mut Vec<u8>, v: u64, n: usize| {
        let b = v.to_le_bytes();
        if big {
            f.extend(b[..n].iter().rev());
        } else {
            f.extend_from_slice(&b[..n]);
        }
    };
    let w = if is64 { 8 } else { 4 };
    let (ehsize, phsize) = if is64 { (64u64, 56u64) } else { (52, 32) };
    f.extend_from_slice(&[0x7f, b'E', b'L', b'F', if is64 { 2 } else { 1 }, if big { 2 } else { 1 }, 1, 0]);
    f.extend_from_slice(&[0; 8]);
    put(&mut f, 2, 2); // ET_EXEC
    put(&mut f, u64::from(info.elf_machine), 2);
    put(&mut f, 1, 4); // EV_CURRENT
    put(&mut f, ENTRY, w);
    put(&mut f, ehsize, w); // e_phoff
    put(&mut f, 0, w); // e_shoff
                       // e_flags: arm's EABI version 5 with hard float; MIPS 64r2, CPIC; others none.
    let flags = match info.elf_machine {
        40 => 0x0500_0400,
        8 => 0x8000_0006,
        _ => 0,
    };
    put(&mut f, flags, 4);
    put(&mut f, ehsize, 2);
    put(&mut f, phsize, 2);
    put(&mut f, 3, 2); // e_phnum
    put(&mut f, 0, 2);
    put(&mut f, 0, 2);
    put(&mut f, 0, 2);
    let file_len = ENTRY - CODE + code.len() as u64;
    // (vaddr, filesz, memsz, flags): code R+X, data R+W, then no access.
    let segs = [(CODE, file_len, file_len, 5u64), (DATA, 0, DATA_LEN, 6), (DATA + DATA_LEN, 0, 0x1000, 0)];
    for (vaddr, filesz, memsz, pflags) in segs {
        put(&mut f, 1, 4); // PT_LOAD
        if is64 {
            put(&mut f, pflags, 4);
        }
        put(&mut f, 0, w); // p_offset
        put(&mut f, vaddr, w);
        put(&mut f, vaddr, w);
        put(&mut f, filesz, w);
        put(&mut f, memsz, w);
        if !is64 {
            put(&mut f, pflags, 4);
        }
        put(&mut f, 0x1000, w);
    }
    f.resize(crate::abi::u64_to_usize(ENTRY - CODE), 0);
    f.extend_from_slice(&code);
    f
}
