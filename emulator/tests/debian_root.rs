//! A Debian 12 system bootstrapped under endgate (issue 14, item 6), from a root test run:
//! the first stage of `debootstrap --foreign --variant=minbase` for a foreign arch is made on
//! the host from cached packages (scripts/fetch-debian-root.sh), then the second stage runs
//! under endgate inside the tree and must end with debootstrap's "Base system installed
//! successfully." and every essential package configured; then
//! emulator/tests/debian_root/use-system.sh runs in the new system as its root user would:
//! `dpkg -i` of two more packages (hello, less), `apt-cache policy`, `perl -e`, python3 and its
//! libraries installed with dpkg and `python3 -c`, `dpkg --audit`.
//!
//! Three ways to run the second stage and the script ([`How`]): `endgate --root TREE
//! --fakeroot` as user nobody (the tree chowned to nobody first: no privilege at all, the
//! ownership dpkg sets kept in a `--fakeroot-state` file across the two runs); `endgate --root
//! TREE` as root; and the qemu-user-static way, a host chroot (scripts/chroot-under-endgate.sh:
//! the tree's own `chroot` under endgate). Every run is inside a private mount namespace where
//! the host's `/` is read-only and only the tree is writable.
//!
//! Run by default (about 2.5 minutes on 2 cores): arm64 under `--root --fakeroot` as nobody,
//! and s390x (big-endian) bounded: programs of its first-stage tree (dpkg-deb, perl, a shell)
//! under `--root`, some seconds. `ENDGATE_DEBIAN_FULL=1` adds s390x's whole run under `--root`
//! as root and arm64's in a host chroot (about 3 minutes each).
//!
//! Also by default: the static endgate (docs/static.md) copied into the arm64 first-stage tree,
//! whose `proc` is still the link to `/proc`, run by a host `chroot` (the qemu-user-static
//! way): bash, dpkg-deb, perl and a pipeline, each started by the shell under it.
//!
//! Skipped, with the reason printed, when not run as root (debootstrap's first stage makes
//! device nodes and chowns files; the mount namespace needs it) or when the packages are not
//! cached and cannot be downloaded (offline).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{endgate, run_with_timeout, workspace, TempDir, Timed};

/// Longest a second stage may take (1.5 to 3 minutes on 2 cores, as loaded).
const SECOND_STAGE_TIMEOUT: Duration = Duration::from_secs(20 * 60);
/// Longest use-system.sh may take (25 to 90 s).
const USE_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Why this machine cannot run the test, if it cannot.
fn cannot_run() -> Option<&'static str> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("debootstrap's first stage and a private mount namespace need root");
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

/// How the guest runs inside the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    /// `endgate --root TREE --fakeroot-state STATE` as user nobody (uid 65534), the tree
    /// chowned to nobody.
    FakerootAsNobody,
    /// `endgate --root TREE` as root.
    RootAsRoot,
    /// A host chroot: scripts/chroot-under-endgate.sh.
    HostChroot,
}

/// Runs the guest command `args` in `tree`, the way `how` says, within a private mount
/// namespace whose `/` is read-only but for the tree's directory (the tree and, beside it, the
/// `--fakeroot-state` file).
fn in_tree(tree: &Path, how: How, args: &[&str], timeout: Duration) -> Timed {
    let mut cmd;
    if how == How::HostChroot {
        cmd = Command::new(workspace().join("scripts/chroot-under-endgate.sh"));
        cmd.env("ENDGATE", endgate()).env_remove("ENDGATE_OPTS").env_remove("ENDGATE_RW").arg(tree).args(args);
    } else {
        cmd = Command::new("unshare");
        cmd.args(["-m", "--propagation", "private", "sh", "-ec"])
            .arg(r#"d=$1; shift; mount --bind "$d" "$d"; mount -o remount,bind,ro /; exec "$@""#)
            .arg("sh")
            .arg(tree.parent().expect("the tree's directory"));
        if how == How::FakerootAsNobody {
            cmd.args(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]);
        }
        cmd.arg(endgate()).arg("--root").arg(tree);
        if how == How::FakerootAsNobody {
            // Beside the tree: the records outlive one run (dpkg's chowns, for the next).
            cmd.arg("--fakeroot-state").arg(tree.with_file_name("fakeroot").join("state"));
        }
        cmd.args(args);
    }
    let t = run_with_timeout(&mut cmd, None, timeout);
    assert!(!t.timed_out, "{args:?} in {} ({how:?}) still ran after {} s", tree.display(), timeout.as_secs());
    t
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The second stage, then use-system.sh, run as `how` says; `endian` is the arch's byte order
/// as perl and python name it.
fn bootstrap_and_use(arch: &str, endian: &str, how: How) {
    if let Some(why) = cannot_run() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = TempDir::new(&format!("debian-{arch}"));
    let Some(tree) = first_stage(dir.path(), arch) else { return };
    if how == How::FakerootAsNobody {
        let st = Command::new("chown").args(["-R", "65534:65534"]).arg(&tree).status().unwrap();
        assert!(st.success(), "chown -R nobody {}", tree.display());
        // Nobody must reach the tree and the state file (whatever the umask made of them).
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        // endgate writes the state file again through a temporary file beside it.
        let state = tree.with_file_name("fakeroot");
        std::fs::create_dir(&state).unwrap();
        std::os::unix::fs::chown(&state, Some(65534), Some(65534)).unwrap();
    }
    let debs = std::fs::read_dir(tree.join("var/cache/apt/archives"))
        .unwrap()
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".deb")))
        .count();
    let start = Instant::now();
    let t = in_tree(&tree, how, &["/bin/sh", "/debootstrap/debootstrap", "--second-stage"], SECOND_STAGE_TIMEOUT);
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
    eprintln!("{arch} ({how:?}): debootstrap --second-stage under endgate took {:.0} s", took.as_secs_f64());
    // dpkg configured every essential package.
    let status = std::fs::read_to_string(tree.join("var/lib/dpkg/status")).unwrap();
    let states: Vec<&str> = status.lines().filter_map(|l| l.strip_prefix("Status: ")).collect();
    assert_eq!(states.len(), debs, "one dpkg entry per package of the first stage");
    assert!(states.iter().all(|s| *s == "install ok installed"), "{states:?}");
    assert!(!tree.join("debootstrap").exists(), "debootstrap removes its directory when it is done");
    // The new system, used.
    std::fs::copy(workspace().join("emulator/tests/debian_root/use-system.sh"), tree.join("root/use-system.sh"))
        .unwrap();
    if how == How::FakerootAsNobody {
        std::os::unix::fs::chown(tree.join("root/use-system.sh"), Some(65534), Some(65534)).unwrap();
    }
    let start = Instant::now();
    let t = in_tree(&tree, how, &["/bin/sh", "/root/use-system.sh"], USE_TIMEOUT);
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
        "use-system.sh in the {arch} system ({how:?})\nstderr:\n{}\ndpkg's log:\n{dpkg_log}",
        text(&t.stderr)
    );
    eprintln!("{arch} ({how:?}): use-system.sh took {:.0} s", start.elapsed().as_secs_f64());
}

