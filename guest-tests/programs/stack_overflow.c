/* A SIGSEGV handler on the alternate stack catches a deliberate stack overflow (unbounded
 * recursion): it reports that it runs on the alternate stack and leaves with siglongjmp. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>

static sigjmp_buf env;
static char *alt;
static size_t alt_size = 256 * 1024;
static volatile int on_alt, caught;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    char here;
    on_alt = &here >= alt && &here < alt + alt_size;
    caught = 1;
    siglongjmp(env, 1);
}

static int recurse(volatile char *prev, int depth)
{
    volatile char buf[1024];
    buf[0] = (char)depth;
    buf[1023] = prev ? prev[0] : 0;
    return recurse(buf, depth + 1) + buf[5];
}

int main(void)
{
    alt = malloc(alt_size);
    CHECK(alt != NULL);
    stack_t ss = {.ss_sp = alt, .ss_size = alt_size, .ss_flags = 0};
    CHECK(sigaltstack(&ss, NULL) == 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    if (sigsetjmp(env, 1) == 0) {
        recurse(NULL, 0);
        printf("not reached\n");
    }
    printf("overflow caught: %d, handler on the alternate stack: %d\n", caught, on_alt);
    stack_t now;
    CHECK(sigaltstack(NULL, &now) == 0);
    printf("back on the normal stack: %d\n", !(now.ss_flags & SS_ONSTACK));
    return 0;
}
