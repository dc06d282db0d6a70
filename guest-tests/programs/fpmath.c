/* Floating point arithmetic: IEEE basics (rounding of + - * / sqrt, signed zero, inf, nan,
 * subnormals), conversions, and a few libm functions printed to 12 digits. Built with
 * -ffp-contract=off (see the manifest) so no fused multiply-add changes results. */
#include "common.h"
/* The test is about IEEE double and float arithmetic; i386's default x87 code evaluates in
 * 80-bit extended precision (FLT_EVAL_METHOD 2), so there this file uses SSE2 instead. */
#if defined(__i386__)
#pragma GCC target("sse2", "fpmath=sse")
#endif
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

static volatile double a = 1.0, b = 3.0, z = 0.0, big = 1e308, tiny = 5e-324;

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

int main(void)
{
    printf("1/3 = %a\n", a / b);
    printf("sqrt(2) = %a\n", sqrt(a + a));
    printf("0.1+0.2 bits = %016llx\n", (unsigned long long)bits(0.1 * a + 0.2 * a));
    printf("1/0 = %f, -1/0 = %f, 0/0 is nan %d\n", a / z, -a / z, isnan(z / z));
    printf("-0.0 == 0.0 %d, signbit(-0.0) %d, 1/-0 = %f\n", -z == z, !!signbit(-z), a / -z);
    printf("overflow: %f, subnormal/2 = %a, tiny*0.5 rounds to even: %a\n", big * 10, tiny / 2, tiny * 1.5);
    printf("DBL_MIN/4 = %a, isnormal %d\n", DBL_MIN / 4 * a, isnormal(DBL_MIN / 4 * a));
    volatile double h = 2.5;
    printf("rint(2.5)=%g round(2.5)=%g floor(-2.5)=%g ceil(-2.5)=%g trunc(-2.7)=%g lrint(3.5)=%ld\n", rint(h),
           round(h), floor(-h), ceil(-h), trunc(-h - 0.2), lrint(h + 1));
    /* Stored to a double first: i386's x87 would otherwise convert the 80-bit quotient. */
    volatile double e18 = big / 1e290;
    printf("(int)-2.7 = %d, (unsigned)3.99 = %u, (long long)1e18 = %lld\n", (int)(-h - 0.2), (unsigned)(h + 1.49),
           (long long)e18);
    volatile float f = 16777216.0f;
    printf("float: 2^24+1 = %.1f, 1/3f = %a\n", (double)(f + 1.0f), (double)(1.0f / (float)b));
    printf("fma(0.1, 10, -1) = %a\n", fma(0.1 * a, 10.0, -1.0));
    printf("exp(1)=%.12f log(10)=%.12f sin(1)=%.12f cos(1)=%.12f atan2(1,2)=%.12f pow(2,0.5)=%.12f\n", exp(a),
           log(10 * a), sin(a), cos(a), atan2(a, 2 * a), pow(2 * a, 0.5));
    printf("hypot(3,4)=%g cbrt(27)=%g fmod(7.5,2)=%g remainder(7.5,2)=%g\n", hypot(3 * a, 4 * a), cbrt(27 * a),
           fmod(7.5 * a, 2.0), remainder(7.5 * a, 2.0));
    double s = 0;
    for (int i = 1; i <= 1000000; i++)
        s += 1.0 / ((double)i * i);
    printf("sum 1/i^2 (1e6 terms) = %.15f\n", s);
    fesetround(FE_UPWARD);
    volatile double up = a / b;
    fesetround(FE_TONEAREST);
    printf("FE_UPWARD 1/3 = %a\n", up);
    return 0;
}
