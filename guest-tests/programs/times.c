/* times(): the return value (clock ticks since an arbitrary point) advances with real time;
 * the process's CPU time grows with CPU work and agrees with getrusage; no children, so the
 * children's times are 0. struct tms holds four clock_t (long: 4 or 8 bytes per arch). */
#include "common.h"
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>

static void burn(long ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    do {
        for (volatile int i = 0; i < 100000; i++)
            ;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    printf("_SC_CLK_TCK: %ld\n", hz);
    struct tms t0, t1;
    memset(&t0, 0x5a, sizeof t0);
    clock_t r0 = times(&t0);
    printf("times() succeeded: %d\n", r0 != (clock_t)-1);
    printf("no children yet: cutime %d cstime %d\n", t0.tms_cutime == 0, t0.tms_cstime == 0);
    printf("own times non-negative: %d\n", t0.tms_utime >= 0 && t0.tms_stime >= 0);

    burn(300);
    struct timespec nap = {0, 100 * 1000 * 1000};
    nanosleep(&nap, NULL);
    clock_t r1 = times(&t1);
    long elapsed = (long)(r1 - r0);
    printf("elapsed ticks at least 0.4s worth: %d, under 30s worth: %d\n", elapsed >= hz * 4 / 10 - 1,
           elapsed < hz * 30);
    long cpu = (long)((t1.tms_utime + t1.tms_stime) - (t0.tms_utime + t0.tms_stime));
    printf("cpu ticks after 0.3s of work at least 0.2s worth: %d\n", cpu >= hz * 2 / 10);

    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    long ru_ticks = (long)(ru.ru_utime.tv_sec * hz + ru.ru_utime.tv_usec * hz / 1000000);
    printf("getrusage user time within 0.1s of tms_utime: %d\n", labs(ru_ticks - (long)t1.tms_utime) <= hz / 10 + 1);

    CHECK(times(NULL) != (clock_t)-1);
    printf("times(NULL) succeeds: ok\n");
    return 0;
}
