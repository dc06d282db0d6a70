/* The *_time64 system calls of 32-bit arches take a struct __kernel_timespec whose tv_nsec
 * is 64 bits, of which the kernel reads only the low 32 for a 32-bit task (get_timespec64):
 * 32-bit glibc leaves the upper half as it finds it. Garbage there must not matter. On the
 * 64-bit arches the same calls run with the plain structs and print the same lines. */
#define _GNU_SOURCE 1
#include "common.h"
#include <poll.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#if __SIZEOF_LONG__ == 4
struct kts {
    int64_t sec;
    uint32_t nsec;
    uint32_t junk;
};
#define TS(s, ns) { (s), (ns), 0xdeadbeefu }
#define NR_NANOSLEEP SYS_clock_nanosleep_time64
#define NR_PPOLL SYS_ppoll_time64
#define NR_GETRES SYS_clock_getres_time64
#else
struct kts {
    long sec;
    long nsec;
};
#define TS(s, ns) { (s), (ns) }
#define NR_NANOSLEEP SYS_clock_nanosleep
#define NR_PPOLL SYS_ppoll
#define NR_GETRES SYS_clock_getres
#endif

int main(void)
{
    struct kts d = TS(0, 1000000);
    long r = syscall(NR_NANOSLEEP, CLOCK_MONOTONIC, 0, &d, NULL);
    printf("clock_nanosleep 1 ms: %ld\n", r);
    int p[2];
    CHECK(pipe(p) == 0);
    struct pollfd pf = { p[0], POLLIN, 0 };
    struct kts t = TS(0, 10000000);
    r = syscall(NR_PPOLL, &pf, 1, &t, NULL, 8);
    printf("ppoll 10 ms on an empty pipe: %ld\n", r);
    struct kts bad = TS(0, 1000000000u);
    EXPECT_ERR("clock_nanosleep with tv_nsec 1e9", syscall(NR_NANOSLEEP, CLOCK_MONOTONIC, 0, &bad, NULL), EINVAL);
    struct kts res;
    memset(&res, 0xff, sizeof res);
    CHECK(syscall(NR_GETRES, CLOCK_MONOTONIC, &res) == 0);
    printf("clock_getres: %lld s %llu ns\n", (long long)res.sec, (unsigned long long)res.nsec);
#if __SIZEOF_LONG__ == 4
    printf("upper half of tv_nsec written as zero: %d\n", res.junk == 0);
#else
    printf("upper half of tv_nsec written as zero: %d\n", 1);
#endif
    return 0;
}
