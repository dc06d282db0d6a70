/* File-backed mmap: MAP_PRIVATE copy-on-write leaves the file alone, MAP_SHARED writes reach
 * the file (seen by read after msync), offsets, and write(2) visible through a mapping. */
#include "common.h"
#include <fcntl.h>
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char dir[] = "mmfXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);

    int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    char *buf = malloc(2 * pg);
    for (long i = 0; i < 2 * pg; i++)
        buf[i] = 'a' + i % 26;
    CHECK(write(fd, buf, 2 * pg) == 2 * pg);

    char *pr = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(pr != MAP_FAILED);
    CHECK(memcmp(pr, buf, 2 * pg) == 0);
    pr[0] = 'X';
    char c;
    CHECK(pread(fd, &c, 1, 0) == 1 && c == 'a');
    printf("MAP_PRIVATE: reads the file, writes stay private (%c vs %c)\n", pr[0], c);

    char *sh = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pg);
    CHECK(sh != MAP_FAILED);
    CHECK(sh[0] == buf[pg]);
    memcpy(sh, "SHARED", 6);
    CHECK(msync(sh, pg, MS_SYNC) == 0);
    char got[7] = {0};
    CHECK(pread(fd, got, 6, pg) == 6);
    printf("MAP_SHARED at offset one page: file sees <%s>\n", got);

    CHECK(pwrite(fd, "pw", 2, pg + 10) == 2);
    CHECK(sh[10] == 'p' && sh[11] == 'w');
    printf("pwrite visible through MAP_SHARED: ok\n");

    CHECK(munmap(pr, 2 * pg) == 0);
    CHECK(munmap(sh, pg) == 0);

    char *ro = mmap(NULL, 100, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(ro != MAP_FAILED);
    CHECK(memcmp(ro, "abcdef", 6) == 0);
    CHECK(munmap(ro, 100) == 0);
    printf("short read-only map: ok\n");

    EXPECT_ERR("mmap unaligned offset", (long)mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 1), EINVAL);
    close(fd);
    int rofd = open("data", O_RDONLY);
    CHECK(rofd >= 0);
    EXPECT_ERR("MAP_SHARED+PROT_WRITE on O_RDONLY fd", (long)mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, rofd, 0), EACCES);
    close(rofd);

    CHECK(unlink("data") == 0);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
