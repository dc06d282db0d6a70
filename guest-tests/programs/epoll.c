/* epoll on pipes and an eventfd: level-triggered readiness, edge-triggered reporting once,
 * EPOLL_CTL_MOD/DEL, and a timeout with nothing ready. */
#include "common.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <stdint.h>

int main(void)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    CHECK(ep >= 0);
    int p[2];
    CHECK(pipe(p) == 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0x1111};
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0);
    struct epoll_event out[4];
    printf("nothing ready, 10ms: %d\n", epoll_wait(ep, out, 4, 10));

    CHECK(write(p[1], "ab", 2) == 2);
    int n = epoll_wait(ep, out, 4, 1000);
    printf("after write: %d ready, data 0x%llx, EPOLLIN %d\n", n, (unsigned long long)out[0].data.u64, out[0].events == EPOLLIN);
    n = epoll_wait(ep, out, 4, 0);
    printf("level-triggered reports again: %d\n", n);

    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = 0x2222;
    CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) == 0);
    n = epoll_wait(ep, out, 4, 0);
    printf("after MOD to edge-triggered: %d (data 0x%llx)\n", n, n > 0 ? (unsigned long long)out[0].data.u64 : 0ULL);
    n = epoll_wait(ep, out, 4, 0);
    printf("edge-triggered, no new data: %d\n", n);
    CHECK(write(p[1], "c", 1) == 1);
    n = epoll_wait(ep, out, 4, 0);
    printf("edge-triggered, new data: %d\n", n);

    int efd = eventfd(0, EFD_NONBLOCK);
    CHECK(efd >= 0);
    ev.events = EPOLLIN;
    ev.data.u64 = 0x3333;
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) == 0);
    CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL) == 0);
    uint64_t one = 5;
    CHECK(write(efd, &one, 8) == 8);
    n = epoll_wait(ep, out, 4, 1000);
    printf("eventfd: %d ready, data 0x%llx\n", n, (unsigned long long)out[0].data.u64);
    uint64_t val = 0;
    CHECK(read(efd, &val, 8) == 8);
    printf("eventfd counter read: %llu\n", (unsigned long long)val);
    EXPECT_ERR("eventfd empty read", read(efd, &val, 8), EAGAIN);
    EXPECT_ERR("add twice", epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev), EEXIST);
    EXPECT_ERR("del missing", epoll_ctl(ep, EPOLL_CTL_DEL, p[1], NULL), ENOENT);
    return 0;
}
