//! A Rust API for tools: run a guest program in this process, with hooks on its system calls,
//! translated blocks, memory accesses, signals and exit.
//!
//! ```no_run
//! use endgate::api::{Emulator, SyscallAction};
//!
//! let status = Emulator::builder("./hello-aarch64")
//!     .args(["one", "two"])
//!     .env("LANG", "C")
//!     .sysroot("/usr/aarch64-linux-gnu")
//!     .on_syscall(|ctx| {
//!         if ctx.name() == Some("getppid") {
//!             return SyscallAction::Skip(1); // the guest's parent is init
//!         }
//!         SyscallAction::Continue
//!     })
//!     .on_syscall_exit(|ctx| {
//!         if ctx.name() == Some("write") {
//!             eprintln!("write -> {:?}", ctx.result());
//!         }
//!     })
//!     .run()
//!     .expect("start the guest");
//! status.exit(); // end this process as the `endgate` command would
//! ```
//!
//! # One guest per process
//! [`Builder::run`] runs the guest in the calling process, as the `endgate` command does, and
//! can be called once per process ([`Error::AlreadyRan`] after that): endgate's state (the
//! guest's address space, its signal dispositions, which are the host process's own, its
//! descriptors, which are the host's) is the process's. `run` returns when the guest process
//! ends on the calling thread (its `exit_group`, a fatal signal); its other guest threads are
//! then stopped for good. If the guest ends from another of its threads (or the guest's main
//! thread calls `pthread_exit`), `run` does not return: the process ends with the guest's
//! status, as the command's would, after the [`Builder::on_exit`] hook ran.
//!
//! # Processes
//! Hooks live in the process that registered them. A guest `fork` (or `vfork`, or `clone`
//! without `CLONE_VM`) is a host `fork` of the whole process, so the child keeps every hook
//! (closures and their state are copied with the process memory; [`std::process::id`] tells
//! them apart) and, when its guest ends, the child process ends with the guest's status
//! instead of returning from `run` (its `on_exit` hook runs first). A guest `execve` starts a
//! fresh endgate for the new program: the `endgate` command named by [`Builder::exec_binary`]
//! (by default an `endgate` beside the tool's executable, in its parent directory, or in
//! `PATH`), without any hook; with none found, the guest's `execve` fails with `ENOEXEC`
//! once the target has been checked.
//!
//! # Hooks
//! Each hook is an `FnMut + Send + 'static` closure. They run one at a time, under endgate's
//! global guest lock (with several guest threads running at once, a block or memory hook
//! makes them take turns there), and never unwind into the CPU engine: a panic in a hook ends
//! the process with status 70 and one line, `endgate: internal error in the tool's syscall
//! hook: MESSAGE at FILE:LINE` (`crate::guard`).
//!
//! Cost: a hook that is not registered costs nothing. The system-call path reads one
//! `OnceLock` (a load and a branch) to learn that no tool registered anything; block and
//! memory hooks are engine hooks added to each instance only when registered; signal
//! delivery and the end of the process read the same `OnceLock`. With hooks registered: a
//! syscall hook costs a mutex and an indirect call per call; a block hook an engine callback
//! per block (~1-3 ns) plus the closure; any memory hook makes every guest load and store of
//! every range go through unicorn's slow path (loads ~4x slower), whatever range it watches.
//!
//! docs/api.md has the overview and the limits.

use std::ffi::{OsStr, OsString};
use std::ops::{Deref, DerefMut, Range};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use unicorn_engine::{uc_error, HookType, MemType};

use crate::guard::guarded;
use crate::guest::tool::Tool;
use crate::guest::{Cpu, ExecWith, Exit, Options, SyscallArgs};
use crate::mm::{GuestAddr, Prot, VmaName};
use crate::signal::{SigFields, SigInfo};

/// The entry point of the API: [`Emulator::builder`].
#[derive(Debug)]
pub struct Emulator {
    _private: (),
}

impl Emulator {
    /// A builder for running `program`, a guest ELF path (an absolute path is looked up under
    /// the [sysroot](Builder::sysroot) first, as the command's `-L` does). `argv[0]` is
    /// `program` unless [`Builder::argv0`] says otherwise; the environment is this process's
    /// unless changed with [`Builder::env`], [`Builder::env_remove`] or [`Builder::env_clear`].
    pub fn builder(program: impl AsRef<OsStr>) -> Builder {
        Builder {
            program: program.as_ref().to_os_string(),
            argv0: None,
            args: Vec::new(),
            env: std::env::vars_os().collect(),
            sysroot: None,
            strace: false,
            exec_binary: None,
            hooks: Hooks::default(),
        }
    }
}

