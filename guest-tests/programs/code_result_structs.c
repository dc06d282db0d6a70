/* A system call's result struct stored over code that already ran: the next call of that
 * code runs what the kernel stored, as with any other store to it (on x86 and s390x with no
 * instruction-cache flush at all; elsewhere after the program's own flush). The values come
 * from fields the program controls: an epoll event's data (epoll_wait(2), struct
 * epoll_event, packed on x86) and an abstract AF_UNIX socket's name (getsockname(2),
 * unix(7): after sun_family and the leading NUL, any bytes). An emulator that writes result structs into guest memory itself must drop
 * the translations of what they replace. */
#include "common.h"
#include "jit.h"
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

enum { ROUNDS = 20 };

/* Calls the code at `p` (jit.h's encodings are ARM, not Thumb, on arm: bit 0 stays clear). */
static int call(void *p)
{
    return ((int (*)(void))p)();
}

/* The first eight bytes of `return k`, as one word in memory order. */
static uint64_t code_word(unsigned k)
{
    unsigned char c[32] = {0};
    assemble(c, k);
    uint64_t w;
    memcpy(&w, c, sizeof w);
    return w;
}

/* `code` holds `return 5` and has run; `store(k)` makes the kernel store the first bytes of
 * `return k` over it; the rest of `return k` is put there first, as the program's own
 * stores. Counts the rounds after which the code still returns something else than k. */
static int rounds(unsigned char *code, size_t stored, void (*store)(unsigned char *, unsigned))
{
    int stale = 0;
    for (unsigned k = 10; k < 10 + ROUNDS; k++) {
        size_t len = assemble(code, 5);
        __builtin___clear_cache((char *)code, (char *)code + len);
        CHECK(call(code) == 5);
        unsigned char want[32];
        CHECK(assemble(want, k) == len);
        if (len > stored)
            memcpy(code + stored, want + stored, len - stored);
        store(code, k);
        CHECK(memcmp(code, want, len) == 0);
        __builtin___clear_cache((char *)code, (char *)code + len);
        if (call(code) != (int)k)
            stale++;
    }
    return stale;
}

static int ep, efd, epoll_timeout;

static void by_epoll_wait(unsigned char *code, unsigned k)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = code_word(k)};
    CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, efd, &ev) == 0);
    struct epoll_event *out = (struct epoll_event *)(code - offsetof(struct epoll_event, data));
    CHECK(epoll_wait(ep, out, 1, epoll_timeout) == 1);
}

static void by_getsockname(unsigned char *code, unsigned k)
{
    unsigned char c[32] = {0};
    size_t len = assemble(c, k);
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    memcpy(sun.sun_path + 1, c, len);
    /* The abstract name ends with the pid: the same program run at once elsewhere on the host
     * (another emulator's run of the suite) would bind the same code bytes (EADDRINUSE). The
     * pid lands after the code's last byte. */
    pid_t pid = getpid();
    memcpy(sun.sun_path + 1 + len, &pid, sizeof pid);
    socklen_t n = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len + sizeof pid);
    int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(s >= 0);
    CHECK(bind(s, (struct sockaddr *)&sun, n) == 0);
    socklen_t got = n;
    CHECK(getsockname(s, (struct sockaddr *)(code - offsetof(struct sockaddr_un, sun_path) - 1), &got) == 0);
    CHECK(got == n);
    close(s);
}

int main(void)
{
    unsigned char *page = mmap(NULL, 65536, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    ep = epoll_create1(EPOLL_CLOEXEC);
    efd = eventfd(1, EFD_CLOEXEC);
    CHECK(ep >= 0 && efd >= 0);
    struct epoll_event ev = {.events = EPOLLIN};
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) == 0);
    unsigned char *code = page + 4096;
    epoll_timeout = 0;
    printf("epoll_wait (timeout 0) over code: stale %d of %d\n", rounds(code, 8, by_epoll_wait), ROUNDS);
    epoll_timeout = -1;
    printf("epoll_wait (timeout -1) over code: stale %d of %d\n", rounds(code + 64, 8, by_epoll_wait), ROUNDS);
    printf("getsockname's name over code: stale %d of %d\n", rounds(code + 128, 32, by_getsockname), ROUNDS);
    /* A fresh writable and executable mapping takes a result struct before any of its code
     * ran (an emulator may then remember it as code-free, as endgate does for mips64el's
     * stacks); code that runs there later must still be replaced by the next result. */
    unsigned char *fresh = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(fresh != MAP_FAILED);
    by_getsockname(fresh + 64, 7);
    printf("getsockname's name over code in a mapping first written so: stale %d of %d\n",
           rounds(fresh + 64, 32, by_getsockname), ROUNDS);
    return 0;
}
