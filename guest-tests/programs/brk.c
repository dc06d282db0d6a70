/* The program break: sbrk(0) is stable, growing it gives zeroed writable memory, shrinking
 * and growing again works, and the raw brk syscall agrees with sbrk. */
#include "common.h"
#include <stdint.h>
#include <sys/syscall.h>

static char outbuf[1 << 16];

int main(void)
{
    /* stdio would malloc its buffer (moving the break) on the first printf. */
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    char *b0 = sbrk(0);
    CHECK(b0 != (void *)-1);
    CHECK(sbrk(0) == b0);
    char *old = sbrk(100000);
    CHECK(old == b0);
    char *b1 = sbrk(0);
    CHECK(b1 == b0 + 100000);
    for (int i = 0; i < 100000; i++)
        CHECK(old[i] == 0);
    memset(old, 0x77, 100000);
    printf("grow by 100000: zeroed, writable\n");

    CHECK(sbrk(-50000) == b1);
    CHECK(sbrk(0) == b0 + 50000);
    CHECK(old[49999] == 0x77);
    printf("shrink by 50000: ok\n");

    long cur = syscall(SYS_brk, 0);
    CHECK((char *)cur == b0 + 50000);
    long want = cur + (1 << 20);
    CHECK(syscall(SYS_brk, want) == want);
    ((char *)want)[-1] = 1;
    CHECK(brk(b0) == 0);
    CHECK(sbrk(0) == b0);
    printf("raw brk agrees with sbrk: ok\n");

    /* A huge request fails without moving the break. */
    long r = syscall(SYS_brk, (long)b0 + (1L << 50));
    CHECK((char *)r == b0);
    printf("impossible brk leaves the break alone: ok\n");
    return 0;
}
