/* POSIX timers and timerfd: a periodic SIGEV_SIGNAL timer delivers SIGRTMIN with si_code
 * SI_TIMER and its value to an SA_SIGINFO handler; a SIGEV_THREAD timer runs its function in
 * a thread with its value (glibc builds it on SIGEV_THREAD_ID); timer_gettime reads back a
 * running timer; a periodic timerfd counts its expirations. */
#include "common.h"
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <time.h>

static volatile sig_atomic_t cnt, code, val;
static void on_timer(int s, siginfo_t *si, void *u)
{
    (void)s;
    (void)u;
    cnt++;
    code = si->si_code;
    val = si->si_value.sival_int;
}

static volatile int thr_cnt, thr_val;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void on_thread(union sigval v)
{
    pthread_mutex_lock(&mu);
    thr_val = v.sival_int;
    thr_cnt++;
    pthread_mutex_unlock(&mu);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_timer;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGRTMIN, &sa, NULL) == 0);
    timer_t tm;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGRTMIN;
    ev.sigev_value.sival_int = 77;
    CHECK(timer_create(CLOCK_MONOTONIC, &ev, &tm) == 0);
    struct itimerspec its = {{0, 20000000}, {0, 20000000}};
    CHECK(timer_settime(tm, 0, &its, NULL) == 0);
    struct itimerspec cur;
    CHECK(timer_gettime(tm, &cur) == 0);
    printf("timer_gettime: interval 20ms %d, running %d\n", cur.it_interval.tv_nsec == 20000000,
           cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec > 0);
    while (cnt < 5)
        pause();
    CHECK(timer_delete(tm) == 0);
    printf("SIGEV_SIGNAL: %d ticks, SI_TIMER %d, value %d\n", cnt >= 5, code == SI_TIMER, val);

    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD;
    ev.sigev_notify_function = on_thread;
    ev.sigev_value.sival_int = 99;
    CHECK(timer_create(CLOCK_REALTIME, &ev, &tm) == 0);
    struct itimerspec its2 = {{0, 10000000}, {0, 10000000}};
    CHECK(timer_settime(tm, 0, &its2, NULL) == 0);
    for (int i = 0; i < 500 && thr_cnt < 3; i++)
        usleep(10000);
    CHECK(timer_delete(tm) == 0);
    printf("SIGEV_THREAD: ran 3 times %d, value %d\n", thr_cnt >= 3, thr_val);

    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    CHECK(fd >= 0);
    CHECK(timerfd_settime(fd, 0, &its2, NULL) == 0);
    usleep(60000);
    uint64_t exp = 0;
    CHECK(read(fd, &exp, sizeof exp) == 8);
    printf("timerfd: at least 4 expirations %d\n", exp >= 4 && exp < 1000);
    return 0;
}
