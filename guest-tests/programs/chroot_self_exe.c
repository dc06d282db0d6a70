/* /proc/self/exe after chroot into a root that does not hold the program: it is a magic link to
 * the running program's file, whatever the root. A child chroots into a tmpfs that has only a
 * procfs, then reads the link (the file's path from the root it started in), opens the file
 * through it and runs it again with execve. Without the privilege (EPERM from unshare), it says
 * so and stops, as natively. */
#include "common.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--again") == 0) {
        printf("  ran again from inside the root: /prog is %s\n", access("/prog", F_OK) == 0 ? "there" : "not there");
        return 5;
    }
    char before[512] = {0};
    CHECK(readlink("/proc/self/exe", before, sizeof before - 1) > 0);
    if (unshare(CLONE_NEWNS) != 0) {
        printf("unshare(CLONE_NEWNS): %s: chroot tests skipped\n", errname(errno));
        return 0;
    }
    CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    CHECK(mkdir("root", 0755) == 0);
    CHECK(mount("none", "root", "tmpfs", 0, "size=1m,mode=0755") == 0);
    CHECK(mkdir("root/proc", 0755) == 0);
    CHECK(mount("proc", "root/proc", "proc", 0, NULL) == 0);
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(chroot("root") == 0);
        CHECK(chdir("/") == 0);
        char after[512] = {0};
        ssize_t n = readlink("/proc/self/exe", after, sizeof after - 1);
        printf("readlink after chroot: the same path: %d\n", n > 0 && strcmp(before, after) == 0);
        int fd = open("/proc/self/exe", O_RDONLY);
        char magic[4] = {0};
        printf("open and read through it: %d\n", fd >= 0 && read(fd, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0);
        struct stat st;
        printf("stat through it: regular file %d\n", stat("/proc/self/exe", &st) == 0 && S_ISREG(st.st_mode));
        fflush(stdout);
        char *args[] = {"prog", "--again", NULL};
        char *env[] = {NULL};
        execve("/proc/self/exe", args, env);
        printf("execve /proc/self/exe: %s\n", errname(errno));
        fflush(stdout);
        _exit(127);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    printf("child: exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    CHECK(umount2("root/proc", MNT_DETACH) == 0);
    CHECK(umount2("root", MNT_DETACH) == 0);
    return 0;
}
