/* The size of /proc/self/fd (Linux 6.2+, fs/proc/fd.c proc_fd_getattr) is the number of open
 * descriptors, which is the number of entries its listing shows: through stat, fstat and
 * statx, for /proc/self/fd and /proc/thread-self/fd. */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

static long entries(const char *path)
{
    DIR *d = opendir(path);
    CHECK(d != NULL);
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int main(void)
{
    int extra[3];
    for (int i = 0; i < 3; i++)
        CHECK((extra[i] = open("/", O_RDONLY)) >= 0);
    /* The directory descriptor opendir takes is open while it lists, so count with one open. */
    int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    long listed = entries("/proc/self/fd") - 1;
    struct stat st;
    CHECK(stat("/proc/self/fd", &st) == 0);
    printf("stat size matches the listing: %d\n", st.st_size == listed);
    CHECK(fstat(dfd, &st) == 0);
    printf("fstat size matches the listing: %d\n", st.st_size == listed);
    struct statx stx;
    CHECK(statx(AT_FDCWD, "/proc/thread-self/fd", 0, STATX_SIZE, &stx) == 0);
    printf("statx of thread-self matches: %d\n", (long)stx.stx_size == listed);
    close(extra[0]);
    CHECK(stat("/proc/self/fd", &st) == 0);
    printf("one closed: %d\n", st.st_size == listed - 1);
    return 0;
}
