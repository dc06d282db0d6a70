//! The `endgate` command: `endgate [OPTIONS] PROGRAM [ARGS…]`.

use std::os::unix::ffi::OsStrExt;
use std::process::ExitCode;

use clap::Parser;
use endgate::cli::{guest_env, normalize_args, Cli};
use endgate::task::{Exit, Options};
use endgate::{launch, Program};

fn main() -> ExitCode {
    // The Rust runtime ignores SIGPIPE; a guest starts with every signal at its default.
    // SAFETY: setting a signal disposition to SIG_DFL before any other thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = Cli::parse_from(normalize_args(std::env::args_os()));
    if cli.version {
        println!("endgate {}", env!("CARGO_PKG_VERSION"));
        println!("host: {} {}-endian", std::env::consts::ARCH, host_shims::host_endian());
        println!("endian strategy: {}", host_shims::probe());
        println!("guests: x86_64 aarch64");
        return ExitCode::SUCCESS;
    }
    let Some(program) = cli.program.clone() else {
        eprintln!("endgate: no program given (see endgate --help)");
        return ExitCode::from(2);
    };
    let path = String::from_utf8_lossy(program.as_bytes()).into_owned();
    let mut argv: Vec<Vec<u8>> = vec![cli.argv0.clone().unwrap_or(program).as_bytes().to_vec()];
    argv.extend(cli.args.iter().map(|a| a.as_bytes().to_vec()));
    let opts = Options { strace: cli.strace, sysroot: cli.sysroot.clone() };
    let prog = Program { path, argv, envp: guest_env(&cli) };
    match launch(opts, prog) {
        Ok((Exit::Code(c), _)) => ExitCode::from(c as u8),
        Ok((Exit::Signal { sig, .. }, report)) => {
            if let Some(r) = report {
                eprintln!("{r}");
            }
            ExitCode::from((128 + sig.0) as u8)
        }
        Ok((Exit::Internal, _)) => ExitCode::from(70),
        Err(e) => {
            eprintln!("endgate: {e}");
            ExitCode::from(e.exit_status() as u8)
        }
    }
}