/// What to run and which hooks to run it with; [`Builder::run`] runs it.
pub struct Builder {
    program: OsString,
    argv0: Option<OsString>,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    sysroot: Option<PathBuf>,
    strace: bool,
    exec_binary: Option<PathBuf>,
    hooks: Hooks,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("program", &self.program)
            .field("argv0", &self.argv0)
            .field("args", &self.args)
            .field("sysroot", &self.sysroot)
            .field("strace", &self.strace)
            .field("exec_binary", &self.exec_binary)
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// Adds one argument (`argv[1]` is the first one added).
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    /// Adds arguments, in order.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// The guest's `argv[0]` (default: the program path), as the command's `-0`.
    pub fn argv0(mut self, argv0: impl AsRef<OsStr>) -> Self {
        self.argv0 = Some(argv0.as_ref().to_os_string());
        self
    }

    /// Sets one variable of the guest's environment (replacing one of the same name), as the
    /// command's `-E VAR=VALUE`.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        let key = key.as_ref().to_os_string();
        self.env.retain(|(k, _)| *k != key);
        self.env.push((key, value.as_ref().to_os_string()));
        self
    }

    /// Sets several variables, as [`Builder::env`] each.
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        for (k, v) in vars {
            self = self.env(k, v);
        }
        self
    }

    /// Removes one variable from the guest's environment, as the command's `-U VAR`.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env.retain(|(k, _)| k != key.as_ref());
        self
    }

    /// Starts the guest with an empty environment (variables set afterwards are kept).
    pub fn env_clear(mut self) -> Self {
        self.env.clear();
        self
    }

    /// The sysroot: absolute guest paths are looked up under `path` first, as the command's
    /// `-L PATH` (e.g. `/usr/aarch64-linux-gnu` for a dynamically linked aarch64 program).
    pub fn sysroot(mut self, path: impl AsRef<Path>) -> Self {
        self.sysroot = Some(path.as_ref().to_path_buf());
        self
    }

    /// Prints every guest system call on stderr in strace's format, as the command's
    /// `--strace` (the lines show the arguments a syscall hook left and the result the guest
    /// sees).
    pub fn strace(mut self, on: bool) -> Self {
        self.strace = on;
        self
    }

    /// The `endgate` command a guest `execve` runs the new program under (see the module
    /// doc, "Processes"). Default: `endgate` beside this executable, in its parent directory
    /// (cargo's `examples/` and `deps/`), or in `PATH`.
    pub fn exec_binary(mut self, path: impl AsRef<Path>) -> Self {
        self.exec_binary = Some(path.as_ref().to_path_buf());
        self
    }

    /// Calls `hook` at the entry of every guest system call, with its six arguments, which it
    /// may change ([`SyscallCtx::set_arg`]); it returns whether the call runs
    /// ([`SyscallAction::Continue`]) or is served with a result of the hook's choosing
    /// ([`SyscallAction::Skip`]). The hook runs before the guest's own seccomp filters, as a
    /// ptrace tracer's stop does; a call a signal interrupts and that restarts reaches the
    /// hook again, with the arguments the guest passed. The number cannot be changed. vDSO
    /// calls endgate answers without a system call (`clock_gettime`…) are not seen. A second
    /// call replaces the first hook.
    pub fn on_syscall<F>(mut self, hook: F) -> Self
    where
        F: FnMut(&mut SyscallCtx<'_, '_>) -> SyscallAction + Send + 'static,
    {
        self.hooks.syscall = Some(Mutex::new(Box::new(hook)));
        self
    }

    /// Calls `hook` when a guest system call returns, before the guest sees the result:
    /// [`SyscallCtx::result`] is the result and [`SyscallCtx::set_result`] changes it. Calls
    /// that do not return to the guest that way are not seen: `exit`, `exit_group`, a
    /// successful `execve`, `rt_sigreturn`/`sigreturn`, a `clone` that makes a thread, a call
    /// a guest seccomp filter traps. A second call replaces the first hook.
    pub fn on_syscall_exit<F>(mut self, hook: F) -> Self
    where
        F: FnMut(&mut SyscallCtx<'_, '_>) + Send + 'static,
    {
        self.hooks.syscall_exit = Some(Mutex::new(Box::new(hook)));
        self
    }

    /// Calls `hook` before every translated block the guest runs (every instruction's block,
    /// each time it runs, on every guest thread). A second call replaces the first hook.
    pub fn on_block<F>(mut self, hook: F) -> Self
    where
        F: FnMut(&mut BlockCtx<'_, '_>) + Send + 'static,
    {
        self.hooks.block = Some(Mutex::new(Box::new(hook)));
        self
    }

    /// Calls `hook` for every guest load (`Access::Read`), store (`Access::Write`) or both
    /// whose address is in `range`, made by guest instructions (not by endgate serving a
    /// system call, which reads and writes guest memory on the guest's behalf). Writes are
    /// seen before they land, with the value stored. Several memory hooks may be registered.
    /// Any memory hook slows every guest memory access (see the module doc, "Cost").
    pub fn on_mem_access<F>(mut self, range: Range<u64>, access: Access, hook: F) -> Self
    where
        F: FnMut(&mut MemCtx<'_, '_>) + Send + 'static,
    {
        self.hooks.mem.push(MemHook { range, access, hook: Mutex::new(Box::new(hook)) });
        self
    }

    /// Calls `hook` before a signal is delivered to the guest: a fault its instruction raised
    /// (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, whatever the guest's disposition), or a
    /// signal that runs a guest handler or whose default action endgate carries out. Signals
    /// whose guest disposition is `SIG_IGN`, or whose default action the host kernel carries
    /// out itself (a `SIGTERM` at `SIG_DFL` ends the process at once), are not seen. The hook
    /// may drop the signal ([`SignalAction::Suppress`]); a dropped fault runs its instruction
    /// again, unless the hook moved the program counter ([`SignalCtx::set_pc`]).
    pub fn on_signal<F>(mut self, hook: F) -> Self
    where
        F: FnMut(&mut SignalCtx<'_, '_>) -> SignalAction + Send + 'static,
    {
        self.hooks.signal = Some(Mutex::new(Box::new(hook)));
        self
    }

    /// Calls `hook` once when the guest process ends (in this process, and in each process a
    /// guest `fork` made), with how it ended, before [`Builder::run`] returns or the process
    /// ends. It gets no guest context: the guest's memory is no longer for hooks to read.
    pub fn on_exit<F>(mut self, hook: F) -> Self
    where
        F: FnMut(&ExitStatus) + Send + 'static,
    {
        self.hooks.exit = Some(Mutex::new(Box::new(hook)));
        self
    }

    /// Loads the program and runs it to its end in this process (see the module doc): how
    /// the guest ended, or why it could not start.
    ///
    /// Before the guest starts, `SIGPIPE`, `SIGSEGV` and `SIGBUS` get their default host
    /// disposition back (Rust's start-up code ignores `SIGPIPE` and catches the other two for
    /// its stack-overflow check; the guest starts with defaults, as under the command). Once
    /// `run` returns, Rust's default panic hook is back (endgate's own records panics for its
    /// one-line internal-error report).
    pub fn run(self) -> Result<ExitStatus, Error> {
        static RAN: AtomicBool = AtomicBool::new(false);
        if RAN.swap(true, Ordering::SeqCst) {
            return Err(Error::AlreadyRan);
        }
        let nul = |b: &[u8]| b.contains(&0);
        let mut argv: Vec<Vec<u8>> = vec![self.argv0.unwrap_or_else(|| self.program.clone()).into_vec()];
        argv.extend(self.args.into_iter().map(OsStringExt::into_vec));
        let envp: Vec<Vec<u8>> = self
            .env
            .into_iter()
            .map(|(k, v)| {
                let mut b = k.into_vec();
                b.push(b'=');
                b.extend(v.into_vec());
                b
            })
            .collect();
        if nul(self.program.as_bytes()) || argv.iter().chain(&envp).any(|s| nul(s)) {
            return Err(Error::Nul);
        }
        let exec_with = match self.exec_binary.or_else(find_endgate) {
            Some(p) => ExecWith::Binary(p),
            None => ExecWith::Refused,
        };
        let opts = Options { strace: self.strace, sysroot: self.sysroot, exec_with, ..Options::default() };
        for sig in [libc::SIGPIPE, libc::SIGSEGV, libc::SIGBUS] {
            // SAFETY: resets one disposition to the default; no handler of ours is replaced
            // (endgate installs its own later, as the guest needs them).
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
        let hooks = self.hooks;
        let tool = Tool {
            syscall_entry: hooks.syscall.is_some().then_some(syscall_entry as _),
            syscall_exit: hooks.syscall_exit.is_some().then_some(syscall_exit as _),
            signal: hooks.signal.is_some().then_some(signal_hook as _),
            instance: (hooks.block.is_some() || !hooks.mem.is_empty()).then_some(add_instance_hooks as _),
            exit: hooks.exit.is_some().then_some(exit_hook as _),
        };
        let any = tool.syscall_entry.is_some()
            || tool.syscall_exit.is_some()
            || tool.signal.is_some()
            || tool.instance.is_some()
            || tool.exit.is_some();
        if HOOKS.set(hooks).is_err() {
            return Err(Error::AlreadyRan);
        }
        if any {
            crate::guest::tool::set(tool);
        }
        let path = self.program.clone();
        let (exit, report) = crate::launch(opts, crate::Program { path, argv, envp, comm: None })?;
        if crate::syscall::fork::is_guest_child() {
            // A process the guest forked: it ends here, as the command's would, so that the
            // guest parent's wait sees its status (or its death by the signal).
            let status = crate::exit_status(exit, report);
            use std::io::Write as _;
            let _ = std::io::stdout().flush();
            std::process::exit(i32::from(status));
        }
        // The guest's other threads never run again: stop the running ones (they wait for
        // the guest lock, which this thread keeps).
        if !crate::thread::lock::held() {
            crate::thread::lock::acquire();
        }
        crate::thread::running::quiesce();
        drop(std::panic::take_hook());
        Ok(ExitStatus { exit, report })
    }
}

