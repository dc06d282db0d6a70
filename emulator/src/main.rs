//! The `endgate` command: `endgate [OPTIONS] PROGRAM [ARGS…]`.
//!
//! Nothing here panics on an output error (a full disk, a closed stderr): messages are written
//! with `writeln!` and a failed write is ignored, so the exit status stays the guest's.
//!
//! endgate starts at its own C `main`, not at Rust's (`#![no_main]`): Rust's start-up code
//! (`std::rt::lang_start`) changes the process before `main` runs in ways a guest would
//! inherit as if its parent had done them: it opens `/dev/null` on descriptors 0-2 that were
//! closed, ignores SIGPIPE, and installs SIGSEGV/SIGBUS handlers for its stack-overflow check
//! (which would swallow a `kill -SEGV` from outside). Without it the guest starts with the
//! descriptors and dispositions its parent gave, as a native program does; `std::env::args_os`
//! still works (glibc hands the arguments to Rust's `.init_array` hook).
#![no_main]

use std::io::Write;
use std::os::unix::ffi::OsStrExt;

use endgate::cli::{guest_env, parse, Action, CliError};
use endgate::guest::Options;
use endgate::{launch, Program};

/// Writes one message line on stderr; an error writing it is ignored.
macro_rules! report {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The process's entry point, called by the C library's start-up code.
#[no_mangle]
pub extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    // A panic anywhere in endgate ends it with one line and status 70 (endgate::guard).
    endgate::guard::install();
    let status = endgate::guard::guarded(&"main", run);
    // Rust's start-up code would flush stdout at exit; without it, this does.
    let _ = std::io::stdout().flush();
    libc::c_int::from(status)
}

