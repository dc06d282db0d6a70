//! The i386 guest: static (and static-PIE and dynamic) glibc programs built with
//! `i686-linux-gnu-gcc` must print and exit exactly as the same binary does natively. This
//! host runs i386 binaries itself (an x86_64 kernel with IA32 emulation); where it cannot,
//! `qemu-i386` is the reference. `uname` is checked against `qemu-i386`, which reports an
//! i386 machine ("i686") as endgate does, where the x86_64 kernel reports "x86_64".

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{endgate, shell_status, TempDir, I386};

/// auxv.c
const AUXV: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <cpuid.h>
#include <unistd.h>
int main(int argc, char **argv, char **envp) {
    printf("argc=%d\n", argc);
    for (int i = 1; i < argc; i++) printf("argv[%d]=%s\n", i, argv[i]);
    printf("env=%s\n", getenv("I386_TEST_VAR"));
    unsigned a, b, c, d;
    __get_cpuid(1, &a, &b, &c, &d);
    char **e = envp; while (*e) e++;
    unsigned long hw = 0; for (unsigned long *av = (unsigned long *)(e + 1); av[0]; av += 2) if (av[0] == AT_HWCAP) hw = av[1];
    printf("hwcap_is_cpuid_edx=%d sse2=%d\n", hw == d, (int)(hw >> 26 & 1));
    printf("platform=%s\n", (char *)getauxval(AT_PLATFORM));
    printf("pagesz=%lu\n", getauxval(AT_PAGESZ));
    printf("execfn_is_argv0=%d\n", strcmp((char *)getauxval(AT_EXECFN), argv[0]) == 0);
    printf("random=%d\n", getauxval(AT_RANDOM) != 0);
    printf("sizeof(long)=%zu sizeof(void*)=%zu\n", sizeof(long), sizeof(void *));
    int local; printf("stack_high=%d\n", (uintptr_t)&local > 0xc0000000u);
    printf("sp_aligned=%d\n", ((uintptr_t)__builtin_frame_address(0) & 3) == 0);
    unsigned short cw; unsigned mxcsr;
    __asm__ volatile("fnstcw %0" : "=m"(cw)); __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    printf("fpcw=%#x mxcsr=%#x\n", cw, mxcsr);
    volatile double x = 1.0; volatile long double y = 1.0L / 3.0L;
    printf("double=%.17g ld=%.21Lg\n", x / 3.0, y);
    return 0;
}
"#;

/// tls.c
const TLS: &str = r#"
#define _GNU_SOURCE
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <asm/ldt.h>
static __thread int counter = 40;
static __thread char buf[32] = "init";
static int slot;
int main(void) {
    counter += 2;
    strcat(buf, "+more");
    errno = 0;
    close(-1);
    printf("counter=%d buf=%s errno=%d (%s)\n", counter, buf, errno, strerror(errno));
    unsigned gs; __asm__ volatile("mov %%gs,%0" : "=r"(gs));
    printf("gs rpl=%u ti=%u\n", gs & 3, (gs >> 2) & 1);
    struct user_desc d = { .entry_number = gs >> 3 };
    long r = syscall(SYS_get_thread_area, &d);
    uintptr_t self; __asm__ volatile("mov %%gs:0,%0" : "=r"(self));
    printf("get_thread_area=%ld base_is_tcb=%d 32bit=%u pages=%u limit=%#x\n", r, d.base_addr == self, d.seg_32bit, d.limit_in_pages, d.limit);
    /* Reload %gs from guest code and read through it again. */
    __asm__ volatile("mov %0,%%gs" :: "r"(gs));
    uintptr_t self2; __asm__ volatile("mov %%gs:0,%0" : "=r"(self2));
    printf("reload same=%d counter=%d\n", self2 == self, counter);
    /* A second TLS entry in %fs, pointing at a global. */
    slot = 0x1234567;
    struct user_desc n = { .entry_number = -1, .base_addr = (uintptr_t)&slot, .limit = 0xfffff,
                           .seg_32bit = 1, .limit_in_pages = 1, .useable = 1 };
    r = syscall(SYS_set_thread_area, &n);
    int other = n.entry_number != d.entry_number && n.entry_number != (unsigned)-1;
    unsigned fs = n.entry_number * 8 + 3, v;
    __asm__ volatile("mov %1,%%fs\n\tmov %%fs:0,%0" : "=r"(v) : "r"(fs));
    printf("set_thread_area=%ld new_entry=%d via_fs=%#x\n", r, other, v);
    /* Bad requests. */
    struct user_desc bad = { .entry_number = 3, .base_addr = 0, .limit = 1, .seg_32bit = 1 };
    errno = 0; r = syscall(SYS_set_thread_area, &bad); printf("entry3=%ld %s\n", r, strerror(errno));
    struct user_desc code = { .entry_number = -1, .limit = 1, .seg_32bit = 1, .contents = 2 };
    errno = 0; r = syscall(SYS_set_thread_area, &code); printf("code=%ld %s\n", r, strerror(errno));
    errno = 0; r = syscall(SYS_set_thread_area, (void *)8); printf("fault=%ld %s\n", r, strerror(errno));
    /* Fill the last free entry, then ask for one more. */
    struct user_desc m = n; m.entry_number = -1;
    r = syscall(SYS_set_thread_area, &m);
    errno = 0; struct user_desc m2 = n; m2.entry_number = -1;
    long r2 = syscall(SYS_set_thread_area, &m2);
    printf("third=%ld fourth=%ld %s\n", r, r2, strerror(errno));
    return 0;
}
"#;

