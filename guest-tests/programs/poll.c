/* poll and ppoll on a pipe: timeouts on an empty pipe, POLLIN after a write, POLLOUT on the
 * write end, POLLHUP after the writer closes, POLLNVAL for a closed fd. */
#include "common.h"
#include <poll.h>
#include <signal.h>
#include <time.h>

int main(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    struct pollfd fds[2] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}};

    int n = poll(fds, 1, 0);
    printf("empty pipe, timeout 0: %d ready\n", n);
    n = poll(fds, 1, 30);
    printf("empty pipe, timeout 30ms: %d ready\n", n);
    n = poll(fds, 2, -1);
    printf("with the write end: %d ready, write end revents POLLOUT=%d\n", n, fds[1].revents == POLLOUT);

    CHECK(write(p[1], "x", 1) == 1);
    n = poll(fds, 2, 1000);
    printf("after write: %d ready, read end POLLIN=%d\n", n, fds[0].revents == POLLIN);

    struct timespec ts = {0, 10 * 1000 * 1000};
    sigset_t mask;
    sigemptyset(&mask);
    n = ppoll(fds, 1, &ts, &mask);
    printf("ppoll: %d ready, POLLIN=%d\n", n, fds[0].revents == POLLIN);
    char c;
    CHECK(read(p[0], &c, 1) == 1);
    ts.tv_nsec = 1000000;
    n = ppoll(fds, 1, &ts, NULL);
    printf("ppoll drained, 1ms timeout: %d ready\n", n);

    close(p[1]);
    n = poll(fds, 1, 1000);
    printf("writer closed: %d ready, POLLHUP=%d\n", n, !!(fds[0].revents & POLLHUP));

    int q[2];
    CHECK(pipe(q) == 0);
    close(q[0]);
    struct pollfd w = {q[1], POLLOUT, 0};
    n = poll(&w, 1, 0);
    printf("reader closed: %d ready, POLLERR=%d\n", n, !!(w.revents & POLLERR));

    struct pollfd bad[2] = {{555, POLLIN, 0}, {-1, POLLIN, 0}};
    n = poll(bad, 2, 0);
    printf("closed fd and negative fd: %d ready, POLLNVAL=%d, negative revents=%d\n", n,
           bad[0].revents == POLLNVAL, bad[1].revents);
    return 0;
}
