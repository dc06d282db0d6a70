/* SA_RESTART: a read from a pipe interrupted by SIGALRM is restarted when the handler has
 * SA_RESTART (the data written later arrives) and fails with EINTR when it has not. */
#include "common.h"
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

static void one(int flags, const char *label)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = flags;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        close(p[0]);
        usleep(300000);
        (void)!write(p[1], "late", 4);
        _exit(0);
    }
    close(p[1]);
    alarms = 0;
    struct itimerval it = {{0, 0}, {0, 50000}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    char buf[8];
    errno = 0;
    ssize_t n = read(p[0], buf, sizeof buf);
    int e = errno;
    printf("%s: read returned %zd (%s), handler ran %d\n", label, n, n < 0 ? errname(e) : "data", alarms);
    int st;
    CHECK(waitpid(child, &st, 0) == child);
    close(p[0]);
}

int main(void)
{
    one(SA_RESTART, "SA_RESTART");
    one(0, "no SA_RESTART");
    return 0;
}
