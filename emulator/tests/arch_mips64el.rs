//! mips64el (n64) guests: static glibc programs built with `mips64el-linux-gnuabi64-gcc` must
//! print what the same source prints natively on x86_64 (start-up, argv/env/auxv, TLS, `stat`,
//! errno values translated to MIPS numbers and back through strerror), and what qemu-mips64el
//! prints where MIPS numbers show (signals: SIGUSR1 is 16). Fault exits follow Linux: SIGSEGV
//! 139, SIGILL 132, and SIGFPE 136 for an integer division by zero (`teq rt, $0, 7`, which
//! arch/mips/kernel/traps.c turns into SIGFPE; qemu-user 7.2 reports SIGTRAP there).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{endgate, shell_status, TempDir, MIPS64EL, X86_64};

const CC: &str = MIPS64EL.cc;

const STARTUP: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
static __thread int tls_counter = 7;
int main(int argc, char **argv, char **envp) {
    tls_counter += argc;
    printf("hello argc=%d tls=%d\n", argc, tls_counter);
    for (int i = 1; i < argc; i++) printf("arg %s\n", argv[i]);
    printf("env=%s\n", getenv("ENDGATE_MIPS_TEST"));
    printf("pagesz=%lu random=%d execfn=%d\n", getauxval(AT_PAGESZ), getauxval(AT_RANDOM) != 0,
           strcmp((char *)getauxval(AT_EXECFN), argv[0]) == 0);
    printf("sp16=%d\n", (int)((unsigned long)__builtin_frame_address(0) % 16 == 0));
    char *big = malloc(1 << 24);
    memset(big, 0x5a, 1 << 24);
    big = realloc(big, 1 << 25);
    printf("big=%d\n", big[(1 << 24) - 1]);
    free(big);
    return 3;
}
"#;

const STAT_ERRNO: &str = r#"
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
static void err(const char *what, int r) {
    printf("%s: r=%d %s\n", what, r, r < 0 ? strerror(errno) : "ok");
}
int main(int argc, char **argv) {
    char p[4096], q[4096], d[4096];
    snprintf(p, sizeof p, "%s/file", argv[1]);
    snprintf(q, sizeof q, "%s/link", argv[1]);
    snprintf(d, sizeof d, "%s/dir", argv[1]);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
    printf("write=%zd\n", write(fd, "hello", 5));
    printf("getfl accmode=%d append=%d\n", fcntl(fd, F_GETFL) & O_ACCMODE, (fcntl(fd, F_GETFL) & O_APPEND) != 0);
    printf("cloexec=%d\n", fcntl(fd, F_GETFD) & FD_CLOEXEC);
    close(fd);
    chmod(p, 0640);
    struct timespec ts[2] = {{1000000000, 0}, {1234567890, 5}};
    utimensat(AT_FDCWD, p, ts, 0);
    struct stat st;
    err("stat", stat(p, &st));
    printf("size=%lld mode=%o reg=%d nlink=%lu atime=%ld mtime=%ld blksize>0=%d\n", (long long)st.st_size,
           st.st_mode & 07777, S_ISREG(st.st_mode), (unsigned long)st.st_nlink, (long)st.st_atime,
           (long)st.st_mtime, st.st_blksize > 0);
    struct stat host;
    symlink("file", q);
    err("lstat", lstat(q, &host));
    printf("lnk=%d lsize=%lld same-dev=%d\n", S_ISLNK(host.st_mode), (long long)host.st_size, host.st_dev == st.st_dev);
    err("open missing", open("/nonexistent/endgate", O_RDONLY));
    printf("enoent=%d\n", errno == ENOENT);
    mkdir(d, 0755);
    err("mkdir again", mkdir(d, 0755));
    printf("eexist=%d\n", errno == EEXIST);
    char f[4096];
    snprintf(f, sizeof f, "%s/x", d);
    close(open(f, O_CREAT | O_WRONLY, 0600));
    err("rmdir nonempty", rmdir(d));
    printf("enotempty=%d\n", errno == ENOTEMPTY);
    char longname[600];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    err("long name", open(longname, O_RDONLY));
    printf("enametoolong=%d\n", errno == ENAMETOOLONG);
    err("excl", open(p, O_CREAT | O_EXCL | O_WRONLY, 0600));
    err("dir as file", open(d, O_WRONLY));
    err("not a dir", open(p, O_RDONLY | O_DIRECTORY));
    printf("enotdir=%d\n", errno == ENOTDIR);
    struct statfs sf;
    err("statfs", statfs(argv[1], &sf));
    printf("f_type=%lx f_bsize=%ld f_namelen=%ld f_frsize=%ld f_flags=%#lx\n", (long)sf.f_type, (long)sf.f_bsize,
           (long)sf.f_namelen, (long)sf.f_frsize, (long)sf.f_flags);
    return 0;
}
"#;

