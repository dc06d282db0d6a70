/* Floating-point to integer conversions the C standard leaves to the machine: NaN, infinities
 * and values out of the integer's range, to signed and unsigned 32- and 64-bit integers, from
 * float and double. Each arch's CPU defines the results (x86 its "integer indefinite", aarch64
 * saturation and 0 for NaN, s390x the most negative number or 0 for NaN, ...), so the expected
 * output is per arch (from qemu-user 10.0.2; natively on x86_64). In-range conversions, which
 * every arch must get exact, are checked here. */
#include <math.h>
#include <stdint.h>

#include "common.h"

static volatile double d[] = {NAN, -NAN, INFINITY, -INFINITY, 1e20, -1e20, 4294967296.0, -1.0, 2147483648.0};
static volatile float f[] = {NAN, INFINITY, -INFINITY, 1e20f, -1e20f, -1.0f};

int main(void)
{
    volatile double in_range = -123456.75;
    CHECK((int32_t)in_range == -123456 && (int64_t)in_range == -123456);
    volatile double u = 3000000000.5;
    CHECK((uint32_t)u == 3000000000u && (uint64_t)u == 3000000000u);
    for (unsigned i = 0; i < sizeof d / sizeof d[0]; i++) {
        double v = d[i];
        printf("double %g: int32 %d, int64 %lld, uint32 %u, uint64 %llu\n", v, (int32_t)v, (long long)(int64_t)v,
               (uint32_t)v, (unsigned long long)(uint64_t)v);
    }
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++) {
        float v = f[i];
        printf("float %g: int32 %d, int64 %lld, uint32 %u, uint64 %llu\n", v, (int32_t)v, (long long)(int64_t)v,
               (uint32_t)v, (unsigned long long)(uint64_t)v);
    }
    return 0;
}
