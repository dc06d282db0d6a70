/* A signal sent to the whole process that reaches a thread just as that thread blocks it runs
 * its handler all the same: on that thread before the block, or on another thread that does
 * not block it (the kernel hands it over: retarget_shared_pending). It must not stay pending
 * on the thread that blocked it while the other thread waits.
 *
 * Each round the main thread unblocks SIGUSR1, arms a one-shot POSIX timer that sends SIGUSR1
 * to the process a few microseconds later (0 to 20 us, a different delay each round, so that
 * some rounds land during the block), blocks SIGUSR1, and waits for the handler to have run;
 * a second thread waits in pause() with SIGUSR1 unblocked. The kernel prefers the main thread
 * while it does not block the signal. Every round must see the handler run exactly once. */
#include "common.h"
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

enum { ROUNDS = 2000, DELAYS = 200, DELAY_STEP_NS = 100 };

static int handled;

static void on_usr1(int sig)
{
    (void)sig;
    __atomic_add_fetch(&handled, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &handled, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *waiter(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

/* Waits until `handled` is no longer `seen`; 0 if that took more than 10 s (a lost signal). */
static int wait_handled(int seen)
{
    struct timespec until, now;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 10;
    while (__atomic_load_n(&handled, __ATOMIC_SEQ_CST) == seen) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long ns = (until.tv_sec - now.tv_sec) * 1000000000LL + (until.tv_nsec - now.tv_nsec);
        if (ns <= 0)
            return 0;
        struct timespec left = {ns / 1000000000LL, ns % 1000000000LL};
        syscall(SYS_futex, &handled, FUTEX_WAIT_PRIVATE, seen, &left, NULL, 0);
    }
    return 1;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);

    timer_t timer;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGUSR1;
    CHECK(timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0);

    pthread_t t;
    CHECK(pthread_create(&t, NULL, waiter, NULL) == 0);

    for (int i = 0; i < ROUNDS; i++) {
        CHECK(sigprocmask(SIG_UNBLOCK, &usr1, NULL) == 0);
        struct itimerspec once = {{0, 0}, {0, 1 + (i % DELAYS) * DELAY_STEP_NS}};
        CHECK(timer_settime(timer, 0, &once, NULL) == 0);
        CHECK(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
        if (!wait_handled(i)) {
            sigset_t p;
            CHECK(sigpending(&p) == 0);
            printf("round %d: the handler never ran (SIGUSR1 pending: %d)\n", i, sigismember(&p, SIGUSR1));
            fflush(stdout);
            _exit(1);
        }
    }
    printf("%d rounds, handler runs: %s\n", ROUNDS, __atomic_load_n(&handled, __ATOMIC_SEQ_CST) == ROUNDS ? "one each" : "wrong");
    fflush(stdout);
    /* The waiter never returns: end the process with it. */
    _exit(0);
}
