/* Tries every way out of its root directory that tests/root.rs asks about, and prints one line
 * per attempt: what it read, or the errno name. Run natively under chroot(2) it shows what
 * the kernel answers; under `endgate --root` the same lines must come out.
 * usage: escape OUTDIR   (OUTDIR: the host directory holding secret.txt, outside the root) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e) {
    switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOTDIR: return "ENOTDIR";
    case ELOOP: return "ELOOP";
    case EXDEV: return "EXDEV";
    case EPERM: return "EPERM";
    case EEXIST: return "EEXIST";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EBADF: return "EBADF";
    case ENOEXEC: return "ENOEXEC";
    default: return strerror(e);
    }
}

/* The first line of the file open on `fd` (closed here), or the errno name of the open. */
static void show_fd(const char *what, int fd) {
    if (fd < 0) { printf("%s: %s\n", what, ename(errno)); return; }
    char buf[128] = {0};
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) { printf("%s: read %s\n", what, ename(errno)); return; }
    buf[strcspn(buf, "\n")] = 0;
    printf("%s: %s\n", what, buf);
}

/* The first line of the file, or the errno name. */
static void show_at(const char *what, int dir, const char *path) { show_fd(what, openat(dir, path, O_RDONLY)); }

static void show(const char *what, const char *path) { show_at(what, AT_FDCWD, path); }

/* openat2 with `resolve` from `dir`: what it read, or the errno name. */
static void show2(const char *what, int dir, const char *path, unsigned long long resolve) {
    struct open_how h = {.flags = O_RDONLY, .resolve = resolve};
    show_fd(what, syscall(SYS_openat2, dir, path, &h, sizeof h));
}

static void result(const char *what, int r) {
    if (r < 0) printf("%s: %s\n", what, ename(errno));
    else printf("%s: ok\n", what);
}

static void link_text(const char *what, const char *path) {
    char buf[4096];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n < 0) { printf("%s: %s\n", what, ename(errno)); return; }
    buf[n] = 0;
    printf("%s: %s\n", what, buf);
}

