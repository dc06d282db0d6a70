/* Floating point text conversion: strtod of awkward inputs and printf %f/%e/%g/%a of doubles
 * (no long double: its format differs between architectures). */
#include "common.h"
#include <float.h>
#include <math.h>

int main(void)
{
    const char *in[] = {"0", "-0", "1", "0.1", "3.14159265358979323846", "1e308", "1e-308", "4.9e-324",
                        "2.2250738585072014e-308", "123456789012345678901234567890", "0x1.8p3", "inf", "-nan",
                        "1.7976931348623157e308", "9007199254740993", "  42.5xyz"};
    for (unsigned i = 0; i < sizeof in / sizeof *in; i++) {
        char *end;
        double d = strtod(in[i], &end);
        printf("strtod(\"%s\") = %.17g [%a] rest=\"%s\"\n", in[i], d, d, end);
    }
    double vals[] = {0.0, -0.0, 1.0, 1.5, 0.1, 2.0 / 3.0, 1e21, 1e-7, 123456.789, DBL_MAX, DBL_MIN, DBL_EPSILON};
    for (unsigned i = 0; i < sizeof vals / sizeof *vals; i++)
        printf("%%f=%f %%e=%e %%g=%g %%.3g=%.3g %%a=%a\n", vals[i], vals[i], vals[i], vals[i], vals[i]);
    printf("rounding: %.0f %.0f %.0f %.0f %.2f %.1f\n", 0.5, 1.5, 2.5, -0.5, 1.005, 0.25);
    printf("width/flags: [%10.3f] [%-10.2e] [%+g] [% g] [%#g] [%010.4f]\n", 3.14159, 2.71828, 1.0, 1.0, 1.0, -3.5);
    printf("special: %f %f %e %g\n", INFINITY, -INFINITY, NAN, -NAN);
    float f = strtof("0.1", NULL);
    printf("strtof 0.1 = %.9g, as double %.17g\n", f, (double)f);
    errno = 0;
    double ovf = strtod("1e999", NULL);
    printf("strtod 1e999 = %g, ERANGE %d\n", ovf, errno == ERANGE);
    char buf[64];
    snprintf(buf, sizeof buf, "%.15g", 0.1 + 0.2);
    printf("0.1+0.2 = %s, == 0.3 %d\n", buf, 0.1 + 0.2 == 0.3);
    printf("atof(\"  -12.75e1\") = %g\n", atof("  -12.75e1"));
    return 0;
}
