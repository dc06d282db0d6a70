//! The POWER test lab: builds the static test programs (`tests/ppc/endian_test.c` with the
//! crate's own `csrc/shims.c` and `csrc/ppc64.S`) with Debian's `powerpc64-linux-gnu-gcc` /
//! `powerpc64le-linux-gnu-gcc`, runs them under qemu-user, or boots them as `/init` of a newc
//! initramfs under `qemu-system-ppc64 -M pseries` with Debian's ppc64el kernel, and parses what
//! they print. Used by host-shims' integration tests and by `endgate-benches`.
//!
//! Tools come from Debian packages (`scripts/install-deps.sh`); the kernel from
//! `scripts/fetch-ppc-kernel.sh` (`.cache/ppc64el-kernel/vmlinux`, or `ENDGATE_PPC_KERNEL`).
//! A missing tool or kernel is an error that names the package or script, never a skip.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A 64-bit POWER target of the test programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PpcTarget {
    /// Big-endian ppc64 (ELFv1).
    Ppc64,
    /// Little-endian ppc64le (ELFv2).
    Ppc64le,
}

impl PpcTarget {
    /// The GNU triplet prefix of Debian's cross tools.
    pub fn triplet(self) -> &'static str {
        match self {
            PpcTarget::Ppc64 => "powerpc64-linux-gnu",
            PpcTarget::Ppc64le => "powerpc64le-linux-gnu",
        }
    }

    /// The qemu-user binary for this target (Debian package qemu-user).
    pub fn qemu_user(self) -> &'static str {
        match self {
            PpcTarget::Ppc64 => "qemu-ppc64",
            PpcTarget::Ppc64le => "qemu-ppc64le",
        }
    }

    /// The name the test program prints in its start line (`arch=…`).
    pub fn arch_name(self) -> &'static str {
        match self {
            PpcTarget::Ppc64 => "ppc64",
            PpcTarget::Ppc64le => "ppc64le",
        }
    }

    fn package(self) -> &'static str {
        match self {
            PpcTarget::Ppc64 => "gcc-powerpc64-linux-gnu",
            PpcTarget::Ppc64le => "gcc-powerpc64le-linux-gnu",
        }
    }
}

