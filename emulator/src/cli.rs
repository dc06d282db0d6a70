//! The command line: `endgate [OPTIONS] PROGRAM [ARGS…]`, with qemu-user's option names where
//! they overlap (`-L`, `-E`, `-U`, `-0`, `-strace`).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use clap::Parser;

/// Run a Linux program built for another CPU (x86_64 or aarch64 so far) on this host.
#[derive(Parser, Debug)]
#[command(
    name = "endgate",
    version,
    disable_version_flag = true,
    after_help = "The guest's exit status is endgate's. A guest killed by a signal makes endgate exit with 128+signo."
)]
pub struct Cli {
    /// Prefix tried first for absolute guest paths (the guest's sysroot), as qemu-user's -L.
    #[arg(short = 'L', value_name = "PATH")]
    pub sysroot: Option<PathBuf>,

    /// Set VAR=VALUE in the guest's environment (repeatable).
    #[arg(short = 'E', value_name = "VAR=VALUE")]
    pub set_env: Vec<String>,

    /// Remove VAR from the guest's environment (repeatable).
    #[arg(short = 'U', value_name = "VAR")]
    pub unset_env: Vec<String>,

    /// argv[0] for the guest (default: PROGRAM as given).
    #[arg(short = '0', value_name = "ARGV0")]
    pub argv0: Option<OsString>,

    /// Print each guest system call on stderr, in strace's format (also -strace).
    #[arg(long)]
    pub strace: bool,

    /// Print version, host byte order and the endian strategy, then exit.
    #[arg(long)]
    pub version: bool,

    /// The guest program (an ELF file).
    #[arg(value_name = "PROGRAM", required_unless_present = "version")]
    pub program: Option<OsString>,

    /// Arguments passed to the guest.
    #[arg(value_name = "ARGS", trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,
}

/// Rewrites qemu-style single-dash long options (`-strace`) to clap's form, stopping at the
/// first argument that is not an option (the program), so guest arguments are never touched.
pub fn normalize_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut it = args.into_iter();
    if let Some(a0) = it.next() {
        out.push(a0);
    }
    let takes_value = |a: &[u8]| matches!(a, b"-L" | b"-E" | b"-U" | b"-0");
    while let Some(a) = it.next() {
        let b = a.as_bytes();
        if b == b"-strace" {
            out.push("--strace".into());
            continue;
        }
        if b == b"--" {
            out.push(a);
            break;
        }
        if !b.starts_with(b"-") {
            // The program: everything from here on belongs to the guest, so that clap never
            // parses guest options (e.g. `endgate ls --help`).
            out.push("--".into());
            out.push(a);
            break;
        }
        let v = takes_value(b);
        out.push(a);
        if v {
            if let Some(val) = it.next() {
                out.push(val);
            }
        }
    }
    out.extend(it);
    out
}

/// The guest environment: endgate's own, with `-U` removals and then `-E` settings applied.
pub fn guest_env(cli: &Cli) -> Vec<Vec<u8>> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    for u in &cli.unset_env {
        env.retain(|(k, _)| k.as_bytes() != u.as_bytes());
    }
    for s in &cli.set_env {
        let (k, v) = s.split_once('=').unwrap_or((s.as_str(), ""));
        env.retain(|(ek, _)| ek.as_bytes() != k.as_bytes());
        env.push((k.into(), v.into()));
    }
    env.into_iter()
        .map(|(k, v)| {
            let mut b = k.into_vec();
            b.push(b'=');
            b.extend(v.into_vec());
            b
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(v: &[&str]) -> Vec<String> {
        normalize_args(v.iter().map(OsString::from)).into_iter().map(|s| s.into_string().unwrap()).collect()
    }

    #[test]
    fn guest_args_are_left_alone() {
        assert_eq!(
            norm(&["endgate", "-strace", "./ls", "-strace", "-l"]),
            ["endgate", "--strace", "--", "./ls", "-strace", "-l"]
        );
        assert_eq!(
            norm(&["endgate", "-L", "/sys", "prog", "--help"]),
            ["endgate", "-L", "/sys", "--", "prog", "--help"]
        );
        assert_eq!(norm(&["endgate", "--version"]), ["endgate", "--version"]);
    }
}
