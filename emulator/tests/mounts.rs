//! Mounts and roots as a guest sees them, as root, without changing the machine: in a private
//! mount namespace (`unshare -m`), `mmap(PROT_EXEC)` of a file on a `noexec` mount is `EPERM`
//! (mm/mmap.c `do_mmap`, `path_noexec`) while a read-only mapping of it works, as a native run
//! of the same source shows; a guest under `-L` chroots into a directory of its sysroot and
//! runs a program there, as natively; `--strace` names the mount calls (the guest makes its
//! own private namespace first); the `-D` log goes on past a guest's chroot and execve.

mod common;

use std::path::Path;
use std::process::Command;

use common::{endgate, TempDir, AARCH64, S390X, X86_64};

const SRC: &str = r#"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
int main(int argc, char **argv) {
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { printf("open: %s\n", strerror(errno)); return 1; }
    void *r = mmap(0, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    printf("read mapping: %s\n", r == MAP_FAILED ? strerror(errno) : "ok");
    void *x = mmap(0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    printf("exec mapping: %s\n", x == MAP_FAILED ? strerror(errno) : "ok");
    return 0;
}
"#;

fn build(dir: &Path, cc: &str, name: &str) -> std::path::PathBuf {
    let src = dir.join("noexec.c");
    std::fs::write(&src, SRC).unwrap();
    let out = dir.join(name);
    let st = Command::new(cc).args(["-static", "-O2", "-o"]).arg(&out).arg(&src).status().unwrap();
    assert!(st.success(), "building with {cc}");
    out
}

/// Runs `cmd` (a shell command line) in a new mount namespace with a `noexec` tmpfs on `mnt`
/// holding a copy of `data`; `None` when the namespace or the mount cannot be made here.
fn in_noexec_mount(mnt: &Path, data: &Path, cmd: &str) -> Option<String> {
    let script = format!(
        "mount -t tmpfs -o noexec none {m} || exit 99; cp {d} {m}/file || exit 99; {cmd} {m}/file",
        m = mnt.display(),
        d = data.display()
    );
    let o = Command::new("unshare").args(["-m", "--propagation", "private", "sh", "-c", &script]).output().ok()?;
    if o.status.code() == Some(99) || !o.status.success() && o.stdout.is_empty() {
        return None;
    }
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

#[test]
fn exec_mapping_of_a_noexec_file_is_eperm() {
    let dir = TempDir::new("noexec");
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let data = dir.path().join("data");
    std::fs::write(&data, vec![0x5au8; 8192]).unwrap();
    let native = build(dir.path(), X86_64.cc, "native");
    let Some(want) = in_noexec_mount(&mnt, &data, &native.display().to_string()) else {
        eprintln!("skipped: no private mount namespace with a tmpfs here (needs root)");
        return;
    };
    assert_eq!(want, "read mapping: ok\nexec mapping: Operation not permitted\n");
    for arch in [&AARCH64, &S390X] {
        let guest = build(dir.path(), arch.cc, arch.name);
        let cmd = format!("{} {}", endgate().display(), guest.display());
        let got = in_noexec_mount(&mnt, &data, &cmd).expect("the namespace worked natively");
        assert_eq!(got, want, "{}", arch.name);
    }
}

/// A guest that chroots into a directory of its `-L` sysroot (named by its guest path), reads
/// a file there, then runs a program inside it that reads the same file by its path in the new
/// root: the sysroot stops applying once the root changed, and endgate execs itself from its
/// own root (the new root has no dynamic loader for it).
const CHROOT_SRC: &str = r#"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
static void show(const char *who) {
    char buf[64] = {0}, cwd[64] = {0};
    int fd = open("/file", O_RDONLY);
    if (fd < 0 || read(fd, buf, sizeof buf - 1) < 0) strcpy(buf, strerror(errno));
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, strerror(errno));
    printf("%s: cwd %s, /file %s\n", who, cwd, buf);
    fflush(stdout);
}
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--child") == 0) { show("child"); return 3; }
    if (chroot(argv[1]) != 0 || chdir("/") != 0) { printf("chroot: %s\n", strerror(errno)); return 1; }
    show("parent");
    char *args[] = {"/prog", "--child", NULL};
    execv("/prog", args);
    printf("execv: %s\n", strerror(errno));
    return 1;
}
"#;

/// Runs `cmd` in a shell and returns its stdout and status, or `None` when it printed nothing
/// and failed (not root here).
fn shell(cmd: &str) -> Option<(String, i32)> {
    let o = Command::new("sh").args(["-c", cmd]).output().ok()?;
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    if out.is_empty() && !o.status.success() {
        return None;
    }
    Some((out, common::shell_status(o.status)))
}

#[test]
fn a_guest_chroots_under_its_sysroot_and_runs_a_program_in_the_new_root() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: chroot needs root");
        return;
    }
    let dir = TempDir::new("chroot-sysroot");
    let sysroot = dir.path().join("sysroot");
    let newroot = sysroot.join("newroot");
    std::fs::create_dir_all(&newroot).unwrap();
    std::fs::write(newroot.join("file"), "in the new root").unwrap();
    std::fs::write(sysroot.join("file"), "in the sysroot").unwrap();
    let src = dir.path().join("chroot.c");
    std::fs::write(&src, CHROOT_SRC).unwrap();
    let native = dir.path().join("native");
    assert!(Command::new(X86_64.cc).args(["-static", "-O2", "-o"]).arg(&native).arg(&src).status().unwrap().success());
    std::fs::copy(&native, newroot.join("prog")).unwrap();
    let want = shell(&format!("{} {}", native.display(), newroot.display())).expect("native run");
    assert_eq!(want.0, "parent: cwd /, /file in the new root\nchild: cwd /, /file in the new root\n");
    assert_eq!(want.1, 3);
    for arch in [&AARCH64, &S390X] {
        let guest = dir.path().join(arch.name);
        assert!(Command::new(arch.cc).args(["-static", "-O2", "-o"]).arg(&guest).arg(&src).status().unwrap().success());
        std::fs::copy(&guest, newroot.join("prog")).unwrap();
        let cmd = format!("{} -L {} {} /newroot", endgate().display(), sysroot.display(), guest.display());
        let got = shell(&cmd).expect("endgate run");
        assert_eq!(got, want, "{}", arch.name);
    }
}

