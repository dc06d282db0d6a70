/* Stores into a string literal (.rodata, mapped read-only from the ELF): SIGSEGV (139). */
#include <stdio.h>

int main(void)
{
    char *s = (char *)"literal";
    /* Hide where s points, or gcc drops the (undefined) store altogether. */
    __asm__ volatile("" : "+r"(s));
    printf("writing into a string literal\n");
    fflush(stdout);
    s[0] = 'L';
    __asm__ volatile("" ::: "memory");
    printf("not reached: %s\n", s);
    return 0;
}