/// stat64.c
const STAT64: &str = r#"
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
/* The kernel's i386 structs (arch/x86/include/uapi/asm/stat.h), named apart from glibc's. */
struct kstat { unsigned long st_dev, st_ino; unsigned short st_mode, st_nlink, st_uid, st_gid;
  unsigned long st_rdev, st_size, st_blksize, st_blocks, at, at_nsec, mt,
  mt_nsec, ct, ct_nsec, u4, u5; };
struct kstat64 { unsigned long long st_dev; unsigned char pad0[4]; unsigned long __st_ino;
  unsigned int st_mode, st_nlink; unsigned long st_uid, st_gid; unsigned long long st_rdev;
  unsigned char pad3[4]; long long st_size; unsigned long st_blksize; unsigned long long st_blocks;
  unsigned long at, at_nsec, mt; unsigned int mt_nsec;
  unsigned long ct, ct_nsec; unsigned long long st_ino; } __attribute__((packed));
int main(int argc, char **argv) {
    _Static_assert(sizeof(struct kstat64) == 96, "stat64"); _Static_assert(sizeof(struct kstat) == 64, "stat");
    const char *path = argv[1];
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0640);
    if (fd < 0) { perror("open"); return 1; }
    write(fd, "0123456789", 10);
    /* glibc's own stat (statx or fstatat64) */
    struct stat64 g; int r = fstat64(fd, &g);
    /* the raw i386 calls */
    struct kstat64 s64; long r64 = syscall(SYS_fstat64, fd, &s64);
    struct kstat64 l64; long rl = syscall(SYS_lstat64, path, &l64);
    struct kstat old; long ro = syscall(SYS_fstat, fd, &old);
    printf("fstat64=%d raw64=%ld lstat64=%ld old=%ld\n", r, r64, rl, ro);
    printf("size %lld %lld %lu\n", (long long)g.st_size, (long long)s64.st_size, old.st_size);
    printf("mode %o %o %o\n", g.st_mode, s64.st_mode, old.st_mode);
    printf("nlink %u %u %u\n", (unsigned)g.st_nlink, (unsigned)s64.st_nlink, (unsigned)old.st_nlink);
    printf("ino_match %d %d %d\n", g.st_ino == s64.st_ino, s64.st_ino == l64.st_ino, (unsigned long)s64.st_ino == old.st_ino);
    printf("__st_ino_low %d\n", s64.__st_ino == (unsigned long)s64.st_ino);
    printf("dev_match %d %d\n", g.st_dev == s64.st_dev, (unsigned long)s64.st_dev == old.st_dev);
    printf("uid_match %d %d\n", g.st_uid == s64.st_uid, (unsigned short)s64.st_uid == old.st_uid);
    printf("mtime_match %d %d blksize %d blocks %d\n", g.st_mtime == s64.mt, (unsigned long)s64.mt == old.mt, g.st_blksize == s64.st_blksize, g.st_blocks == s64.st_blocks);
    /* A sparse file past 4 GiB: 64-bit offsets through _llseek, pwrite64/pread64, ftruncate64. */
    off64_t big = 5LL << 30;
    off64_t at = lseek64(fd, big, SEEK_SET);
    printf("lseek64=%lld\n", (long long)at);
    printf("write=%zd\n", write(fd, "tail", 4));
    printf("pwrite64=%zd\n", pwrite64(fd, "XY", 2, big + 100));
    char buf[8] = {0};
    printf("pread64=%zd '%s'\n", pread64(fd, buf, 4, big), buf);
    fstat64(fd, &g); printf("size=%lld\n", (long long)g.st_size);
    errno = 0; ro = syscall(SYS_fstat, fd, &old); printf("old stat on big file=%ld %s\n", ro, strerror(errno));
    printf("ftruncate64=%d\n", ftruncate64(fd, big + 7));
    fstat64(fd, &g); printf("size=%lld\n", (long long)g.st_size);
    printf("seek_end=%lld\n", (long long)lseek64(fd, 0, SEEK_END));
    printf("truncate64=%d\n", truncate64(path, 3LL << 32));
    stat64(path, &g); printf("size=%lld\n", (long long)g.st_size);
    close(fd);
    unlink(path);
    return 0;
}
"#;