/// An `endgate` command for a guest `execve`: beside the current executable, in its parent
/// directory, or in `PATH`.
fn find_endgate() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let mut dirs: Vec<PathBuf> = exe.ancestors().skip(1).take(2).map(Path::to_path_buf).collect();
    dirs.extend(std::env::var_os("PATH").iter().flat_map(std::env::split_paths));
    dirs.into_iter().map(|d| d.join("endgate")).find(|p| {
        std::fs::metadata(p)
            .is_ok_and(|m| m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0)
    })
}

/// Why [`Builder::run`] could not run the guest (the guest's own failures are its
/// [`ExitStatus`]).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `run` was called before in this process (one guest per process).
    #[error("endgate runs one guest per process: run() was called already")]
    AlreadyRan,
    /// The program path, an argument or an environment string holds a NUL byte.
    #[error("the program path, an argument or an environment string holds a NUL byte")]
    Nul,
    /// The program could not be started: a missing file, not an ELF, an arch endgate does
    /// not run, no room for the address space (the command's one-line errors).
    #[error(transparent)]
    Launch(#[from] crate::LaunchError),
}

impl Error {
    /// The exit status the `endgate` command gives for this failure (127 for a missing file,
    /// 126 for one it cannot run, 1 otherwise; 2 for a usage error).
    pub fn exit_status(&self) -> u8 {
        match self {
            Error::Launch(e) => crate::abi::low8(e.exit_status()),
            Error::AlreadyRan | Error::Nul => 2,
        }
    }
}

