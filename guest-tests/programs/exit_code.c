/* Returns 42 from main: the exit status must reach the caller unchanged. */
#include <stdio.h>

int main(void)
{
    printf("exiting with 42\n");
    return 42;
}
