/* Scatter/gather I/O: writev of several buffers (one empty), readv into uneven buffers,
 * preadv/pwritev at offsets, and writev to a pipe. */
#include "common.h"
#include <fcntl.h>
#include <sys/uio.h>

/* The negative count is the point of the test. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

int main(void)
{
    char dir[] = "rwvXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int fd = open("v", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);

    struct iovec w[4] = {
        {"alpha-", 6}, {"", 0}, {"beta-", 5}, {"gamma", 5},
    };
    CHECK(writev(fd, w, 4) == 16);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    char a[3], b[7], c[100];
    memset(c, 0, sizeof c);
    struct iovec r[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
    CHECK(readv(fd, r, 3) == 16);
    printf("readv: <%.3s> <%.7s> <%s>\n", a, b, c);

    struct iovec pw[2] = {{"XY", 2}, {"Z", 1}};
    CHECK(pwritev(fd, pw, 2, 3) == 3);
    CHECK(lseek(fd, 0, SEEK_CUR) == 16);
    char d[4] = {0}, e[5] = {0};
    struct iovec pr[2] = {{d, 3}, {e, 4}};
    CHECK(preadv(fd, pr, 2, 1) == 7);
    printf("preadv at 1: <%s> <%s>\n", d, e);
    close(fd);

    int p[2];
    CHECK(pipe(p) == 0);
    struct iovec pv[3] = {{"one ", 4}, {"two ", 4}, {"three", 5}};
    CHECK(writev(p[1], pv, 3) == 13);
    char pbuf[32] = {0};
    CHECK(read(p[0], pbuf, sizeof pbuf) == 13);
    printf("writev to a pipe: <%s>\n", pbuf);

    EXPECT_ERR("readv with negative iovcnt", readv(p[0], r, -1), EINVAL);
    EXPECT_ERR("writev bad fd", writev(999, pv, 3), EBADF);
    CHECK(unlink("v") == 0);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
