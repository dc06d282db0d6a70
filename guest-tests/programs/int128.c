/* 128-bit integers: multiplication, division and remainder (libgcc helpers), shifts,
 * comparisons, and decimal printing done by hand. */
#include "common.h"
#include <stdint.h>

typedef unsigned __int128 u128;
typedef __int128 s128;

static void put_u128(u128 v)
{
    char buf[64];
    int i = 63;
    buf[i] = 0;
    do {
        buf[--i] = '0' + (int)(v % 10);
        v /= 10;
    } while (v);
    printf("%s", buf + i);
}

static void put_s128(s128 v)
{
    if (v < 0) {
        printf("-");
        put_u128(-(u128)v);
    } else {
        put_u128((u128)v);
    }
}

static volatile uint64_t va = 0xfedcba9876543210ULL, vb = 0x0123456789abcdefULL;

int main(void)
{
    u128 a = va, b = vb;
    u128 p = a * b;
    printf("product: ");
    put_u128(p);
    printf("\nhigh/low: %016llx %016llx\n", (unsigned long long)(p >> 64), (unsigned long long)p);
    printf("product / b == a: %d, product %% a == 0: %d\n", p / b == a, p % a == 0);

    u128 max = ~(u128)0;
    printf("2^128-1 = ");
    put_u128(max);
    printf("\n");
    u128 ten19 = 10000000000000000000ULL;
    printf("(2^128-1) / 10^19 = ");
    put_u128(max / ten19);
    printf(" rem ");
    put_u128(max % ten19);
    printf("\n");

    s128 n = -(s128)p;
    printf("negated: ");
    put_s128(n);
    printf("\nsigned div by -7: ");
    put_s128(n / -7);
    printf(" rem ");
    put_s128(n % -7);
    printf("\nshifts: %016llx %016llx\n", (unsigned long long)((max >> 100)), (unsigned long long)(((u128)1 << 127) >> 64));
    printf("compare: %d %d %d\n", n < 0, p > a, (s128)max == -1);

    u128 f = 1;
    for (int i = 1; i <= 34; i++)
        f *= i;
    printf("34! = ");
    put_u128(f);
    printf("\n");
    u128 x = 1;
    for (int i = 0; i < 1000; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    printf("lcg: %016llx%016llx\n", (unsigned long long)(x >> 64), (unsigned long long)x);
    return 0;
}
