//! The command line: `endgate [OPTIONS] PROGRAM [ARGS…]`, with qemu-user's option names where
//! they overlap (`-L`, `-E`, `-U`, `-0`, `-strace`, `-version`).
//!
//! As in qemu-user, option values are taken verbatim (`-0 -sh` names a login shell), `-E`/`-U`
//! take any bytes and apply in command-line order, and repeating an option is not an error (the
//! last `-L`/`-0` wins).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use clap::{Arg, ArgAction, CommandFactory, FromArgMatches, Parser};

/// Run a Linux program built for another CPU (x86_64, aarch64, riscv64, arm, i386, s390x or
/// mips64el) on this host.
#[derive(Parser, Debug)]
#[command(
    name = "endgate",
    version,
    disable_version_flag = true,
    args_override_self = true,
    override_usage = "endgate [OPTIONS] PROGRAM [ARGS]...\n       endgate binfmt --print|--install|--uninstall [OPTIONS]\n       endgate --version",
    after_help = "Options are read only before PROGRAM; everything after it goes to the guest.\n\
                  The guest's exit status is endgate's. A guest killed by a signal makes endgate die by that signal (a shell's status 128+signo).\n\n\
                  Subcommands:\n  \
                  binfmt  Register (or print, or remove) binfmt_misc entries that run the guests' programs\n          \
                  through endgate, so they start as if native (endgate binfmt --help)"
)]
pub struct Cli {
    /// Prefix tried first for absolute guest paths (the guest's sysroot), as qemu-user's -L.
    #[arg(short = 'L', value_name = "PATH", allow_hyphen_values = true)]
    pub sysroot: Option<PathBuf>,

    /// Run the guest with host directory DIR as its root directory: every path it names is
    /// looked up inside DIR (symbolic links and `..` included) and its writes stay there; the
    /// host's /proc, /sys and /dev appear at the same paths inside (see --bind). No host
    /// privilege is needed. Not with -L.
    #[arg(long = "root", value_name = "DIR", conflicts_with = "sysroot")]
    pub root: Option<PathBuf>,

    /// Under --root, show the host directory HOST at guest path GUEST (default: HOST's own
    /// path), as a bind mount would (repeatable).
    #[arg(long = "bind", value_name = "HOST[:GUEST]", requires = "root")]
    pub bind: Vec<String>,

    /// Under --root, do not show the host's /proc, /sys and /dev inside DIR.
    #[arg(long = "no-default-binds", requires = "root")]
    pub no_default_binds: bool,

    /// Under --root, the guest's root below DIR after its chroot (hidden; see
    /// [`ROOT_CHROOT_FLAG`]).
    #[arg(long = "root-chroot", hide = true, value_name = "PATH")]
    pub root_chroot: Option<OsString>,

    /// Set VAR=VALUE in the guest's environment (repeatable; -E and -U apply in order).
    #[arg(short = 'E', value_name = "VAR=VALUE", allow_hyphen_values = true)]
    pub set_env: Vec<OsString>,

    /// Remove VAR from the guest's environment (repeatable; -E and -U apply in order).
    #[arg(short = 'U', value_name = "VAR", allow_hyphen_values = true)]
    pub unset_env: Vec<OsString>,

    /// `argv[0]` for the guest (default: PROGRAM as given), e.g. -0 -sh for a login shell.
    #[arg(short = '0', value_name = "ARGV0", allow_hyphen_values = true)]
    pub argv0: Option<OsString>,

    /// Print each guest system call on stderr, in strace's format (also -strace).
    #[arg(long)]
    pub strace: bool,

    /// Log ITEMS, comma-separated, as qemu-user's -d: in_asm, exec, cpu, nochain, int, strace,
    /// page, unimp (-d help lists them). On stderr, or in the -D file.
    #[arg(short = 'd', value_name = "ITEMS", allow_hyphen_values = true)]
    pub debug: Vec<String>,

    /// Write the -d log to FILE instead of stderr (truncated when endgate starts).
    #[arg(short = 'D', value_name = "FILE", allow_hyphen_values = true)]
    pub debug_file: Option<PathBuf>,

    /// Log in_asm, exec and cpu only for blocks starting in RANGES (also -dfilter):
    /// START+LEN, START-LEN (the LEN bytes ending at START) or START..LAST, comma-separated.
    #[arg(long = "dfilter", value_name = "RANGES", allow_hyphen_values = true)]
    pub dfilter: Vec<String>,

    /// Trace every instruction as a block of its own (also -one-insn-per-tb).
    #[arg(long = "one-insn-per-tb")]
    pub one_insn_per_tb: bool,

    /// Write the blocks the guest ran as a DynamoRIO drcov version 2 file FILE (also -drcov);
    /// a forked process writes FILE.PID, a program started by execve FILE.PID.N.
    #[arg(long = "drcov", value_name = "FILE", allow_hyphen_values = true)]
    pub drcov: Option<PathBuf>,

