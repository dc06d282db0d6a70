//! A Debian 12 system bootstrapped under endgate (issue 14, item 6), as root: the first stage
//! of `debootstrap --foreign --variant=minbase` for a foreign arch is made on the host from
//! cached packages (scripts/fetch-debian-root.sh), then the second stage runs under endgate
//! inside the tree (scripts/chroot-under-endgate.sh: the tree's own `chroot` program, the
//! host's `/` read-only in a private mount namespace) and must end with debootstrap's "Base
//! system installed successfully." and every essential package configured; then
//! emulator/tests/debian_root/use-system.sh runs in the new system as its root user would:
//! `dpkg -i` of two more packages (hello, less), `apt-cache policy`, `perl -e`, python3 and its
//! libraries installed with dpkg and `python3 -c`, `dpkg --audit`.
//!
//! Run by default: arm64, the whole of it (about 3 minutes for the second stage and 1.5 for the
//! rest on 2 cores), and s390x (big-endian) bounded: programs of its first-stage tree (dpkg-deb,
//! perl, a shell) run under endgate without the second stage, some seconds. With
//! `ENDGATE_DEBIAN_FULL=1` s390x gets the whole run as well (about 5 more minutes).
//!
//! Skipped, with the reason printed, when not run as root (debootstrap, chroot(2) and the mount
//! namespace need it) or when the packages are not cached and cannot be downloaded (offline).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{endgate, run_with_timeout, workspace, TempDir, Timed};

/// Longest a second stage may take (it took about 3 minutes on 2 loaded cores).
const SECOND_STAGE_TIMEOUT: Duration = Duration::from_secs(20 * 60);
/// Longest use-system.sh may take (about 1.5 minutes).
const USE_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Why this machine cannot run the test, if it cannot.
fn cannot_run() -> Option<&'static str> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("debootstrap, chroot(2) and a private mount namespace need root");
    }
    if Command::new("unshare").arg("--version").output().map_or(true, |o| !o.status.success()) {
        return Some("unshare (util-linux) is missing");
    }
    None
}

/// A fresh first-stage tree for `arch` (a Debian arch name) in `dir`/tree, or `None` (with the
/// reason printed) when its packages are not cached and cannot be downloaded.
fn first_stage(dir: &Path, arch: &str) -> Option<PathBuf> {
    let cache = workspace().join(".cache/debian-root/debs").join(arch);
    let cached = cache.join("base.tgz").exists() && cache.join("extra/DONE").exists();
    let tree = dir.join("tree");
    let o = Command::new(workspace().join("scripts/fetch-debian-root.sh"))
        .arg(arch)
        .arg(&tree)
        .output()
        .expect("run scripts/fetch-debian-root.sh");
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        assert!(!cached, "scripts/fetch-debian-root.sh {arch} failed with its packages cached:\n{err}");
        eprintln!("skipped: {arch}'s packages are not cached and cannot be downloaded:\n{err}");
        return None;
    }
    eprintln!("{}", err.trim_end());
    Some(tree)
}

