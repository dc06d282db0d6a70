//! The static endgate (docs/static.md) in a host `chroot`: a tree holding only the static
//! endgate and static aarch64 guests (Debian's busybox-static and a small C program), with
//! (a) no `/proc` and (b) a `proc -> /proc` link that does not resolve inside it. A guest shell
//! there runs other guest programs, two execs deep, so endgate must run itself again without
//! `/proc/self/exe`. And (c) binfmt_misc with the `F` flag (docs/binfmt.md): the static endgate
//! registered in a private binfmt_misc, the foreign programs run by name in a tree that holds
//! no endgate at all.
//!
//! The static endgate is `target/x86_64-unknown-linux-gnu/release/endgate`, built by
//! `cargo build-static` (scripts/test-all.sh runs it before the tests; `ENDGATE_STATIC` names
//! another). chroot needs root: without it the tests say why they skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use common::{busybox, run_with_timeout, workspace, Arch, TempDir, AARCH64, S390X};

/// The static endgate, checked to be statically linked (no `PT_INTERP`) and built after every
/// source file of the endgate crate.
fn static_endgate() -> PathBuf {
    let p = std::env::var_os("ENDGATE_STATIC")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/x86_64-unknown-linux-gnu/release/endgate"));
    let built = std::fs::metadata(&p).and_then(|m| m.modified()).unwrap_or_else(|e| {
        panic!("{}: {e}: build it with `cargo build-static` (scripts/test-all.sh does)", p.display())
    });
    let newest = newest_source(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(built >= newest, "{} is older than emulator/src: run `cargo build-static`", p.display());
    let elf = std::fs::read(&p).expect("read the static endgate");
    assert!(!has_interp(&elf), "{} has a PT_INTERP: it is not statically linked", p.display());
    p
}

fn newest_source(dir: &Path) -> SystemTime {
    let mut newest = SystemTime::UNIX_EPOCH;
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        let t = if p.is_dir() { newest_source(&p) } else { e.metadata().and_then(|m| m.modified()).expect("mtime") };
        newest = newest.max(t);
    }
    newest
}

/// `true` if the ELF64 little-endian file `elf` has a `PT_INTERP` program header.
fn has_interp(elf: &[u8]) -> bool {
    let u = |at: usize, n: usize| elf[at..at + n].iter().rev().fold(0usize, |v, &b| v << 8 | usize::from(b));
    assert!(elf.starts_with(b"\x7fELF\x02\x01"), "not an ELF64 little-endian file");
    let (phoff, phentsize, phnum) = (u(32, 8), u(54, 2), u(56, 2));
    (0..phnum).any(|i| u(phoff + i * phentsize, 4) == 3)
}

/// `true` if the test runs as root; else it says why it skips.
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if uid != 0 {
        eprintln!("skipped: chroot needs root (this test runs as uid {uid})");
    }
    uid == 0
}

/// The C program `source` built static for `arch` as `dir/name`.
fn build_c(dir: &Path, arch: &Arch, name: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).expect("write the C source");
    let out = dir.join(name);
    let st = Command::new(arch.cc)
        .args(arch.cflags)
        .args(["-static", "-O1", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e})", arch.cc));
    assert!(st.success(), "{} -static failed", arch.cc);
    out
}

/// A static aarch64 C program that prints its arguments and exits with status 5.
fn build_child(dir: &Path) -> PathBuf {
    build_c(
        dir,
        &AARCH64,
        "child",
        "#include <stdio.h>\nint main(int argc, char **argv) {\n\
         for (int i = 0; i < argc; i++) printf(\"child[%d]=%s\\n\", i, argv[i]);\n return 5;\n}\n",
    )
}

/// A tree with `bin/busybox` and `bin/child` (and `endgate` at its top when `with_endgate`).
fn make_tree(dir: &Path, name: &str, with_endgate: bool) -> PathBuf {
    let tree = dir.join(name);
    std::fs::create_dir_all(tree.join("bin")).expect("mkdir tree/bin");
    std::fs::copy(busybox("arm64"), tree.join("bin/busybox")).expect("copy busybox");
    std::fs::copy(dir.join("child"), tree.join("bin/child")).expect("copy child");
    if with_endgate {
        std::fs::copy(static_endgate(), tree.join("endgate")).expect("copy the static endgate");
    }
    tree
}

/// The guest script: a child by path, a shell that runs the child again (an execve from an
/// endgate that an execve started), then an exit status of its own.
const SCRIPT: &str = "/bin/child one; echo \"status $?\"; \
                      /bin/busybox sh -c '/bin/child two; exit 7'; echo \"inner $?\"; \
                      exec /bin/child three";

const EXPECTED: &str = "child[0]=/bin/child\nchild[1]=one\nstatus 5\n\
                        child[0]=/bin/child\nchild[1]=two\ninner 7\n\
                        child[0]=/bin/child\nchild[1]=three\n";