/// A lab step that failed.
#[derive(Debug)]
pub enum LabError {
    /// A tool or input is missing; `hint` says how to get it.
    Missing {
        /// What is missing (a program or a file).
        what: String,
        /// The Debian package or script that provides it.
        hint: String,
    },
    /// A command failed.
    Command {
        /// The command line.
        cmd: String,
        /// Its exit status, as text.
        status: String,
        /// Its stdout and stderr (the end).
        output: String,
    },
    /// A run did not finish in time.
    Timeout {
        /// The command line.
        cmd: String,
        /// The limit, seconds.
        secs: u64,
        /// What it printed before it was killed.
        output: String,
    },
    /// Reading or writing a file failed.
    Io(String),
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabError::Missing { what, hint } => write!(f, "{what} is missing: {hint}"),
            LabError::Command { cmd, status, output } => {
                write!(f, "`{cmd}` failed ({status}):\n{output}")
            }
            LabError::Timeout { cmd, secs, output } => {
                write!(f, "`{cmd}` did not finish within {secs} s; its output:\n{output}")
            }
            LabError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for LabError {}

/// host-shims' own directory (sources of the shims and the test programs).
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The kernel the real-kernel run boots: `$ENDGATE_PPC_KERNEL`, else
/// `<workspace>/.cache/ppc64el-kernel/vmlinux` (scripts/fetch-ppc-kernel.sh).
pub fn kernel_path() -> PathBuf {
    match std::env::var_os("ENDGATE_PPC_KERNEL") {
        Some(p) => PathBuf::from(p),
        None => crate_dir().join("../.cache/ppc64el-kernel/vmlinux"),
    }
}

fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

fn need_program(name: &str, hint: &str) -> Result<PathBuf, LabError> {
    find_program(name).ok_or_else(|| LabError::Missing { what: format!("program `{name}`"), hint: hint.to_string() })
}

fn tail(s: &str, max: usize) -> &str {
    let mut start = s.len().saturating_sub(max);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

fn run_checked(cmd: &mut Command) -> Result<(), LabError> {
    let line = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| LabError::Io(format!("cannot run {line}: {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    Err(LabError::Command { cmd: line, status: out.status.to_string(), output: tail(&text, 4000).into() })
}

/// Builds the static test program for `target` into `out_dir` and returns its path. Steps:
/// assemble `tests/ppc/check-rev.S`, byte-reverse its .text with `objcopy -O binary
/// --reverse-bytes=4` into `check-rev.bin` (the check code run in the other byte order), then
/// link `endian_test.c`, `pattern.S` (which `.incbin`s check-rev.bin) and the crate's
/// `csrc/shims.c` and `csrc/ppc64.S` with `-static`.
pub fn build_test_program(target: PpcTarget, out_dir: &Path) -> Result<PathBuf, LabError> {
    let t = target.triplet();
    let hint = format!("install Debian's {} (scripts/install-deps.sh)", target.package());
    let gcc = need_program(&format!("{t}-gcc"), &hint)?;
    let objcopy = need_program(&format!("{t}-objcopy"), &hint)?;
    let dir = out_dir.join(target.arch_name());
    std::fs::create_dir_all(&dir).map_err(|e| LabError::Io(format!("{}: {e}", dir.display())))?;
    let csrc = crate_dir().join("csrc");
    let tsrc = crate_dir().join("tests/ppc");
    let check_o = dir.join("check-rev.o");
    let check_bin = dir.join("check-rev.bin");
    run_checked(
        Command::new(&gcc)
            .arg("-c")
            .arg("-I")
            .arg(&csrc)
            .arg("-I")
            .arg(&tsrc)
            .arg(tsrc.join("check-rev.S"))
            .arg("-o")
            .arg(&check_o),
    )?;
    run_checked(
        Command::new(&objcopy).args(["-O", "binary", "-j", ".text", "--reverse-bytes=4"]).arg(&check_o).arg(&check_bin),
    )?;
    let prog = dir.join("endian-test");
    run_checked(
        Command::new(&gcc)
            .args(["-static", "-O2", "-Wall", "-Werror"])
            .arg("-I")
            .arg(&csrc)
            .arg("-I")
            .arg(&tsrc)
            .arg(format!("-Wa,-I,{}", dir.display()))
            .arg(tsrc.join("endian_test.c"))
            .arg(tsrc.join("pattern.S"))
            .arg(csrc.join("shims.c"))
            .arg(csrc.join("ppc64.S"))
            .arg("-o")
            .arg(&prog),
    )?;
    Ok(prog)
}

/// Runs `cmd`, killing it after `timeout`; returns stdout and stderr (concatenated) and whether
/// it exited successfully.
fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<(String, bool), LabError> {
    let line = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| LabError::Io(format!("cannot run {line}: {e}")))?;
    let readers: Vec<_> = [
        child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|mut r| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    })
    .collect();
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(LabError::Io(format!("waiting for {line}: {e}"))),
        }
    };
    let mut text = String::new();
    for r in readers {
        text.push_str(&String::from_utf8_lossy(&r.join().unwrap_or_default()));
    }
    match status {
        Some(s) => Ok((text, s.success())),
        None => Err(LabError::Timeout { cmd: line, secs: timeout.as_secs(), output: tail(&text, 4000).into() }),
    }
}

/// Runs the test program under qemu-user (`qemu-ppc64` / `qemu-ppc64le`, Debian qemu-user)
/// with `iters` timing iterations.
pub fn run_user(target: PpcTarget, prog: &Path, iters: u64) -> Result<Report, LabError> {
    let qemu = need_program(target.qemu_user(), "install Debian's qemu-user (scripts/install-deps.sh)")?;
    let mut cmd = Command::new(qemu);
    cmd.arg(prog).arg(iters.to_string());
    let line = format!("{cmd:?}");
    let (text, ok) = run_with_timeout(&mut cmd, Duration::from_secs(120))?;
    if !ok {
        return Err(LabError::Command { cmd: line, status: "non-zero exit".into(), output: tail(&text, 4000).into() });
    }
    Ok(Report::parse(&text))
}

/// One initramfs entry: name, mode (type and permission bits), contents, device (major, minor).
type CpioEntry<'a> = (&'a str, u32, &'a [u8], (u32, u32));

/// Writes a newc cpio archive (the initramfs format, Documentation/driver-api/early-userspace/
/// buffer-format.rst) holding `/init` = the file `init`, the directory `/proc` and the node
/// `/dev/console` (char 5:1), to `out`.
pub fn write_initramfs(init: &Path, out: &Path) -> Result<(), LabError> {
    let data = std::fs::read(init).map_err(|e| LabError::Io(format!("{}: {e}", init.display())))?;
    let mut a = Vec::with_capacity(data.len() + 1024);
    let entries: [CpioEntry; 4] = [
        ("dev", 0o040755, &[], (0, 0)),
        ("dev/console", 0o020600, &[], (5, 1)),
        ("proc", 0o040555, &[], (0, 0)),
        ("init", 0o100755, &data, (0, 0)),
    ];
    for (ino, (name, mode, body, rdev)) in entries.iter().enumerate() {
        newc_entry(&mut a, ino + 1, name, *mode, body, *rdev)?;
    }
    newc_entry(&mut a, 0, "TRAILER!!!", 0, &[], (0, 0))?;
    std::fs::write(out, a).map_err(|e| LabError::Io(format!("{}: {e}", out.display())))
}