#[test]
fn strace_names_the_mount_and_seccomp_calls() {
    const SRC: &str = r#"
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
    if (unshare(CLONE_NEWNS) != 0) return 99;
    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
    mkdir("m", 0755);
    mount("none", "m", "tmpfs", MS_NODEV, "size=1m");
    umount2("m", MNT_DETACH);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    struct sock_filter f[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog p = {.len = 1, .filter = f};
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) == 0 ? 0 : 1;
}
"#;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: a mount namespace needs root");
        return;
    }
    let dir = TempDir::new("strace-mount");
    let src = dir.path().join("m.c");
    std::fs::write(&src, SRC).unwrap();
    let guest = dir.path().join("guest");
    assert!(Command::new(AARCH64.cc).args(["-static", "-O2", "-o"]).arg(&guest).arg(&src).status().unwrap().success());
    let o = Command::new(endgate()).arg("--strace").arg(&guest).current_dir(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for line in [
        "unshare(0x20000) = 0",
        "mount(NULL, \"/\", NULL, 0x44000, NULL) = 0",
        "mount(\"none\", \"m\", \"tmpfs\", 0x4, 0x",
        "umount2(\"m\", 0x2) = 0",
        "seccomp(1, 0, 0x",
    ] {
        assert!(err.contains(line), "no `{line}` in:\n{err}");
    }
}