/// sock.c
const SOCK: &str = r#"
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <linux/net.h>
int main(void) {
    int sv[2];
    int r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    printf("socketpair=%d distinct=%d\n", r, sv[0] != sv[1]);
    ssize_t n = send(sv[0], "ping", 4, 0);
    char buf[16] = {0};
    ssize_t m = recv(sv[1], buf, sizeof buf, 0);
    printf("send=%zd recv=%zd '%s'\n", n, m, buf);
    n = sendto(sv[1], "pong!", 5, 0, NULL, 0);
    memset(buf, 0, sizeof buf);
    m = recvfrom(sv[0], buf, sizeof buf, 0, NULL, NULL);
    printf("sendto=%zd recvfrom=%zd '%s'\n", n, m, buf);
    int type = 0; socklen_t len = sizeof type;
    r = getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &type, &len);
    printf("getsockopt=%d type=%d len=%u\n", r, type, (unsigned)len);
    shutdown(sv[0], SHUT_WR);
    m = recv(sv[1], buf, sizeof buf, 0);
    printf("after shutdown recv=%zd\n", m);
    /* socketcall directly: SYS_SOCKET, then bad call numbers. */
    unsigned long args[3] = { AF_UNIX, SOCK_DGRAM, 0 };
    long fd = syscall(SYS_socketcall, SYS_SOCKET, args);
    printf("socketcall(SOCKET)=%d\n", fd > 2);
    errno = 0; long e = syscall(SYS_socketcall, 0, args); printf("call0=%ld %s\n", e, strerror(errno));
    errno = 0; e = syscall(SYS_socketcall, 21, args); printf("call21=%ld %s\n", e, strerror(errno));
    errno = 0; e = syscall(SYS_socketcall, SYS_SOCKET, (void *)8); printf("badptr=%ld %s\n", e, strerror(errno));
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    strcpy(a.sun_path + 1, "endgate-i386-test");
    unsigned long bargs[3] = { fd, (unsigned long)&a, sizeof(sa_family_t) + 1 + strlen("endgate-i386-test") };
    e = syscall(SYS_socketcall, SYS_BIND, bargs);
    struct sockaddr_un got; socklen_t gl = sizeof got;
    r = getsockname(fd, (struct sockaddr *)&got, &gl);
    printf("bind=%ld getsockname=%d len=%u name=%s\n", e, r, (unsigned)gl, got.sun_path + 1);
    return 0;
}
"#;

/// faults.c
const FAULTS: &str = r#"
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    const char *w = argc > 1 ? argv[1] : "";
    fflush(stdout);
    if (!strcmp(w, "segv")) *(volatile int *)8 = 1;
    if (!strcmp(w, "ill")) __asm__ volatile("ud2");
    if (!strcmp(w, "hlt")) __asm__ volatile("hlt");
    if (!strcmp(w, "cli")) __asm__ volatile("cli");
    if (!strcmp(w, "int81")) __asm__ volatile("int $0x81");
    if (!strcmp(w, "int3")) __asm__ volatile("int3");
    if (!strcmp(w, "sysenter")) __asm__ volatile("mov $20, %%eax\n\tsysenter" ::: "eax");
    if (!strcmp(w, "div")) { volatile int z = 0; printf("%d\n", 1 / z); }
    if (!strcmp(w, "gdt")) { volatile int v = *(volatile int *)0xfffff000; printf("%d\n", v); }
    if (!strcmp(w, "kernel")) { volatile int v = *(volatile int *)0xffffe000; printf("%d\n", v); }
    if (!strcmp(w, "badseg")) { unsigned s = 0x73 + 8 * 10; __asm__ volatile("mov %0,%%gs" :: "r"(s)); }
    if (!strcmp(w, "ldt")) { unsigned s = 7; __asm__ volatile("mov %0,%%gs" :: "r"(s)); }
    if (!strcmp(w, "kcs")) { unsigned s = 0x60; __asm__ volatile("mov %0,%%ds" :: "r"(s)); }
    printf("no fault %s\n", w);
    return 0;
}
"#;

