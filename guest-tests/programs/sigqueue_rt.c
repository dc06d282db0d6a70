/* Real-time signals queue and standard ones do not: six signals raised three times each while
 * blocked are delivered on unblocking in the kernel's order (lowest standard signal first...,
 * each real-time instance separately); sigqueue carries si_code SI_QUEUE and its value to an
 * SA_SIGINFO handler. */
#include "common.h"
#include <signal.h>

static int order[64];
static volatile int n;
static volatile int got_code, got_value;

static void on_sig(int s, siginfo_t *si, void *uc)
{
    (void)uc;
    if (n < 64)
        order[n++] = s;
    got_code = si->si_code;
    got_value = si->si_value.sival_int;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sig;
    sa.sa_flags = SA_SIGINFO;
    sigset_t all, old;
    sigemptyset(&all);
    /* SIGRTMIN+20 rather than SIGRTMAX, which is 127 on MIPS (no host number under endgate). */
    int sigs[] = {SIGUSR2, SIGRTMIN + 3, SIGRTMIN, SIGUSR1, SIGHUP, SIGRTMIN + 20};
    for (int i = 0; i < 6; i++) {
        CHECK(sigaction(sigs[i], &sa, NULL) == 0);
        sigaddset(&all, sigs[i]);
    }
    CHECK(sigprocmask(SIG_BLOCK, &all, &old) == 0);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 6; i++)
            CHECK(kill(getpid(), sigs[i]) == 0);
    sigset_t pend;
    CHECK(sigpending(&pend) == 0);
    printf("pending:");
    for (int i = 0; i < 6; i++)
        printf(" %d", sigismember(&pend, sigs[i]));
    printf("\n");
    CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
    /* Standard signals by name, real-time ones as RTMIN+k. */
    printf("delivered %d:", n);
    for (int i = 0; i < n; i++) {
        int s = order[i];
        if (s >= SIGRTMIN)
            printf(" RTMIN+%d", s - SIGRTMIN);
        else
            printf(" %s", s == SIGHUP ? "HUP" : s == SIGUSR1 ? "USR1" : s == SIGUSR2 ? "USR2" : "?");
    }
    printf("\n");

    CHECK(sigaction(SIGRTMIN + 1, &sa, NULL) == 0);
    union sigval v = {.sival_int = 4242};
    n = 0;
    CHECK(sigqueue(getpid(), SIGRTMIN + 1, v) == 0);
    printf("sigqueue: delivered %d, SI_QUEUE %d, value %d\n", n, got_code == SI_QUEUE, got_value);
    return 0;
}