const SIGNALS: &str = r#"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void) {
    printf("SIGUSR1=%d SIGCHLD=%d\n", SIGUSR1, SIGCHLD);
    sigset_t set, old, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    printf("block=%d\n", sigprocmask(SIG_BLOCK, &set, &old));
    printf("usr1 blocked before=%d\n", sigismember(&old, SIGUSR1));
    printf("kill=%d\n", kill(getpid(), SIGUSR1));
    sigpending(&pend);
    printf("pending usr1=%d usr2=%d\n", sigismember(&pend, SIGUSR1), sigismember(&pend, SIGUSR2));
    struct timespec t = {0, 0};
    int s = sigtimedwait(&set, NULL, &t);
    printf("sigtimedwait=%d is-usr1=%d\n", s, s == SIGUSR1);
    sigprocmask(SIG_SETMASK, NULL, &old);
    printf("still blocked=%d\n", sigismember(&old, SIGUSR1));
    struct sigaction sa, prev;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR2, &sa, NULL);
    sigaction(SIGUSR2, NULL, &prev);
    printf("usr2 ign=%d mask-term=%d mask-usr1=%d restart=%d\n", prev.sa_handler == SIG_IGN,
           sigismember(&prev.sa_mask, SIGTERM), sigismember(&prev.sa_mask, SIGUSR1),
           (prev.sa_flags & SA_RESTART) != 0);
    printf("raise usr2 (ignored)=%d\n", kill(getpid(), SIGUSR2));
    printf("bad signal=%d\n", kill(getpid(), 200));
    fflush(stdout);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    kill(getpid(), SIGUSR1);
    printf("not reached\n");
    return 0;
}
"#;

const FAULTS: &str = r#"
#include <stdio.h>
int main(int argc, char **argv) {
    volatile int zero = 0;
    switch (argv[1][0]) {
    case 's': *(volatile int *)0 = 1; break;
    case 'i': __asm__ volatile(".word 0x0000000e"); break; /* SPECIAL function 0x0e: reserved */
    case 'd': printf("%d\n", 5 / zero); break;
    }
    return 0;
}
"#;

/// Signal frames (checked against qemu-mips64el): a SIGSEGV raised by a store in the delay
/// slot of a taken branch saves the branch as `sc_pc` and, once the handler has made the page
/// writable, resumes there so that the store succeeds and the branch still goes to its
/// target; `sc_used_math`, the interrupted `sp`, and a handler that rewrites `s0` and `sc_pc`.
const SIGFRAMES: &str = r#"
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
static long *page;
static volatile int faults;
static unsigned long branch_at;
static void on_segv(int sig, siginfo_t *si, void *ucv) {
    (void)sig;
    ucontext_t *uc = ucv;
    faults++;
    printf("sc_pc is the branch %d\n", uc->uc_mcontext.pc == branch_at);
    printf("si_addr in the page %d\n", (char *)si->si_addr >= (char *)page && (char *)si->si_addr < (char *)page + 4096);
    mprotect(page, 4096, PROT_READ | PROT_WRITE);
}
static void on_usr1(int sig, siginfo_t *si, void *ucv) {
    (void)sig; (void)si;
    ucontext_t *uc = ucv;
    printf("used_math %u, interrupted sp above the frame %d\n", uc->uc_mcontext.used_math & 1,
           uc->uc_mcontext.gregs[29] > (unsigned long)uc);
    uc->uc_mcontext.gregs[16] = 1234;          /* s0 */
    uc->uc_mcontext.pc = uc->uc_mcontext.gregs[17]; /* s1: resume address */
}
int main(void) {
    page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    long taken = 0, v = 77;
    /* A store in the delay slot of a taken branch faults; after the handler the branch runs
     * again, the store succeeds and the branch goes to its target. */
    __asm__ volatile(".set push\n\t.set noreorder\n\t"
                     "dla $3, 0f\n\t"
                     "sd $3, 0(%[b])\n"
                     "0:\tbeq $0, $0, 1f\n\t"
                     "sd %[v], 16(%[p])\n\t"
                     "li %[t], 5\n"
                     "1:\tdaddiu %[t], %[t], 1\n\t"
                     ".set pop"
                     : [t] "+r"(taken)
                     : [v] "r"(v), [p] "r"(page), [b] "r"(&branch_at)
                     : "$3", "memory");
    printf("faults %d, stored %ld, branch taken (not fallen through) %d\n", faults, page[2], taken == 1);
    sa.sa_sigaction = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    register long s0 __asm__("$16") = 1;
    register long s1 __asm__("$17");
    long pid = getpid();
    /* kill(pid, SIGUSR1) by syscall; the handler sends the thread to label 2 with s0 = 1234. */
    __asm__ volatile(".set push\n\t.set noreorder\n\t"
                     "dla %[s1], 2f\n\t"
                     "move $4, %[pid]\n\t"
                     "li $5, %[sig]\n\t"
                     "li $2, 5060\n\t"
                     "syscall\n\t"
                     "li %[s0], 99\n"
                     "2:\n\t.set pop"
                     : [s0] "+r"(s0), [s1] "=&r"(s1)
                     : [pid] "r"(pid), [sig] "i"(SIGUSR1)
                     : "$2", "$4", "$5", "$7", "memory");
    printf("s0 after the redirect: %ld\n", (long)s0);
    return 0;
}
"#;