static int unix_connect(const char *path) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    int r = connect(s, (struct sockaddr *)&a, sizeof a);
    int e = errno;
    close(s);
    errno = e;
    return r;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *out = argv[1];
    char p[4096];
    int fd;
    setvbuf(stdout, NULL, _IONBF, 0);

    /* Reads: `..` chains, links pointing out, /proc's links, descriptors. */
    show("dotdot", "/../../../../../secret.txt");
    show("dotdot-relative", "../../../../../secret.txt");
    snprintf(p, sizeof p, "%s/secret.txt", out);
    show("host-absolute", p);
    show("absolute-link", "/links/abs/secret.txt");
    show("relative-link", "/links/rel/secret.txt");
    show("link-chain", "/links/chain/secret.txt");
    show("proc-root", "/proc/self/root/../secret.txt");
    show("proc-cwd", "/proc/self/cwd/../../../secret.txt");
    int d = open("/", O_RDONLY | O_DIRECTORY);
    snprintf(p, sizeof p, "/proc/self/fd/%d/../../secret.txt", d);
    show("proc-fd", p);
    show_at("openat-root-fd", d, "../../../secret.txt");
    int l = open("/links", O_RDONLY | O_DIRECTORY);
    show_at("openat-links-fd", l, "abs/secret.txt");
    link_text("readlink-root", "/proc/self/root");
    link_text("readlink-fd", p);
    /* A buffer shorter than the link gets its first bytes, and nothing past them is written. */
    for (size_t sz = 3; sz <= 12; sz += 9) {
        char sb[32];
        memset(sb, 'X', sizeof sb);
        int fi = open("/inside.txt", O_RDONLY);
        char fl[64];
        snprintf(fl, sizeof fl, "/proc/self/fd/%d", fi);
        ssize_t n = readlink(fl, sb, sz);
        printf("readlink-fd-size-%zu: %zd [%.*s] rest %s\n", sz, n, n > 0 ? (int)n : 0, sb,
               sb[n > 0 ? n : 0] == 'X' && sb[31] == 'X' ? "untouched" : "written");
        close(fi);
    }
    link_text("readlink-abs", "/links/abs");

    /* openat2: a link followed by the host despite RESOLVE_NO_MAGICLINKS. */
    struct open_how how = {.flags = O_RDONLY, .resolve = RESOLVE_NO_MAGICLINKS};
    int o2 = syscall(SYS_openat2, AT_FDCWD, "/links/file", &how, sizeof how);
    if (o2 < 0) printf("openat2-no-magiclinks: %s\n", ename(errno));
    else { char b[64] = {0}; read(o2, b, sizeof b - 1); b[strcspn(b, "\n")] = 0; printf("openat2-no-magiclinks: %s\n", b); close(o2); }

    /* Scoped lookups cross mount points (a bind under --root) and stop at their directory. */
    show2("openat2-in-root-mount", d, "proc/self/comm", RESOLVE_IN_ROOT);
    show2("openat2-in-root-dotdot-mount", d, "links/../../../proc/self/comm", RESOLVE_IN_ROOT);
    show2("openat2-in-root-absolute", d, "/inside.txt", RESOLVE_IN_ROOT);
    show2("openat2-in-root-is-dirfd", l, "/inside.txt", RESOLVE_IN_ROOT);
    show2("openat2-in-root-abs-link", d, "links/abs/secret.txt", RESOLVE_IN_ROOT);
    show2("openat2-in-root-magic-link", d, "proc/self/root/inside.txt", RESOLVE_IN_ROOT);
    show2("openat2-beneath-mount", d, "proc/self/comm", RESOLVE_BENEATH);
    show2("openat2-beneath-dotdot", l, "../inside.txt", RESOLVE_BENEATH);
    show2("openat2-beneath-abs-link", d, "links/abs/secret.txt", RESOLVE_BENEATH);
    show2("openat2-beneath-magic-link", d, "proc/self/cwd/inside.txt", RESOLVE_BENEATH);
    show2("openat2-both-scopes", d, "inside.txt", RESOLVE_BENEATH | RESOLVE_IN_ROOT);
    show2("openat2-in-root-no-xdev-mount", d, "proc/self/comm", RESOLVE_IN_ROOT | RESOLVE_NO_XDEV);
    show2("openat2-no-xdev-mount", AT_FDCWD, "/proc/self/comm", RESOLVE_NO_XDEV);
    show2("openat2-in-root-no-magic", d, "proc/self/root/inside.txt", RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
    {
        struct open_how m = {.flags = O_RDONLY, .mode = 0644, .resolve = RESOLVE_IN_ROOT};
        int fm = syscall(SYS_openat2, d, "no/such/dir/x", &m, sizeof m);
        printf("openat2-mode-without-create: %s\n", fm < 0 ? ename(errno) : "opened");
    }
    struct open_how beneath = {.flags = O_RDONLY, .resolve = RESOLVE_BENEATH};
    int b2 = syscall(SYS_openat2, AT_FDCWD, "/secret.txt", &beneath, sizeof beneath);
    printf("openat2-beneath-absolute: %s\n", b2 < 0 ? ename(errno) : "opened");
    if (b2 >= 0) close(b2);
    result("lsetxattr-link", lsetxattr("/links/abs", "user.x", "1", 1, 0));

    /* "Don't follow" lookups of the root, a bind point and a link with a trailing slash. */
    struct stat ls;
    printf("lstat-root: %s\n", lstat("/", &ls) == 0 ? (S_ISDIR(ls.st_mode) ? "dir" : "not dir") : ename(errno));
    printf("lstat-proc: %s\n", lstat("/proc", &ls) == 0 ? (S_ISDIR(ls.st_mode) ? "dir" : "not dir") : ename(errno));
    link_text("readlink-slash", "/");
    link_text("readlink-proc", "/proc");
    char rp[PATH_MAX];
    printf("realpath-proc-fd: %s\n", realpath("/proc/self/fd", rp) ? "ok" : ename(errno));
    mkdir("/emptyd", 0755);
    symlink("emptyd", "/dl");
    result("rmdir-link-slash", rmdir("/dl/"));
    printf("emptyd-still-there: %s\n", stat("/emptyd", &ls) == 0 ? "yes" : "no");
    result("rename-link-slash", rename("/dl/", "/moved"));
    result("mkdir-proc", mkdir("/proc", 0755));

    /* The working directory. */
    result("chdir", chdir("/links"));
    for (int i = 0; i < 8; i++) chdir("..");
    show("chdir-dotdot", "secret.txt");
    result("chdir-abs-link", chdir("/links/abs"));
    if (getcwd(p, sizeof p)) printf("getcwd: %s\n", p); else printf("getcwd: %s\n", ename(errno));
    result("fchdir-root", fchdir(d));
    show("after-fchdir", "../secret.txt");
    link_text("readlink-cwd", "/proc/self/cwd");

    /* An inherited descriptor of a directory outside (fd 3, when the caller passed one). */
    struct stat st;
    if (fstat(3, &st) == 0 && S_ISDIR(st.st_mode)) {
        show_at("stricter-inherited-fd", 3, "secret.txt");
        int here = open(".", O_RDONLY | O_DIRECTORY);
        if (fchdir(3) == 0) {
            int u = socket(AF_UNIX, SOCK_STREAM, 0);
            struct sockaddr_un ua = {.sun_family = AF_UNIX};
            strcpy(ua.sun_path, "evil.sock");
            result("stricter-inherited-fd-bind", bind(u, (struct sockaddr *)&ua, sizeof ua));
            close(u);
            fchdir(here);
        }
        close(here);
    }
    /* The process's memory file: endgate's own memory (code included), never the guest's. */
    fd = open("/proc/self/mem", O_RDWR);
    printf("stricter-proc-self-mem: %s\n", fd < 0 ? ename(errno) : "opened");
    if (fd >= 0) close(fd);
    /* Not even as a path (which /proc/self/fd/N would reopen)... */
    fd = open("/proc/self/mem", O_PATH);
    printf("stricter-proc-self-mem-path: %s\n", fd < 0 ? ename(errno) : "opened");
    if (fd >= 0) close(fd);
    /* The same file through another bind of the host's /proc (endgate: --bind /proc:/p2). */
    fd = open("/p2/self/mem", O_RDONLY);
    printf("stricter-proc-bound-elsewhere-mem: %s\n", fd < 0 ? ename(errno) : "opened");
    if (fd >= 0) close(fd);
    /* ...but it is there, as natively: `ls -l /proc/self` stats every entry. */
    {
        struct stat sm;
        printf("proc-self-mem-stat: %s\n", stat("/proc/self/mem", &sm) < 0 ? ename(errno) : S_ISREG(sm.st_mode) ? "regular file" : "other");
        printf("proc-self-mem-lstat: %s\n", lstat("/proc/self/mem", &sm) < 0 ? ename(errno) : S_ISREG(sm.st_mode) ? "regular file" : "other");
    }
    /* Another (host) process's descriptors, when the caller named one: fd 4 is secret.txt. */
    if (argc > 2) {
        snprintf(p, sizeof p, "/proc/%s/fd/4", argv[2]);
        show("stricter-inherited-host-proc-fd", p);
        snprintf(p, sizeof p, "/proc/%s/exe", argv[2]);
        show("stricter-inherited-host-proc-exe", p);
    }

    /* Writes. */
    fd = open("/../../created.txt", O_CREAT | O_WRONLY, 0644);
    result("create-dotdot", fd);
    close(fd);
    fd = open("/links/abs/created.txt", O_CREAT | O_WRONLY, 0644);
    result("create-through-link", fd);
    close(fd);
    result("mkdir-through-link", mkdir("/links/abs/newdir", 0755));
    result("symlink-new", symlink(out, "/made-link"));
    show("follow-new-link", "/made-link/secret.txt");
    fd = open("/made-link/created2.txt", O_CREAT | O_WRONLY, 0644);
    result("create-new-link", fd);
    close(fd);
    result("dangling-create", (fd = open("/links/dangling", O_CREAT | O_WRONLY, 0644)));
    close(fd);
    result("rename-out", rename("/inside.txt", "/links/abs/moved.txt"));
    result("link-out", link("/secret.txt", "/links/abs/linked.txt"));

    /* Unix sockets. */
    snprintf(p, sizeof p, "%s/outside.sock", out);
    result("connect-host-path", unix_connect(p));
    result("connect-through-link", unix_connect("/links/abs/outside.sock"));
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, "/inside.sock");
    result("bind-inside", bind(s, (struct sockaddr *)&a, sizeof a));
    socklen_t alen = sizeof a;
    memset(&a, 0, sizeof a);
    if (getsockname(s, (struct sockaddr *)&a, &alen) == 0) printf("getsockname: %s\n", a.sun_path);
    result("listen", listen(s, 1));
    result("connect-inside", unix_connect("/inside.sock"));

    /* A script whose interpreter is outside. */
    pid_t c = fork();
    if (c == 0) {
        char *args[] = {"/script.sh", NULL};
        execv("/script.sh", args);
        printf("exec-script: %s\n", ename(errno));
        _exit(0);
    }
    waitpid(c, NULL, 0);

    /* A directory swapped for a link to the outside while lookups go through it. */
    c = fork();
    if (c == 0) {
        for (int i = 0; i < 4000; i++)
            syscall(SYS_renameat2, AT_FDCWD, "/race", AT_FDCWD, "/race-alt", 2 /* RENAME_EXCHANGE */);
        _exit(0);
    }
    int escaped = 0, inside = 0;
    for (int i = 0; i < 4000; i++) {
        int f = open("/race/secret.txt", O_RDONLY);
        if (f < 0) continue;
        char buf[32] = {0};
        if (read(f, buf, sizeof buf - 1) > 0) {
            if (strstr(buf, "OUTSIDE")) escaped++;
            else inside++;
        }
        close(f);
    }
    waitpid(c, NULL, 0);
    printf("race: %s\n", escaped ? "escaped" : "no escape");

    /* The same with openat2 (a resolve flag that lets the host follow the last name). */
    c = fork();
    if (c == 0) {
        for (int i = 0; i < 4000; i++)
            syscall(SYS_renameat2, AT_FDCWD, "/rf/f", AT_FDCWD, "/rf/s", 2 /* RENAME_EXCHANGE */);
        _exit(0);
    }
    escaped = 0;
    for (int i = 0; i < 4000; i++) {
        struct open_how h = {.flags = O_RDONLY, .resolve = RESOLVE_NO_XDEV};
        int f = syscall(SYS_openat2, AT_FDCWD, "/rf/f", &h, sizeof h);
        if (f < 0) continue;
        char buf[32] = {0};
        if (read(f, buf, sizeof buf - 1) > 0 && strstr(buf, "OUTSIDE")) escaped++;
        close(f);
    }
    waitpid(c, NULL, 0);
    printf("race-openat2: %s\n", escaped ? "escaped" : "no escape");

    /* A name made a link to the outside while openat2(O_CREAT) creates it. */
    c = fork();
    if (c == 0) {
        snprintf(p, sizeof p, "%s/raced.txt", out);
        for (int i = 0; i < 4000; i++) { symlink(p, "/rc/n"); unlink("/rc/n"); }
        _exit(0);
    }
    for (int i = 0; i < 4000; i++) {
        struct open_how h = {.flags = O_WRONLY | O_CREAT | O_APPEND, .mode = 0644};
        int f = syscall(SYS_openat2, AT_FDCWD, "/rc/n", &h, sizeof h);
        if (f < 0) continue;
        write(f, "x", 1);
        close(f);
        unlink("/rc/n");
    }
    waitpid(c, NULL, 0);

    /* A directory swapped for a link to the outside while sockets are bound in it. */
    c = fork();
    if (c == 0) {
        for (int i = 0; i < 4000; i++)
            syscall(SYS_renameat2, AT_FDCWD, "/sd/a", AT_FDCWD, "/sd/b", 2 /* RENAME_EXCHANGE */);
        _exit(0);
    }
    for (int i = 0; i < 2000; i++) {
        int u = socket(AF_UNIX, SOCK_DGRAM, 0);
        struct sockaddr_un ua = {.sun_family = AF_UNIX};
        snprintf(ua.sun_path, sizeof ua.sun_path, "/sd/a/s%d", i);
        bind(u, (struct sockaddr *)&ua, sizeof ua);
        close(u);
    }
    waitpid(c, NULL, 0);
    printf("races: done\n");
    return 0;
}
