/* clock_gettime through glibc (clock_gettime64 on 32-bit glibc) and through the old
   32-bit-time syscall, whose struct must not be written past its two longs. */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/time.h>
int main(void) {
    struct timespec a, b;
    int r0;
    time_t now = time(NULL);
    r0 = clock_gettime(CLOCK_REALTIME, &a);
    printf("clock_gettime realtime: %d\n", r0);
    printf("close to time(): %d\n", a.tv_sec >= now - 5 && a.tv_sec <= now + 5);
    clock_gettime(CLOCK_MONOTONIC, &a);
    struct timespec req = {0, 20 * 1000 * 1000};
    r0 = nanosleep(&req, NULL);
    printf("nanosleep: %d\n", r0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
    printf("monotonic advanced >= 20ms: %d\n", ns >= 20000000LL);
    struct { long sec, nsec; long guard; } old = {0, 0, 0x5a5a5a5a};
    long lr = syscall(SYS_clock_gettime, CLOCK_REALTIME, &old);
    printf("old clock_gettime: %ld\n", lr);
    printf("old seconds close: %d nsec in range %d guard kept %d\n", old.sec >= now - 5 && old.sec <= now + 5,
           old.nsec >= 0 && old.nsec < 1000000000L, old.guard == 0x5a5a5a5a);
    struct timeval tv;
    int r = gettimeofday(&tv, NULL);
    printf("gettimeofday: %d close %d\n", r, tv.tv_sec >= now - 5 && tv.tv_sec <= now + 5);
    struct timespec res;
    r = clock_getres(CLOCK_MONOTONIC, &res);
    printf("clock_getres monotonic: %d res<=1ms %d\n", r, res.tv_sec == 0 && res.tv_nsec <= 1000000);
    return 0;
}
