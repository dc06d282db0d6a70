/* A touch of a page of a file mapping that lies wholly beyond the end of the file raises
 * SIGBUS with si_code BUS_ADRERR and si_addr the address (the page holding the end of the
 * file reads its tail as zeros); the handler runs and can siglongjmp out. msync with
 * MS_INVALIDATE on a locked mapping is EBUSY. */
#include "common.h"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static void *volatile got_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(env, 1);
}

/* The si_addr the kernel gives for a fault at `p`: the address itself, or on s390x, whose
 * hardware reports only the page, the page (arch/s390/mm/fault.c). */
static void *fault_addr(volatile char *p)
{
#if defined(__s390x__)
    return (void *)((unsigned long)p & ~4095UL);
#else
    return (void *)p;
#endif
}

static const char *signame(int s)
{
    return s == SIGBUS ? "SIGBUS" : s == SIGSEGV ? "SIGSEGV" : s == 0 ? "none" : "other";
}

static const char *codename(int s, int c)
{
    if (s == SIGBUS)
        return c == BUS_ADRERR ? "BUS_ADRERR" : c == BUS_ADRALN ? "BUS_ADRALN" : "?";
    return s == 0 ? "-" : "?";
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, "hello", 5) == 5);

    volatile char *r = mmap(NULL, 3 * pg, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(r != MAP_FAILED);
    printf("inside the file: %c, tail of its last page: %d\n", r[0], r[pg - 1]);
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        (void)r[pg];
    printf("read of the next page: %s %s, si_addr %s\n", signame(got_sig), codename(got_sig, got_code),
           got_addr == fault_addr(r + pg) ? "ok" : "wrong");
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        (void)r[2 * pg + 100];
    printf("read further on: %s %s, si_addr %s\n", signame(got_sig), codename(got_sig, got_code),
           got_addr == fault_addr(r + 2 * pg + 100) ? "ok" : "wrong");

    volatile char *w = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(w != MAP_FAILED);
    w[1] = 'E';
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        w[pg + 8] = 1;
    printf("write beyond the end, private mapping: %s %s, si_addr %s\n", signame(got_sig),
           codename(got_sig, got_code), got_addr == fault_addr(w + pg + 8) ? "ok" : "wrong");

    /* The file grows: the page is backed now. */
    CHECK(ftruncate(fd, 2 * pg) == 0);
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        (void)r[pg];
    printf("after the file grew: %s, reads %d\n", signame(got_sig), r[pg]);

    /* The file shrinks under pages already touched: they are gone, a touch is SIGBUS. */
    CHECK(ftruncate(fd, 3 * pg) == 0);
    volatile char *t = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(t != MAP_FAILED);
    t[0] = 'a';
    t[pg] = 'b';
    t[2 * pg] = 'c';
    CHECK(ftruncate(fd, pg) == 0);
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        (void)t[2 * pg];
    printf("touched page after ftruncate: %s %s, si_addr %s\n", signame(got_sig), codename(got_sig, got_code),
           got_addr == fault_addr(t + 2 * pg) ? "ok" : "wrong");
    printf("page before the new end: %c\n", t[0]);
    CHECK(ftruncate(fd, 3 * pg) == 0);
    t[2 * pg] = 'd';
    CHECK(truncate("f", 2 * pg) == 0);
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        t[2 * pg + 1] = 'e';
    printf("touched page after truncate: %s %s\n", signame(got_sig), codename(got_sig, got_code));
    CHECK(ftruncate(fd, 2 * pg) == 0);
    t[0] = 'f';
    int fd2 = open("f", O_RDWR | O_TRUNC);
    CHECK(fd2 >= 0);
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        (void)t[0];
    printf("touched page after open(O_TRUNC): %s %s\n", signame(got_sig), codename(got_sig, got_code));
    CHECK(close(fd2) == 0);
    CHECK(ftruncate(fd, 2 * pg) == 0);

    /* msync(MS_INVALIDATE) on a locked mapping. */
    char *m = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    printf("msync MS_INVALIDATE unlocked: %d\n", msync(m, pg, MS_INVALIDATE));
    CHECK(mlock(m, pg) == 0);
    EXPECT_ERR("msync MS_INVALIDATE locked", msync(m, pg, MS_INVALIDATE), EBUSY);
    printf("msync MS_SYNC locked: %d\n", msync(m, pg, MS_SYNC));
    CHECK(munlock(m, pg) == 0);
    printf("msync MS_INVALIDATE after munlock: %d\n", msync(m, pg, MS_INVALIDATE));
    return 0;
}