    /// Seed the guest's random bytes (AT_RANDOM, getrandom) with SEED, for reproducible runs
    /// (also -seed).
    #[arg(long = "seed", value_name = "SEED")]
    pub seed: Option<u64>,

    /// Cap the guest's address space (the total size of its mappings, as RLIMIT_AS counts it)
    /// at BYTES (suffixes K, M, G, T: powers of 1024): a mapping, brk or stack growth beyond
    /// it fails as under `ulimit -v` (ENOMEM, or SIGSEGV for the stack).
    #[arg(long = "max-memory", value_name = "BYTES", value_parser = parse_size)]
    pub max_memory: Option<u64>,

    /// Fake root for package tools, as fakeroot(1): the guest's ids read as 0, chown, chmod and
    /// device mknod are recorded per file (host EPERM swallowed) and reported by stat
    /// (docs/fakeroot.md).
    #[arg(long = "fakeroot")]
    pub fakeroot: bool,

    /// Keep --fakeroot's records in FILE: loaded at start, every change appended as it is made
    /// (implies --fakeroot).
    #[arg(long = "fakeroot-state", value_name = "FILE", allow_hyphen_values = true)]
    pub fakeroot_state: Option<PathBuf>,

    /// Wait for GDB on TCP port PORT of 127.0.0.1 and stop before the first instruction (also
    /// ENDGATE_GDB=PORT).
    #[arg(short = 'g', value_name = "PORT")]
    pub gdb: Option<u16>,

    /// How many guest execve calls led to this endgate, when -d, -D or --drcov was given
    /// (hidden; see [`TRACE_EXECS_FLAG`]).
    #[arg(long = "trace-execs", hide = true, value_name = "N")]
    pub trace_execs: Option<u32>,

    /// Set when a guest's execve started this endgate in a process a guest fork created: a
    /// guest killed by a signal then ends endgate by that signal (hidden; see
    /// [`GUEST_CHILD_FLAG`]).
    #[arg(long = "guest-child", hide = true)]
    pub guest_child: bool,

    /// Signals a guest's execve passes on as ignored (hidden; a hexadecimal mask, bit `n-1`
    /// for signal `n`; see [`SIG_IGNORED_FLAG`]).
    #[arg(long = "sig-ignored", hide = true, value_name = "MASK", value_parser = parse_hex_mask)]
    pub sig_ignored: Option<u64>,

    /// State a guest's execve passes on (hidden; a descriptor; see [`EXEC_STATE_FLAG`]).
    #[arg(long = "exec-state", hide = true, value_name = "FD")]
    pub exec_state: Option<i32>,
    /// Short state a guest's execve passes on in the argument itself (hidden; hexadecimal;
    /// see [`EXEC_STATE_TEXT_FLAG`]).
    #[arg(long = "exec-state-text", hide = true, value_name = "HEX")]
    pub exec_state_text: Option<String>,
    /// The descriptor of endgate's own executable a guest's execve passes on (hidden; see
    /// [`EXE_FD_FLAG`]).
    #[arg(long = "exe-fd", hide = true, value_name = "FD")]
    pub exe_fd: Option<i32>,
    /// The NUMA policy of the thread whose execve started this endgate (hidden; see
    /// [`MEMPOLICY_FLAG`]): `MODE,FLAGS,NODES,HOME` in hexadecimal.
    #[arg(long = "mempolicy", hide = true, value_name = "POLICY", value_parser = parse_mempolicy)]
    pub mempolicy: Option<[u64; 4]>,

    /// The task name a guest's execve passes on: the last component of the path it named
    /// (hidden; see [`COMM_FLAG`]).
    #[arg(long = "comm", hide = true, value_name = "NAME", allow_hyphen_values = true)]
    pub comm: Option<OsString>,
    /// The places in this endgate's environment of the guest's entries a guest's execve
    /// disguised from the host's loader, comma-separated (hidden; see [`GUEST_ENV_FLAG`]).
    #[arg(long = "guest-env", hide = true, value_name = "PLACES")]
    pub hidden_env: Vec<OsString>,

    /// The guest program (an ELF file).
    #[arg(value_name = "PROGRAM")]
    pub program: OsString,

    /// Arguments passed to the guest.
    #[arg(value_name = "ARGS", trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,

    /// The `-E` and `-U` options in command-line order.
    #[arg(skip)]
    pub env_ops: Vec<EnvOp>,

    /// `-d`, `-D`, `-dfilter`, `-one-insn-per-tb` and `--drcov`, checked.
    #[arg(skip)]
    pub trace: TraceOptions,
}

/// A size in bytes with an optional K, M, G or T suffix (powers of 1024), for `--max-memory`.
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("unknown size suffix '{c}' (K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = num.parse().map_err(|_| format!("'{s}' is not a size in bytes (e.g. 64M)"))?;
    n.checked_mul(1u64 << shift).filter(|&b| b > 0).ok_or_else(|| format!("'{s}' is out of range"))
}

