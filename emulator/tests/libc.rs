//! Every way a C program starts: static glibc (which finds PT_TLS through AT_PHDR, sets up TLS
//! and applies IRELATIVE relocations), static-PIE glibc, static and static-PIE musl, and a
//! dynamically linked glibc program whose interpreter comes from the `-L` sysroot. Each is
//! built for x86_64, aarch64 and riscv64 and must print what the same source prints natively,
//! including `/proc/self/maps` naming the program and its interpreter by their real paths.
//! riscv64 has glibc static and dynamic only: Debian 12 has no riscv64 musl, and its riscv64
//! glibc ships no `rcrt1.o`, so `-static-pie` does not link.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{endgate, shell_status, TempDir, AARCH64, RISCV64, X86_64};

const SRC: &str = r#"
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

static __thread int tls_counter = 7;
static __thread char tls_buf[64];

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data) {
    int *seen = data;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) (*seen)++;
    return 1;
}

int main(int argc, char **argv, char **envp) {
    tls_counter += argc;
    strcpy(tls_buf, "tls works");
    printf("argc=%d tls=%d %s\n", argc, tls_counter, tls_buf);
    for (int i = 1; i < argc; i++) printf("arg %s\n", argv[i]);
    printf("pagesz=%lu\n", getauxval(AT_PAGESZ));
    printf("random=%s\n", getauxval(AT_RANDOM) ? "yes" : "no");
    printf("execfn=%s\n", strcmp((char *)getauxval(AT_EXECFN), argv[0]) == 0 ? "argv0" : "other");
    printf("phent=%lu\n", getauxval(AT_PHENT));
    int loads = 0;
    dl_iterate_phdr(phdr_cb, &loads);
    printf("loads>0=%d\n", loads > 0);
    printf("env=%s\n", getenv("ENDGATE_LIBC_TEST"));
    /* /proc/self/maps names each file by its absolute path with the file's own inode, and one
       of them is the program /proc/self/exe names (also the interpreter, for dynamic ones). */
    char exe[4096] = {0}, line[8192];
    if (!realpath("/proc/self/exe", exe)) exe[0] = 0;
    FILE *m = fopen("/proc/self/maps", "r");
    int files_ok = m != NULL, exe_seen = 0;
    while (m && fgets(line, sizeof line, m)) {
        unsigned long ino; char path[4096] = {0};
        int n = sscanf(line, "%*s %*s %*s %*s %lu %4095[^\n]", &ino, path);
        if (n >= 1 && ino != 0 && path[0] != '/') files_ok = 0; /* a file named otherwise */
        if (n == 2 && path[0] == '/') {
            struct stat st;
            if (stat(path, &st) != 0 || st.st_ino != ino) files_ok = 0;
            if (strcmp(path, exe) == 0) exe_seen = 1;
        }
    }
    if (m) fclose(m);
    printf("maps files exist with their inodes=%d, exe among them=%d\n", files_ok, exe_seen);
    char *big = malloc(1 << 24);
    memset(big, 0x5a, 1 << 24);
    big = realloc(big, 1 << 25);
    printf("big=%d\n", big[(1 << 24) - 1]);
    free(big);
    return 3;
}
"#;

struct Variant {
    name: &'static str,
    cc: &'static str,
    flags: &'static [&'static str],
    sysroot: Option<&'static str>,
}

fn variants(arch: &str) -> Vec<Variant> {
    const MUSL_A64: &str = "/usr/lib/aarch64-linux-musl/musl-gcc.specs";
    match arch {
        "x86_64" => vec![
            Variant { name: "glibc-static", cc: X86_64.cc, flags: &["-static"], sysroot: None },
            Variant { name: "glibc-static-pie", cc: X86_64.cc, flags: &["-static-pie"], sysroot: None },
            Variant { name: "glibc-dynamic", cc: X86_64.cc, flags: &[], sysroot: None },
            Variant { name: "musl-static", cc: "musl-gcc", flags: &["-static"], sysroot: None },
            Variant { name: "musl-static-pie", cc: "musl-gcc", flags: &["-static-pie"], sysroot: None },
        ],
        // No static-pie or musl: see the module doc.
        "riscv64" => vec![
            Variant { name: "glibc-static", cc: RISCV64.cc, flags: &["-static"], sysroot: None },
            Variant { name: "glibc-dynamic", cc: RISCV64.cc, flags: &[], sysroot: Some(RISCV64.sysroot) },
        ],
        _ => vec![
            Variant { name: "glibc-static", cc: AARCH64.cc, flags: &["-static"], sysroot: None },
            Variant { name: "glibc-static-pie", cc: AARCH64.cc, flags: &["-static-pie"], sysroot: None },
            Variant { name: "glibc-dynamic", cc: AARCH64.cc, flags: &[], sysroot: Some(AARCH64.sysroot) },
            Variant { name: "musl-static", cc: AARCH64.cc, flags: &["-specs", MUSL_A64, "-static"], sysroot: None },
            Variant {
                name: "musl-static-pie",
                cc: AARCH64.cc,
                flags: &["-specs", MUSL_A64, "-static-pie"],
                sysroot: None,
            },
        ],
    }
}

fn build(dir: &Path, v: &Variant, arch: &str) -> PathBuf {
    let src = dir.join("startup.c");
    std::fs::write(&src, SRC).unwrap();
    let out = dir.join(format!("{arch}-{}", v.name));
    let st = Command::new(v.cc)
        .args(v.flags)
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", v.cc));
    assert!(st.success(), "building {arch} {}", v.name);
    out
}

fn run(cmd: &mut Command) -> (Vec<u8>, i32, String) {
    let o = cmd.env_clear().env("ENDGATE_LIBC_TEST", "set").args(["one", "two"]).output().unwrap();
    (o.stdout, shell_status(o.status), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn every_libc_startup_matches_native() {
    let dir = TempDir::new("libc");
    // The reference: the x86_64 static glibc build run natively.
    let native = build(dir.path(), &variants("x86_64")[0], "native");
    let (want, want_status, _) = run(&mut Command::new(&native));
    assert_eq!(want_status, 3);
    let mut failures = Vec::new();
    for arch in ["x86_64", "aarch64", "riscv64"] {
        for v in variants(arch) {
            let bin = build(dir.path(), &v, arch);
            let mut cmd = Command::new(endgate());
            if let Some(root) = v.sysroot {
                cmd.arg("-L").arg(root);
            }
            cmd.arg(&bin);
            let (got, status, err) = run(&mut cmd);
            if got != want || status != want_status {
                failures.push(format!(
                    "{arch} {}: status {status}\n{}\nstderr: {err}",
                    v.name,
                    String::from_utf8_lossy(&got)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "want:\n{}\n{}", String::from_utf8_lossy(&want), failures.join("\n"));
}
