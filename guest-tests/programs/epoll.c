/* epoll on pipes and an eventfd: level-triggered readiness, edge-triggered reporting once,
 * EPOLL_CTL_MOD/DEL, and a timeout with nothing ready. */
#include "common.h"
#include <sys/epoll.h>
#include <sys/mman.h>
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
    /* An event the kernel cannot store stays queued (fs/eventpoll.c `ep_send_events`): a
     * one-shot event read into a read-only array fails with EFAULT and is still there for
     * the next call; of two edge-triggered events read into an array whose first slot alone
     * is writable, one comes back and the other stays queued. */
    {
        long pg = sysconf(_SC_PAGESIZE);
        char *base = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(base != MAP_FAILED && mprotect(base + pg, pg, PROT_READ) == 0);
        struct epoll_event out[4];
        int ep2 = epoll_create1(0);
        int q[2];
        CHECK(ep2 >= 0 && pipe(q) == 0 && write(q[1], "x", 1) == 1);
        struct epoll_event one = { .events = EPOLLIN | EPOLLONESHOT, .data.u64 = 77 };
        CHECK(epoll_ctl(ep2, EPOLL_CTL_ADD, q[0], &one) == 0);
        EXPECT_ERR("one-shot event into a read-only array", epoll_wait(ep2, (struct epoll_event *)(base + pg), 4, 0), EFAULT);
        int n = epoll_wait(ep2, out, 4, 0);
        printf("one-shot event still queued: %d, data %llu\n", n, n == 1 ? (unsigned long long)out[0].data.u64 : 0ULL);
        int ep3 = epoll_create1(0);
        int a[2], b[2];
        CHECK(ep3 >= 0 && pipe(a) == 0 && pipe(b) == 0 && write(a[1], "x", 1) == 1 && write(b[1], "y", 1) == 1);
        struct epoll_event ea = { .events = EPOLLIN | EPOLLET, .data.u64 = 1 }, eb = { .events = EPOLLIN | EPOLLET, .data.u64 = 2 };
        CHECK(epoll_ctl(ep3, EPOLL_CTL_ADD, a[0], &ea) == 0 && epoll_ctl(ep3, EPOLL_CTL_ADD, b[0], &eb) == 0);
        n = epoll_wait(ep3, (struct epoll_event *)(base + pg) - 1, 2, 0);
        printf("two edge-triggered events, one writable slot: %d\n", n);
        n = epoll_wait(ep3, out, 4, 0);
        printf("edge-triggered events still queued after it: %d\n", n);
    }
    /* The kernel stores each member of an event (`__put_user`): the padding between
     * `events` and `data` of the 16-byte layouts keeps what the array held. */
    {
        int ep4 = epoll_create1(0);
        int c[2];
        CHECK(ep4 >= 0 && pipe(c) == 0 && write(c[1], "z", 1) == 1);
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 9 };
        CHECK(epoll_ctl(ep4, EPOLL_CTL_ADD, c[0], &ev) == 0);
        unsigned char raw[4 * sizeof(struct epoll_event)];
        memset(raw, 0xaa, sizeof raw);
        CHECK(epoll_wait(ep4, (struct epoll_event *)raw, 4, 0) == 1);
        int kept = 1;
        for (size_t k = 4; k < sizeof(struct epoll_event) - 8; k++)
            kept &= raw[k] == 0xaa;
        printf("padding between the members kept: %s\n", kept ? "yes" : "no");
    }
    return 0;
}