/// The hidden option with which a guest's execve tells the new endgate how many execve calls
/// came before it (see [`Cli::trace_execs`]): its drcov file gets a name of its own, and it
/// appends to the -D file instead of starting it again.
pub const TRACE_EXECS_FLAG: &str = "--trace-execs";

/// One `-d` item (qemu-user's log item names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugItem {
    /// `in_asm`: the guest code of each block, disassembled, when this thread first runs it.
    InAsm,
    /// `exec`: a line before each block runs.
    Exec,
    /// `cpu`: the guest registers before each block runs.
    Cpu,
    /// `nochain`: accepted; endgate's block hooks see every block, chained or not.
    NoChain,
    /// `int`: CPU exceptions and the signals delivered to guest handlers.
    Int,
    /// `strace`: the same as `--strace`.
    Strace,
    /// `page`: the guest's mappings and image layout once the program is loaded.
    Page,
    /// `unimp`: system calls and ioctl requests endgate does not serve.
    Unimp,
}

impl DebugItem {
    /// Every item with its name and what it logs, in `-d help` order.
    pub const ALL: [(DebugItem, &'static str, &'static str); 8] = [
        (DebugItem::InAsm, "in_asm", "guest code of each block, disassembled, when a thread first runs it"),
        (DebugItem::Exec, "exec", "a line before each block runs"),
        (DebugItem::Cpu, "cpu", "the guest registers before each block runs"),
        (DebugItem::NoChain, "nochain", "accepted (endgate's traces already see chained blocks)"),
        (DebugItem::Int, "int", "CPU exceptions and signals delivered to guest handlers"),
        (DebugItem::Strace, "strace", "every system call, as --strace"),
        (DebugItem::Page, "page", "the guest's mappings and image layout after loading"),
        (DebugItem::Unimp, "unimp", "system calls and ioctl requests endgate does not serve"),
    ];

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// An inclusive range of guest addresses for `-dfilter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddrRange {
    /// The first address in the range.
    pub first: u64,
    /// The last address in the range (inclusive).
    pub last: u64,
}

/// What `-d`, `-D`, `-dfilter`, `-one-insn-per-tb` and `--drcov` ask for. The default asks for
/// nothing, and then endgate registers no hook for any of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceOptions {
    items: u16,
    /// `-D FILE`: where the `-d` log goes (`None`: stderr).
    pub log_file: Option<PathBuf>,
    /// `-dfilter`: the ranges `in_asm`, `exec` and `cpu` are limited to (empty: everywhere).
    pub dfilter: Vec<AddrRange>,
    /// `-one-insn-per-tb`: every instruction is traced as a block of its own.
    pub one_insn_per_tb: bool,
    /// `--drcov FILE`: the coverage file's base name.
    pub drcov: Option<PathBuf>,
    /// Guest execve calls that led to this endgate (0 for one started otherwise).
    pub execs: u32,
}

impl TraceOptions {
    /// `true` if `-d` named `item`.
    pub fn has(&self, item: DebugItem) -> bool {
        self.items & item.bit() != 0
    }

    /// Adds `item` (as `-d` does).
    pub fn add(&mut self, item: DebugItem) {
        self.items |= item.bit();
    }

    /// `true` if any of `in_asm`, `exec`, `cpu` was asked for: the items that need a hook on
    /// every block.
    pub fn traces_blocks(&self) -> bool {
        self.has(DebugItem::InAsm) || self.has(DebugItem::Exec) || self.has(DebugItem::Cpu)
    }

    /// `true` if the block at `pc` passes `-dfilter`.
    pub fn in_filter(&self, pc: u64) -> bool {
        self.dfilter.is_empty() || self.dfilter.iter().any(|r| (r.first..=r.last).contains(&pc))
    }

    /// The command-line options that ask for the same again (for the endgate a guest's
    /// execve starts), with `--trace-execs` one more; none when nothing was asked for.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut v: Vec<OsString> = Vec::new();
        let names: Vec<&str> = DebugItem::ALL.iter().filter(|(i, _, _)| self.has(*i)).map(|(_, n, _)| *n).collect();
        if !names.is_empty() {
            v.push("-d".into());
            v.push(names.join(",").into());
        }
        if let Some(f) = &self.log_file {
            v.push("-D".into());
            v.push(f.clone().into_os_string());
        }
        if !self.dfilter.is_empty() {
            let r: Vec<String> = self.dfilter.iter().map(|r| format!("{:#x}..{:#x}", r.first, r.last)).collect();
            v.push("--dfilter".into());
            v.push(r.join(",").into());
        }
        if self.one_insn_per_tb {
            v.push("--one-insn-per-tb".into());
        }
        if let Some(f) = &self.drcov {
            v.push("--drcov".into());
            v.push(f.clone().into_os_string());
        }
        if !v.is_empty() {
            v.push(format!("{TRACE_EXECS_FLAG}={}", self.execs.saturating_add(1)).into());
        }
        v
    }
}