fn newc_entry(
    a: &mut Vec<u8>,
    ino: usize,
    name: &str,
    mode: u32,
    body: &[u8],
    rdev: (u32, u32),
) -> Result<(), LabError> {
    let size = u32::try_from(body.len()).map_err(|_| LabError::Io(format!("{name}: too large for cpio")))?;
    let namesize = u32::try_from(name.len() + 1).map_err(|_| LabError::Io("name too long".into()))?;
    let nlink = if mode & 0o170000 == 0o040000 { 2 } else { 1 };
    let fields =
        [ino as u64, mode.into(), 0, 0, nlink, 0, size.into(), 0, 0, rdev.0.into(), rdev.1.into(), namesize.into(), 0];
    a.extend_from_slice(b"070701");
    for f in fields {
        a.extend_from_slice(format!("{f:08x}").as_bytes());
    }
    a.extend_from_slice(name.as_bytes());
    a.push(0);
    while a.len() % 4 != 0 {
        a.push(0);
    }
    a.extend_from_slice(body);
    while a.len() % 4 != 0 {
        a.push(0);
    }
    Ok(())
}

/// Boots `kernel` with `initrd` in `qemu-system-ppc64 -M pseries -cpu POWER9` (Debian
/// qemu-system-ppc; TCG) and returns the parsed report and the whole console log. `iters`
/// reaches /init as its argv[1] (kernel command line after `--`).
pub fn boot_kernel(kernel: &Path, initrd: &Path, iters: u64, timeout: Duration) -> Result<(Report, String), LabError> {
    if !kernel.is_file() {
        return Err(LabError::Missing {
            what: format!("the ppc64el kernel {}", kernel.display()),
            hint: "run scripts/fetch-ppc-kernel.sh (Debian linux-image-*-powerpc64le:ppc64el)".into(),
        });
    }
    let qemu = need_program("qemu-system-ppc64", "install Debian's qemu-system-ppc (scripts/install-deps.sh)")?;
    let mut cmd = Command::new(qemu);
    cmd.args(["-M", "pseries", "-cpu", "POWER9", "-m", "1024", "-smp", "1"])
        .args(["-nographic", "-no-reboot", "-nodefaults", "-serial", "mon:stdio"])
        .arg("-kernel")
        .arg(kernel)
        .arg("-initrd")
        .arg(initrd)
        .arg("-append")
        .arg(format!("console=hvc0 quiet -- {iters}"));
    let line = format!("{cmd:?}");
    let (text, ok) = run_with_timeout(&mut cmd, timeout)?;
    if !ok {
        return Err(LabError::Command { cmd: line, status: "non-zero exit".into(), output: tail(&text, 4000).into() });
    }
    Ok((Report::parse(&text), text))
}

/// One `block` line: a byte-reversed `lwz r3,0(r3)` run in the other byte order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The strategy used (`fast`, `switch_endian`, `prctl`).
    pub strategy: String,
    /// The shim's return value (0 = switched and back).
    pub rc: i64,
    /// The word stored natively.
    pub arg: u32,
    /// The word the block loaded in the other byte order.
    pub result: u32,
}

/// One `time` line.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// What was timed (`fast`, `switch_endian`, `prctl`: a round trip; `getppid`; `bswap_4k`).
    pub name: String,
    /// Iterations; `None` when unavailable.
    pub iters: Option<u64>,
    /// Counter ticks (mftb) over all iterations.
    pub ticks: u64,
    /// Nanoseconds per iteration (CLOCK_MONOTONIC).
    pub ns: f64,
}

/// What the test program printed, parsed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// `ppc64` or `ppc64le` from the start line; empty if the program never started.
    pub arch: String,
    /// `probe NAME OUTCOME` lines: (NAME, OUTCOME text, e.g. `works`, `errno 38 (…)`).
    pub probes: Vec<(String, String)>,
    /// The PR_GET_ENDIAN mode, when reported.
    pub prctl_mode: Option<u32>,
    /// The chosen strategy (`fast`, `switch_endian`, `prctl`, `software`).
    pub chosen: Option<String>,
    /// The register check results (reversed pass, native pass); 0 = every register matched.
    pub pattern: Option<(u32, u32)>,
    /// `block` lines.
    pub blocks: Vec<Block>,
    /// The Time Base frequency, Hz (0 = not reported).
    pub timebase_hz: Option<u64>,
    /// `time` lines.
    pub timings: Vec<Timing>,
    /// The Markdown table as printed.
    pub table: String,
    /// Whether the `end` line was seen.
    pub ended: bool,
}

fn kv<'a>(fields: &'a str, key: &str) -> Option<&'a str> {
    fields.split_whitespace().find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
}

fn hex(s: Option<&str>) -> Option<u64> {
    u64::from_str_radix(s?.trim_start_matches("0x"), 16).ok()
}

