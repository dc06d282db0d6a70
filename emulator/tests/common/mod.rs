//! Helpers shared by endgate's integration tests: where the binaries and inputs are, temporary
//! directories, and exit statuses as a shell reports them.

#![allow(dead_code)]

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

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