/// Parses `-d` values (comma-separated item names). `Ok(None)`: `help` was asked for.
pub fn parse_debug_items(values: &[String]) -> Result<Option<u16>, String> {
    let mut items = 0u16;
    for name in values.iter().flat_map(|v| v.split(',')).filter(|n| !n.is_empty()) {
        if name == "help" {
            return Ok(None);
        }
        match DebugItem::ALL.iter().find(|(_, n, _)| *n == name) {
            Some((i, _, _)) => items |= i.bit(),
            None => return Err(format!("-d: unknown item '{name}' (-d help lists them)")),
        }
    }
    Ok(Some(items))
}

/// The text of `-d help`.
pub fn debug_help() -> String {
    let mut s = String::from("Log items (comma separated):\n");
    for (_, name, what) in DebugItem::ALL {
        s.push_str(&format!("{name:<12}{what}\n"));
    }
    s
}

fn parse_addr(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Parses `-dfilter` ranges: `START+LEN` (LEN bytes from START), `START-LEN` (the LEN bytes
/// that end at START, START included) or `START..LAST` (both included); numbers in decimal or
/// `0x` hexadecimal; LEN must not be 0. These are qemu-user's forms, with its meanings.
pub fn parse_dfilter(values: &[String]) -> Result<Vec<AddrRange>, String> {
    let mut out = Vec::new();
    for r in values.iter().flat_map(|v| v.split(',')) {
        let bad = || format!("-dfilter: bad range '{r}' (START+LEN, START-LEN or START..LAST)");
        let range = if let Some((a, b)) = r.split_once("..") {
            let (first, last) = (parse_addr(a).ok_or_else(bad)?, parse_addr(b).ok_or_else(bad)?);
            (first <= last).then_some(AddrRange { first, last })
        } else if let Some((a, l)) = r.split_once('+') {
            let (first, len) = (parse_addr(a).ok_or_else(bad)?, parse_addr(l).ok_or_else(bad)?);
            len.checked_sub(1).and_then(|n| first.checked_add(n)).map(|last| AddrRange { first, last })
        } else if let Some((a, l)) = r.split_once('-') {
            let (last, len) = (parse_addr(a).ok_or_else(bad)?, parse_addr(l).ok_or_else(bad)?);
            len.checked_sub(1).and_then(|n| last.checked_sub(n)).map(|first| AddrRange { first, last })
        } else {
            None
        };
        out.push(range.ok_or_else(bad)?);
    }
    Ok(out)
}

/// The hidden option a guest's execve passes on (see [`Cli::guest_child`]).
pub const GUEST_CHILD_FLAG: &str = "--guest-child";

/// Passes the guest's root below `--root`'s DIR, after the guest's `chroot`, to the endgate a
/// guest `execve` starts.
pub const ROOT_CHROOT_FLAG: &str = "--root-chroot";

/// The hidden option with which a guest's execve passes on its ignored signals (see
/// [`Cli::sig_ignored`]).
pub const SIG_IGNORED_FLAG: &str = "--sig-ignored";

/// The hidden option with which a guest's execve passes on what the host does not carry:
/// endgate's handles, the guest's root, its seccomp filters (`crate::syscall::exec`).
pub const EXEC_STATE_FLAG: &str = "--exec-state";
/// The hidden option with which a guest's execve passes on short exec state (the lines of
/// [`EXEC_STATE_FLAG`]'s file, hexadecimal) in the argument itself: a descriptor held across
/// the exec would take the one the host's loader needs under a small `RLIMIT_NOFILE`.
pub const EXEC_STATE_TEXT_FLAG: &str = "--exec-state-text";
/// The hidden option with which a guest's execve passes on the descriptor of endgate's own
/// executable that it ran (`crate::syscall::selfref`), for the next execve.
pub const EXE_FD_FLAG: &str = "--exe-fd";
/// The hidden option with which a guest's execve lists the places of the entries of the
/// guest's environment that the host's loader or C library would act on in endgate itself,
/// which it passed on disguised (their first letter in lower case: `crate::syscall::exec`),
/// as one argument `--guest-env=PLACE,PLACE…` (0 for the first entry).
pub const GUEST_ENV_FLAG: &str = "--guest-env";
/// The hidden option with which a guest's execve passes on the task name Linux gives the new
/// program (`crate::thread::title`), as one argument `--comm=NAME`.
pub const COMM_FLAG: &str = "--comm";
/// The hidden option with which a guest's execve passes on the thread's NUMA policy, which
/// Linux keeps across execve (see [`Cli::mempolicy`]).
pub const MEMPOLICY_FLAG: &str = "--mempolicy";

fn parse_mempolicy(s: &str) -> Result<[u64; 4], String> {
    let v: Vec<u64> = s.split(',').map(parse_hex_mask).collect::<Result<_, _>>()?;
    v.try_into().map_err(|_| "four hexadecimal fields".to_string())
}

fn parse_hex_mask(s: &str) -> Result<u64, String> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).map_err(|e| e.to_string())
}

