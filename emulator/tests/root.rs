//! `--root DIR` (emulator/src/syscall/rootfs.rs, docs/root.md): no way out of the root.
//!
//! The guest emulator/tests/root/escape.c tries every way out the issue names (`..` chains,
//! absolute and relative links pointing out, `/proc/self/{root,cwd,fd/N}`, descriptors, the
//! working directory, writes through links, unix sockets, a `#!` interpreter outside, a
//! directory swapped for a link while lookups go through it) and prints what each gave. The
//! expected lines are the kernel's: the same program built for x86_64 and run natively under
//! `chroot(2)` (as root, in a private mount namespace with the host's /proc bound in). Under
//! `endgate --root` the aarch64 and s390x builds must print the same lines, nothing outside
//! the root may be read or written, and where chroot would let the guest out (a directory
//! descriptor inherited from outside, another process's `/proc/PID/fd/N`, `/proc/self/mem`,
//! which is endgate's memory) endgate refuses (`EXDEV`, `EACCES`).

mod common;

use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{endgate, workspace, TempDir};

const SECRET: &str = "OUTSIDE-SECRET";

fn build(dir: &Path, cc: &str) -> PathBuf {
    common::build_static(cc, &workspace().join("emulator/tests/root/escape.c"), &dir.join(format!("escape-{cc}")), &[])
}

