/* x86: an integer division by zero raises SIGFPE with si_code FPE_INTDIV; the handler leaves with siglongjmp, seven times in a row. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>

static sigjmp_buf env;
static volatile int got_code, got_signo;

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_signo = sig;
    got_code = si->si_code;
    siglongjmp(env, 1);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fpe;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGFPE, &sa, NULL) == 0);
    volatile int zero = 0, n = 42;
    if (sigsetjmp(env, 1) == 0) {
        volatile int q = n / zero;
        printf("not reached %d\n", q);
    }
    printf("divide by zero: SIGFPE %d, FPE_INTDIV %d\n", got_signo == SIGFPE, got_code == FPE_INTDIV);
    volatile int min = -2147483647 - 1, m1 = -1;
    got_signo = 0;
    if (sigsetjmp(env, 1) == 0) {
        volatile int q = min / m1;
        printf("not reached %d\n", q);
    }
    printf("INT_MIN / -1: SIGFPE %d\n", got_signo == SIGFPE);
    /* Each trap is independent: the CPU must not turn later ones into double faults. */
    volatile int caught = 0;
    for (int i = 0; i < 5; i++) {
        got_signo = 0;
        if (sigsetjmp(env, 1) == 0) {
            volatile int q = n / zero;
            printf("not reached %d\n", q);
        }
        caught += got_signo == SIGFPE;
    }
    printf("five more traps caught: %d\n", caught);
    return 0;
}