/// How the guest process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    exit: Exit,
    report: Option<String>,
}

impl ExitStatus {
    /// The guest's exit status (`exit`/`exit_group`'s argument; its low 8 bits are what a
    /// parent sees), or `None` if it did not exit.
    pub fn code(&self) -> Option<i32> {
        match self.exit {
            Exit::Code(c) => Some(c),
            _ => None,
        }
    }

    /// The signal that killed the guest (the host's, that is x86_64 Linux's, number), or
    /// `None`.
    pub fn signal(&self) -> Option<i32> {
        match self.exit {
            Exit::Signal { sig, .. } => Some(sig.as_c_int()),
            _ => None,
        }
    }

    /// For a guest killed by a signal: the guest program counter then.
    pub fn pc(&self) -> Option<u64> {
        match self.exit {
            Exit::Signal { pc, .. } => Some(pc),
            _ => None,
        }
    }

    /// For a guest killed by a fault: the guest address that was refused.
    pub fn fault_addr(&self) -> Option<u64> {
        match self.exit {
            Exit::Signal { addr, .. } => addr,
            _ => None,
        }
    }

    /// endgate itself failed while serving the guest (a bug, not the guest's doing).
    pub fn internal_error(&self) -> bool {
        self.exit == Exit::Internal
    }

    /// The guest exited with status 0.
    pub fn success(&self) -> bool {
        self.exit == Exit::Code(0)
    }

    /// The one line the `endgate` command prints for a guest killed by a signal (`endgate:
    /// ./prog: killed by SIGSEGV at pc 0x401000 …`), when there is one. Empty in
    /// [`Builder::on_exit`], which runs before it is made.
    pub fn report(&self) -> Option<&str> {
        self.report.as_deref()
    }

    /// The status the `endgate` command exits with: the guest's status, 128+signal, 70 for
    /// an internal error.
    pub fn status(&self) -> u8 {
        match self.exit {
            Exit::Code(c) => crate::abi::low8(c),
            Exit::Signal { sig, .. } => crate::abi::low8(128 + sig.0),
            Exit::Internal => crate::abi::low8(crate::guard::STATUS),
        }
    }

