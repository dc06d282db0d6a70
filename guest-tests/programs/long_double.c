/* The floating-point state a process starts with: x87 arithmetic at full (64-bit mantissa)
 * precision on x86, the default rounding mode, and long double at least as precise as
 * double everywhere. */
#include "common.h"
#include <fenv.h>
#include <float.h>

int main(void)
{
    volatile long double one = 1.0L, tiny = LDBL_EPSILON;
    volatile long double sum = one + tiny;
    printf("1 + LDBL_EPSILON != 1: %d\n", sum != one);
    printf("long double at least as precise as double: %d\n", LDBL_MANT_DIG >= DBL_MANT_DIG);
    volatile long double third = 1.0L / 3.0L;
    volatile double dthird = 1.0 / 3.0;
    printf("1/3 in long double closer than in double: %d\n",
           (third * 3.0L - 1.0L) * (third * 3.0L - 1.0L) <= ((long double)dthird * 3.0L - 1.0L) *
                                                                ((long double)dthird * 3.0L - 1.0L));
    printf("rounding mode is to-nearest: %d\n", fegetround() == FE_TONEAREST);
    volatile double x = 0.1, y = 0.2;
    printf("%.17g\n", x + y);
    return 0;
}