/// One `-E` or `-U` option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvOp {
    /// `-E VAR=VALUE`.
    Set(OsString, OsString),
    /// `-U VAR`.
    Unset(OsString),
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Run a guest.
    Run(Box<Cli>),
    /// `--version`: print the version and exit.
    Version,
    /// `-d help`: print the log items and exit.
    DebugHelp,
}

/// A command line endgate cannot act on.
#[derive(Debug)]
pub enum CliError {
    /// From clap: `--help` (status 0) or a usage error with clap's usage text (status 2).
    Clap(clap::Error),
    /// A bad option value, as one line without the `endgate: ` prefix (status 2).
    Usage(String),
}

impl CliError {
    /// The exit status: 0 for `--help`, 2 for a usage error.
    pub fn exit_status(&self) -> u8 {
        match self {
            // clap exits with 0 or 2; a status is its low byte, as for any exit code.
            CliError::Clap(e) => u8::try_from(e.exit_code().rem_euclid(256)).unwrap_or(2),
            CliError::Usage(_) => 2,
        }
    }
}

/// The clap command: [`Cli`] plus `--version`, which (like clap's own version flag) stops
/// parsing where it stands, so PROGRAM is required except with `--version`.
fn command() -> clap::Command {
    Cli::command().arg(
        Arg::new("version")
            .long("version")
            .action(ArgAction::Version)
            .help("Print version, host byte order and the endian strategy, then exit (also -version)"),
    )
}

/// Parses endgate's command line (`args` includes `argv[0]`).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Action, CliError> {
    let args = normalize_args(args);
    // `-d help` needs no PROGRAM (as qemu-user's).
    let opts = args.iter().skip(1).take_while(|a| a.as_bytes() != b"--");
    if opts
        .collect::<Vec<_>>()
        .windows(2)
        .any(|w| w[0] == "-d" && w[1].as_bytes().split(|&c| c == b',').any(|i| i == b"help"))
    {
        return Ok(Action::DebugHelp);
    }
    let matches = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => return Ok(Action::Version),
        Err(e) => return Err(CliError::Clap(e)),
    };
    let mut cli = Cli::from_arg_matches(&matches).map_err(CliError::Clap)?;
    let mut ops: Vec<(usize, EnvOp)> = Vec::new();
    let values =
        |id| matches.get_many::<OsString>(id).into_iter().flatten().zip(matches.indices_of(id).into_iter().flatten());
    for (v, i) in values("set_env") {
        let b = v.as_bytes();
        match b.iter().position(|&c| c == b'=') {
            Some(eq) if eq > 0 => ops.push((
                i,
                EnvOp::Set(OsStr::from_bytes(&b[..eq]).to_owned(), OsStr::from_bytes(&b[eq + 1..]).to_owned()),
            )),
            _ => return Err(CliError::Usage(format!("-E wants VAR=VALUE, got '{}'", v.to_string_lossy()))),
        }
    }
    for (v, i) in values("unset_env") {
        if v.is_empty() || v.as_bytes().contains(&b'=') {
            return Err(CliError::Usage(format!("-U wants VAR, got '{}'", v.to_string_lossy())));
        }
        ops.push((i, EnvOp::Unset(v.clone())));
    }
    ops.sort_by_key(|&(i, _)| i);
    cli.env_ops = ops.into_iter().map(|(_, op)| op).collect();
    let Some(items) = parse_debug_items(&cli.debug).map_err(CliError::Usage)? else {
        return Ok(Action::DebugHelp);
    };
    // Absolute, so that the endgate a guest's execve starts (after a chdir) names the same files.
    let absolute = |p: &PathBuf| std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.clone());
    cli.trace = TraceOptions {
        items,
        log_file: cli.debug_file.as_ref().map(absolute),
        dfilter: parse_dfilter(&cli.dfilter).map_err(CliError::Usage)?,
        one_insn_per_tb: cli.one_insn_per_tb,
        drcov: cli.drcov.as_ref().map(absolute),
        execs: cli.trace_execs.unwrap_or(0),
    };
    if cli.trace.has(DebugItem::Strace) {
        cli.strace = true;
    }
    if cli.gdb.is_none() {
        if let Some(v) = std::env::var_os(GDB_ENV).filter(|v| !v.is_empty()) {
            let port = v.to_str().and_then(|s| s.parse::<u16>().ok());
            cli.gdb = Some(port.ok_or_else(|| {
                CliError::Usage(format!("{GDB_ENV} wants a TCP port, got '{}'", v.to_string_lossy()))
            })?);
        }
    }
    Ok(Action::Run(Box::new(cli)))
}

