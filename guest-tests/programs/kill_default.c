/* A signal with the default action terminates: raise(SIGTERM) with SIG_DFL gives status 143
 * (128 + 15), and output flushed before it is kept. */
#include <signal.h>
#include <stdio.h>

int main(void)
{
    signal(SIGUSR1, SIG_IGN);
    raise(SIGUSR1); /* ignored: nothing happens */
    printf("ignored SIGUSR1, now raising SIGTERM\n");
    fflush(stdout);
    raise(SIGTERM);
    printf("not reached\n");
    return 0;
}
