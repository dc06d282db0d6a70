/* The old file-time calls (utime(2), utimes(2), futimesat(2)) as system calls: seconds,
 * microseconds, NULL for "now", a directory fd, and their errors. */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <utime.h>

static void show(const char *path)
{
    struct stat st;
    CHECK(stat(path, &st) == 0);
    printf("  atime %ld.%06ld mtime %ld.%06ld\n", (long)st.st_atim.tv_sec, st.st_atim.tv_nsec / 1000,
           (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec / 1000);
}

int main(void)
{
    CHECK(close(open("f", O_CREAT | O_WRONLY, 0644)) == 0);
    struct utimbuf ub = { 1000000000, 1100000000 };
    printf("utime: %ld\n", syscall(SYS_utime, "f", &ub));
    show("f");
    struct timeval tv[2] = { { 1200000000, 250000 }, { 1300000000, 750000 } };
    printf("utimes: %ld\n", syscall(SYS_utimes, "f", tv));
    show("f");
    CHECK(mkdir("d", 0755) == 0);
    CHECK(close(open("d/g", O_CREAT | O_WRONLY, 0644)) == 0);
    int dfd = open("d", O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    printf("futimesat: %ld\n", syscall(SYS_futimesat, dfd, "g", tv));
    show("d/g");
    struct stat before;
    CHECK(stat("f", &before) == 0);
    printf("utimes now: %ld\n", syscall(SYS_utimes, "f", NULL));
    struct stat after;
    CHECK(stat("f", &after) == 0);
    printf("  moved to now: %s\n", after.st_mtim.tv_sec > before.st_mtim.tv_sec ? "yes" : "no");
    struct timeval bad[2] = { { 0, 1000000 }, { 0, 0 } };
    EXPECT_ERR("utimes with 1000000 us", syscall(SYS_utimes, "f", bad), EINVAL);
    EXPECT_ERR("utime of a missing file", syscall(SYS_utime, "missing", &ub), ENOENT);
    EXPECT_ERR("futimesat with a bad fd", syscall(SYS_futimesat, 1000, "g", tv), EBADF);
    EXPECT_ERR("utimes with a bad pointer", syscall(SYS_utimes, "f", (void *)16), EFAULT);
    return 0;
}
