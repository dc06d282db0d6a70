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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
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

/* The first line of the file, or the errno name. */
static void show_at(const char *what, int dir, const char *path) {
    int fd = openat(dir, path, O_RDONLY);
    if (fd < 0) { printf("%s: %s\n", what, ename(errno)); return; }
    char buf[128] = {0};
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) { printf("%s: read %s\n", what, ename(errno)); return; }
    buf[strcspn(buf, "\n")] = 0;
    printf("%s: %s\n", what, buf);
}

static void show(const char *what, const char *path) { show_at(what, AT_FDCWD, path); }

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
    link_text("readlink-abs", "/links/abs");

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
    if (fstat(3, &st) == 0 && S_ISDIR(st.st_mode)) show_at("inherited-fd", 3, "secret.txt");

    /* Writes. */
    int fd = open("/../../created.txt", O_CREAT | O_WRONLY, 0644);
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
    return 0;
}
