/* 64-bit file offsets in a sparse file: ftruncate to 5 GiB, pwrite at 4.5 GiB, pread back,
 * fstat's size, lseek to and past 4 GiB (SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA), and
 * ftruncate down. Built with -D_FILE_OFFSET_BITS=64 (manifest) so off_t is 64 bits on the
 * 32-bit arches too (there the calls become ftruncate64, pwrite64, _llseek...). Only a few
 * blocks are ever written. */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>

#define GiB (1024LL * 1024 * 1024)

int main(void)
{
    printf("sizeof(off_t): %zu\n", sizeof(off_t));
    char dir[] = "bigXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int fd = open("sparse", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, 5 * GiB) == 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    printf("size after ftruncate: %lld\n", (long long)st.st_size);

    const off_t at = 4 * GiB + GiB / 2;
    const char msg[] = "beyond four gigabytes";
    CHECK(pwrite(fd, msg, sizeof msg, at) == (ssize_t)sizeof msg);
    char buf[64] = {0};
    CHECK(pread(fd, buf, sizeof msg, at) == (ssize_t)sizeof msg);
    printf("pread at 4.5 GiB: <%s>\n", buf);
    memset(buf, 0x55, sizeof buf);
    CHECK(pread(fd, buf, 8, at - 8) == 8);
    printf("the hole before it reads as zeros: %d\n", !memcmp(buf, "\0\0\0\0\0\0\0\0", 8));
    printf("file offset still 0: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));

    printf("lseek SEEK_SET 4 GiB + 1: %lld\n", (long long)lseek(fd, 4 * GiB + 1, SEEK_SET));
    printf("lseek SEEK_CUR -2: %lld\n", (long long)lseek(fd, -2, SEEK_CUR));
    printf("lseek SEEK_END -1: %lld\n", (long long)lseek(fd, -1, SEEK_END));
    off_t data = lseek(fd, 4 * GiB, SEEK_DATA);
    printf("SEEK_DATA from 4 GiB lands at or before 4.5 GiB and past 4 GiB: %d\n",
           data >= 4 * GiB && data <= at);
    CHECK(lseek(fd, at + 4, SEEK_SET) == at + 4);
    memset(buf, 0, sizeof buf);
    CHECK(read(fd, buf, 4) == 4);
    printf("read after lseek: <%s>, offset now %lld\n", buf, (long long)lseek(fd, 0, SEEK_CUR));
    CHECK(write(fd, "XY", 2) == 2);
    CHECK(pread(fd, buf, 10, at) == 10);
    buf[10] = 0;
    printf("write at the offset: <%s>\n", buf);

    CHECK(fstat(fd, &st) == 0);
    printf("blocks far fewer than the size (sparse): %d\n", (long long)st.st_blocks * 512 < GiB);
    CHECK(stat("sparse", &st) == 0);
    printf("stat size: %lld\n", (long long)st.st_size);
    CHECK(ftruncate(fd, 4 * GiB + 3) == 0);
    CHECK(fstat(fd, &st) == 0);
    printf("after ftruncate to 4 GiB + 3: %lld\n", (long long)st.st_size);
    CHECK(truncate("sparse", 6 * GiB) == 0 && stat("sparse", &st) == 0);
    printf("after truncate to 6 GiB: %lld\n", (long long)st.st_size);
    EXPECT_ERR("lseek to a negative offset", lseek(fd, -1, SEEK_SET), EINVAL);
    EXPECT_ERR("pread at a negative offset", pread(fd, buf, 1, -5), EINVAL);
    close(fd);
    CHECK(unlink("sparse") == 0);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
