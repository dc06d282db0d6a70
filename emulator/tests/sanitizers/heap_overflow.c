/* A planted heap overflow for AddressSanitizer: memset writes 17 bytes into a 16-byte
 * allocation. Under ASan the program prints "before", then ASan reports the write and ends
 * the program with status 1; without ASan it prints both lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    (void)argv;
    char *p = malloc(16);
    printf("before\n");
    fflush(stdout);
    memset(p, 0, 16 + argc);
    printf("not reached %d\n", p[3]);
    free(p);
    return 0;
}
