/* Prints the 16 AT_RANDOM bytes and 16 bytes of getrandom(2), in hex, one line each. */
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/random.h>

int main(void)
{
    const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
    unsigned char g[16];
    if (r == NULL || getrandom(g, sizeof g, 0) != (ssize_t)sizeof g)
        return 1;
    for (int i = 0; i < 16; i++)
        printf("%02x", r[i]);
    printf("\n");
    for (int i = 0; i < 16; i++)
        printf("%02x", g[i]);
    printf("\n");
    return 0;
}
