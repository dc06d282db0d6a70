/* Timers: setitimer(ITIMER_REAL) delivering SIGALRM periodically while the program waits
 * in sigsuspend, getitimer read-back, alarm() returning the time left, and EINTR from a
 * blocking read interrupted by a handler installed without SA_RESTART. */
#include "common.h"
#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static void on_alarm(int sig) { (void)sig; ticks++; }

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);

    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    CHECK(sigprocmask(SIG_BLOCK, &block, &old) == 0);
    /* Read-back with a first expiry far away: a periodic ITIMER_REAL that has expired while
     * SIGALRM is blocked reads 0 until the signal is taken (Linux re-arms it when the signal is
     * dequeued), so a 20 ms first expiry could read 0 on a loaded machine. */
    struct itimerval probe = {{0, 20000}, {10, 0}};
    CHECK(setitimer(ITIMER_REAL, &probe, NULL) == 0);
    struct itimerval got;
    CHECK(getitimer(ITIMER_REAL, &got) == 0);
    printf("getitimer: interval 20ms %d, value running %d\n", got.it_interval.tv_sec == 0 && got.it_interval.tv_usec == 20000,
           (got.it_value.tv_sec == 9 && got.it_value.tv_usec > 0) || (got.it_value.tv_sec == 10 && got.it_value.tv_usec == 0));
    struct itimerval it = {{0, 20000}, {0, 20000}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    while (ticks < 3)
        sigsuspend(&old);
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
    printf("three SIGALRM ticks seen in sigsuspend: %d\n", ticks >= 3);

    unsigned left = alarm(100);
    printf("alarm with none pending returns %u\n", left);
    left = alarm(0);
    printf("alarm(0) returns the time left (99 or 100): %d\n", left == 99 || left == 100);

    int p[2];
    CHECK(pipe(p) == 0);
    ticks = 0;
    struct itimerval once = {{0, 0}, {0, 30000}};
    CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
    char c;
    errno = 0;
    ssize_t n = read(p[0], &c, 1);
    printf("blocking read interrupted: %zd %s, handler ran %d\n", n, errname(errno), ticks);
    return 0;
}
