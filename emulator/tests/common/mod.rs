//! Helpers shared by endgate's integration tests: the guest arches and their toolchains, where
//! the binaries and inputs are, temporary directories, and exit statuses as a shell reports them.
//!
//! The arch table (cross gcc, qemu-user binary, Debian and Go names, sysroot) is
//! `guest_tests::arch`, re-exported here: a test names an arch's row (`S390X.cc`,
//! `ARM.qemu`) instead of writing the toolchain out again.

#![allow(dead_code, unused_imports)]

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

pub use guest_tests::arch::{Arch, AARCH64, ARCHES, ARM, I386, MIPS64EL, RISCV64, S390X, X86_64};

/// The table row of the arch named `name` (`uname -m` spelling: x86_64, aarch64, arm…).
pub fn arch(name: &str) -> &'static Arch {
    Arch::by_name(name).unwrap_or_else(|| panic!("no guest arch named {name}"))
}

/// The Debian names (amd64, arm64, armhf…) of the arches Debian ships a busybox-static for,
/// in table order: the guests of the busybox-based tests.
pub fn busybox_arches() -> impl Iterator<Item = &'static str> {
    ARCHES.iter().filter(|a| a.no_busybox.is_none()).map(|a| a.debian)
}

/// The endgate binary under test.
pub fn endgate() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_endgate"))
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Debian's busybox-static for `arch` (Debian's name: amd64, arm64…), fetched by
/// scripts/fetch-inputs.sh. Panics with the command to run when it is missing.
pub fn busybox(arch: &str) -> PathBuf {
    let dir = std::env::var_os("ENDGATE_BUSYBOX_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".cache/busybox"));
    let p = dir.join(arch).join("busybox");
    assert!(p.exists(), "{} is missing: run scripts/fetch-inputs.sh (or scripts/test-all.sh)", p.display());
    p
}

/// The status a shell reports: the exit code, or 128+signal.
pub fn shell_status(s: ExitStatus) -> i32 {
    s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
}

/// A temporary directory removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates a fresh directory under the system temp dir.
    pub fn new(tag: &str) -> TempDir {
        let base = std::env::temp_dir();
        for i in 0..1000u32 {
            let p = base.join(format!("endgate-{tag}-{}-{i}-{}", std::process::id(), nanos()));
            if std::fs::create_dir(&p).is_ok() {
                return TempDir(p);
            }
        }
        panic!("cannot create a temp dir");
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What [`run_with_timeout`] saw: stdout, stderr, the shell status, and whether the deadline
/// killed the process (then `status` is 128+SIGKILL).
pub struct Timed {
    /// Everything the process wrote to stdout.
    pub stdout: Vec<u8>,
    /// Everything the process wrote to stderr.
    pub stderr: Vec<u8>,
    /// The status a shell reports ([`shell_status`]).
    pub status: i32,
    /// True when the process was still running at the deadline and was killed.
    pub timed_out: bool,
}

/// Runs `cmd` with `stdin` piped in (or /dev/null when `None`), stdout and stderr captured,
/// in its own process group; if it has not ended after `timeout`, SIGKILL goes to the whole
/// group (so children still holding the pipes die too). Panics only when the program cannot be
/// started at all.
pub fn run_with_timeout(cmd: &mut std::process::Command, stdin: Option<&[u8]>, timeout: std::time::Duration) -> Timed {
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    cmd.process_group(0);
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {:?}: {e}", cmd.get_program()));
    // Pipes are drained on their own threads so a chatty child never blocks on a full pipe.
    let feeder = child.stdin.take().zip(stdin.map(<[u8]>::to_vec)).map(|(mut w, data)| {
        std::thread::spawn(move || {
            let _ = w.write_all(&data); // the child may exit without reading: EPIPE is fine
        })
    });
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let deadline = std::time::Instant::now() + timeout;
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if std::time::Instant::now() >= deadline {
            timed_out = true;
            if let Ok(pgid) = i32::try_from(child.id()) {
                // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
            }
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    if let Some(f) = feeder {
        let _ = f.join();
    }
    Timed {
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        status: shell_status(status),
        timed_out,
    }
}

/// The qemu-user program (package qemu-user) for a Debian arch name: `qemu-arm` for armhf,
/// `qemu-mips64el` for mips64el… `None` for an arch not in the table.
pub fn qemu_user(debian_arch: &str) -> Option<&'static str> {
    Arch::by_debian(debian_arch).map(|a| a.qemu)
}

/// Builds the C source `src` into `out` with `cc -O2 -static` and `extra` flags; panics with the
/// command to run when `cc` is missing, or with the compiler's message when the build fails.
pub fn build_static(cc: &str, src: &Path, out: &Path, extra: &[&std::ffi::OsStr]) -> PathBuf {
    let o = std::process::Command::new(cc)
        .args(["-O2", "-static"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(src)
        .output()
        .unwrap_or_else(|e| panic!("{cc} missing ({e}): run scripts/install-deps.sh"));
    assert!(o.status.success(), "building {} with {cc}: {}", src.display(), String::from_utf8_lossy(&o.stderr));
    out.to_path_buf()
}