/// ids.c
const IDS: &str = r#"
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
int main(void) {
    long u16 = syscall(SYS_getuid), u32 = syscall(SYS_getuid32);
    long g16 = syscall(SYS_getgid), g32 = syscall(SYS_getgid32);
    printf("uid16=%ld uid32=%ld gid16=%ld gid32=%ld\n", u16, u32, g16, g32);
    printf("euid16=%ld egid16=%ld\n", syscall(SYS_geteuid), syscall(SYS_getegid));
    unsigned short r[3] = {1, 1, 1}; unsigned short canary = 0xabcd;
    long rr = syscall(SYS_getresuid, &r[0], &r[1], &r[2]);
    printf("getresuid16=%ld %u %u %u canary=%#x\n", rr, r[0], r[1], r[2], canary);
    unsigned short groups[64]; int n = syscall(SYS_getgroups, 64, groups);
    int n32 = getgroups(0, NULL);
    printf("getgroups16=%d matches=%d\n", n, n == n32);
    /* setuid16(-1 as 0xffff) means "unchanged"? setreuid(0xffff, 0xffff) keeps both. */
    long s = syscall(SYS_setreuid, 0xffff, 0xffff);
    printf("setreuid16(-1,-1)=%ld uid=%ld\n", s, syscall(SYS_getuid32));
    errno = 0; s = syscall(SYS_chown, "/nonexistent/x", 0xffff, 0xffff); printf("chown16=%ld %s\n", s, strerror(errno));
    return 0;
}
"#;

/// uname.c
const UNAME: &str = r#"
#include <stdio.h>
#include <sys/utsname.h>
int main(void) { struct utsname u; uname(&u); printf("machine=%s\n", u.machine); return 0; }
"#;
/// osel.c
const OSEL: &str = r#"
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
int main(void) {
    int p[2]; pipe(p); write(p[1], "x", 1);
    fd_set r; FD_ZERO(&r); FD_SET(p[0], &r); FD_SET(p[1], &r);
    fd_set w; FD_ZERO(&w); FD_SET(p[1], &w);
    struct timeval tv = {0, 0};
    unsigned long args[5] = { p[1] + 1, (unsigned long)&r, (unsigned long)&w, 0, (unsigned long)&tv };
    long n = syscall(82, args);
    printf("old_select=%ld r0=%d r1=%d w1=%d\n", n, FD_ISSET(p[0], &r), FD_ISSET(p[1], &r), FD_ISSET(p[1], &w));
    errno = 0; n = syscall(82, (void *)8); printf("bad=%ld %s\n", n, strerror(errno));
    return 0;
}
"#;

/// bigalloc.c
const BIGALLOC: &str = r#"
#include <stdio.h>
#include <sys/mman.h>
int main(void) { int n = 0; while (mmap(0, 256 << 20, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE, -1, 0) != MAP_FAILED) n++; printf("%d x 256 MiB\n", n); return 0; }
"#;

/// A freestanding program (no libc): the `int $0x80` ABI itself, six arguments included
/// (`mmap2` takes its sixth in `ebp`), with `_start` at the start of a page.
const FREESTANDING: &str = r#"
    .text
    .globl _start
_start:
    mov $192, %eax              /* mmap2(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) */
    xor %ebx, %ebx
    mov $4096, %ecx
    mov $3, %edx
    mov $0x22, %esi
    mov $-1, %edi
    xor %ebp, %ebp
    int $0x80
    cmp $-4096, %eax
    jae 1f
    movl $0x0a6b6f, (%eax)      /* "ok\n" */
    mov %eax, %ecx
    mov $4, %eax                /* write(1, buf, 3) */
    mov $1, %ebx
    mov $3, %edx
    int $0x80
    cmp $3, %eax
    jne 1f
    mov $252, %eax              /* exit_group(7) */
    mov $7, %ebx
    int $0x80