/// `scripts/chroot-under-endgate.sh TREE ARGS…`.
fn in_tree(tree: &Path, args: &[&str], timeout: Duration) -> Timed {
    let mut cmd = Command::new(workspace().join("scripts/chroot-under-endgate.sh"));
    cmd.env("ENDGATE", endgate()).env_remove("ENDGATE_OPTS").env_remove("ENDGATE_RW").arg(tree).args(args);
    let t = run_with_timeout(&mut cmd, None, timeout);
    assert!(!t.timed_out, "{args:?} in {} still ran after {} s", tree.display(), timeout.as_secs());
    t
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The second stage, then use-system.sh; `endian` is the arch's byte order as perl and python
/// name it.
fn bootstrap_and_use(arch: &str, endian: &str) {
    if let Some(why) = cannot_run() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = TempDir::new(&format!("debian-{arch}"));
    let Some(tree) = first_stage(dir.path(), arch) else { return };
    let debs = std::fs::read_dir(tree.join("var/cache/apt/archives"))
        .unwrap()
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".deb")))
        .count();
    let start = Instant::now();
    let t = in_tree(&tree, &["/debootstrap/debootstrap", "--second-stage"], SECOND_STAGE_TIMEOUT);
    let took = start.elapsed();
    let (out, err) = (text(&t.stdout), text(&t.stderr));
    let log = std::fs::read_to_string(tree.join("var/log/bootstrap.log"))
        .or_else(|_| std::fs::read_to_string(tree.join("debootstrap/debootstrap.log")))
        .unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(40).collect();
    assert_eq!(
        (t.status, out.lines().last()),
        (0, Some("I: Base system installed successfully.")),
        "{arch} second stage\nstdout:\n{out}\nstderr:\n{err}\nlog (last lines, newest first):\n{}",
        tail.join("\n")
    );
    eprintln!("{arch}: debootstrap --second-stage under endgate took {:.0} s", took.as_secs_f64());
    // dpkg configured every essential package.
    let status = std::fs::read_to_string(tree.join("var/lib/dpkg/status")).unwrap();
    let states: Vec<&str> = status.lines().filter_map(|l| l.strip_prefix("Status: ")).collect();
    assert_eq!(states.len(), debs, "one dpkg entry per package of the first stage");
    assert!(states.iter().all(|s| *s == "install ok installed"), "{states:?}");
    assert!(!tree.join("debootstrap").exists(), "debootstrap removes its directory when it is done");
    // The new system, used.
    std::fs::copy(workspace().join("emulator/tests/debian_root/use-system.sh"), tree.join("root/use-system.sh"))
        .unwrap();
    let start = Instant::now();
    let t = in_tree(&tree, &["/bin/sh", "/root/use-system.sh"], USE_TIMEOUT);
    let dpkg_log = std::fs::read_to_string(tree.join("root/dpkg.log")).unwrap_or_default();
    assert_eq!(
        (t.status, text(&t.stdout)),
        (
            0,
            format!(
                "arch: {arch}\nhello: Hello, world!\nless: one two \napt-cache: 2.10-3\n\
                 perl: 1,4,9,16,25 {endian}-endian\npython3: (3, 11) {endian} {{\"n\": 42}} f41e6cece453be87\n\
                 audit: []\nnot installed: []\n"
            )
        ),
        "use-system.sh in the {arch} system\nstderr:\n{}\ndpkg's log:\n{dpkg_log}",
        text(&t.stderr)
    );
    eprintln!("{arch}: use-system.sh took {:.0} s", start.elapsed().as_secs_f64());
}

#[test]
fn arm64_second_stage_and_the_new_system() {
    bootstrap_and_use("arm64", "little");
}

#[test]
fn s390x_second_stage_and_the_new_system() {
    if std::env::var_os("ENDGATE_DEBIAN_FULL").is_none_or(|v| v != "1") {
        eprintln!("skipped: the whole s390x run takes about 5 minutes more; ENDGATE_DEBIAN_FULL=1 runs it");
        return;
    }
    bootstrap_and_use("s390x", "big");
}

#[test]
fn s390x_first_stage_programs() {
    // The bounded s390x check of the default run: programs the first stage unpacked, under
    // endgate in the tree before any of them was configured.
    if let Some(why) = cannot_run() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = TempDir::new("debian-s390x-first");
    let Some(tree) = first_stage(dir.path(), "s390x") else { return };
    // The first stage's `proc -> /proc` link, made a directory for /proc as the second stage
    // does (glibc's fchmodat(AT_SYMLINK_NOFOLLOW), which tar uses, goes through
    // /proc/self/fd).
    std::fs::remove_file(tree.join("proc")).unwrap();
    std::fs::create_dir(tree.join("proc")).unwrap();
    let script = "set -eu; dpkg-deb -x /root/debs/hello_*.deb /tmp/hello; /tmp/hello/usr/bin/hello; \
                  dpkg-deb -f /root/debs/hello_*.deb Package Architecture; \
                  perl -e 'print unpack(\"H*\", pack(\"L\", 0x01020304)), \"\\n\"'; \
                  echo one two | tr a-z A-Z | sed s/TWO/2/; ls /usr/bin/dpkg";
    let t = in_tree(&tree, &["/bin/sh", "-c", script], Duration::from_secs(300));
    assert_eq!(
        (t.status, text(&t.stdout)),
        (0, "Hello, world!\nPackage: hello\nArchitecture: s390x\n01020304\nONE 2\n/usr/bin/dpkg\n".to_string()),
        "{}",
        text(&t.stderr)
    );
}