    /// Ends this process as the `endgate` command would: the report line on stderr for a
    /// fatal signal, then [`ExitStatus::status`]. Flushes Rust's stdout first.
    pub fn exit(self) -> ! {
        let status = crate::exit_status(self.exit, self.report);
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        std::process::exit(i32::from(status))
    }
}

/// What a syscall entry hook decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyscallAction {
    /// Serve the call (with the arguments as the hook left them).
    Continue,
    /// Do not serve it: the guest sees this result instead, a value or `-errno`
    /// (`Skip(-i64::from(libc::EPERM))`), as the guest's word (a 32-bit guest sees the low
    /// 32 bits).
    Skip(i64),
}

/// What a signal hook decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalAction {
    /// Deliver the signal as the guest's disposition says.
    Deliver,
    /// Drop it (see [`Builder::on_signal`]).
    Suppress,
}

/// Which guest memory accesses a memory hook sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Loads.
    Read,
    /// Stores.
    Write,
    /// Loads and stores.
    ReadWrite,
}

/// A guest memory access endgate could not make: the range is not mapped with the
/// permission (as the kernel's `EFAULT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("guest memory at {addr:#x} is not accessible")]
pub struct MemError {
    /// The guest address of the access.
    pub addr: u64,
}

/// One guest mapping, as a line of the guest's `/proc/self/maps` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// First guest address.
    pub start: u64,
    /// One past the last guest address.
    pub end: u64,
    /// The guest may read it.
    pub read: bool,
    /// The guest may write it.
    pub write: bool,
    /// The guest may run code from it.
    pub exec: bool,
    /// The file mapped (its guest path), `None` for anonymous memory, heap, stack, vDSO.
    pub file: Option<String>,
    /// The name `/proc/self/maps` shows: the file, `[heap]`, `[stack]`, `[vdso]`… or empty.
    pub name: String,
    /// The file offset of `start` (0 without a file).
    pub offset: u64,
}

impl Mapping {
    /// The address the file's offset 0 is (or would be) mapped at: `start - offset`, a
    /// module's base for module-relative addresses.
    pub fn base(&self) -> u64 {
        self.start.wrapping_sub(self.offset)
    }
}

/// The running guest, as every hook's context gives it (the contexts dereference to it): its
/// arch, program counter and memory.
pub struct Guest<'a, 'c> {
    cpu: &'a mut Cpu<'c>,
}

impl std::fmt::Debug for Guest<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guest").field("arch", &self.arch()).field("pc", &self.pc()).finish()
    }
}

impl Guest<'_, '_> {
    /// The guest architecture's name: `x86_64`, `aarch64`, `riscv64`, `arm`, `i386`,
    /// `s390x` or `mips64el`.
    pub fn arch(&self) -> &'static str {
        self.cpu.get_data().arch.info().name
    }

    /// The guest's word size in bytes (4 or 8).
    pub fn word_bytes(&self) -> u32 {
        if self.cpu.get_data().arch.info().is_64bit() {
            8
        } else {
            4
        }
    }

    /// The guest program counter (in a syscall hook: past the trap instruction on most
    /// arches; see docs/ARCHITECTURE.md's arch table).
    pub fn pc(&self) -> u64 {
        self.cpu.get_data().arch.pc(self.cpu)
    }

    /// The host thread id of this guest thread (guest thread ids are host thread ids).
    pub fn tid(&self) -> i32 {
        crate::thread::gettid()
    }

    /// Copies `buf.len()` bytes of guest memory at `addr` into `buf` (the guest must be
    /// allowed to read them).
    pub fn read_mem(&self, addr: u64, buf: &mut [u8]) -> Result<(), MemError> {
        self.cpu.get_data().mm.read_bytes(GuestAddr::new(addr), buf).map_err(|_| MemError { addr })
    }

    /// Reads `len` bytes of guest memory at `addr`.
    pub fn read_vec(&self, addr: u64, len: usize) -> Result<Vec<u8>, MemError> {
        let mut v = vec![0; len];
        self.read_mem(addr, &mut v)?;
        Ok(v)
    }

    /// Reads a NUL-terminated string at `addr` (without its NUL), at most `max` bytes.
    pub fn read_cstr(&self, addr: u64, max: usize) -> Result<Vec<u8>, MemError> {
        self.cpu.get_data().mm.read_cstr(GuestAddr::new(addr), max).map_err(|_| MemError { addr })
    }

    /// Reads a guest word (4 or 8 bytes, in the guest's byte order) at `addr`.
    pub fn read_word(&self, addr: u64) -> Result<u64, MemError> {
        self.cpu.get_data().mm.read_ulong(GuestAddr::new(addr)).map_err(|_| MemError { addr })
    }

    /// Copies `data` into guest memory at `addr` (the guest must be allowed to write there;
    /// code the guest already ran from there is not translated again).
    pub fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<(), MemError> {
        self.cpu.get_data_mut().mm.write_bytes(GuestAddr::new(addr), data).map_err(|_| MemError { addr })
    }

    /// The guest mapping that holds `addr`, if any.
    pub fn mapping_at(&self, addr: u64) -> Option<Mapping> {
        let mm = &self.cpu.get_data().mm;
        let (start, v) = mm.vma_at(addr)?;
        let (file, name) = match &v.name {
            VmaName::File(p) => (Some(p.clone()), p.clone()),
            VmaName::Anon => (None, String::new()),
            VmaName::Heap => (None, "[heap]".to_string()),
            VmaName::Stack => (None, "[stack]".to_string()),
            VmaName::Gate(n) => (None, (*n).to_string()),
            #[allow(unreachable_patterns)]
            _ => (None, String::new()),
        };
        Some(Mapping {
            start,
            end: v.end,
            read: v.prot.contains(Prot::READ),
            write: v.prot.contains(Prot::WRITE),
            exec: v.prot.contains(Prot::EXEC),
            file,
            name,
            offset: if matches!(v.name, VmaName::File(_)) { v.offset } else { 0 },
        })
    }
}