fn run_in_chroot(tree: &Path) {
    let t = run_with_timeout(
        Command::new("/usr/sbin/chroot").arg(tree).args(["/endgate", "/bin/busybox", "sh", "-c", SCRIPT]).env_clear(),
        None,
        Duration::from_secs(120),
    );
    let (out, err) = (String::from_utf8_lossy(&t.stdout), String::from_utf8_lossy(&t.stderr));
    assert_eq!((t.status, out.as_ref()), (5, EXPECTED), "stderr: {err}");
    assert!(err.is_empty(), "stderr: {err}");
}

#[test]
fn static_endgate_runs_guests_in_a_chroot_without_proc() {
    if !is_root() {
        return;
    }
    let dir = TempDir::new("static-chroot");
    build_child(dir.path());
    let tree = make_tree(dir.path(), "noproc", true);
    run_in_chroot(&tree);
}

#[test]
fn static_endgate_runs_guests_in_a_chroot_whose_proc_is_a_link_to_proc() {
    if !is_root() {
        return;
    }
    let dir = TempDir::new("static-chroot-link");
    build_child(dir.path());
    let tree = make_tree(dir.path(), "proclink", true);
    std::os::unix::fs::symlink("/proc", tree.join("proc")).expect("proc -> /proc");
    run_in_chroot(&tree);
}

#[test]
fn binfmt_f_runs_the_static_endgate_in_a_chroot_that_has_none() {
    let dir = TempDir::new("static-binfmt");
    let mnt = dir.path().join("binfmt_misc");
    std::fs::create_dir(&mnt).expect("mount point");
    // A user and mount namespace with its own binfmt_misc (Linux 6.7 or later), as in
    // tests/binfmt.rs: the machine's own entries are never touched.
    let probe = format!("mount -t binfmt_misc binfmt_misc '{}' && test -e '{}/register'", mnt.display(), mnt.display());
    let t = run_with_timeout(Command::new("unshare").args(["-Urm", "sh", "-c", &probe]), None, Duration::from_secs(30));
    if t.status != 0 {
        eprintln!(
            "skipped: no private binfmt_misc here (unshare -Urm + mount -t binfmt_misc, status {}: {}); \
             it needs user namespaces and Linux 6.7 or later",
            t.status,
            String::from_utf8_lossy(&t.stderr).trim()
        );
        return;
    }
    build_child(dir.path());
    let tree = make_tree(dir.path(), "plain", false);
    let endgate = static_endgate();
    // The guests run by name: /bin/busybox is an aarch64 program, the kernel hands it to the
    // endgate it opened at registration (F), whose path does not exist in the tree.
    let script = format!(
        r#"set -e
mount -t binfmt_misc binfmt_misc '{mnt}'
'{endgate}' binfmt --install --arch aarch64 --interpreter '{endgate}' --dir '{mnt}'
grep -x 'flags: PF' '{mnt}/endgate-aarch64'
set +e
chroot '{tree}' /bin/busybox sh -c '{script}'
"#,
        mnt = mnt.display(),
        endgate = endgate.display(),
        tree = tree.display(),
        script = SCRIPT.replace('\'', r"'\''"),
    );
    let t =
        run_with_timeout(Command::new("unshare").args(["-Urm", "bash", "-c", &script]), None, Duration::from_secs(120));
    let (out, err) = (String::from_utf8_lossy(&t.stdout), String::from_utf8_lossy(&t.stderr));
    assert!(!tree.join("endgate").exists());
    assert_eq!((t.status, out.as_ref()), (5, format!("flags: PF\n{EXPECTED}").as_str()), "stderr: {err}");
}

#[test]
fn without_proc_an_eventfd_of_the_other_byte_order_is_named_once_on_stderr() {
    // endgate tells an eventfd from other descriptors by its /proc/self/fd link, to give an
    // s390x guest its counter in big-endian order; without /proc it cannot, and says so once.
    if !is_root() {
        return;
    }
    let dir = TempDir::new("static-chroot-eventfd");
    let prog = build_c(
        dir.path(),
        &S390X,
        "efd",
        "#include <stdio.h>\n#include <stdint.h>\n#include <unistd.h>\n#include <sys/eventfd.h>\n\
         int main(void) {\n int fd = eventfd(0, 0);\n uint64_t v = 5;\n\
         if (fd < 0 || write(fd, &v, 8) != 8 || write(fd, &v, 8) != 8 || read(fd, &v, 8) != 8) return 1;\n\
         printf(\"read done\\n\");\n return 0;\n}\n",
    );
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).expect("mkdir tree");
    std::fs::copy(&prog, tree.join("efd")).expect("copy efd");
    std::fs::copy(static_endgate(), tree.join("endgate")).expect("copy the static endgate");
    let t = run_with_timeout(
        Command::new("/usr/sbin/chroot").arg(&tree).args(["/endgate", "/efd"]).env_clear(),
        None,
        Duration::from_secs(60),
    );
    let (out, err) = (String::from_utf8_lossy(&t.stdout), String::from_utf8_lossy(&t.stderr));
    assert_eq!((t.status, out.as_ref()), (0, "read done\n"), "stderr: {err}");
    assert_eq!(
        err,
        "endgate: /proc is not mounted: eventfd, timerfd, signalfd, inotify and fanotify data pass to the guest unconverted\n"
    );
}