fn run() -> u8 {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "binfmt") {
        return endgate::binfmt::run(args[1..].to_vec());
    }
    // Started by binfmt_misc with its P flag: the guest's own argv[0] follows the path.
    // SAFETY: getauxval reads the process's auxiliary vector; 0 when AT_FLAGS is absent.
    let at_flags = unsafe { libc::getauxval(libc::AT_FLAGS) };
    let cli = match parse(endgate::binfmt::preserve_argv0(args, at_flags)) {
        Ok(Action::Run(cli)) => cli,
        Ok(Action::Version) => return version(),
        Ok(Action::DebugHelp) => {
            let _ = std::io::stdout().write_all(endgate::cli::debug_help().as_bytes());
            return 0;
        }
        Err(e) => {
            match &e {
                // --help (on stdout, status 0) or a usage error with clap's usage text.
                CliError::Clap(c) => {
                    let _ = c.print();
                }
                CliError::Usage(msg) => report!("endgate: {msg}"),
            }
            return e.exit_status();
        }
    };
    // The guest's RLIMIT_AS and RLIMIT_DATA: the host's as endgate found them, or its
    // predecessor's (exec state), capped by --max-memory.
    endgate::mm::limits::adopt_host_limits();
    if let Some(fd) = cli.exec_state {
        endgate::syscall::exec::restore_state(fd);
    }
    if let Some(text) = &cli.exec_state_text {
        endgate::syscall::exec::restore_state_text(text);
    }
    // The handle on endgate's own executable that a guest's execve runs again: the one the
    // previous endgate passed on, or one opened now (/proc may not be there: docs/static.md).
    endgate::syscall::selfref::open_exe(cli.exe_fd);
    if let Some(seed) = cli.seed {
        endgate::seed::set(seed);
    }
    if let Some(bytes) = cli.max_memory {
        endgate::mm::limits::set_cap(bytes);
    }
    if cli.fakeroot || cli.fakeroot_state.is_some() {
        if let Err(e) = endgate::syscall::fakeroot::start(cli.fakeroot_state.as_deref()) {
            report!("endgate: {e}");
            return 1;
        }
    }
    if cli.guest_child {
        endgate::syscall::fork::set_guest_child();
    }
    if let Some(f) = cli.trace.log_file.as_ref().filter(|_| endgate::log::debug_log_fd().is_none()) {
        // The endgate a guest's execve started has its predecessor's log already (exec state),
        // else opens it again by its path and appends.
        if let Err(e) = endgate::log::open_debug_log(f, cli.trace.execs > 0) {
            report!("endgate: {e}");
            return 1;
        }
    }
    if let Some(f) = cli.trace.drcov.as_ref().filter(|_| cli.trace.execs == 0) {
        // The first program's coverage file (FILE itself), checked before anything runs, as
        // -D's log is opened above.
        if let Err(e) = endgate::trace::drcov::check_file(f) {
            report!("endgate: {e}");
            return 1;
        }
    }
    if let Some(dir) = &cli.root {
        if let Err(e) = enter_root(dir, &cli) {
            report!("endgate: {e}");
            return 1;
        }
    }
    let program = cli.program.clone();
    let path = program.clone();
    let mut argv: Vec<Vec<u8>> = vec![cli.argv0.clone().unwrap_or(program).as_bytes().to_vec()];
    argv.extend(cli.args.iter().map(|a| a.as_bytes().to_vec()));
    let opts = Options {
        strace: cli.strace,
        sysroot: cli.sysroot.clone(),
        sig_ignored: cli.sig_ignored.unwrap_or(0),
        mempolicy: cli.mempolicy.and_then(|[mode, flags, nodes, home]| {
            Some(endgate::mm::MemPolicy {
                mode: u16::try_from(mode).ok()?,
                flags: u16::try_from(flags).ok()?,
                nodes,
                home_node: home != 0,
            })
        }),
        trace: cli.trace.clone(),
        gdb: cli.gdb,
        exec_with: endgate::guest::ExecWith::Itself,
    };
    // The task name: as the kernel names it after the path execve was given (the guest's
    // execve passes that on; for endgate's own command line, PROGRAM as given).
    let comm = Some(match &cli.comm {
        Some(c) => c.as_bytes().to_vec(),
        None => endgate::thread::title::comm_of(cli.program.as_bytes()),
    });
    let envp = guest_env(&cli);
    let prog = Program { path, argv, envp, comm };
    // Others see the guest's argv as this process's /proc/PID/cmdline; endgate's own
    // arguments were all read above.
    endgate::thread::title::set_cmdline(&prog.argv);
    match launch(opts, prog) {
        Ok((exit, report)) => endgate::exit_status(exit, report),
        Err(e) => {
            report!("endgate: {e}");
            endgate::abi::low8(e.exit_status())
        }
    }
}

/// `--root DIR` with its `--bind`s (the default ones first unless `--no-default-binds`).
fn enter_root(dir: &std::path::Path, cli: &endgate::cli::Cli) -> Result<(), String> {
    use endgate::syscall::rootfs;
    let mut binds = Vec::new();
    if !cli.no_default_binds {
        for d in rootfs::DEFAULT_BINDS {
            // A host without one of them simply has nothing to show there.
            if std::path::Path::new(d).is_dir() {
                binds.push(rootfs::parse_bind(d)?);
            }
        }
    }
    for b in &cli.bind {
        binds.push(rootfs::parse_bind(b)?);
    }
    let current = cli.root_chroot.as_ref().map(|p| rootfs::components(p.as_bytes())).unwrap_or_default();
    rootfs::enter(dir, binds, current)
}

/// `--version`: version, host byte order, endian strategy, cycle counter and guest arches on stdout. Status 1
/// with a message on stderr when stdout cannot be written (e.g. `>/dev/full`), as coreutils do.
fn version() -> u8 {
    let text = format!(
        "endgate {}\nhost: {} {}-endian\nendian strategy: {}\ncycle counter: {}{}\nguests: {}\n",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        host_shims::host_endian(),
        host_shims::probe(),
        host_shims::counter_name(),
        host_shims::counter_hz().map_or(String::new(), |hz| format!(" at {hz} Hz")),
        endgate::arch::ALL.iter().map(|(label, _)| *label).collect::<Vec<_>>().join(" "),
    );
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) => {
            report!("endgate: write error: {e}");
            1
        }
    }
}
