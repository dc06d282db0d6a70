/* readv/writev/preadv/pwritev with 8 iovecs of uneven sizes (one empty), on a file and on a
 * socket pair, so every element of the struct iovec array (8 or 16 bytes per arch) is used. */
#include "common.h"
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>

static const char *parts[8] = {"a", "bb", "", "cccc", "ddddddd", "eeeeeeeeeee", "f", "gggggggggggggggggggggg"};

static int fill(struct iovec *v)
{
    int total = 0;
    for (int i = 0; i < 8; i++) {
        v[i].iov_base = (void *)parts[i];
        v[i].iov_len = strlen(parts[i]);
        total += (int)v[i].iov_len;
    }
    return total;
}

/* Eight read buffers of sizes 1, 2, ..., 8 (36 bytes in all), zeroed. */
static char rb[8][9];
static void rbufs(struct iovec *v)
{
    memset(rb, 0, sizeof rb);
    for (int i = 0; i < 8; i++) {
        v[i].iov_base = rb[i];
        v[i].iov_len = (size_t)i + 1;
    }
}

static void show(const char *label, ssize_t n)
{
    printf("%s: %zd bytes:", label, n);
    for (int i = 0; i < 8; i++)
        printf(" <%s>", rb[i]);
    printf("\n");
}

int main(void)
{
    char dir[] = "iov8XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int fd = open("v", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    struct iovec w[8], r[8];
    int total = fill(w);
    printf("writev of 8 iovecs: %zd of %d\n", writev(fd, w, 8), total);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    rbufs(r);
    show("readv into 8 buffers", readv(fd, r, 8));
    rbufs(r);
    show("readv of the rest", readv(fd, r, 8));

    struct iovec pw[8];
    const char *marks = "01234567";
    for (int i = 0; i < 8; i++) {
        pw[i].iov_base = (void *)(marks + i);
        pw[i].iov_len = 1;
    }
    printf("pwritev of 8 one-byte iovecs at 10: %zd\n", pwritev(fd, pw, 8, 10));
    printf("file offset unchanged by pwritev: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
    rbufs(r);
    show("preadv at 4", preadv(fd, r, 8, 4));
    close(fd);

    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    printf("writev to a socket: %zd\n", writev(sv[0], w, 8));
    rbufs(r);
    show("readv from a socket", readv(sv[1], r, 8));
    struct msghdr mh = {0};
    mh.msg_iov = w;
    mh.msg_iovlen = 8;
    printf("sendmsg of 8 iovecs: %zd\n", sendmsg(sv[0], &mh, 0));
    rbufs(r);
    struct msghdr rh = {0};
    rh.msg_iov = r;
    rh.msg_iovlen = 8;
    show("recvmsg into 8 buffers", recvmsg(sv[1], &rh, 0));
    close(sv[0]);
    close(sv[1]);

    w[5].iov_base = (void *)16;
    int p[2];
    CHECK(pipe(p) == 0);
    EXPECT_ERR("writev with a bad 6th buffer first", writev(p[1], w + 5, 3), EFAULT);
    CHECK(unlink("v") == 0);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
