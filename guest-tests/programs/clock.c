/* Time: CLOCK_MONOTONIC never goes back, nanosleep sleeps at least as asked, gettimeofday
 * agrees with time() and CLOCK_REALTIME, clock_getres, and the process CPU clock. */
#include "common.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

static long long ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(void)
{
    struct timespec a, b;
    CHECK(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
    for (int i = 0; i < 1000; i++) {
        CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
        CHECK(ns(b) >= ns(a));
        CHECK(b.tv_nsec >= 0 && b.tv_nsec < 1000000000);
        a = b;
    }
    printf("CLOCK_MONOTONIC: 1000 reads never went back\n");

    struct timespec req = {0, 50 * 1000 * 1000}, rem = {9, 9};
    CHECK(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
    CHECK(nanosleep(&req, &rem) == 0);
    CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
    long long slept = ns(b) - ns(a);
    printf("nanosleep 50ms: slept at least 50ms: %s, under 5s: %s\n", slept >= 50000000 ? "yes" : "no",
           slept < 5000000000LL ? "yes" : "no");

    req.tv_nsec = 20 * 1000 * 1000;
    CHECK(clock_gettime(CLOCK_MONOTONIC, &a) == 0);
    struct timespec until = {a.tv_sec, a.tv_nsec + req.tv_nsec};
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == 0);
    CHECK(clock_gettime(CLOCK_MONOTONIC, &b) == 0);
    printf("clock_nanosleep TIMER_ABSTIME: reached the deadline: %s\n", ns(b) >= ns(until) ? "yes" : "no");

    struct timeval tv;
    CHECK(gettimeofday(&tv, NULL) == 0);
    time_t t = time(NULL);
    struct timespec rt;
    CHECK(clock_gettime(CLOCK_REALTIME, &rt) == 0);
    printf("gettimeofday vs time(): within 2s: %s\n", llabs((long long)t - tv.tv_sec) <= 2 ? "yes" : "no");
    printf("CLOCK_REALTIME vs time(): within 2s: %s\n", llabs((long long)t - rt.tv_sec) <= 2 ? "yes" : "no");
    printf("after 2020: %s\n", t > 1577836800 ? "yes" : "no");
    CHECK(tv.tv_usec >= 0 && tv.tv_usec < 1000000);

    struct timespec res;
    CHECK(clock_getres(CLOCK_MONOTONIC, &res) == 0);
    printf("CLOCK_MONOTONIC resolution at most 1ms: %s\n", res.tv_sec == 0 && res.tv_nsec > 0 && res.tv_nsec <= 1000000 ? "yes" : "no");

    struct timespec c1, c2;
    CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1) == 0);
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 20000000; i++)
        x += i;
    CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c2) == 0);
    printf("process CPU clock advanced: %s\n", ns(c2) > ns(c1) ? "yes" : "no");
    CHECK(clock_gettime(CLOCK_BOOTTIME, &c1) == 0);
    CHECK(clock_gettime(CLOCK_MONOTONIC_COARSE, &c1) == 0);
    EXPECT_ERR("clock_gettime bad clock", clock_gettime((clockid_t)12345, &c1), EINVAL);
    req.tv_sec = 0;
    req.tv_nsec = 2000000000;
    EXPECT_ERR("nanosleep tv_nsec out of range", nanosleep(&req, NULL), EINVAL);
    /* Ids from MAX_CLOCKS (16) up are refused by the system calls (kernel/time/posix-timers.c
     * `clockid_to_kclock`; Linux 6.17's auxiliary clocks 16-23 only once enabled). */
    EXPECT_ERR("clock_getres clock 16", syscall(SYS_clock_getres, 16, &res), EINVAL);
    EXPECT_ERR("clock_getres clock 17", syscall(SYS_clock_getres, 17, &res), EINVAL);
    EXPECT_ERR("clock_gettime clock 16", syscall(SYS_clock_gettime, 16, &c1), EINVAL);

    /* gettimeofday stores tv before it looks at tz (kernel/time/time.c): a tz it cannot write
     * fails the call after tv was written. */
    struct timezone *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    struct timeval tv2 = { 0, 0 };
    EXPECT_ERR("gettimeofday with a read-only tz", syscall(SYS_gettimeofday, &tv2, ro), EFAULT);
    printf("tv written before the fault: %s\n", tv2.tv_sec > 1577836800 ? "yes" : "no");
    /* getcpu stores cpu before node (kernel/sys.c). */
    unsigned cpu = 12345;
    EXPECT_ERR("getcpu with a read-only node", syscall(SYS_getcpu, &cpu, (unsigned *)ro, NULL), EFAULT);
    printf("cpu written before the fault: %s\n", cpu != 12345 ? "yes" : "no");
    return 0;
}
