/* select and pselect on pipes: timeout, readiness, fd_set contents after return. */
#include "common.h"
#include <sys/select.h>

int main(void)
{
    int p[2], q[2];
    CHECK(pipe(p) == 0 && pipe(q) == 0);
    int maxfd = (p[1] > q[1] ? p[1] : q[1]) + 1;
    fd_set r, w;

    FD_ZERO(&r);
    FD_SET(p[0], &r);
    FD_SET(q[0], &r);
    struct timeval tv = {0, 20000};
    int n = select(maxfd, &r, NULL, NULL, &tv);
    printf("nothing to read, 20ms: %d, sets cleared: %d\n", n, !FD_ISSET(p[0], &r) && !FD_ISSET(q[0], &r));

    CHECK(write(q[1], "y", 1) == 1);
    FD_ZERO(&r);
    FD_SET(p[0], &r);
    FD_SET(q[0], &r);
    FD_ZERO(&w);
    FD_SET(p[1], &w);
    tv.tv_sec = 1;
    tv.tv_usec = 0;
    n = select(maxfd, &r, &w, NULL, &tv);
    printf("q readable, p writable: %d ready, p[0]=%d q[0]=%d p[1]=%d\n", n, FD_ISSET(p[0], &r),
           FD_ISSET(q[0], &r), FD_ISSET(p[1], &w));

    FD_ZERO(&r);
    FD_SET(q[0], &r);
    struct timespec ts = {1, 0};
    n = pselect(maxfd, &r, NULL, NULL, &ts, NULL);
    printf("pselect: %d ready\n", n);

    /* A closed fd inside the fd table: the kernel silently ignores set bits above the
       table's size, so a high number like 200 is not a reliable "closed fd". */
    int closed = dup(0);
    CHECK(closed >= 0 && close(closed) == 0);
    FD_ZERO(&r);
    FD_SET(closed, &r);
    tv.tv_sec = 0;
    errno = 0;
    n = select(closed + 1, &r, NULL, NULL, &tv);
    printf("select on a closed fd: %d %s\n", n, errname(errno));
    return 0;
}
