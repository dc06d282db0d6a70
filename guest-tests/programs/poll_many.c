/* poll and ppoll with an array of 5 pollfds of different kinds, so every element's position
 * in the array matters (struct pollfd is 8 bytes on every arch): an empty pipe, a pipe with
 * data, a pipe's write end, a closed fd and a negative fd (ignored). */
#include "common.h"
#include <poll.h>
#include <signal.h>
#include <time.h>

/* The bad pointer is the point of the last call. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static void show(const char *label, int n, const struct pollfd *f)
{
    printf("%s: %d ready; revents", label, n);
    for (int i = 0; i < 5; i++) {
        short r = f[i].revents;
        printf(" [%d]=%s%s%s%s%s", i, r ? "" : "0", r & POLLIN ? "IN" : "", r & POLLOUT ? "OUT" : "",
               r & POLLHUP ? "HUP" : "", r & POLLNVAL ? "NVAL" : "");
    }
    printf("\n");
}

int main(void)
{
    int empty[2], full[2];
    CHECK(pipe(empty) == 0 && pipe(full) == 0);
    CHECK(write(full[1], "data", 4) == 4);
    struct pollfd f[5] = {
        {empty[0], POLLIN, 0x5a5a}, {full[0], POLLIN, 0x5a5a}, {empty[1], POLLOUT, 0x5a5a},
        {900, POLLIN, 0x5a5a},      {-1, POLLIN, 0x5a5a},
    };
    int n = poll(f, 5, 0);
    show("poll", n, f);
    CHECK(f[0].fd == empty[0] && f[4].fd == -1 && f[2].events == POLLOUT);
    printf("fds and events left unchanged: ok\n");

    f[2].events = 0;
    n = poll(f, 5, 10);
    show("poll without the write end's events", n, f);

    close(empty[1]);
    f[2].fd = -1;
    struct timespec ts = {0, 5 * 1000 * 1000};
    sigset_t mask;
    sigemptyset(&mask);
    n = ppoll(f, 5, &ts, &mask);
    show("ppoll after the empty pipe's writer closed", n, f);

    char buf[8];
    CHECK(read(full[0], buf, sizeof buf) == 4);
    f[0].fd = -1;
    f[3].fd = -3;
    n = poll(f, 5, 20);
    show("poll with nothing ready", n, f);
    EXPECT_ERR("poll on a bad array", poll((struct pollfd *)16, 5, 0), EFAULT);
    return 0;
}