#[test]
fn the_log_file_goes_on_after_a_chroot_and_an_execve() {
    // `-D` names a host path: the endgate that a guest's execve starts inside the root the
    // guest chose (debootstrap's second stage runs under `chroot`) still writes the same file,
    // where it once stopped with "-D LOG: No such file or directory" and status 1.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: chroot needs root");
        return;
    }
    let dir = TempDir::new("chroot-log");
    let newroot = dir.path().join("newroot");
    std::fs::create_dir_all(newroot.join("bin")).unwrap();
    let busybox = common::busybox("arm64");
    std::fs::copy(&busybox, newroot.join("bin/busybox")).unwrap();
    let log = dir.path().join("log");
    let o = Command::new(endgate())
        .arg("--strace")
        .arg("-D")
        .arg(&log)
        .arg(&busybox)
        .arg("chroot")
        .arg(&newroot)
        .args(["/bin/busybox", "echo", "in the new root"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!((o.status.code(), err.as_ref()), (Some(0), ""));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "in the new root\n");
    let text = std::fs::read_to_string(&log).unwrap();
    for line in [
        format!("chroot(\"{}\") = 0\n", newroot.display()),
        "execve(\"/bin/busybox\", ".to_string(),
        "write(1, \"in the new root\\n\", 16) = 16\n".to_string(),
        "+++ exited with 0 +++\n".to_string(),
    ] {
        assert!(text.contains(&line), "no `{line}` in:\n{text}");
    }
    // The new root holds nothing endgate wrote.
    let mut names: Vec<_> = std::fs::read_dir(&newroot).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["bin"]);
}

#[test]
fn a_guest_that_gave_up_root_in_its_chroot_still_runs_programs() {
    // A guest chroots, then becomes another user (`su`, as a Debian system's scripts do): it
    // can no longer leave its root (chroot(2) needs CAP_SYS_CHROOT), so endgate, a dynamic
    // program whose loader and libraries are not in that root, runs itself again through the
    // host's loader from the host's root as working directory, and the new program starts
    // in the guest's working directory. It once failed with "su: can't execute '/bin/sh': No
    // such file or directory". The -D log goes on through both execs.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: chroot and su need root");
        return;
    }
    let dir = TempDir::new("chroot-su");
    let newroot = dir.path().join("newroot");
    for d in ["bin", "etc", "work"] {
        std::fs::create_dir_all(newroot.join(d)).unwrap();
    }
    let busybox = common::busybox("arm64");
    std::fs::copy(&busybox, newroot.join("bin/busybox")).unwrap();
    std::os::unix::fs::symlink("busybox", newroot.join("bin/sh")).unwrap();
    std::fs::write(newroot.join("etc/passwd"), "root:x:0:0::/:/bin/sh\nnobody:x:65534:65534::/:/bin/sh\n").unwrap();
    std::fs::write(newroot.join("etc/group"), "root:x:0:\nnogroup:x:65534:\n").unwrap();
    let log = dir.path().join("log");
    let o = Command::new(endgate())
        .arg("--strace")
        .arg("-D")
        .arg(&log)
        .arg(&busybox)
        .arg("chroot")
        .arg(&newroot)
        // `/bin/busybox su`: a bare `su` is run through /proc/self/exe, which this root (no
        // /proc) lacks ("/bin/sh: su: not found", status 127, under the kernel's chroot too).
        .args([
            "/bin/sh",
            "-c",
            "cd /work && /bin/busybox su nobody -s /bin/sh -c '/bin/busybox id -u; /bin/busybox pwd'",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!((o.status.code(), err.as_ref()), (Some(0), ""));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "65534\n/work\n");
    let text = std::fs::read_to_string(&log).unwrap();
    for line in ["setuid(65534) = 0\n", "execve(\"/bin/sh\", ", "write(1, \"/work\\n\", 6) = 6\n"] {
        assert!(text.contains(line), "no `{line}` in:\n{text}");
    }
}
