/* A signal a process sends itself while blocking it stays pending (sigpending shows it) and
 * sigwait takes it; an ignored signal does nothing; unblocking a pending signal whose action
 * is the default ends the process (expected status 128+SIGUSR2). */
#include "common.h"
#include <signal.h>

int main(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR1);
    sigaddset(&s, SIGUSR2);
    CHECK(sigprocmask(SIG_BLOCK, &s, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    sigset_t p;
    CHECK(sigpending(&p) == 0);
    printf("pending after raise: SIGUSR1 %d, SIGUSR2 %d\n", sigismember(&p, SIGUSR1), sigismember(&p, SIGUSR2));
    int sig = 0;
    CHECK(sigwait(&s, &sig) == 0);
    printf("sigwait took SIGUSR1: %d\n", sig == SIGUSR1);
    CHECK(sigpending(&p) == 0);
    printf("pending after sigwait: %d\n", sigismember(&p, SIGUSR1));
    signal(SIGHUP, SIG_IGN);
    CHECK(raise(SIGHUP) == 0);
    printf("ignored SIGHUP: still here\n");
    CHECK(raise(SIGUSR2) == 0);
    printf("SIGUSR2 raised while blocked: still here\n");
    fflush(stdout);
    sigprocmask(SIG_UNBLOCK, &s, NULL);
    printf("not reached\n");
    return 0;
}
