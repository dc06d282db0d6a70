/* The smallest test: stdio to stdout and a zero exit status. */
#include <stdio.h>

int main(void)
{
    printf("hello, world\n");
    return 0;
}
