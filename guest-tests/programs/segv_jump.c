/* Calls a function pointer into unmapped memory: the process must die of SIGSEGV
 * (status 139 = 128 + 11) after what it printed before. */
#include <stdio.h>

int main(void)
{
    printf("jumping to 0x10000000\n");
    fflush(stdout);
    void (*volatile fn)(void) = (void (*)(void))0x10000000UL;
    fn();
    printf("not reached\n");
    return 0;
}
