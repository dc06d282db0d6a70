/* System-call restart after a handler: under SA_RESTART a blocking read interrupted by
 * SIGALRM is re-executed and returns what a child writes later, and so is a six-argument
 * recvfrom (every argument register must be back, MSG_WAITALL included); nanosleep and
 * pselect fail with EINTR even under SA_RESTART (signal(7)). */
#include "common.h"
#include <signal.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t ticks;
static void on_alarm(int sig)
{
    (void)sig;
    ticks++;
}

/* A child that writes `msg` to `fd` after 300 ms. */
static pid_t late_writer(int fd, const char *msg)
{
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
        CHECK(write(fd, msg, strlen(msg)) == (ssize_t)strlen(msg));
        _exit(0);
    }
    return child;
}

static void alarm_in_50ms(void)
{
    struct itimerval once = {{0, 0}, {0, 50000}};
    ticks = 0;
    CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    int status;

    int p[2];
    CHECK(pipe(p) == 0);
    pid_t child = late_writer(p[1], "hello");
    close(p[1]);
    alarm_in_50ms();
    char buf[16] = {0};
    errno = 0;
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    printf("read: %zd bytes \"%s\" (%s), handler ran %d\n", n, buf, n < 0 ? errname(errno) : "ok", ticks);
    CHECK(waitpid(child, &status, 0) == child);

    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    child = late_writer(sv[1], "abcd");
    alarm_in_50ms();
    memset(buf, 0, sizeof buf);
    errno = 0;
    n = recvfrom(sv[0], buf, 4, MSG_WAITALL, NULL, NULL);
    printf("recvfrom MSG_WAITALL: %zd bytes \"%s\" (%s), handler ran %d\n", n, buf, n < 0 ? errname(errno) : "ok",
           ticks);
    CHECK(waitpid(child, &status, 0) == child);

    alarm_in_50ms();
    struct timespec ts = {5, 0};
    errno = 0;
    int r = nanosleep(&ts, &ts);
    printf("nanosleep: %d %s, handler ran %d, time left reported %d\n", r, errname(errno), ticks, ts.tv_sec >= 3);

    int q[2];
    CHECK(pipe(q) == 0);
    child = late_writer(q[1], "x");
    close(q[1]);
    alarm_in_50ms();
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(q[0], &rd);
    errno = 0;
    r = pselect(q[0] + 1, &rd, NULL, NULL, NULL, NULL);
    printf("pselect: %d %s, handler ran %d\n", r, errname(errno), ticks);
    char c;
    n = read(q[0], &c, 1);
    printf("then read: %zd '%c'\n", n, n == 1 ? c : '?');
    CHECK(waitpid(child, &status, 0) == child);
    return 0;
}
