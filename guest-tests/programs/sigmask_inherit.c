/* The blocked mask is inherited by a fork child and kept across execve; a pending blocked
 * signal is not inherited by the fork child but stays pending across execve. */
#include "common.h"
#include <signal.h>
#include <sys/wait.h>

static void report(const char *who)
{
    sigset_t m, p;
    CHECK(sigprocmask(SIG_BLOCK, NULL, &m) == 0);
    CHECK(sigpending(&p) == 0);
    printf("%s: SIGUSR2 blocked %d, SIGUSR1 blocked %d, SIGUSR2 pending %d\n", who, sigismember(&m, SIGUSR2),
           sigismember(&m, SIGUSR1), sigismember(&p, SIGUSR2));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        report("after execve");
        return 0;
    }
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR2);
    CHECK(sigprocmask(SIG_BLOCK, &s, NULL) == 0);
    CHECK(raise(SIGUSR2) == 0);
    report("parent");
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        report("fork child");
        _exit(0);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    char *args[] = {argv[0], "exec", NULL};
    execv("/proc/self/exe", args);
    printf("execv failed: %s\n", errname(errno));
    return 1;
}
