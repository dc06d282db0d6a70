/* getrandom: full-length results for several sizes and flags, and two draws differ. */
#include "common.h"
#include <sys/random.h>

/* The bad pointer is the point of the test. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

int main(void)
{
    unsigned char a[64], b[64];
    CHECK(getrandom(a, sizeof a, 0) == sizeof a);
    CHECK(getrandom(b, sizeof b, GRND_NONBLOCK) == sizeof b);
    printf("two 64-byte draws differ: %d\n", memcmp(a, b, sizeof a) != 0);
    int nonzero = 0;
    for (unsigned i = 0; i < sizeof a; i++)
        nonzero += a[i] != 0;
    printf("mostly non-zero bytes: %d\n", nonzero > 32);
    static unsigned char big[4096];
    CHECK(getrandom(big, sizeof big, 0) == sizeof big);
    int hist[256] = {0};
    for (unsigned i = 0; i < sizeof big; i++)
        hist[big[i]]++;
    int used = 0;
    for (int i = 0; i < 256; i++)
        used += hist[i] > 0;
    printf("4096 bytes use over 200 distinct values: %d\n", used > 200);
    CHECK(getrandom(a, 0, 0) == 0);
    printf("zero length: 0\n");
    CHECK(getentropy(a, 32) == 0);
    printf("getentropy: ok\n");
    EXPECT_ERR("bad flags", getrandom(a, 8, 0x1000), EINVAL);
    EXPECT_ERR("bad buffer", getrandom((void *)16, 8, 0), EFAULT);
    return 0;
}