/// A guest system call, as a syscall hook sees it ([`Builder::on_syscall`],
/// [`Builder::on_syscall_exit`]). Dereferences to [`Guest`] (memory, pc, arch).
pub struct SyscallCtx<'a, 'c> {
    guest: Guest<'a, 'c>,
    args: &'a mut SyscallArgs,
    result: Option<u64>,
}

impl std::fmt::Debug for SyscallCtx<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyscallCtx")
            .field("name", &self.name())
            .field("nr", &self.nr())
            .field("args", &self.args())
            .field("result", &self.result())
            .finish()
    }
}

impl<'a, 'c> Deref for SyscallCtx<'a, 'c> {
    type Target = Guest<'a, 'c>;
    fn deref(&self) -> &Guest<'a, 'c> {
        &self.guest
    }
}

impl<'a, 'c> DerefMut for SyscallCtx<'a, 'c> {
    fn deref_mut(&mut self) -> &mut Guest<'a, 'c> {
        &mut self.guest
    }
}

impl SyscallCtx<'_, '_> {
    /// The call's number in the guest arch's own table.
    pub fn nr(&self) -> u64 {
        self.args.nr
    }

    /// The call's kernel name in the guest arch's table (`"openat"`, `"getppid"`), `None`
    /// for a number the arch does not define.
    pub fn name(&self) -> Option<&'static str> {
        (self.guest.cpu.get_data().arch.info().numbers)().name_of(self.args.nr)
    }

    /// Argument `n` (0-5, in the arch ABI's order) as its register holds it (masked to the
    /// guest's word). Panics if `n` > 5.
    pub fn arg(&self, n: usize) -> u64 {
        self.args.a[n]
    }

    /// The six arguments.
    pub fn args(&self) -> [u64; 6] {
        self.args.a
    }

    /// Changes argument `n` (0-5) for the handler (an entry hook; in an exit hook it changes
    /// nothing). The guest's registers keep what the guest passed (but the result register).
    /// Panics if `n` > 5.
    pub fn set_arg(&mut self, n: usize, value: u64) {
        self.args.a[n] = value & self.guest.cpu.get_data().arch.info().word_mask();
    }

    /// In an exit hook, the result the guest is to see (a value, or `-errno`), sign-extended
    /// from the guest's word; `None` in an entry hook.
    pub fn result(&self) -> Option<i64> {
        let r = self.result?;
        Some(if self.guest.word_bytes() == 4 { i64::from(crate::abi::int32(r)) } else { crate::abi::signed64(r) })
    }

    /// In an exit hook, the errno of a failed call (`result()` in -4095..=-1), else `None`.
    pub fn errno(&self) -> Option<i32> {
        self.result().filter(|r| (-4095..0).contains(r)).and_then(|r| i32::try_from(-r).ok())
    }

    /// In an exit hook, changes the result the guest sees (a value, or `-errno`); nothing in
    /// an entry hook (return [`SyscallAction::Skip`] there).
    pub fn set_result(&mut self, value: i64) {
        if self.result.is_some() {
            self.result = Some(crate::abi::bits64(value) & self.guest.cpu.get_data().arch.info().word_mask());
        }
    }
}

/// A translated block about to run, as a block hook sees it ([`Builder::on_block`]).
/// Dereferences to [`Guest`].
pub struct BlockCtx<'a, 'c> {
    guest: Guest<'a, 'c>,
    addr: u64,
    size: u32,
}

