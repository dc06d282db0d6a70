/* abort() after printing: the process dies of SIGABRT (status 134 = 128 + 6), even with a
 * SIGABRT handler that returns. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static void on_abrt(int sig)
{
    (void)sig;
    printf("SIGABRT handler ran and returns\n");
    fflush(stdout);
}

int main(void)
{
    signal(SIGABRT, on_abrt);
    printf("calling abort\n");
    fflush(stdout);
    abort();
}
