/* execve inside a new root: the program copies itself into a tmpfs (in a private mount
 * namespace), then a child chroots into it and runs the copy, which runs itself again; another
 * child makes the tmpfs its root with pivot_root, detaches the old root and runs the copy.
 * Nothing of the old root (its /proc, its libraries) is visible to the copies. Without the
 * privilege (EPERM from unshare), it says so and stops, as natively. */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void list_root(void)
{
    DIR *d = opendir("/");
    CHECK(d != NULL);
    char names[8][32];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 8)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(names[n++], 32, "%.31s", e->d_name);
    closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char t[32];
                strcpy(t, names[i]);
                strcpy(names[i], names[j]);
                strcpy(names[j], t);
            }
    printf("  / holds:");
    for (int i = 0; i < n; i++)
        printf(" %s", names[i]);
    printf("\n");
}

static void copy_self(const char *to)
{
    int in = open("/proc/self/exe", O_RDONLY);
    CHECK(in >= 0);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    CHECK(out >= 0);
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        CHECK(write(out, buf, n) == n);
    CHECK(n == 0);
    close(in);
    close(out);
}

static void wait_child(const char *what, pid_t c)
{
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    if (WIFEXITED(st))
        printf("%s: exit status %d\n", what, WEXITSTATUS(st));
    else
        printf("%s: killed by signal %d\n", what, WTERMSIG(st));
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "--inside") == 0) {
        char cwd[64];
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        printf("  inside (%s): argv[0] %s, getcwd %s\n", argv[2], argv[0], cwd);
        list_root();
        printf("  /proc is there: %s\n", access("/proc/self", F_OK) == 0 ? "yes" : "no");
        if (argc > 3) {
            /* Once more, by a relative path from the new root. */
            fflush(stdout);
            char *args[] = {"prog", "--inside", "again", NULL};
            char *env[] = {NULL};
            execve("prog", args, env);
            printf("  execve again: %s\n", errname(errno));
            return 1;
        }
        return 7;
    }
    if (unshare(CLONE_NEWNS) != 0) {
        printf("unshare(CLONE_NEWNS): %s: chroot tests skipped\n", errname(errno));
        return 0;
    }
    CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    CHECK(mkdir("root", 0755) == 0);
    CHECK(mount("none", "root", "tmpfs", 0, "size=16m,mode=0755") == 0);
    CHECK(mkdir("root/old", 0755) == 0);
    copy_self("root/prog");
    printf("copied the program into a tmpfs\n");
    fflush(stdout);

    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(chroot("root") == 0);
        CHECK(chdir("/") == 0);
        char *args[] = {"/prog", "--inside", "chroot", "again", NULL};
        char *env[] = {NULL};
        execve("/prog", args, env);
        printf("execve after chroot: %s\n", errname(errno));
        fflush(stdout);
        _exit(127);
    }
    wait_child("after chroot", c);
    fflush(stdout);

    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(unshare(CLONE_NEWNS) == 0);
        CHECK(chdir("root") == 0);
        CHECK(syscall(SYS_pivot_root, ".", "old") == 0);
        CHECK(chdir("/") == 0);
        CHECK(umount2("/old", MNT_DETACH) == 0);
        char *args[] = {"/prog", "--inside", "pivot_root", NULL};
        char *env[] = {NULL};
        execve("/prog", args, env);
        printf("execve after pivot_root: %s\n", errname(errno));
        fflush(stdout);
        _exit(127);
    }
    wait_child("after pivot_root", c);

    CHECK(umount2("root", MNT_DETACH) == 0);
    return 0;
}
