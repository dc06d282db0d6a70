//! Finding the programs the benchmark needs (compilers, qemu-user, endgate,
//! busybox) and describing the host (CPU model, kernel, date, git commit).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// Look `name` up in `$PATH` (or take it as a path if it contains a `/`).
pub fn which(name: &str) -> Result<PathBuf, String> {
    if name.contains('/') {
        let p = PathBuf::from(name);
        return if is_executable(&p) { Ok(p) } else { Err(format!("{name} is not an executable file")) };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
        .ok_or_else(|| format!("`{name}` not found in PATH"))
}

/// Whether `p` is a regular file with an execute bit set.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
}

/// First line of `program --version`, if it runs.
pub fn version_line(program: &Path) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find(|l| !l.trim().is_empty()).map(|l| l.trim().to_string())
}

/// Find the busybox for Debian architecture `debarch` under `dir`, accepting
/// both `<dir>/<debarch>/busybox` and an unpacked package's
/// `<dir>/<debarch>/bin/busybox`.
pub fn find_busybox(dir: &Path, debarch: &str) -> Result<PathBuf, String> {
    let candidates = [dir.join(debarch).join("busybox"), dir.join(debarch).join("bin").join("busybox")];
    candidates.iter().find(|p| is_executable(p)).cloned().ok_or_else(|| {
        format!(
            "no {debarch} busybox at {} (run scripts/fetch-inputs.sh or pass --busybox-dir)",
            candidates[0].display()
        )
    })
}

/// Facts about the machine and checkout the numbers were taken on.
#[derive(Debug, Clone)]
pub struct HostInfo {
    /// UTC date and time, `YYYY-MM-DD HH:MM:SS UTC`.
    pub date: String,
    /// CPU model name from /proc/cpuinfo.
    pub cpu: String,
    /// Number of logical CPUs.
    pub cpus: usize,
    /// Kernel name and release (`uname -sr`).
    pub kernel: String,
    /// Git commit of the workspace, with `-dirty` if it has local changes.
    pub commit: String,
}

impl HostInfo {
    /// Collect the host description; fields that cannot be read say "unknown".
    pub fn collect(workspace: &Path) -> HostInfo {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                matches!(k.trim(), "model name" | "Model" | "Hardware").then(|| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let read = |p: &str| std::fs::read_to_string(p).map(|s| s.trim().to_string()).ok();
        let kernel = match (read("/proc/sys/kernel/ostype"), read("/proc/sys/kernel/osrelease")) {
            (Some(t), Some(r)) => format!("{t} {r}"),
            (None, Some(r)) => r,
            _ => "unknown".into(),
        };
        let git = |args: &[&str]| {
            Command::new("git")
                .arg("-C")
                .arg(workspace)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
            Some(c) => {
                let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
                if dirty {
                    format!("{c}-dirty")
                } else {
                    c
                }
            }
            None => "unknown".into(),
        };
        HostInfo { date: utc_now(), cpu, cpus, kernel, commit }
    }
}

/// The current UTC time as `YYYY-MM-DD HH:MM:SS UTC`.
pub fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (i64::try_from(secs / 86400).unwrap_or(0), secs % 86400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day)
/// (Howard Hinnant's algorithm).
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // day 1..=31 and month 1..=12 by construction
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_000), (2024, 10, 4));
    }
}
