/* /proc/self/exe names the running program (not the emulator) when followed, and is a symlink
 * to lstat; /proc/self/fd lists fds. */
#include "common.h"
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    (void)argc;
    char buf[PATH_MAX + 1];
    ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX);
    CHECK(n > 0);
    buf[n] = 0;
    CHECK(buf[0] == '/');
    printf("/proc/self/exe basename matches argv[0]: %s\n",
           strcmp(base_name(buf), base_name(argv[0])) == 0 ? "yes" : "no");

    char real[PATH_MAX];
    CHECK(realpath(argv[0], real) != NULL);
    printf("/proc/self/exe equals realpath(argv[0]): %s\n", strcmp(real, buf) == 0 ? "yes" : "no");

    int fd = open("/proc/self/exe", O_RDONLY);
    CHECK(fd >= 0);
    unsigned char magic[4];
    CHECK(read(fd, magic, 4) == 4);
    close(fd);
    printf("opened /proc/self/exe, ELF magic: %s\n", memcmp(magic, "\177ELF", 4) == 0 ? "yes" : "no");

    struct stat l, s;
    CHECK(lstat("/proc/self/exe", &l) == 0);
    CHECK(stat("/proc/self/exe", &s) == 0);
    printf("lstat: a symlink: %s; stat: a regular file: %s\n", S_ISLNK(l.st_mode) ? "yes" : "no",
           S_ISREG(s.st_mode) ? "yes" : "no");
    return 0;
}
