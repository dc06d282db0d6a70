//! `--fakeroot` and `--fakeroot-state` (docs/fakeroot.md), with Debian's busybox-static as the
//! guest on aarch64 and s390x (the big-endian case), run as an unprivileged user: when the
//! test runs as root, endgate runs under `setpriv --reuid=65534 --regid=65534
//! --clear-groups` (nobody) in a temporary directory that user can write.
//!
//! The expected values are what fakeroot(1) gives for the same commands (checked with Debian
//! 12's fakeroot 1.31 and amd64 busybox natively): ids read as 0; `chown 123:45` is reported
//! back by `stat`, also to another process (a fork and exec of busybox by path); `mknod d c 1 3`
//! reads as a character device 1,3 owned by 0:0; `chmod 4755` reads as `-rwsr-xr-x`; a file
//! nobody chowned reads as owned by 0:0. Without `--fakeroot` the same user sees its own ids
//! and the host's `EPERM`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{busybox, endgate, run_with_timeout, TempDir};

const TIMEOUT: Duration = Duration::from_secs(120);

/// The unprivileged user the guest runs as when the test runs as root (nobody).
const NOBODY: u32 = 65534;

/// `true` when the test runs as root, so endgate must drop to [`NOBODY`] first.
fn as_root() -> bool {
    // SAFETY: no arguments.
    unsafe { libc::geteuid() == 0 }
}

/// The uid endgate runs as.
fn guest_host_uid() -> u32 {
    if as_root() {
        NOBODY
    } else {
        // SAFETY: no arguments.
        unsafe { libc::getuid() }
    }
}

/// A temporary directory the unprivileged user can write, with a copy of busybox in it (so
/// the guest reaches it whatever the permissions of the directories above the cache).
struct Work {
    dir: TempDir,
    bb: PathBuf,
}

fn work(arch: &str) -> Work {
    let dir = TempDir::new(&format!("fakeroot-{arch}"));
    let mut perm = std::fs::metadata(dir.path()).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o777);
    std::fs::set_permissions(dir.path(), perm).unwrap();
    let bb = dir.path().join("busybox");
    std::fs::copy(busybox(arch), &bb).unwrap();
    Work { dir, bb }
}

/// Runs `endgate OPTS BUSYBOX sh -c SCRIPT` in `dir` as the unprivileged user; stdout (stderr
/// appended after a `--stderr--` line when not empty) and the exit status.
fn run(dir: &Path, opts: &[&str], bb: &Path, script: &str) -> (String, i32) {
    let mut cmd = if as_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(endgate());
        c
    } else {
        Command::new(endgate())
    };
    cmd.args(opts).arg(bb).args(["sh", "-c", script]).current_dir(dir).env("BB", bb);
    let r = run_with_timeout(&mut cmd, None, TIMEOUT);
    assert!(!r.timed_out, "endgate {opts:?} sh -c {script:?} timed out");
    let mut out = String::from_utf8_lossy(&r.stdout).into_owned();
    if !r.stderr.is_empty() {
        out.push_str("--stderr--\n");
        out.push_str(&String::from_utf8_lossy(&r.stderr));
    }
    (out, r.status)
}

/// The ids, chown (seen by the same process, a forked and exec'd busybox and an exec'd one),
/// chmod of the setuid bit, a character device and a directory mode 0 still usable.
fn fakeroot_basics(arch: &str) {
    let w = work(arch);
    let script = "id -u; id -g; touch f; stat -c '%u:%g %a' f; \
                  chown 123:45 f && stat -c '%u:%g' f; \
                  \"$BB\" stat -c 'child %u:%g' f; (exec \"$BB\" stat -c 'exec %u:%g' f); \
                  chmod 4755 f && stat -c '%a %A' f; \
                  mknod d c 1 3 && stat -c '%F %t,%T %a %u:%g' d; \
                  mknod b b 8 1 && stat -c '%F %t,%T' b; \
                  mkdir dd && chmod 0 dd && stat -c '%a' dd && touch dd/x && echo dd writable";
    let (out, status) = run(w.dir.path(), &["--fakeroot"], &w.bb, script);
    assert_eq!(
        out,
        "0\n0\n0:0 644\n123:45\nchild 123:45\nexec 123:45\n4755 -rwsr-xr-x\n\
         character special file 1,3 644 0:0\nblock special file 8,1\n0\ndd writable\n",
        "{arch}"
    );
    assert_eq!(status, 0, "{arch}");
    // On the host: still the real user's files, `d` an empty regular file, `f` with the
    // setuid bit the host allowed on the user's own file, `dd` with the owner's bits added.
    let meta = |n: &str| std::fs::symlink_metadata(w.dir.path().join(n)).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_eq!((meta("f").uid(), meta("f").mode()), (guest_host_uid(), 0o104755), "{arch}");
    assert_eq!((meta("d").mode(), meta("d").len()), (0o100644, 0), "{arch}");
    assert_eq!(meta("dd").mode(), 0o40700, "{arch}");
}

