/* An execve made while the effective user id is not the real one is a secure exec: the new
 * program gets AT_SECURE 1 (getauxval(3); ld.so(8), "Secure-execution mode"), and its C library
 * drops the variables it deems unsafe (TMPDIR, TZDIR, LD_PRELOAD...) from its environment and
 * keeps the others in their order, while /proc/self/environ still shows every entry the exec was
 * given. Under an emulator that runs itself again for the exec (its own exec then being a secure
 * one), its loader must not drop or reorder them first, and the new program must be told.
 * Needs root (setresuid). */
#include "common.h"
#include <fcntl.h>
#include <sys/auxv.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc > 1) {
        printf("AT_SECURE %lu\n", getauxval(AT_SECURE));
        for (char **e = environ; *e; e++)
            printf("environ: %s\n", *e);
        char buf[4096];
        int fd = open("/proc/self/environ", O_RDONLY);
        CHECK(fd >= 0);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        CHECK(n > 0);
        close(fd);
        for (char *p = buf; p < buf + n; p += strlen(p) + 1)
            printf("/proc/self/environ: %s\n", p);
        return 0;
    }
    CHECK(setresuid(1000, 0, 0) == 0);
    char *env[] = {"A=1", "TMPDIR=/t", "LD_A=1", "lD_B=2", "TZDIR=/z", "LD_PRELOAD=/nonexistent.so", "Z=9", NULL};
    char *args[] = {argv[0], "child", NULL};
    execve("/proc/self/exe", args, env);
    printf("execve: %s\n", strerror(errno));
    return 1;
}