impl std::fmt::Debug for BlockCtx<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCtx").field("addr", &self.addr).field("size", &self.size).finish()
    }
}

impl<'a, 'c> Deref for BlockCtx<'a, 'c> {
    type Target = Guest<'a, 'c>;
    fn deref(&self) -> &Guest<'a, 'c> {
        &self.guest
    }
}

impl<'a, 'c> DerefMut for BlockCtx<'a, 'c> {
    fn deref_mut(&mut self) -> &mut Guest<'a, 'c> {
        &mut self.guest
    }
}

impl BlockCtx<'_, '_> {
    /// The guest address of the block's first instruction.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// The block's size in bytes of guest code.
    pub fn size(&self) -> u32 {
        self.size
    }
}

/// A guest load or store, as a memory hook sees it ([`Builder::on_mem_access`]).
/// Dereferences to [`Guest`].
pub struct MemCtx<'a, 'c> {
    guest: Guest<'a, 'c>,
    write: bool,
    addr: u64,
    size: usize,
    value: i64,
}

impl std::fmt::Debug for MemCtx<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemCtx")
            .field("write", &self.write)
            .field("addr", &self.addr)
            .field("size", &self.size)
            .finish()
    }
}

impl<'a, 'c> Deref for MemCtx<'a, 'c> {
    type Target = Guest<'a, 'c>;
    fn deref(&self) -> &Guest<'a, 'c> {
        &self.guest
    }
}

impl<'a, 'c> DerefMut for MemCtx<'a, 'c> {
    fn deref_mut(&mut self) -> &mut Guest<'a, 'c> {
        &mut self.guest
    }
}

impl MemCtx<'_, '_> {
    /// `true` for a store, `false` for a load.
    pub fn is_write(&self) -> bool {
        self.write
    }

    /// The guest address accessed.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// The access's size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// For a store, the value stored (its low `size` bytes); `None` for a load (the hook
    /// runs before the load; [`Guest::read_mem`] reads the memory as it is).
    pub fn value(&self) -> Option<u64> {
        self.write.then_some(crate::abi::bits64(self.value))
    }
}

/// A signal about to be delivered to the guest, as a signal hook sees it
/// ([`Builder::on_signal`]). Dereferences to [`Guest`].
pub struct SignalCtx<'a, 'c> {
    guest: Guest<'a, 'c>,
    info: &'a SigInfo,
    fault: bool,
}

impl std::fmt::Debug for SignalCtx<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignalCtx")
            .field("signal", &self.signal())
            .field("code", &self.code())
            .field("fault", &self.fault)
            .finish()
    }
}

impl<'a, 'c> Deref for SignalCtx<'a, 'c> {
    type Target = Guest<'a, 'c>;
    fn deref(&self) -> &Guest<'a, 'c> {
        &self.guest
    }
}

impl<'a, 'c> DerefMut for SignalCtx<'a, 'c> {
    fn deref_mut(&mut self) -> &mut Guest<'a, 'c> {
        &mut self.guest
    }
}

impl SignalCtx<'_, '_> {
    /// The signal, numbered as on the host (x86_64 Linux: `libc::SIGSEGV`…).
    pub fn signal(&self) -> i32 {
        self.info.signo.as_c_int()
    }

    /// The signal as the guest numbers it (differs from [`SignalCtx::signal`] on mips64el).
    pub fn guest_signal(&self) -> u64 {
        (self.guest.cpu.get_data().arch.info().signal_from_host)(self.info.signo)
    }

    /// The signal's name (`"SIGSEGV"`).
    pub fn name(&self) -> String {
        self.info.signo.to_string()
    }

    /// `si_code` (`SEGV_MAPERR` 1, `SI_USER` 0, `SI_TKILL` -6…).
    pub fn code(&self) -> i32 {
        self.info.code
    }

    /// `true` for a fault the guest's own instruction raised (synchronous).
    pub fn is_fault(&self) -> bool {
        self.fault
    }

    /// For SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGTRAP faults: `si_addr`.
    pub fn fault_addr(&self) -> Option<u64> {
        match self.info.fields {
            SigFields::Fault { addr } => Some(addr),
            _ => None,
        }
    }

    /// Moves the guest program counter (to resume past a faulting instruction whose signal
    /// the hook suppresses).
    pub fn set_pc(&mut self, pc: u64) {
        use crate::guard::Checked as _;
        let reg = self.guest.cpu.get_data().arch.info().regs.pc;
        self.guest.cpu.set_reg(reg, pc);
    }
}