/// Rewrites qemu-style single-dash long options (`-strace`, `-version`) to clap's form, stopping
/// at the first argument that is not an option (the program), so guest arguments are never
/// touched. The value after `-L`, `-E`, `-U` or `-0` is passed on as it is, even when it
/// starts with '-'.
pub fn normalize_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut it = args.into_iter();
    if let Some(a0) = it.next() {
        out.push(a0);
    }
    let takes_value = |a: &[u8]| {
        matches!(
            a,
            b"-L"
                | b"-E"
                | b"-U"
                | b"-0"
                | b"-d"
                | b"-D"
                | b"--dfilter"
                | b"--drcov"
                | b"-g"
                | b"--max-memory"
                | b"--seed"
                | b"--root"
                | b"--bind"
                | b"--fakeroot-state"
        )
    };
    while let Some(a) = it.next() {
        let b = a.as_bytes();
        if b == b"-strace" {
            out.push("--strace".into());
            continue;
        }
        // qemu-user's single-dash spellings of endgate's long options.
        let long = match b {
            b"-dfilter" => Some("--dfilter"),
            b"-seed" => Some("--seed"),
            b"-one-insn-per-tb" => Some("--one-insn-per-tb"),
            b"-drcov" => Some("--drcov"),
            _ => None,
        };
        if let Some(l) = long {
            out.push(l.into());
            if l != "--one-insn-per-tb" {
                if let Some(val) = it.next() {
                    out.push(val);
                }
            }
            continue;
        }

        if b == b"-version" {
            out.push("--version".into());
            continue;
        }
        if b == b"--" {
            out.push(a);
            break;
        }
        if !b.starts_with(b"-") || b == b"-" {
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

/// The environment variable that asks for `-g PORT`; endgate takes it out of the guest's
/// environment, so that a program the guest executes does not wait for GDB on the same port.
pub const GDB_ENV: &str = "ENDGATE_GDB";

/// With `-g`, `wait` makes a guest fork's child wait for its own GDB on the next port
/// (`crate::gdb::fork_child`); taken out of the guest's environment like [`GDB_ENV`].
pub const GDB_FORK_ENV: &str = "ENDGATE_GDB_FORK";

/// The guest environment: endgate's own as the kernel gave it (every entry in its order, also
/// one without `=` or with an empty name, which Linux passes on; the entries a guest's execve
/// disguised from the host's loader as they were: [`GUEST_ENV_FLAG`]), less [`GDB_ENV`] and
/// [`GDB_FORK_ENV`], with the `-E` settings and `-U` removals applied in command-line order (a
/// setting replaces the first inherited variable of the same name in its place, as `setenv`
/// does, and drops the others of that name; a new one goes at the end).
pub fn guest_env(cli: &Cli) -> Vec<Vec<u8>> {
    let name_of = |e: &[u8]| e.split(|&b| b == b'=').next().unwrap_or(e).to_vec();
    // The entries the previous endgate disguised first, at the places it listed: in the
    // process's own environment area too, which `/proc/PID/environ` shows.
    restore_environ(&cli.hidden_env);
    let env: Vec<Vec<u8>> = raw_environ()
        .into_iter()
        .filter(|e| {
            let n = name_of(e);
            n != GDB_ENV.as_bytes() && n != GDB_FORK_ENV.as_bytes()
        })
        .collect();
    apply_env_ops(env, &cli.env_ops)
}

/// The places in the environment that the [`GUEST_ENV_FLAG`] arguments `hidden` list (each a
/// comma-separated list; 0 is the first entry).
fn hidden_places(hidden: &[OsString]) -> impl Iterator<Item = usize> + '_ {
    hidden
        .iter()
        .flat_map(|h| h.as_bytes().split(|&b| b == b','))
        .filter_map(|p| std::str::from_utf8(p).ok()?.parse().ok())
}

/// Makes the entries the previous endgate disguised (`crate::syscall::exec`: the first letter
/// in lower case) as they were, at the places the [`GUEST_ENV_FLAG`] arguments `hidden` list;
/// `env` holds the environment's entries in order.
pub fn undisguise(env: &mut [&mut [u8]], hidden: &[OsString]) {
    for i in hidden_places(hidden) {
        if let Some(first) = env.get_mut(i).and_then(|e| e.first_mut()) {
            *first = first.to_ascii_uppercase();
        }
    }
}

/// [`undisguise`] on the process's own environment strings, in place: the entries the host's
/// loader had to miss are as the guest gave them in `environ` and in the environment area
/// `/proc/PID/environ` reads (the kernel shows that memory as it is now). Called once at
/// start-up, before any thread runs.
fn restore_environ(hidden: &[OsString]) {
    extern "C" {
        static environ: *const *mut libc::c_char;
    }
    if hidden.is_empty() {
        return;
    }
    let mut entries: Vec<&mut [u8]> = Vec::new();
    // SAFETY: read at start-up, before any thread changes the environment; `environ` is a
    // NULL-terminated array of distinct NUL-terminated strings in writable memory (the initial
    // stack's environment area, or the C library's copies), each borrowed once here.
    unsafe {
        let mut p = environ;
        while !p.is_null() && !(*p).is_null() {
            let len = libc::strlen(*p);
            entries.push(std::slice::from_raw_parts_mut((*p).cast::<u8>(), len));
            p = p.add(1);
        }
    }
    undisguise(&mut entries, hidden);
}

/// [`guest_env`]'s `-E` and `-U` on `env`.
fn apply_env_ops(mut env: Vec<Vec<u8>>, ops: &[EnvOp]) -> Vec<Vec<u8>> {
    let name_of = |e: &[u8]| e.split(|&b| b == b'=').next().unwrap_or(e).to_vec();
    for op in ops {
        match op {
            EnvOp::Unset(k) => env.retain(|e| name_of(e) != k.as_bytes()),
            EnvOp::Set(k, v) => {
                let mut entry = k.as_bytes().to_vec();
                entry.push(b'=');
                entry.extend_from_slice(v.as_bytes());
                match env.iter().position(|e| name_of(e) == k.as_bytes()) {
                    Some(first) => {
                        let mut i = 0;
                        env.retain(|e| {
                            i += 1;
                            i - 1 == first || name_of(e) != k.as_bytes()
                        });
                        env[first] = entry;
                    }
                    None => env.push(entry),
                }
            }
        }
    }
    env
}

/// The process's environment entries as bytes, in order (`environ`, as the kernel and the
/// previous program gave it; `std::env::vars_os` leaves out entries without `=`).
fn raw_environ() -> Vec<Vec<u8>> {
    extern "C" {
        static environ: *const *const libc::c_char;
    }
    let mut out = Vec::new();
    // SAFETY: read once at start-up, before any thread changes the environment; `environ` is a
    // NULL-terminated array of NUL-terminated strings (or NULL).
    unsafe {
        let mut p = environ;
        while !p.is_null() && !(*p).is_null() {
            out.push(std::ffi::CStr::from_ptr(*p).to_bytes().to_vec());
            p = p.add(1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(v: &[&str]) -> Vec<String> {
        normalize_args(v.iter().map(OsString::from)).into_iter().map(|s| s.into_string().unwrap()).collect()
    }

    fn cli(v: &[&str]) -> Cli {
        match parse(v.iter().map(OsString::from)) {
            Ok(Action::Run(c)) => *c,
            other => panic!("{v:?}: {other:?}"),
        }
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

    #[test]
    fn values_are_verbatim() {
        let c = cli(&["endgate", "-0", "-sh", "-L", "-", "-E", "X=-U", "-U", "--", "prog", "-0"]);
        assert_eq!(c.argv0.as_deref(), Some(OsStr::new("-sh")));
        assert_eq!(c.sysroot.as_deref(), Some(std::path::Path::new("-")));
        assert_eq!(c.env_ops, [EnvOp::Set("X".into(), "-U".into()), EnvOp::Unset("--".into())]);
        assert_eq!(c.program, "prog");
        assert_eq!(c.args, [OsString::from("-0")]);
        assert_eq!(cli(&["endgate", "-E", "-x=1", "p"]).env_ops, [EnvOp::Set("-x".into(), "1".into())]);
    }

    #[test]
    fn env_options_apply_in_order() {
        let c = cli(&["endgate", "-E", "A=3", "-U", "A", "-E", "B=1=2", "-U", "B", "-E", "B=", "p"]);
        let ops = [
            EnvOp::Set("A".into(), "3".into()),
            EnvOp::Unset("A".into()),
            EnvOp::Set("B".into(), "1=2".into()),
            EnvOp::Unset("B".into()),
            EnvOp::Set("B".into(), "".into()),
        ];
        assert_eq!(c.env_ops, ops);
        let env = guest_env(&c);
        assert!(!env.iter().any(|e| e.starts_with(b"A=")));
        assert_eq!(env.iter().filter(|e| e.starts_with(b"B=")).collect::<Vec<_>>(), [b"B="]);
    }

    #[test]
    fn env_settings_replace_in_place_and_keep_odd_entries() {
        // A setting takes the first entry's place (as qemu-user 10.0.2's -E does) and drops
        // the other entries of its name; entries without `=` or with an empty name stay.
        let env: Vec<Vec<u8>> =
            ["A=1", "NOEQ", "LD_X=1", "=x", "A=3", "B=2"].iter().map(|e| e.as_bytes().to_vec()).collect();
        let ops = [EnvOp::Set("LD_X".into(), "5".into()), EnvOp::Set("A".into(), "2".into()), EnvOp::Unset("B".into())];
        let got = apply_env_ops(env, &ops);
        let want: Vec<Vec<u8>> = ["A=2", "NOEQ", "LD_X=5", "=x"].iter().map(|e| e.as_bytes().to_vec()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn bad_env_values_are_usage_errors() {
        for (args, msg) in [
            (&["endgate", "-E", "NOEQ", "p"][..], "-E wants VAR=VALUE, got 'NOEQ'"),
            (&["endgate", "-E", "=v", "p"][..], "-E wants VAR=VALUE, got '=v'"),
            (&["endgate", "-U", "A=1", "p"][..], "-U wants VAR, got 'A=1'"),
        ] {
            match parse(args.iter().map(OsString::from)) {
                Err(e @ CliError::Usage(_)) => {
                    assert_eq!(e.exit_status(), 2);
                    let CliError::Usage(m) = e else { unreachable!() };
                    assert_eq!(m, msg);
                }
                other => panic!("{args:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn repeated_options_are_accepted() {
        let c = cli(&["endgate", "--strace", "-strace", "-L", "/a", "-L", "/b", "-0", "x", "-0", "y", "p"]);
        assert!(c.strace);
        assert_eq!(c.sysroot.as_deref(), Some(std::path::Path::new("/b")));
        assert_eq!(c.argv0.as_deref(), Some(OsStr::new("y")));
    }

    #[test]
    fn version_and_missing_program() {
        assert!(matches!(parse(["endgate", "-version"].map(OsString::from)), Ok(Action::Version)));
        assert!(matches!(parse(["endgate", "--strace", "--version"].map(OsString::from)), Ok(Action::Version)));
        match parse(["endgate", "--strace"].map(OsString::from)) {
            Err(e) => assert_eq!(e.exit_status(), 2),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn trace_options() {
        let c = cli(&[
            "endgate",
            "-d",
            "in_asm,exec",
            "-d",
            "cpu",
            "-D",
            "/tmp/log",
            "-dfilter",
            "0x1000+0x10,5..9",
            "-one-insn-per-tb",
            "-drcov",
            "cov",
            "p",
            "-d",
            "x",
        ]);
        let t = &c.trace;
        assert!(t.has(DebugItem::InAsm) && t.has(DebugItem::Exec) && t.has(DebugItem::Cpu));
        assert!(!t.has(DebugItem::Int) && !c.strace);
        assert_eq!(t.log_file.as_deref(), Some(std::path::Path::new("/tmp/log")));
        assert_eq!(t.dfilter, [AddrRange { first: 0x1000, last: 0x100f }, AddrRange { first: 5, last: 9 }]);
        assert!(t.one_insn_per_tb && t.in_filter(0x100f) && !t.in_filter(0x1010) && t.in_filter(7));
        assert_eq!(t.drcov, Some(std::env::current_dir().expect("cwd").join("cov")), "made absolute");
        assert_eq!(c.args, [OsString::from("-d"), OsString::from("x")], "guest arguments untouched");
        // The options a guest's execve passes on ask for the same, one execve later.
        let again: Vec<OsString> =
            std::iter::once(OsString::from("endgate")).chain(t.to_args()).chain([OsString::from("p")]).collect();
        let d = match parse(again) {
            Ok(Action::Run(c)) => c.trace,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            (d.items, &d.log_file, &d.dfilter, d.one_insn_per_tb, &d.drcov, d.execs),
            (t.items, &t.log_file, &t.dfilter, true, &t.drcov, 1)
        );
        assert!(cli(&["endgate", "-d", "strace", "p"]).strace);
        assert_eq!(cli(&["endgate", "p"]).trace, TraceOptions::default());
        assert!(TraceOptions::default().to_args().is_empty());
        assert!(matches!(parse(["endgate", "-d", "help"].map(OsString::from)), Ok(Action::DebugHelp)));
    }

    #[test]
    fn dfilter_forms() {
        let r = |s: &str| parse_dfilter(&[s.to_string()]);
        assert_eq!(r("0x10-0x4"), Ok(vec![AddrRange { first: 0xd, last: 0x10 }]));
        assert_eq!(r("0x10+1"), Ok(vec![AddrRange { first: 0x10, last: 0x10 }]));
        assert_eq!(r("16..16"), Ok(vec![AddrRange { first: 16, last: 16 }]));
        for bad in ["0x10+0", "0x10-0", "3-5", "9..8", "0x10", "x+1", "0xffffffffffffffff+2"] {
            assert!(r(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn help_shows_program_as_required() {
        let help = command().render_help().to_string();
        assert!(help.contains("<PROGRAM>") && !help.contains("[PROGRAM]"), "{help}");
        command().debug_assert();
    }
}
