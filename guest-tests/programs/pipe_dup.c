/* Pipes, dup/dup2/dup3 and fcntl: data through a pipe, dup2 onto stdout, F_GETFL showing
 * O_NONBLOCK/O_APPEND, F_GETFD/F_SETFD CLOEXEC, F_DUPFD_CLOEXEC, EAGAIN and EPIPE. */
#include "common.h"
#include <fcntl.h>
#include <signal.h>

int main(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK(write(p[1], "through the pipe", 16) == 16);
    char buf[64] = {0};
    CHECK(read(p[0], buf, sizeof buf) == 16);
    printf("pipe: <%s>\n", buf);

    int fl = fcntl(p[0], F_GETFL);
    CHECK(fl >= 0);
    printf("read end: accmode is O_RDONLY %d, O_NONBLOCK %d\n", (fl & O_ACCMODE) == O_RDONLY, !!(fl & O_NONBLOCK));
    fl = fcntl(p[1], F_GETFL);
    printf("write end: accmode is O_WRONLY %d\n", (fl & O_ACCMODE) == O_WRONLY);
    CHECK(fcntl(p[0], F_SETFL, fl | O_NONBLOCK) == 0);
    fl = fcntl(p[0], F_GETFL);
    printf("after F_SETFL: O_NONBLOCK %d\n", !!(fl & O_NONBLOCK));
    EXPECT_ERR("read empty non-blocking pipe", read(p[0], buf, 1), EAGAIN);

    printf("F_GETFD plain pipe: %d\n", fcntl(p[0], F_GETFD));
    CHECK(fcntl(p[0], F_SETFD, FD_CLOEXEC) == 0);
    printf("F_GETFD after F_SETFD: %d\n", fcntl(p[0], F_GETFD));

    int q[2];
    CHECK(pipe2(q, O_CLOEXEC | O_NONBLOCK) == 0);
    printf("pipe2(O_CLOEXEC|O_NONBLOCK): FD_CLOEXEC %d, O_NONBLOCK %d\n",
           fcntl(q[0], F_GETFD) == FD_CLOEXEC, !!(fcntl(q[1], F_GETFL) & O_NONBLOCK));

    int d = dup(q[0]);
    CHECK(d > q[1]);
    printf("dup drops FD_CLOEXEC: %d, keeps the shared O_NONBLOCK: %d\n", fcntl(d, F_GETFD) == 0,
           !!(fcntl(d, F_GETFL) & O_NONBLOCK));
    int d2 = fcntl(q[0], F_DUPFD_CLOEXEC, 100);
    printf("F_DUPFD_CLOEXEC from 100: fd %d, cloexec %d\n", d2, fcntl(d2, F_GETFD) == FD_CLOEXEC);
    int d3 = dup3(q[0], 50, O_CLOEXEC);
    printf("dup3 to 50: fd %d, cloexec %d\n", d3, fcntl(d3, F_GETFD) == FD_CLOEXEC);
    EXPECT_ERR("dup3 same fd", dup3(d3, d3, 0), EINVAL);
    CHECK(dup2(d3, d3) == d3);

    char dir[] = "pdXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int f = open("app", O_WRONLY | O_CREAT | O_APPEND, 0644);
    CHECK(f >= 0);
    fl = fcntl(f, F_GETFL);
    printf("file O_APPEND: %d, accmode is O_WRONLY %d\n", !!(fl & O_APPEND), (fl & O_ACCMODE) == O_WRONLY);
    CHECK(fcntl(f, F_SETFL, fl & ~O_APPEND) == 0);
    printf("O_APPEND cleared: %d\n", !(fcntl(f, F_GETFL) & O_APPEND));
    close(f);
    unlink("app");
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);

    /* dup2 a pipe onto stdout, print through it, then restore stdout. */
    fflush(stdout);
    int saved = dup(1);
    int r[2];
    CHECK(pipe(r) == 0);
    CHECK(dup2(r[1], 1) == 1);
    CHECK(write(1, "redirected", 10) == 10);
    CHECK(dup2(saved, 1) == 1);
    memset(buf, 0, sizeof buf);
    CHECK(read(r[0], buf, sizeof buf) == 10);
    printf("dup2 onto stdout captured <%s>\n", buf);

    signal(SIGPIPE, SIG_IGN);
    close(r[0]);
    EXPECT_ERR("write with no reader", write(r[1], "x", 1), EPIPE);
    EXPECT_ERR("fcntl bad fd", fcntl(999, F_GETFD), EBADF);
    EXPECT_ERR("dup2 bad fd", dup2(999, 5), EBADF);
    return 0;
}