#[test]
fn fakeroot_aarch64() {
    fakeroot_basics("arm64");
}

#[test]
fn fakeroot_s390x() {
    fakeroot_basics("s390x");
}

/// Builds emulator/tests/fakeroot/ids.c statically with `cc` into `dir` (readable by all).
fn build_ids(dir: &Path, cc: &str) -> PathBuf {
    let out = dir.join(format!("ids-{cc}"));
    let st = Command::new(cc)
        .args(["-O2", "-static", "-o"])
        .arg(&out)
        .arg(common::workspace().join("emulator/tests/fakeroot/ids.c"))
        .status()
        .unwrap_or_else(|e| panic!("{cc} missing ({e}): run scripts/install-deps.sh"));
    assert!(st.success(), "building ids.c with {cc}");
    out
}

/// set*id calls succeed and are remembered, as under fakeroot, starting from 0 everywhere;
/// `setuid` sets every id while the faked euid is 0, only the effective one after that;
/// `setreuid` moves the saved id as the kernel does; `capget` reports every capability.
/// (fakeroot 1.31 agrees on every line but two: its `getgroups` answers the faked real gid
/// whatever `setgroups` set, and its `setreuid` leaves the saved id.)
#[test]
fn fakeroot_ids_remembered() {
    let dir = TempDir::new("fakeroot-ids");
    for cc in ["aarch64-linux-gnu-gcc", "s390x-linux-gnu-gcc"] {
        let prog = build_ids(dir.path(), cc);
        let w = work("arm64");
        let mut cmd = if as_root() {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(endgate());
            c
        } else {
            Command::new(endgate())
        };
        // The program runs from the writable directory (the build directory may not be
        // readable by the unprivileged user).
        let copy = w.dir.path().join("ids");
        std::fs::copy(&prog, &copy).unwrap();
        cmd.arg("--fakeroot").arg(&copy);
        let r = run_with_timeout(&mut cmd, None, TIMEOUT);
        assert_eq!(
            String::from_utf8_lossy(&r.stdout),
            "start: uid 0 euid 0 res 0,0,0 gid 0 egid 0 res 0,0,0 groups 0\n\
             capget 0: effective full, permitted full\n\
             setgroups 0\n\
             setresgid 0\n\
             after setgroups, setresgid: uid 0 euid 0 res 0,0,0 gid 1 egid 2 res 1,2,3 groups 4 5\n\
             setuid(5) 0\n\
             after setuid(5): uid 5 euid 5 res 5,5,5 gid 1 egid 2 res 1,2,3 groups 4 5\n\
             setuid(0) 0\n\
             after setuid(0): uid 5 euid 0 res 5,0,5 gid 1 egid 2 res 1,2,3 groups 4 5\n\
             setresuid(7,8,9) 0\n\
             setfsuid(-1) 8\n\
             setreuid(-1,10) 0\n\
             end: uid 7 euid 10 res 7,10,10 gid 1 egid 2 res 1,2,3 groups 4 5\n",
            "{cc}: stderr {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_eq!(r.status, 0, "{cc}");
    }
}

/// A package-like round trip: `tar -c` under one `--fakeroot` run stores the faked owners,
/// modes and a device (it reads them through `stat`), and `tar -x` in a second run with no
/// records (busybox tar, as root, chowns and mknods what it extracts) makes them again. The
/// ids are ones no Debian system names (61000-64999 are created only on demand), since tar
/// stores and lists the names the host's user database gives (a fresh machine's names 45
/// `sasl`, 7 `lp`, 0 `root`); the expected output is what the host's amd64 busybox prints
/// as real root.
#[test]
fn fakeroot_tar_round_trip() {
    let w = work("arm64");
    let (out, status) = run(
        w.dir.path(),
        &["--fakeroot"],
        &w.bb,
        "mkdir src && cd src && touch a && chown 61123:61045 a && chmod 4755 a && mknod dev c 1 3 && \
         chown 61001:61002 dev && mkdir d && chown 61007:61008 d && tar -cf ../t.tar a d dev && \
         tar -tvf ../t.tar | cut -c1-24",
    );
    assert_eq!(
        (out.as_str(), status),
        ("-rwsr-xr-x 61123/61045  \ndrwxr-xr-x 61007/61008  \ncrw-r--r-- 61001/61002  \n", 0)
    );
    let (out, status) = run(
        w.dir.path(),
        &["--fakeroot"],
        &w.bb,
        "mkdir x && cd x && tar -xpf ../t.tar && stat -c '%n %u:%g %a %F %t,%T' a d dev",
    );
    assert_eq!(
        (out.as_str(), status),
        (
            "a 61123:61045 4755 regular empty file 0,0\nd 61007:61008 755 directory 0,0\n\
             dev 61001:61002 644 character special file 1,3\n",
            0
        )
    );
}

/// `--fakeroot-state FILE`: a second run sees the first one's records; the last unlink of a
/// file drops its record; without the state file nothing carries over.
#[test]
fn fakeroot_state_persists() {
    let w = work("s390x");
    let state = w.dir.path().join("state");
    let state_arg = state.to_str().unwrap();
    let (out, status) = run(
        w.dir.path(),
        &["--fakeroot-state", state_arg],
        &w.bb,
        "touch f g && chown 123:45 f && chmod 4711 f && mknod d c 1 3 && chown 7:8 g && rm g && echo done",
    );
    assert_eq!((out.as_str(), status), ("done\n", 0));
    let log = std::fs::read_to_string(&state).unwrap();
    assert!(log.lines().any(|l| l.ends_with(" gone")), "no record dropped for g in:\n{log}");
    let (out, status) = run(
        w.dir.path(),
        &["--fakeroot", "--fakeroot-state", state_arg],
        &w.bb,
        "stat -c '%u:%g %a' f; stat -c '%F %t,%T' d",
    );
    assert_eq!((out.as_str(), status), ("123:45 4711\ncharacter special file 1,3\n", 0));
    // The state file was written back compacted: one line per file with a record (f, d).
    let log = std::fs::read_to_string(&state).unwrap();
    assert_eq!(log.lines().filter(|l| !l.starts_with('#')).count(), 2, "{log}");
    // A run without the state file starts with no records.
    let (out, status) = run(w.dir.path(), &["--fakeroot"], &w.bb, "stat -c '%u:%g %a %F' f d");
    assert_eq!((out.as_str(), status), ("0:0 4711 regular empty file\n0:0 644 regular empty file\n", 0));
}

/// Without `--fakeroot` nothing changes: the user's own ids, the host's EPERM.
#[test]
fn without_fakeroot_nothing_changes() {
    let w = work("arm64");
    let uid = guest_host_uid();
    let (out, _) = run(
        w.dir.path(),
        &[],
        &w.bb,
        "id -u; touch f; stat -c '%u' f; chown 123:45 f 2>/dev/null || echo chown refused; \
         mknod d c 1 3 2>/dev/null || echo mknod refused",
    );
    let want = if uid == 0 {
        // Run as root by hand: the host allows both.
        "0\n0\n".to_string()
    } else {
        format!("{uid}\n{uid}\nchown refused\nmknod refused\n")
    };
    assert_eq!(out, want);
}
