/* The guest's own /proc files reached other ways than by their absolute path: openat() on a
 * directory fd of /proc, a relative open after chdir("/proc/self"), and /proc/<own pid>/.
 * Each must show the program's own mappings (its name in maps), not the emulator's. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <libgen.h>

static int names_me(int fd, const char *me)
{
    static char buf[1 << 16];
    CHECK(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    CHECK(n > 0);
    buf[n] = 0;
    return strstr(buf, me) != NULL;
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *me = basename(argv[0]);
    int proc = open("/proc", O_RDONLY | O_DIRECTORY);
    printf("openat(/proc fd, \"self/maps\") shows this program: %d\n", names_me(openat(proc, "self/maps", O_RDONLY), me));
    char pid[32];
    snprintf(pid, sizeof pid, "%d/maps", getpid());
    printf("openat(/proc fd, \"<pid>/maps\") shows this program: %d\n", names_me(openat(proc, pid, O_RDONLY), me));
    char abs[64];
    snprintf(abs, sizeof abs, "/proc/%d/maps", getpid());
    printf("open(\"/proc/<pid>/maps\") shows this program: %d\n", names_me(open(abs, O_RDONLY), me));
    CHECK(chdir("/proc/self") == 0);
    printf("open(\"maps\") in /proc/self shows this program: %d\n", names_me(open("maps", O_RDONLY), me));
    printf("open(\"./maps\") in /proc/self shows this program: %d\n", names_me(open("./maps", O_RDONLY), me));
    return 0;
}
