/* Signals: sigaction install/read-back, raise and kill delivering to a handler with siginfo,
 * sigprocmask block/unblock read-back, sigpending while blocked, delivery on unblock,
 * SA_RESETHAND, sa_mask applied in the handler, and SIG_IGN. */
#include "common.h"
#include <signal.h>

static volatile sig_atomic_t got_usr1, got_usr2, blocked_in_handler;
static volatile int usr2_code = -999, usr2_pid_ok; /* -999: SI_USER is 0 */

static void on_usr1(int sig)
{
    got_usr1 += sig == SIGUSR1;
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    blocked_in_handler = sigismember(&cur, SIGUSR1) + 2 * sigismember(&cur, SIGTERM);
}

static void on_usr2(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_usr2 += sig == SIGUSR2;
    usr2_code = si->si_code;
    usr2_pid_ok = si->si_pid == getpid();
}

int main(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGUSR1, &sa, &old) == 0);
    printf("previous SIGUSR1 action is SIG_DFL: %d\n", old.sa_handler == SIG_DFL);
    CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
    printf("read back: handler %d, SA_RESTART %d, sa_mask has SIGTERM %d, not SIGINT %d\n",
           old.sa_handler == on_usr1, !!(old.sa_flags & SA_RESTART), sigismember(&old.sa_mask, SIGTERM),
           !sigismember(&old.sa_mask, SIGINT));

    CHECK(raise(SIGUSR1) == 0);
    printf("raise: handler ran %d time(s); in handler SIGUSR1+SIGTERM blocked code %d\n", got_usr1,
           blocked_in_handler);

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_usr2;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    CHECK(kill(getpid(), SIGUSR2) == 0);
    printf("kill with SA_SIGINFO: ran %d, si_code SI_USER %d, si_pid ok %d\n", got_usr2, usr2_code == SI_USER,
           usr2_pid_ok);

    sigset_t set, cur, pend;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
    CHECK(sigprocmask(SIG_BLOCK, NULL, &cur) == 0);
    printf("after SIG_BLOCK: SIGUSR1 blocked %d, SIGUSR2 blocked %d\n", sigismember(&cur, SIGUSR1),
           sigismember(&cur, SIGUSR2));
    CHECK(raise(SIGUSR1) == 0);
    CHECK(sigpending(&pend) == 0);
    printf("raised while blocked: handler count %d, pending %d\n", got_usr1, sigismember(&pend, SIGUSR1));
    CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0);
    printf("after unblock: handler count %d\n", got_usr1);
    CHECK(sigprocmask(SIG_SETMASK, NULL, &cur) == 0);
    printf("mask empty again: %d\n", !sigismember(&cur, SIGUSR1));

    /* SIGKILL/SIGSTOP cannot be blocked: the kernel silently drops them from the mask. */
    sigfillset(&set);
    CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);
    CHECK(sigprocmask(SIG_SETMASK, NULL, &cur) == 0);
    printf("fill mask: SIGKILL blocked %d, SIGSTOP blocked %d, SIGINT blocked %d\n", sigismember(&cur, SIGKILL),
           sigismember(&cur, SIGSTOP), sigismember(&cur, SIGINT));
    sigemptyset(&set);
    CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESETHAND;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
    printf("SA_RESETHAND: ran (count %d), now SIG_DFL %d\n", got_usr1, old.sa_handler == SIG_DFL);

    signal(SIGUSR1, SIG_IGN);
    CHECK(raise(SIGUSR1) == 0);
    printf("SIG_IGN: still alive, count %d\n", got_usr1);

    EXPECT_ERR("sigaction SIGKILL", sigaction(SIGKILL, &sa, NULL), EINVAL);
    EXPECT_ERR("sigaction signal 0", sigaction(0, &sa, NULL), EINVAL);
    EXPECT_ERR("sigprocmask bad how", sigprocmask(12345, &set, NULL), EINVAL);
    return 0;
}