1:  mov $252, %eax
    mov $1, %ebx
    int $0x80
"#;

/// Builds `src` with the i386 cross compiler; `flags` add to `-O2`.
fn build(dir: &Path, name: &str, src: &str, flags: &[&str]) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let out = dir.join(name);
    let st = Command::new(I386.cc)
        .args(flags)
        .args(["-O2", "-D_FILE_OFFSET_BITS=64", "-o"])
        .arg(&out)
        .arg(&c)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e}): run scripts/install-deps.sh", I386.cc));
    assert!(st.success(), "building {name}");
    out
}

/// stdout and shell status of `cmd` run with `args` and a fixed environment.
fn run(mut cmd: Command, args: &[&str]) -> (String, i32) {
    let o = cmd.env_clear().env("I386_TEST_VAR", "xyz").args(args).output().unwrap();
    (String::from_utf8_lossy(&o.stdout).into_owned(), shell_status(o.status))
}

/// How the reference runs `bin`: natively when the host kernel runs i386 code, else qemu-i386.
fn reference(bin: &Path) -> Command {
    // Running it at all (exec succeeds) shows the kernel takes i386 binaries.
    if Command::new(bin).env_clear().output().is_ok() {
        Command::new(bin)
    } else {
        let mut c = Command::new(I386.qemu);
        c.arg(bin);
        c
    }
}

fn under_endgate(bin: &Path, sysroot: Option<&str>) -> Command {
    let mut c = Command::new(endgate());
    if let Some(root) = sysroot {
        c.arg("-L").arg(root);
    }
    c.arg(bin);
    c
}

/// Runs `bin` under endgate and under the reference with `args`; both must agree.
fn same_as_reference(bin: &Path, args: &[&str]) -> String {
    let want = run(reference(bin), args);
    let got = run(under_endgate(bin, None), args);
    assert_eq!(got, want, "{}: endgate vs reference", bin.display());
    got.0
}

#[test]
fn freestanding_int80_program() {
    let dir = TempDir::new("i386-asm");
    let src = dir.path().join("start.S");
    std::fs::write(&src, FREESTANDING).unwrap();
    let bin = dir.path().join("start");
    let st = Command::new(I386.cc).args(["-nostdlib", "-static", "-o"]).arg(&bin).arg(&src).status().expect(I386.cc);
    assert!(st.success());
    let got = run(under_endgate(&bin, None), &[]);
    assert_eq!(got, ("ok\n".to_string(), 7));
    assert_eq!(got, run(reference(&bin), &[]));
}

#[test]
fn startup_argv_env_auxv_and_fpu_state() {
    let dir = TempDir::new("i386-auxv");
    for (name, flags, sysroot) in [
        ("auxv-static", &["-static", "-msse2"][..], None),
        ("auxv-static-pie", &["-static-pie", "-msse2"][..], None),
        ("auxv-dynamic", &["-msse2"][..], Some(I386.sysroot)),
    ] {
        let bin = build(dir.path(), name, AUXV, flags);
        let args = ["one", "two three"];
        let want = run(reference(&bin), &args);
        let got = run(under_endgate(&bin, sysroot), &args);
        assert_eq!(got, want, "{name}");
        assert!(got.0.contains("hwcap_is_cpuid_edx=1 sse2=1\n"), "{name}: {}", got.0);
        assert!(got.0.contains("platform=i686\n") && got.0.contains("fpcw=0x37f mxcsr=0x1f80\n"));
    }
}

#[test]
fn uname_machine_is_i686() {
    let dir = TempDir::new("i386-uname");
    let bin = build(dir.path(), "uname", UNAME, &["-static"]);
    let mut q = Command::new(I386.qemu);
    q.arg(&bin);
    let want = run(q, &[]);
    assert_eq!(want.0, "machine=i686\n");
    assert_eq!(run(under_endgate(&bin, None), &[]), want);
}

#[test]
fn tls_through_gs_and_set_thread_area() {
    let dir = TempDir::new("i386-tls");
    let bin = build(dir.path(), "tls", TLS, &["-static"]);
    let out = same_as_reference(&bin, &[]);
    assert!(out.contains("get_thread_area=0 base_is_tcb=1"), "{out}");
    assert!(out.contains("via_fs=0x1234567"), "{out}");
}

