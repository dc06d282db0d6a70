/* A legacy-NaN MIPS FPU (NAN2008 clear in FCR31, as Debian's mips64el runs) answers an
 * operation on a NaN with its default NaN (unicorn patch 0055): a double NaN whose payload
 * lies only in the low bits converts to a float NaN, never to infinity (the propagated
 * payload, truncated, would be 0), and arithmetic on a NaN gives a NaN. The expected output
 * comes from qemu-user 10.0.2. */
#include "common.h"
#include <math.h>
#include <stdint.h>

int main(void)
{
    union { uint64_t u; double d; } n = {.u = 0x7ff0000000000001ull};
    volatile double d = n.d;
    volatile float f = (float)d;
    printf("cvt.s.d of 0x7ff0000000000001: nan %d inf %d\n", isnan(f) != 0, isinf(f) != 0);
    volatile double s = sqrt(d), sum = d + 1.0;
    printf("sqrt nan %d, add nan %d\n", isnan(s) != 0, isnan(sum) != 0);
    return 0;
}
