/* Calls the three entries of x86_64's legacy vsyscall page (gettimeofday at
 * 0xffffffffff600000, time at +0x400, getcpu at +0x800) as pre-vDSO static binaries do;
 * prints "vsyscall ok" when each answers like the vDSO. */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
typedef long (*gtod_t)(struct timeval *, void *);
typedef long (*time_t_fn)(long *);
typedef long (*getcpu_t)(unsigned *, unsigned *, void *);
int main(void) {
    struct timeval tv = {0};
    long r = ((gtod_t)0xffffffffff600000UL)(&tv, 0);
    long t2 = 0;
    long t = ((time_t_fn)0xffffffffff600400UL)(&t2);
    unsigned cpu = 99, node = 99;
    long c = ((getcpu_t)0xffffffffff600800UL)(&cpu, &node, 0);
    time_t now = time(0);
    int ok = r == 0 && tv.tv_sec >= now - 2 && tv.tv_sec <= now && t == t2 && t >= now - 2 && t <= now && c == 0 && cpu < 4096;
    printf("vsyscall %s\n", ok ? "ok" : "BAD");
    return !ok;
}