/// `ENDGATE_DEBIAN_FULL=1` asks for the longer runs.
fn full() -> bool {
    if std::env::var_os("ENDGATE_DEBIAN_FULL").is_some_and(|v| v == "1") {
        return true;
    }
    eprintln!("skipped: about 3 minutes more; ENDGATE_DEBIAN_FULL=1 runs it");
    false
}

#[test]
fn arm64_under_root_and_fakeroot_as_nobody() {
    bootstrap_and_use("arm64", "little", How::FakerootAsNobody);
}

#[test]
fn s390x_under_root_as_root() {
    if full() {
        bootstrap_and_use("s390x", "big", How::RootAsRoot);
    }
}

#[test]
fn arm64_in_a_host_chroot() {
    if full() {
        bootstrap_and_use("arm64", "little", How::HostChroot);
    }
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
    // The first stage's `proc -> /proc` link, made a directory as the second stage does, where
    // --root shows the host's /proc (glibc's fchmodat(AT_SYMLINK_NOFOLLOW), which tar uses,
    // goes through /proc/self/fd).
    std::fs::remove_file(tree.join("proc")).unwrap();
    std::fs::create_dir(tree.join("proc")).unwrap();
    let script = "set -eu; dpkg-deb -x /root/debs/hello_*.deb /tmp/hello; /tmp/hello/usr/bin/hello; \
                  dpkg-deb -f /root/debs/hello_*.deb Package Architecture; \
                  perl -e 'print unpack(\"H*\", pack(\"L\", 0x01020304)), \"\\n\"'; \
                  echo one two | tr a-z A-Z | sed s/TWO/2/; ls /usr/bin/dpkg";
    let t = in_tree(&tree, How::RootAsRoot, &["/bin/sh", "-c", script], Duration::from_secs(300));
    assert_eq!(
        (t.status, text(&t.stdout)),
        (0, "Hello, world!\nPackage: hello\nArchitecture: s390x\n01020304\nONE 2\n/usr/bin/dpkg\n".to_string()),
        "{}",
        text(&t.stderr)
    );
}

#[test]
fn static_endgate_in_a_host_chroot_of_the_arm64_tree() {
    // The qemu-user-static way with endgate: the static endgate (docs/static.md) copied into
    // the first-stage tree, whose `proc` is still the link to /proc, and run by a host chroot;
    // the shell it runs starts other guest programs (endgate runs itself again through the
    // descriptor it took at start).
    if let Some(why) = cannot_run() {
        eprintln!("skipped: {why}");
        return;
    }
    let stat = workspace().join("target/x86_64-unknown-linux-gnu/release/endgate");
    assert!(stat.exists(), "{}: build it with `cargo build-static` (scripts/test-all.sh does)", stat.display());
    let dir = TempDir::new("debian-arm64-static");
    let Some(tree) = first_stage(dir.path(), "arm64") else { return };
    assert!(tree.join("proc").symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()), "proc is a link");
    std::fs::copy(&stat, tree.join("endgate")).unwrap();
    // (No `dpkg-deb -x`: tar's mode changes go through /proc/self/fd, which the `proc` link
    // does not reach in a chroot, natively too.)
    let script = "set -eu; bash -c 'echo from bash'; \
                  dpkg-deb -f /root/debs/hello_*.deb Package Architecture; \
                  perl -e 'print unpack(\"H*\", pack(\"L\", 0x01020304)), \"\\n\"'; \
                  echo one two | tr a-z A-Z | sed s/TWO/2/; ls /usr/bin/dpkg";
    let mut cmd = Command::new("unshare");
    cmd.args(["-m", "--propagation", "private", "chroot"]).arg(&tree).args(["/endgate", "/bin/sh", "-c", script]);
    let t = run_with_timeout(&mut cmd, None, Duration::from_secs(300));
    assert_eq!(
        (t.status, text(&t.stdout)),
        (0, "from bash\nPackage: hello\nArchitecture: arm64\n04030201\nONE 2\n/usr/bin/dpkg\n".to_string()),
        "{}",
        text(&t.stderr)
    );
}