fn have_cc() -> bool {
    Command::new(CC).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn build(dir: &Path, name: &str, src: &str, cc: &str) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let out = dir.join(format!("{name}-{cc}"));
    let st = Command::new(cc).args(["-static", "-O2", "-o"]).arg(&out).arg(&c).status().unwrap();
    assert!(st.success(), "building {name} with {cc}");
    out
}

fn run(cmd: &mut Command) -> (String, i32, String) {
    let o = cmd.env_clear().env("ENDGATE_MIPS_TEST", "set").output().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        shell_status(o.status),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn under_endgate(bin: &Path) -> Command {
    let mut c = Command::new(endgate());
    c.arg(bin);
    c
}

#[test]
fn startup_matches_native() {
    if !have_cc() {
        eprintln!("skipped: {CC} missing (scripts/install-deps.sh)");
        return;
    }
    let dir = TempDir::new("mips64el-start");
    let native = build(dir.path(), "start", STARTUP, X86_64.cc);
    let guest = build(dir.path(), "start", STARTUP, CC);
    let want = run(Command::new(&native).args(["one", "two words"]));
    let got = run(under_endgate(&guest).args(["one", "two words"]));
    assert_eq!(want.1, 3);
    assert_eq!((got.0.as_str(), got.1), (want.0.as_str(), want.1), "stderr: {}", got.2);
}

#[test]
fn stat_and_errno_match_native() {
    if !have_cc() {
        return;
    }
    let dir = TempDir::new("mips64el-stat");
    let native = build(dir.path(), "stat", STAT_ERRNO, X86_64.cc);
    let guest = build(dir.path(), "stat", STAT_ERRNO, CC);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let want = run(Command::new(&native).arg(&a));
    let got = run(under_endgate(&guest).arg(&b));
    assert!(want.0.contains("No such file or directory"), "{}", want.0);
    assert_eq!((got.0.as_str(), got.1), (want.0.as_str(), want.1), "stderr: {}", got.2);
}

#[test]
fn signals_match_qemu() {
    if !have_cc() {
        return;
    }
    let dir = TempDir::new("mips64el-sig");
    let guest = build(dir.path(), "sig", SIGNALS, CC);
    let want = run(Command::new(MIPS64EL.qemu).arg(&guest));
    let got = run(&mut under_endgate(&guest));
    // MIPS numbering (arch/mips/include/uapi/asm/signal.h), and death by SIGUSR1 (128 + 10 on
    // the host).
    assert!(want.0.starts_with("SIGUSR1=16 SIGCHLD=18\n"), "{}", want.0);
    assert_eq!(want.1, 128 + libc::SIGUSR1);
    assert_eq!((got.0.as_str(), got.1), (want.0.as_str(), want.1), "stderr: {}", got.2);
}

#[test]
fn faults_end_with_linux_signals() {
    if !have_cc() {
        return;
    }
    let dir = TempDir::new("mips64el-fault");
    let guest = build(dir.path(), "fault", FAULTS, CC);
    for (arg, status) in [("s", 139), ("i", 132), ("d", 136)] {
        let got = run(under_endgate(&guest).arg(arg));
        assert_eq!(got.1, status, "{arg}: {}", got.2);
    }
}

#[test]
fn signal_frames_match_qemu() {
    if !have_cc() {
        return;
    }
    let dir = TempDir::new("mips64el-sigframe");
    let guest = build(dir.path(), "sigframe", SIGFRAMES, CC);
    let want = run(Command::new(MIPS64EL.qemu).arg(&guest));
    let got = run(&mut under_endgate(&guest));
    assert!(
        want.0.contains("branch taken (not fallen through) 1\n") && want.0.contains("redirect: 1234"),
        "{}",
        want.0
    );
    assert_eq!((got.0.as_str(), got.1), (want.0.as_str(), want.1), "stderr: {}", got.2);
}

/// Debian's busybox-static for mips64el against the amd64 one run natively.
#[test]
fn busybox_applets_match_native() {
    let (native, guest) = (common::busybox(X86_64.debian), common::busybox(MIPS64EL.debian));
    let dir = TempDir::new("mips64el-bb");
    let f = dir.path().join("in.txt");
    std::fs::write(&f, "pear\napple\nfig\napple\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let f = f.to_str().unwrap();
    let d = dir.path().to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["echo", "hello", "world"],
        &["ls", "-l", "--full-time", d],
        &["sha256sum", f],
        &["md5sum", f],
        &["sort", f],
        &["sort", "-u", "-r", f],
        &["wc", f],
        &["uniq", "-c", f],
        &["od", "-t", "x1", f],
        &["stat", "-c", "%s %a %F", f],
        &["ls", "/nonexistent"],
        &["sh", "-c", "x=$((6*7)); echo $x; exit 3"],
        &["awk", "{n += length($0)} END {print n}", f],
        &["sed", "s/p/P/g", f],
        &["grep", "-c", "apple", f],
        &["printf", "%05d|%s\n", "42", "x"],
        &["seq", "-s", ",", "5"],
        &["expr", "6", "*", "7"],
        &["cut", "-c", "1-3", f],
        &["find", d, "-type", "d"],
    ];
    let mut failures = Vec::new();
    for args in cases {
        let want = run(Command::new(&native).args(*args));
        let got = run(Command::new(endgate()).arg(&guest).args(*args));
        if (&got.0, got.1) != (&want.0, want.1) {
            failures.push(format!("{args:?}: want {want:?}\n got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const CACHEFLUSH: &str = r#"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/cachectl.h>
#include <sys/mman.h>
#include <unistd.h>
static void show(const char *what, long r) { printf("%s: %ld %s\n", what, r, r ? strerror(errno) : ""); }
int main(void) {
    char *p = mmap(0, 8192, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    show("both caches", cacheflush(p, 4096, BCACHE));
    show("cache 0", cacheflush(p, 4096, 0));
    show("cache 7", cacheflush(p, 4096, 7));
    show("no bytes", cacheflush((void *)-4096L, 0, BCACHE));
    show("unmapped user range", cacheflush((void *)0x10000, 4096, ICACHE));
    show("beyond user space", cacheflush((void *)-8192L, 4096, ICACHE));
    return 0;
}
"#;

/// `cacheflush(addr, nbytes, cache)` as Linux answers it (arch/mips/mm/cache.c
/// `sys_cacheflush`): `cache` is not looked at, 0 bytes flush nothing, and only a range outside
/// user space (`access_ok`) is `EFAULT`.
#[test]
fn cacheflush_answers_as_linux() {
    if !have_cc() {
        return;
    }
    let dir = TempDir::new("mips-cacheflush");
    let bin = build(dir.path(), "cacheflush", CACHEFLUSH, CC);
    let (out, status, err) = run(&mut under_endgate(&bin));
    let want = "both caches: 0 \ncache 0: 0 \ncache 7: 0 \nno bytes: 0 \nunmapped user range: 0 \n\
                beyond user space: -1 Bad address\n";
    assert_eq!((out.as_str(), status), (want, 0), "stderr: {err}");
}
