/* Non-local jumps: setjmp/longjmp through nested calls (value 0 becomes 1), locals kept when
 * volatile, and siglongjmp out of a signal handler restoring the signal mask. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>

/* deep() ends in longjmp, which gcc cannot see through. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"

static jmp_buf jb;
static sigjmp_buf sjb;
static int depth;

static void deep(int n, int val)
{
    depth = n;
    if (n == 0)
        longjmp(jb, val);
    deep(n - 1, val);
    printf("not reached\n");
}

static void on_usr1(int sig)
{
    (void)sig;
    siglongjmp(sjb, 7);
}

int main(void)
{
    volatile int counter = 0;
    int r = setjmp(jb);
    counter++;
    if (r == 0) {
        printf("setjmp first return: 0\n");
        deep(50, 5);
    }
    printf("longjmp from depth 50 returned %d, counter %d, depth %d\n", r, counter, depth);

    r = setjmp(jb);
    if (r == 0)
        longjmp(jb, 0);
    printf("longjmp with 0 returns %d\n", r);

    signal(SIGUSR1, on_usr1);
    r = sigsetjmp(sjb, 1);
    if (r == 0) {
        raise(SIGUSR1);
        printf("not reached\n");
    }
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    printf("siglongjmp from handler returned %d, SIGUSR1 unblocked again %d\n", r, !sigismember(&cur, SIGUSR1));
    return 0;
}
