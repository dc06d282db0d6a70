/* SIGCHLD from a child: an SA_SIGINFO handler sees CLD_EXITED with the child's pid and exit
 * status, then CLD_KILLED with the killing signal; the parent waits in sigsuspend. */
#include "common.h"
#include <signal.h>
#include <sys/wait.h>

static volatile sig_atomic_t got;
static volatile int code, status;
static volatile pid_t from;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    code = si->si_code;
    status = si->si_status;
    from = si->si_pid;
    got++;
}

int main(void)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    CHECK(sigprocmask(SIG_BLOCK, &block, &old) == 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_chld;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);

    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0)
        _exit(7);
    while (!got)
        sigsuspend(&old);
    printf("exit: CLD_EXITED %d, pid ok %d, status %d\n", code == CLD_EXITED, from == c, status);
    int st;
    CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 7);

    got = 0;
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        pause();
        _exit(0);
    }
    CHECK(kill(c, SIGTERM) == 0);
    while (!got)
        sigsuspend(&old);
    printf("killed: CLD_KILLED %d, pid ok %d, by SIGTERM %d\n", code == CLD_KILLED, from == c, status == SIGTERM);
    CHECK(waitpid(c, &st, 0) == c && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    return 0;
}
