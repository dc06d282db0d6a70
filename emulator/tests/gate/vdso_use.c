/* Reads the clocks the way programs do (glibc's clock_gettime, gettimeofday, time,
 * clock_getres), N times, and checks the answers against the raw system calls: monotonic
 * never goes back, realtime agrees with the syscall's to within a second. On i386 it also
 * checks that glibc sends its system calls through the vDSO's __kernel_vsyscall: the TCB word
 * at %gs:0x10 (glibc's `sysinfo`) must equal AT_SYSINFO and lie inside the vDSO image.
 * Prints "ok" and exits 0, or names the failed check and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) { printf("FAIL line %d: %s\n", __LINE__, #c); return 1; } } while (0)

static long long ns(struct timespec t) { return t.tv_sec * 1000000000LL + t.tv_nsec; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    struct timespec prev = {0, 0}, t, raw, res;
    for (int i = 0; i < n; i++) {
        CHECK(clock_gettime(CLOCK_MONOTONIC, &t) == 0);
        CHECK(ns(t) >= ns(prev));
        prev = t;
    }
    CHECK(clock_gettime(CLOCK_REALTIME, &t) == 0);
    CHECK(syscall(SYS_clock_gettime, CLOCK_REALTIME, &raw) == 0 || sizeof(long) == 4);
    if (sizeof(long) == 8)
        CHECK(llabs(ns(t) - ns(raw)) < 1000000000LL);
    struct timeval tv;
    for (int i = 0; i < n; i++)
        CHECK(gettimeofday(&tv, NULL) == 0);
    time_t now = time(NULL);
    CHECK(now >= tv.tv_sec && now - tv.tv_sec <= 1);
    CHECK(llabs((long long)now - (long long)t.tv_sec) <= 1);
    CHECK(clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0);
    CHECK(clock_gettime((clockid_t)12345, &t) == -1);
    unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
    CHECK(ehdr != 0);
#ifdef __i386__
    unsigned long sysinfo = getauxval(32 /* AT_SYSINFO */), tcb_sysinfo;
    __asm__("movl %%gs:0x10, %0" : "=r"(tcb_sysinfo));
    CHECK(sysinfo != 0 && tcb_sysinfo == sysinfo);
    CHECK(sysinfo > ehdr && sysinfo < ehdr + 8192);
#endif
    printf("ok\n");
    return 0;
}