type SyscallHook = Box<dyn FnMut(&mut SyscallCtx<'_, '_>) -> SyscallAction + Send>;
type SyscallExitHook = Box<dyn FnMut(&mut SyscallCtx<'_, '_>) + Send>;
type BlockHook = Box<dyn FnMut(&mut BlockCtx<'_, '_>) + Send>;
type MemHookFn = Box<dyn FnMut(&mut MemCtx<'_, '_>) + Send>;
type SignalHook = Box<dyn FnMut(&mut SignalCtx<'_, '_>) -> SignalAction + Send>;
type ExitHook = Box<dyn FnMut(&ExitStatus) + Send>;

struct MemHook {
    range: Range<u64>,
    access: Access,
    hook: Mutex<MemHookFn>,
}

/// The hooks a [`Builder`] registered; in [`HOOKS`] once it runs.
#[derive(Default)]
struct Hooks {
    syscall: Option<Mutex<SyscallHook>>,
    syscall_exit: Option<Mutex<SyscallExitHook>>,
    block: Option<Mutex<BlockHook>>,
    mem: Vec<MemHook>,
    signal: Option<Mutex<SignalHook>>,
    exit: Option<Mutex<ExitHook>>,
}

static HOOKS: OnceLock<Hooks> = OnceLock::new();

/// Locks one hook (a panic inside a hook ends the process, so a poisoned lock is never seen
/// by anyone; taken anyway).
fn lock<T: ?Sized>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn syscall_entry(cpu: &mut Cpu<'_>, args: &mut SyscallArgs) -> Option<u64> {
    let hook = HOOKS.get()?.syscall.as_ref()?;
    guarded(&"the tool's syscall hook", || {
        let mut ctx = SyscallCtx { guest: Guest { cpu }, args, result: None };
        match (lock(hook))(&mut ctx) {
            SyscallAction::Continue => None,
            SyscallAction::Skip(r) => Some(crate::abi::bits64(r)),
        }
    })
}

fn syscall_exit(cpu: &mut Cpu<'_>, args: &SyscallArgs, ret: u64) -> u64 {
    let Some(hook) = HOOKS.get().and_then(|h| h.syscall_exit.as_ref()) else { return ret };
    guarded(&"the tool's syscall exit hook", || {
        let mut args = *args;
        let mut ctx = SyscallCtx { guest: Guest { cpu }, args: &mut args, result: Some(ret) };
        (lock(hook))(&mut ctx);
        ctx.result.unwrap_or(ret)
    })
}

fn signal_hook(cpu: &mut Cpu<'_>, info: &SigInfo, fault: bool) -> bool {
    let Some(hook) = HOOKS.get().and_then(|h| h.signal.as_ref()) else { return true };
    guarded(&"the tool's signal hook", || {
        let mut ctx = SignalCtx { guest: Guest { cpu }, info, fault };
        (lock(hook))(&mut ctx) == SignalAction::Deliver
    })
}

fn exit_hook(exit: Exit) {
    let Some(hook) = HOOKS.get().and_then(|h| h.exit.as_ref()) else { return };
    guarded(&"the tool's exit hook", || (lock(hook))(&ExitStatus { exit, report: None }));
}

/// The lowest guest address a hook range starts at (the kernel's `mmap_min_addr`).
const LOWEST: u64 = crate::mm::MMAP_MIN_ADDR;

fn add_instance_hooks(cpu: &mut Cpu<'static>) -> Result<(), uc_error> {
    let Some(hooks) = HOOKS.get() else { return Ok(()) };
    if let Some(hook) = &hooks.block {
        cpu.add_block_hook(LOWEST, u64::MAX, move |cpu, addr, size| {
            guarded(&"the tool's block hook", || {
                crate::guest::locked(cpu, |cpu| {
                    (lock(hook))(&mut BlockCtx { guest: Guest { cpu }, addr, size });
                });
            });
        })?;
    }
    for m in &hooks.mem {
        if m.range.is_empty() {
            continue;
        }
        let ty = match m.access {
            Access::Read => HookType::MEM_READ,
            Access::Write => HookType::MEM_WRITE,
            Access::ReadWrite => HookType::MEM_READ | HookType::MEM_WRITE,
        };
        let hook = &m.hook;
        cpu.add_mem_hook(ty, m.range.start, m.range.end - 1, move |cpu, ty, addr, size, value| {
            guarded(&"the tool's memory hook", || {
                crate::guest::locked(cpu, |cpu| {
                    let write = ty == MemType::WRITE;
                    (lock(hook))(&mut MemCtx { guest: Guest { cpu }, write, addr, size, value });
                });
            });
            true
        })?;
    }
    Ok(())
}
