/* mount(2), umount2(2), chroot(2) and pivot_root(2) in a private mount namespace: a tmpfs
 * mounted on a directory of the working directory, remounted read-only and back, bind-mounted;
 * a child chroots into it (getcwd, opendir, "/.." is "/"); another child, in a namespace of its
 * own, makes it the root with pivot_root and detaches the old root. Nothing outside the
 * program's own namespaces changes. Without the privilege (EPERM from unshare), it says so and
 * stops, as natively. */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define TMPFS_MAGIC 0x01021994

static int is_tmpfs(const char *p)
{
    struct statfs sf;
    return statfs(p, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

/* The names in a directory, sorted, on one line. */
static void list_dir(const char *label, const char *path)
{
    DIR *d = opendir(path);
    CHECK(d != NULL);
    char names[16][64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 16) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(names[n++], 64, "%.63s", e->d_name);
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char t[64];
                strcpy(t, names[i]);
                strcpy(names[i], names[j]);
                strcpy(names[j], t);
            }
    printf("%s:", label);
    for (int i = 0; i < n; i++)
        printf(" %s", names[i]);
    printf("\n");
}

static void write_file(const char *p, const char *s)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
    close(fd);
}

static int wait_child(pid_t c)
{
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(void)
{
    if (unshare(CLONE_NEWNS) != 0) {
        printf("unshare(CLONE_NEWNS): %s: mount tests skipped\n", errname(errno));
        return 0;
    }
    /* Nothing we mount propagates back to the host's namespace. */
    CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    printf("private mount namespace: ok\n");

    CHECK(mkdir("mnt", 0755) == 0);
    CHECK(mkdir("bind", 0755) == 0);
    EXPECT_ERR("mount on a missing directory", mount("none", "missing", "tmpfs", 0, NULL), ENOENT);
    EXPECT_ERR("mount of an unknown type", mount("none", "mnt", "nosuchfs", 0, NULL), ENODEV);
    EXPECT_ERR("mount with a bad target pointer", mount("none", (char *)8, "tmpfs", 0, NULL), EFAULT);
    CHECK(mount("none", "mnt", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") == 0);
    printf("tmpfs mounted: %s\n", is_tmpfs("mnt") ? "ok" : "no");
    CHECK(mkdir("mnt/dir", 0755) == 0);
    CHECK(mkdir("mnt/old", 0755) == 0);
    write_file("mnt/file", "inside the tmpfs\n");

    /* Read-only and back. */
    CHECK(mount(NULL, "mnt", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) == 0);
    EXPECT_ERR("create on the read-only remount", open("mnt/new", O_WRONLY | O_CREAT, 0644), EROFS);
    CHECK(mount(NULL, "mnt", NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, NULL) == 0);
    write_file("mnt/new", "x");
    CHECK(unlink("mnt/new") == 0);
    printf("remount read-only and back: ok\n");

    /* A bind mount shows the same files. */
    CHECK(mount("mnt", "bind", NULL, MS_BIND, NULL) == 0);
    list_dir("bind mount", "bind");
    EXPECT_ERR("umount2 with an unknown flag", umount2("bind", 0x100), EINVAL);
    CHECK(umount2("bind", 0) == 0);
    list_dir("bind after umount2", "bind");

    /* chroot: the tmpfs is "/" for the child. */
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(chroot("mnt") == 0);
        CHECK(chdir("/") == 0);
        char cwd[256];
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        printf("chroot: getcwd %s\n", cwd);
        list_dir("chroot: /", "/");
        struct stat root, up;
        CHECK(stat("/", &root) == 0 && stat("/..", &up) == 0);
        printf("chroot: /.. is /: %s\n", root.st_ino == up.st_ino && root.st_dev == up.st_dev ? "yes" : "no");
        char buf[64] = {0};
        int fd = open("/file", O_RDONLY);
        CHECK(fd >= 0 && read(fd, buf, sizeof buf - 1) > 0);
        printf("chroot: /file: %s", buf);
        EXPECT_ERR("chroot: a host path is gone", open("/proc/self/maps", O_RDONLY), ENOENT);
        CHECK(chdir("dir") == 0);
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        printf("chroot: getcwd after chdir %s\n", cwd);
        fflush(stdout);
        _exit(0);
    }
    CHECK(wait_child(c) == 0);

    /* pivot_root, in a namespace of the child's own (pivot_root changes the root of every
     * process of the namespace). */
    fflush(stdout);
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(unshare(CLONE_NEWNS) == 0);
        CHECK(chdir("mnt") == 0);
        EXPECT_ERR("pivot_root onto a non-mount", syscall(SYS_pivot_root, "dir", "dir"), EINVAL);
        CHECK(syscall(SYS_pivot_root, ".", "old") == 0);
        CHECK(chdir("/") == 0);
        char cwd[256];
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        printf("pivot_root: getcwd %s\n", cwd);
        list_dir("pivot_root: /", "/");
        struct stat now, old;
        CHECK(stat("/", &now) == 0 && stat("/old", &old) == 0);
        printf("pivot_root: the old root is at /old: %s\n", now.st_dev != old.st_dev ? "yes" : "no");
        CHECK(umount2("/old", MNT_DETACH) == 0);
        list_dir("pivot_root: /old after detach", "/old");
        fflush(stdout);
        _exit(0);
    }
    CHECK(wait_child(c) == 0);

    /* The parent's view did not change. */
    list_dir("parent: mnt", "mnt");
    CHECK(chdir("mnt") == 0);
    EXPECT_ERR("umount2 of the working directory's mount", umount2(".", 0), EBUSY);
    CHECK(chdir("..") == 0);
    CHECK(umount2("mnt", 0) == 0);
    printf("umount2: tmpfs gone: %s\n", is_tmpfs("mnt") ? "no" : "yes");
    list_dir("mnt after umount2", "mnt");
    return 0;
}