/// A fresh root (`base/root`) and outside directory (`base/out`) for one run, with `prog` as
/// `/escape` inside. Returns (root, out).
fn make_tree(base: &Path, tag: &str, prog: &Path) -> (PathBuf, PathBuf) {
    let root = base.join(format!("root-{tag}"));
    // One outside path for every run, so that link texts naming it compare equal.
    let out = base.join("out");
    let _ = std::fs::remove_dir_all(&out);
    for d in [&root, &out] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(out.join("secret.txt"), format!("{SECRET}\n")).unwrap();
    std::fs::write(out.join("interp"), format!("#!/bin/sh\ntouch {}/ran\n", out.display())).unwrap();
    std::fs::set_permissions(out.join("interp"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(root.join("secret.txt"), "INSIDE\n").unwrap();
    std::fs::write(root.join("inside.txt"), "movable\n").unwrap();
    for d in ["links", "proc", "race", "rf", "rc", "sd", "sd/a"] {
        std::fs::create_dir(root.join(d)).unwrap();
    }
    std::fs::write(root.join("race/secret.txt"), "INSIDE-RACE\n").unwrap();
    symlink(&out, root.join("race-alt")).unwrap();
    symlink(&out, root.join("links/abs")).unwrap();
    symlink(out.join("secret.txt"), root.join("links/file")).unwrap();
    std::fs::write(root.join("rf/f"), "INSIDE-RACE\n").unwrap();
    symlink(out.join("secret.txt"), root.join("rf/s")).unwrap();
    symlink(&out, root.join("sd/b")).unwrap();
    let rel = format!("{}{}", "../".repeat(12), out.strip_prefix("/").unwrap().display());
    symlink(rel, root.join("links/rel")).unwrap();
    symlink("rel", root.join("links/chain")).unwrap();
    symlink("/made-by-dangling", root.join("links/dangling")).unwrap();
    std::fs::write(root.join("script.sh"), format!("#!{}/interp\n", out.display())).unwrap();
    std::fs::set_permissions(root.join("script.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::copy(prog, root.join("escape")).unwrap();
    (root, out)
}

fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Runs `/escape OUT` under `endgate --root`, with descriptor 3 open on OUT; checks nothing
/// outside changed and returns stdout.
fn run_endgate(base: &Path, tag: &str, prog: &Path) -> String {
    let (root, out) = make_tree(base, tag, prog);
    let _listener = std::os::unix::net::UnixListener::bind(out.join("outside.sock")).unwrap();
    let before = listing(&out);
    // A host process holding the secret open (fd 4), whose /proc entries the guest tries.
    let mut holder = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 4<'{}/secret.txt'; exec sleep 60", out.display()))
        .spawn()
        .unwrap();
    let script = format!(
        "exec 3<'{out}'; exec '{e}' --root '{root}' --bind /proc:/p2 /escape '{out}' {pid}",
        out = out.display(),
        e = endgate().display(),
        root = root.display(),
        pid = holder.id()
    );
    let o = Command::new("sh").arg("-c").arg(&script).current_dir(base).output().unwrap();
    let _ = holder.kill();
    let _ = holder.wait();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{tag}: {stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(!stdout.contains(SECRET), "{tag}: read outside the root:\n{stdout}");
    assert_eq!(listing(&out), before, "{tag}: wrote outside the root");
    for made in ["created.txt", "made-by-dangling", "inside.sock", "made-link"] {
        assert!(root.join(made).symlink_metadata().is_ok(), "{tag}: {made} not made inside the root");
    }
    stdout
}

/// The kernel's answers: the x86_64 build under chroot(2) (the `stricter-` lines, where chroot
/// lets a descriptor, another process's /proc entries or `/proc/self/mem` out, are not
/// compared), or `None` when this is not root or
/// a private mount namespace cannot be made.
fn run_native(base: &Path, prog: &Path) -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not root: the kernel's chroot answers are not compared");
        return None;
    }
    let (root, out) = make_tree(base, "native", prog);
    let _listener = std::os::unix::net::UnixListener::bind(out.join("outside.sock")).unwrap();
    let script = format!(
        "mount --bind /proc '{root}/proc' || exit 99; exec chroot '{root}' /escape '{out}'",
        root = root.display(),
        out = out.display()
    );
    let o = Command::new("unshare").args(["-m", "--propagation", "private", "sh", "-c", &script]).output().ok()?;
    if o.status.code() == Some(99) {
        eprintln!("no private mount namespace here: the kernel's chroot answers are not compared");
        return None;
    }
    assert!(o.status.success(), "native: {}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8_lossy(&o.stdout).into_owned())
}

#[test]
fn nothing_escapes_the_root_and_lookups_answer_as_chroot() {
    let dir = TempDir::new("root");
    let native = run_native(dir.path(), &build(dir.path(), "gcc"));
    for cc in ["aarch64-linux-gnu-gcc", "s390x-linux-gnu-gcc"] {
        let got = run_endgate(dir.path(), cc, &build(dir.path(), cc));
        for line in [
            "stricter-inherited-fd: EXDEV",
            "stricter-inherited-fd-bind: EXDEV",
            "stricter-inherited-host-proc-fd: EACCES",
            "stricter-inherited-host-proc-exe: EACCES",
            "stricter-proc-self-mem: EACCES",
            "stricter-proc-self-mem-path: EACCES",
            "stricter-proc-bound-elsewhere-mem: EACCES",
            "proc-self-mem-stat: regular file",
            "proc-self-mem-lstat: regular file",
            "race-openat2: no escape",
        ] {
            assert!(got.lines().any(|l| l == line), "{cc}: no '{line}' in\n{got}");
        }
        assert!(got.lines().any(|l| l == "race: no escape"), "{cc}: {got}");
        if let Some(n) = &native {
            let lines =
                |s: &str| s.lines().filter(|l| !l.starts_with("stricter-")).map(String::from).collect::<Vec<_>>();
            assert_eq!(lines(&got), lines(n), "{cc} under --root vs native chroot");
        }
    }
}

/// Runs `argv` under `endgate --root root`, optionally as user nobody; (status, stdout+stderr).
fn busybox_in(root: &Path, argv: &[&str], nobody: bool) -> (i32, String) {
    let mut c = if nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(endgate());
        c
    } else {
        Command::new(endgate())
    };
    let o = c.arg("--root").arg(root).args(argv).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    (common::shell_status(o.status), text)
}

/// The guest's own chroot(2) under `--root`: it moves the guest's root inside DIR without a
/// host chroot (a program it then runs finds its files in the new root, `..` stops there,
/// and its execve keeps it), and it is EPERM without CAP_SYS_CHROOT as Linux decides (as
/// user nobody, when this is root).
#[test]
fn the_guests_chroot_moves_its_root_inside_dir() {
    let dir = TempDir::new("root-chroot");
    for arch in ["arm64", "s390x"] {
        let root = dir.path().join(arch);
        for d in ["bin", "sub/bin", "sub/etc", "etc"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::copy(common::busybox(arch), root.join("bin/busybox")).unwrap();
        std::fs::copy(common::busybox(arch), root.join("sub/bin/busybox")).unwrap();
        std::fs::write(root.join("etc/file"), "TOP\n").unwrap();
        std::fs::write(root.join("sub/etc/file"), "SUB\n").unwrap();
        // SAFETY: geteuid has no preconditions.
        let is_root = unsafe { libc::geteuid() } == 0;
        let (st, out) = busybox_in(
            &root,
            // `/bin/busybox cat`, not `cat`: busybox sh runs an applet by executing
            // /proc/self/exe, which the new root (no /proc) lacks ("sh: cat: not found", as
            // under the kernel's chroot).
            &[
                "/bin/busybox",
                "chroot",
                "/sub",
                "/bin/busybox",
                "sh",
                "-c",
                "/bin/busybox cat /etc/file /../../etc/file; pwd",
            ],
            false,
        );
        if is_root {
            assert_eq!((st, out.as_str()), (0, "SUB\nSUB\n/\n"), "{arch}");
        } else {
            assert_eq!(st, 1, "{arch}: {out}");
            assert!(out.contains("Operation not permitted"), "{arch}: {out}");
        }
        if is_root {
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            let (st, out) = busybox_in(&root, &["/bin/busybox", "chroot", "/sub", "/bin/busybox", "true"], true);
            assert_eq!(st, 1, "{arch} as nobody: {out}");
            assert!(out.contains("Operation not permitted"), "{arch} as nobody: {out}");
        }
    }
}

/// Bind points: `--bind HOST:GUEST` shows a host directory at a guest path (reads and writes
/// go to the host directory, `..` from it comes back to the guest's tree), the default ones
/// show the host's /proc, and `--no-default-binds` leaves the tree's own (here: no /proc).
#[test]
fn binds_show_host_directories_where_asked() {
    let dir = TempDir::new("root-bind");
    let root = dir.path().join("root");
    let shared = dir.path().join("shared");
    for d in [root.join("bin"), root.join("mnt"), shared.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::copy(common::busybox("arm64"), root.join("bin/busybox")).unwrap();
    std::fs::write(shared.join("from-host"), "HOST\n").unwrap();
    std::fs::write(root.join("top"), "TOP\n").unwrap();
    let bind = format!("{}:/mnt/shared", shared.display());
    let o = Command::new(endgate())
        .args(["--root"])
        .arg(&root)
        .args(["--bind", &bind, "/bin/busybox", "sh", "-c"])
        .arg("cat /mnt/shared/from-host /mnt/shared/../../top; echo made > /mnt/shared/from-guest; cat /proc/self/comm")
        .output()
        .unwrap();
    // busybox sh runs the applet by executing /proc/self/exe, so the kernel names the task
    // "exe" and busybox renames it to the applet: `cat`, as the host's busybox prints natively.
    assert_eq!(String::from_utf8_lossy(&o.stdout), "HOST\nTOP\ncat\n", "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(shared.join("from-guest")).unwrap(), "made\n");
    let in_root = |args: &[&str]| Command::new(endgate()).arg("--root").arg(&root).args(args).output().unwrap();
    let o = in_root(&["--no-default-binds", "/bin/busybox", "cat", "/proc/self/comm"]);
    assert_eq!(common::shell_status(o.status), 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("No such file or directory"), "{o:?}");
    // Without /proc there is no /proc/self/exe either (endgate answered it with the program).
    let o = in_root(&["--no-default-binds", "/bin/busybox", "readlink", "/proc/self/exe"]);
    assert_eq!((common::shell_status(o.status), o.stdout.as_slice()), (1, &b""[..]), "{o:?}");
    let o = in_root(&["/bin/busybox", "readlink", "/proc/self/exe"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "/bin/busybox\n", "{o:?}");
}

/// A bind point whose parent is not a directory of the tree (as `mount` needs its mount
/// point): one line naming it, status 1, the guest not started; a parent reached through a
/// link inside the tree is a directory.
#[test]
fn bind_points_need_a_parent_directory() {
    let dir = TempDir::new("root-bind-parent");
    let root = dir.path().join("root");
    let shared = dir.path().join("shared");
    for d in [root.join("bin"), root.join("real/dir"), shared.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::copy(common::busybox("arm64"), root.join("bin/busybox")).unwrap();
    std::fs::write(shared.join("from-host"), "HOST\n").unwrap();
    std::fs::write(root.join("file"), "").unwrap();
    symlink("real", root.join("link")).unwrap();
    for guest in ["/missing/shared", "/file/shared"] {
        let bind = format!("{}:{guest}", shared.display());
        let o = Command::new(endgate())
            .arg("--root")
            .arg(&root)
            .args(["--bind", &bind, "/bin/busybox", "echo", "ran"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(common::shell_status(o.status), 1, "{guest}: {err}");
        assert!(o.stdout.is_empty(), "{guest}: the guest ran");
        assert_eq!(err.lines().count(), 1, "{guest}: one line: {err}");
        assert!(err.contains(&format!("--bind {}:{guest}", shared.display())), "{guest}: {err}");
    }
    let bind = format!("{}:/link/dir/shared", shared.display());
    let o = Command::new(endgate())
        .arg("--root")
        .arg(&root)
        .args(["--bind", &bind, "/bin/busybox", "cat", "/real/dir/shared/from-host"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "HOST\n", "{}", String::from_utf8_lossy(&o.stderr));
}

/// The program endgate starts, and a dynamic program's interpreter, are looked up inside the
/// root too: a link in DIR to a host directory leads nowhere (status 127, as a shell gives for
/// a missing program), never to the host's file.
#[test]
fn the_program_and_its_interpreter_come_from_inside() {
    let dir = TempDir::new("root-prog");
    let root = dir.path().join("root");
    let out = dir.path().join("out");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::copy(common::busybox("arm64"), out.join("busybox")).unwrap();
    symlink(&out, root.join("o")).unwrap();
    let o = Command::new(endgate()).arg("--root").arg(&root).args(["/o/busybox", "true"]).output().unwrap();
    assert_eq!(common::shell_status(o.status), 127, "{}", String::from_utf8_lossy(&o.stderr));
    // A dynamic aarch64 program whose /lib is a link to the host's aarch64 libraries.
    let src = dir.path().join("dyn.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let st = Command::new("aarch64-linux-gnu-gcc").arg("-o").arg(root.join("bin/dyn")).arg(&src).status().unwrap();
    assert!(st.success());
    symlink("/usr/aarch64-linux-gnu/lib", root.join("lib")).unwrap();
    let o = Command::new(endgate()).arg("--root").arg(&root).arg("/bin/dyn").output().unwrap();
    assert_ne!(common::shell_status(o.status), 0, "the host's interpreter ran the program");
}
