/* fork and wait: the child's exit status and a signal death reach waitpid, a pipe carries
 * data from child to parent, the child has its own copy of memory and a new pid. */
#include "common.h"
#include <signal.h>
#include <sys/wait.h>

static int shared_var = 1;

int main(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    fflush(stdout);
    pid_t parent = getpid();
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        close(p[0]);
        shared_var = 99;
        char msg[64];
        int n = snprintf(msg, sizeof msg, "child: ppid is parent %d, pid differs %d",
                         getppid() == parent, getpid() != parent);
        CHECK(write(p[1], msg, n) == n);
        _exit(7);
    }
    close(p[1]);
    char buf[128] = {0};
    size_t got = 0;
    ssize_t n;
    while ((n = read(p[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += n;
    printf("%s\n", buf);
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    printf("child exited: %d, status %d, parent's variable still %d\n", WIFEXITED(st), WEXITSTATUS(st), shared_var);

    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        raise(SIGTERM);
        _exit(0);
    }
    CHECK(waitpid(c, &st, 0) == c);
    printf("child killed: signaled %d, signal is SIGTERM %d\n", WIFSIGNALED(st), WTERMSIG(st) == SIGTERM);

    c = fork();
    if (c == 0)
        _exit(3);
    siginfo_t si;
    CHECK(waitid(P_PID, c, &si, WEXITED) == 0);
    printf("waitid: CLD_EXITED %d, status %d, pid ok %d\n", si.si_code == CLD_EXITED, si.si_status, si.si_pid == c);
    EXPECT_ERR("no more children", wait(NULL), ECHILD);
    return 0;
}
