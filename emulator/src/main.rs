//! The `endgate` command: `endgate [OPTIONS] PROGRAM [ARGS…]`.
//!
//! Nothing here panics on an output error (a full disk, a closed stderr): messages are written
//! with `writeln!` and a failed write is ignored, so the exit status stays the guest's.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use endgate::cli::{guest_env, parse, Action, CliError};
use endgate::guest::Options;
use endgate::{launch, Program};

/// Writes one message line on stderr; an error writing it is ignored.
macro_rules! report {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

fn main() -> ExitCode {
    reset_host_signals();
    let cli = match parse(std::env::args_os()) {
        Ok(Action::Run(cli)) => cli,
        Ok(Action::Version) => return version(),
        Err(e) => {
            match &e {
                // --help (on stdout, status 0) or a usage error with clap's usage text.
                CliError::Clap(c) => {
                    let _ = c.print();
                }
                CliError::Usage(msg) => report!("endgate: {msg}"),
            }
            return ExitCode::from(e.exit_status());
        }
    };
    if cli.guest_child {
        endgate::syscall::fork::set_guest_child();
    }
    let program = cli.program.clone();
    let path = String::from_utf8_lossy(program.as_bytes()).into_owned();
    let mut argv: Vec<Vec<u8>> = vec![cli.argv0.clone().unwrap_or(program).as_bytes().to_vec()];
    argv.extend(cli.args.iter().map(|a| a.as_bytes().to_vec()));
    let opts = Options { strace: cli.strace, sysroot: cli.sysroot.clone(), sig_ignored: cli.sig_ignored.unwrap_or(0) };
    let prog = Program { path, argv, envp: guest_env(&cli) };
    match launch(opts, prog) {
        Ok((exit, report)) => ExitCode::from(endgate::exit_status(exit, report)),
        Err(e) => {
            report!("endgate: {e}");
            ExitCode::from(e.exit_status() as u8)
        }
    }
}

/// Gives the process the signal dispositions of a freshly exec'd native program, before
/// anything else runs, so that signals sent to endgate from outside act as they would on the
/// guest run natively:
/// - SIGPIPE: the Rust runtime ignores it; a guest starts with every signal at its default
///   (a write to a closed pipe must kill it).
/// - SIGSEGV, SIGBUS: the Rust runtime installs handlers to detect stack overflow. For a signal
///   that is not a guard-page fault, such as `kill -SEGV <pid>` from another process, that
///   handler resets the disposition and returns, expecting the faulting instruction to run
///   again; an external signal is then lost and endgate carries on. At SIG_DFL it ends endgate
///   like a native process (status 128+signal, core dump per the host's settings). The price: a
///   stack overflow in endgate itself is a plain SIGSEGV without Rust's message.
fn reset_host_signals() {
    for sig in [libc::SIGPIPE, libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: setting a disposition to SIG_DFL, first thing in main, before any other
        // thread exists.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// `--version`: version, host byte order, endian strategy, cycle counter and guest arches on stdout. Status 1
/// with a message on stderr when stdout cannot be written (e.g. `>/dev/full`), as coreutils do.
fn version() -> ExitCode {
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
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            report!("endgate: write error: {e}");
            ExitCode::FAILURE
        }
    }
}
