/* Integer arithmetic: signed/unsigned division and remainder signs, wrap-around, overflow
 * builtins, shifts, bit counting, byte swaps, 64x64 multiplication, and a checksum loop.
 * Operands go through volatile so the compiler cannot fold them. Division by zero and
 * INT_MIN/-1 are left out: their result is architecture-defined (trap vs value). */
#include "common.h"
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>

static volatile int64_t vs[] = {7, -7, 3, -3, 1, INT64_MAX, INT64_MIN + 1, 1000000007};
static volatile uint64_t vu[] = {0, 1, 3, 0xffffffffffffffffULL, 0x8000000000000000ULL, 0x123456789abcdef0ULL};

int main(void)
{
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 8; j++) {
            int64_t a = vs[i], b = vs[j];
            printf("%" PRId64 "/%" PRId64 "=%" PRId64 " %%=%" PRId64 "\n", a, b, a / b, a % b);
        }
    volatile int32_t i32 = -17, d32 = 5;
    printf("int32: %d %d, as unsigned %u %u\n", i32 / d32, i32 % d32, (uint32_t)i32 / (uint32_t)d32, (uint32_t)i32 % (uint32_t)d32);
    volatile uint32_t u32 = 0xffffffffu;
    printf("uint32 wrap: %u %u\n", u32 + 1u, u32 * u32);
    volatile uint8_t u8 = 250;
    volatile int8_t s8 = -128;
    printf("narrowing: %u %d %d\n", (uint8_t)(u8 + 10), (int8_t)(s8 - 1), (int)(signed char)0x80);

    int64_t r;
    printf("add overflow: %d", __builtin_add_overflow(vs[5], vs[4], &r));
    printf(" (wrapped %" PRId64 ")", r);
    printf(" sub overflow: %d", __builtin_sub_overflow(vs[6], (int64_t)2, &r));
    printf(" mul overflow: %d", __builtin_mul_overflow(vs[7], vs[7], &r));
    printf(" (%" PRId64 ")\n", r);
    uint32_t ur;
    int o = __builtin_mul_overflow((uint32_t)vu[3], 2u, &ur);
    printf("u32 mul overflow: %d (%u)\n", o, ur);

    for (unsigned i = 0; i < 6; i++) {
        uint64_t x = vu[i];
        printf("x=%016" PRIx64 " pop=%d clz=%d ctz=%d bswap=%016" PRIx64 " rotl13=%016" PRIx64 " >>7=%" PRIx64 " sar7=%" PRId64 "\n",
               x, __builtin_popcountll(x), x ? __builtin_clzll(x) : 64, x ? __builtin_ctzll(x) : 64,
               __builtin_bswap64(x), (x << 13) | (x >> 51), x >> 7, (int64_t)x >> 7);
    }
    volatile unsigned sh = 63;
    printf("shifts: %" PRIx64 " %" PRId64 "\n", (uint64_t)1 << sh, INT64_MIN >> sh);
    printf("bswap32/16: %08x %04x\n", __builtin_bswap32(0x11223344u), __builtin_bswap16(0xabcd));

    uint64_t h = 0;
    for (uint64_t k = 1; k <= 1000000; k++)
        h = (h ^ k) * 0x9e3779b97f4a7c15ULL + (k % 7) - (k / 3);
    printf("checksum loop: %016" PRIx64 "\n", h);
    printf("limits: %d %d %lld %llu\n", INT_MAX, INT_MIN, LLONG_MIN, ULLONG_MAX);
    printf("abs/div: %d %lld %d %d\n", abs(-5), llabs(LLONG_MIN + 1), div(-7, 2).quot, div(-7, 2).rem);
    return 0;
}