#[test]
fn stat64_and_a_sparse_file_past_4_gib() {
    let dir = TempDir::new("i386-stat64");
    let bin = build(dir.path(), "stat64", STAT64, &["-static"]);
    let file = dir.path().join("sparse");
    let out = same_as_reference(&bin, &[file.to_str().unwrap()]);
    assert!(out.contains("pread64=4 'tail'\nsize=5368709222\n"), "{out}");
}

#[test]
fn sockets_through_socketcall() {
    let dir = TempDir::new("i386-sock");
    let bin = build(dir.path(), "sock", SOCK, &["-static"]);
    let out = same_as_reference(&bin, &[]);
    assert!(out.contains("send=4 recv=4 'ping'"), "{out}");
}

#[test]
fn old_select_takes_its_arguments_by_pointer() {
    let dir = TempDir::new("i386-osel");
    let bin = build(dir.path(), "osel", OSEL, &["-static"]);
    let out = same_as_reference(&bin, &[]);
    assert!(out.starts_with("old_select=2 r0=1 r1=0 w1=1\n"), "{out}");
}

#[test]
fn sixteen_bit_id_calls() {
    let dir = TempDir::new("i386-ids");
    let bin = build(dir.path(), "ids", IDS, &["-static"]);
    same_as_reference(&bin, &[]);
}

#[test]
fn address_space_reaches_task_size() {
    // An i386 task on an x86_64 kernel has 4 GiB less 8 KiB (TASK_SIZE 0xffffe000), and mmap
    // fills it top-down: 14 mappings of 256 MiB fit.
    let dir = TempDir::new("i386-bigalloc");
    let bin = build(dir.path(), "bigalloc", BIGALLOC, &["-static"]);
    assert_eq!(same_as_reference(&bin, &[]), "14 x 256 MiB\n");
}

#[test]
fn cpu_exceptions_become_signals() {
    let dir = TempDir::new("i386-faults");
    let bin = build(dir.path(), "faults", FAULTS, &["-static"]);
    // Each case with the status Linux gives (128 + signal): user mode (CPL 3) makes hlt, cli,
    // an `int` without a user gate and loads of bad, LDT or kernel selectors fault as on Linux.
    for (case, status) in [
        ("segv", 139),
        ("ill", 132),
        ("hlt", 139),
        ("cli", 139),
        ("int81", 139),
        ("int3", 133),
        // No vDSO to return to.
        ("sysenter", 139),
        ("kernel", 139),
        // A read of the page endgate keeps the GDT in (above TASK_SIZE).
        ("gdt", 139),
        ("badseg", 139),
        ("ldt", 139),
        ("kcs", 139),
        ("none", 0),
    ] {
        let want = run(reference(&bin), &[case]);
        if case == "sysenter" && want.1 == 132 {
            // An AMD host: its CPUs raise #UD for `sysenter` outside legacy mode (AMD64
            // Architecture Programmer's Manual vol. 3, SYSENTER), so a native i386 run gets
            // SIGILL. endgate's CPU follows Intel, where the call enters the kernel and, with
            // no vDSO to return to, ends in SIGSEGV: compare the status alone.
            assert_eq!(run(under_endgate(&bin, None), &[case]).1, status, "{case}");
            continue;
        }
        assert_eq!(want.1, status, "reference {case}");
        assert_eq!(run(under_endgate(&bin, None), &[case]), want, "{case}");
    }
}

/// rlimits.c: the old `getrlimit` (number 76) caps limits at 0x7fffffff, `ugetrlimit` (191)
/// and `prlimit64` do not (kernel/sys.c `old_getrlimit`).
const RLIMITS: &str = r#"
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
    struct rlimit r = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_CORE, &r);
    unsigned long old[2], u[2];
    long a = syscall(76, RLIMIT_CORE, old);
    long b = syscall(191, RLIMIT_CORE, u);
    printf("getrlimit(76): %ld %#lx %#lx\n", a, old[0], old[1]);
    printf("ugetrlimit(191): %ld %#lx %#lx\n", b, u[0], u[1]);
    return 0;
}
"#;

#[test]
fn old_getrlimit_caps_at_0x7fffffff() {
    let dir = TempDir::new("i386-rlimit");
    let bin = build(dir.path(), "rlimits", RLIMITS, &["-static"]);
    let got = same_as_reference(&bin, &[]);
    // Where the limit is infinite (the hard limit allowed setting it), the old call caps it.
    if got.contains("ugetrlimit(191): 0 0xffffffff") {
        assert!(got.contains("getrlimit(76): 0 0x7fffffff"), "{got}");
    }
}
