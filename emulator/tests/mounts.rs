//! What a mount's options mean for a guest, checked in a private mount namespace
//! (`unshare -m`, as root): `mmap(PROT_EXEC)` of a file on a `noexec` mount is `EPERM`
//! (mm/mmap.c `do_mmap`, `path_noexec`) while a read-only mapping of it works, as a native run
//! of the same source shows.

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
