/* The temporary signal masks of ppoll(2), pselect(2), epoll_pwait(2) and epoll_pwait2(2): a
 * signal the process blocks, but the call's mask lets through, ends the wait with EINTR and
 * runs its handler, after which the old mask is back; a signal already pending ends the
 * call at once; epoll_pwait2's nanosecond timeout; the sigsetsize check. */
#define _GNU_SOURCE 1
#include "common.h"
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

/* The kernel's sigset_t size: 8 bytes, 16 on MIPS (128 signals). */
#define SIGSETSIZE (_NSIG / 8)

/* epoll_pwait2 takes a struct __kernel_timespec (64-bit members on every arch). */
struct ktimespec {
    long long tv_sec;
    long long tv_nsec;
};

static volatile sig_atomic_t handled;
static void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

/* A child that sends SIGUSR1 to us after 50 ms. */
static pid_t signal_later(void)
{
    pid_t parent = getpid();
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        usleep(50000);
        kill(parent, SIGUSR1);
        _exit(0);
    }
    return c;
}

static int usr1_blocked(void)
{
    sigset_t cur;
    CHECK(sigprocmask(SIG_BLOCK, NULL, &cur) == 0);
    return sigismember(&cur, SIGUSR1);
}

static void report(const char *what, int r, int e, pid_t c)
{
    int st;
    if (c > 0)
        CHECK(waitpid(c, &st, 0) == c);
    printf("%s: %s, handler ran %d time(s), SIGUSR1 blocked again %d\n", what, r == -1 ? errname(e) : "no error",
           (int)handled, usr1_blocked());
    handled = 0;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    struct sigaction sa = { 0 };
    sa.sa_handler = on_usr1;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    sigset_t blk, empty;
    sigemptyset(&blk);
    sigaddset(&blk, SIGUSR1);
    sigemptyset(&empty);
    CHECK(sigprocmask(SIG_BLOCK, &blk, NULL) == 0);
    int p[2];
    CHECK(pipe(p) == 0);
    struct timespec five = { 5, 0 };

    struct pollfd pf = { p[0], POLLIN, 0 };
    pid_t c = signal_later();
    int r = ppoll(&pf, 1, &five, &empty);
    report("ppoll with SIGUSR1 let through", r, errno, c);

    fd_set rs;
    FD_ZERO(&rs);
    FD_SET(p[0], &rs);
    c = signal_later();
    r = pselect(p[0] + 1, &rs, NULL, NULL, &five, &empty);
    report("pselect with SIGUSR1 let through", r, errno, c);

    int ep = epoll_create1(0);
    CHECK(ep >= 0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 1 };
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0);
    struct epoll_event out[4];
    c = signal_later();
    r = epoll_pwait(ep, out, 4, 5000, &empty);
    report("epoll_pwait with SIGUSR1 let through", r, errno, c);

    struct ktimespec kfive = { 5, 0 }, kshort = { 0, 20000000 };
    c = signal_later();
    r = syscall(SYS_epoll_pwait2, ep, out, 4, &kfive, &empty, SIGSETSIZE);
    report("epoll_pwait2 with SIGUSR1 let through", r, errno, c);

    /* A signal already pending ends the wait at once. */
    CHECK(raise(SIGUSR1) == 0);
    r = ppoll(&pf, 1, &five, &empty);
    report("ppoll with SIGUSR1 already pending", r, errno, 0);
    CHECK(raise(SIGUSR1) == 0);
    r = epoll_pwait(ep, out, 4, 5000, &empty);
    report("epoll_pwait with SIGUSR1 already pending", r, errno, 0);

    /* Without a mask (or with one that keeps it blocked) the signal waits. */
    CHECK(raise(SIGUSR1) == 0);
    struct timespec short_ts = { 0, 20000000 };
    r = ppoll(&pf, 1, &short_ts, &blk);
    printf("ppoll with SIGUSR1 kept blocked: %d (timeout), handler ran %d time(s)\n", r, (int)handled);
    CHECK(sigprocmask(SIG_UNBLOCK, &blk, NULL) == 0);
    printf("after unblocking: handler ran %d time(s)\n", (int)handled);
    handled = 0;
    CHECK(sigprocmask(SIG_BLOCK, &blk, NULL) == 0);

    r = syscall(SYS_epoll_pwait2, ep, out, 4, &kshort, NULL, SIGSETSIZE);
    printf("epoll_pwait2 with a 20 ms timeout: %d events\n", r);
    CHECK(write(p[1], "x", 1) == 1);
    r = syscall(SYS_epoll_pwait2, ep, out, 4, NULL, NULL, SIGSETSIZE);
    printf("epoll_pwait2 with data ready: %d event, data %llu\n", r, (unsigned long long)out[0].data.u64);
    EXPECT_ERR("ppoll with sigsetsize 4", syscall(SYS_ppoll, &pf, 1, &five, &empty, 4), EINVAL);
    EXPECT_ERR("epoll_pwait2 with a bad timeout pointer", syscall(SYS_epoll_pwait2, ep, out, 4, 8L, NULL, SIGSETSIZE), EFAULT);
    return 0;
}