impl Report {
    /// Parses the test program's output; kernel console lines around it are ignored.
    pub fn parse(text: &str) -> Report {
        let mut r = Report::default();
        for raw in text.lines() {
            let line = raw.trim_end_matches('\r');
            if let Some(i) = line.find("endgate-ppc-test start") {
                r.arch = kv(&line[i..], "arch").unwrap_or("").to_string();
                continue;
            }
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "probe" => {
                    let (name, outcome) = rest.split_once(' ').unwrap_or((rest, ""));
                    r.probes.push((name.to_string(), outcome.to_string()));
                }
                "prctl_mode" => r.prctl_mode = rest.trim().parse().ok(),
                "chosen" => r.chosen = Some(rest.trim().to_string()),
                "pattern" => {
                    if let (Some(a), Some(b)) = (kv(rest, "reversed"), kv(rest, "native")) {
                        r.pattern = a.parse().ok().zip(b.parse().ok());
                    }
                }
                "block" => {
                    let strategy = rest.split_whitespace().next().unwrap_or("").to_string();
                    let rc = kv(rest, "rc").and_then(|v| v.parse().ok()).unwrap_or(i64::MIN);
                    let arg = hex(kv(rest, "arg")).and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
                    let result = hex(kv(rest, "result")).and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
                    r.blocks.push(Block { strategy, rc, arg, result });
                }
                "timebase_hz" => r.timebase_hz = rest.trim().parse().ok(),
                "time" => {
                    let name = rest.split_whitespace().next().unwrap_or("").to_string();
                    let iters = kv(rest, "iters").and_then(|v| v.parse().ok());
                    let ticks = kv(rest, "ticks").and_then(|v| v.parse().ok()).unwrap_or(0);
                    let ns = kv(rest, "ns").and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
                    r.timings.push(Timing { name, iters, ticks, ns });
                }
                "end" if rest.is_empty() => r.ended = true,
                _ if line.starts_with('|') => {
                    r.table.push_str(line);
                    r.table.push('\n');
                }
                _ => {}
            }
        }
        r
    }

    /// The outcome text of probe `name`.
    pub fn probe(&self, name: &str) -> Option<&str> {
        self.probes.iter().find(|(n, _)| n == name).map(|(_, o)| o.as_str())
    }

    /// The errno of probe `name`, when it reported one.
    pub fn probe_errno(&self, name: &str) -> Option<i32> {
        self.probe(name)?.strip_prefix("errno ")?.split_whitespace().next()?.parse().ok()
    }

    /// The timing named `name`, when it was measured.
    pub fn timing(&self, name: &str) -> Option<&Timing> {
        self.timings.iter().find(|t| t.name == name && t.iters.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_run_with_console_noise() {
        let text = "Booting\r\n#1 SMP Debian 6.endgate-ppc-test start arch=ppc64le\r\n\
            probe fast errno 38 (Function not implemented)\nprobe switch_endian works\n\
            prctl_mode 1\nchosen switch_endian\npattern reversed=0 native=0\n\
            block prctl rc=0 arg=0x11223344 result=0x44332211\ntimebase_hz 512000000\n\
            time fast unavailable\ntime switch_endian iters=100 ticks=2000 ns=39.5\n\
            | a | b |\n[ 2.1] reboot: Power down\nend\n";
        let r = Report::parse(text);
        assert_eq!(r.arch, "ppc64le");
        assert_eq!(r.probe_errno("fast"), Some(38));
        assert_eq!(r.probe("switch_endian"), Some("works"));
        assert_eq!(r.prctl_mode, Some(1));
        assert_eq!(r.chosen.as_deref(), Some("switch_endian"));
        assert_eq!(r.pattern, Some((0, 0)));
        assert_eq!(r.blocks[0], Block { strategy: "prctl".into(), rc: 0, arg: 0x1122_3344, result: 0x4433_2211 });
        assert_eq!(r.timebase_hz, Some(512_000_000));
        assert!(r.timing("fast").is_none());
        assert_eq!(r.timing("switch_endian").map(|t| (t.ticks, t.ns)), Some((2000, 39.5)));
        assert_eq!(r.table, "| a | b |\n");
        assert!(r.ended);
    }

    #[test]
    fn newc_archive_layout() {
        let dir = std::env::temp_dir().join(format!("host-shims-newc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("x"), b"hello").unwrap();
        write_initramfs(&dir.join("x"), &dir.join("a.cpio")).unwrap();
        let a = std::fs::read(dir.join("a.cpio")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(&a[..6], b"070701");
        assert_eq!(a.len() % 4, 0);
        let s = String::from_utf8_lossy(&a);
        for name in ["dev\0", "dev/console\0", "proc\0", "init\0", "TRAILER!!!\0", "hello"] {
            assert!(s.contains(name), "{name:?} missing");
        }
    }
}
