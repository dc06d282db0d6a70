/* splice(2), tee(2), vmsplice(2): file -> pipe -> file with offsets updated through their
 * pointers, a pipe duplicated with tee, user memory moved into and out of a pipe with
 * vmsplice, and the errors. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <sys/uio.h>

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    char path[] = "splice-in-XXXXXX";
    int in = mkstemp(path);
    CHECK(in >= 0);
    unlink(path);
    CHECK(write(in, "0123456789abcdefghij", 20) == 20);
    int p[2];
    CHECK(pipe(p) == 0);

    loff_t off = 5;
    ssize_t n = splice(in, &off, p[1], NULL, 8, 0);
    printf("splice file->pipe from offset 5: %zd bytes, offset now %lld, file position %lld\n", n, (long long)off,
           (long long)lseek(in, 0, SEEK_CUR));

    /* tee duplicates what is in the pipe into a second pipe without consuming it. */
    int q[2];
    CHECK(pipe(q) == 0);
    n = tee(p[0], q[1], 100, SPLICE_F_NONBLOCK);
    char buf[64] = { 0 };
    CHECK(read(q[0], buf, sizeof buf) == n);
    printf("tee: %zd bytes \"%s\"\n", n, buf);

    char opath[] = "splice-out-XXXXXX";
    int out = mkstemp(opath);
    CHECK(out >= 0);
    unlink(opath);
    loff_t ooff = 3;
    n = splice(p[0], NULL, out, &ooff, 100, 0);
    memset(buf, 0, sizeof buf);
    CHECK(pread(out, buf, sizeof buf, 0) == 11);
    printf("splice pipe->file at offset 3: %zd bytes, offset now %lld, file \"%s\"\n", n, (long long)ooff, buf + 3);

    /* vmsplice: two buffers into the pipe, then out of it into two others. */
    struct iovec iv[2] = { { "hello ", 6 }, { "vmsplice", 8 } };
    n = vmsplice(p[1], iv, 2, 0);
    printf("vmsplice into the pipe: %zd bytes\n", n);
    char a[4] = { 0 }, b[16] = { 0 };
    struct iovec ov[2] = { { a, 3 }, { b, 15 } };
    n = vmsplice(p[0], ov, 2, 0);
    printf("vmsplice out of the pipe: %zd bytes \"%s\" \"%s\"\n", n, a, b);

    EXPECT_ERR("splice with an offset on a pipe", splice(p[0], &off, out, NULL, 1, SPLICE_F_NONBLOCK), ESPIPE);
    EXPECT_ERR("splice between two files", splice(in, NULL, out, NULL, 1, 0), EINVAL);
    EXPECT_ERR("splice with a bad offset pointer", splice(in, (loff_t *)8, p[1], NULL, 1, 0), EFAULT);
    EXPECT_ERR("tee of an empty pipe, non-blocking", tee(p[0], q[1], 10, SPLICE_F_NONBLOCK), EAGAIN);
    EXPECT_ERR("tee from a file", tee(in, q[1], 10, 0), EINVAL);
    EXPECT_ERR("vmsplice to a file", vmsplice(in, iv, 1, 0), EBADF);
    struct iovec bad = { (void *)8, 4 };
    EXPECT_ERR("vmsplice from a bad buffer", vmsplice(p[1], &bad, 1, 0), EFAULT);
    return 0;
}
