/* alarm() with SIGALRM at its default action ends the process when it fires (expected status
 * 128+SIGALRM); pause() sleeps until then. */
#include "common.h"

int main(void)
{
    printf("alarm(0) with no alarm set: %u\n", alarm(0));
    alarm(1);
    printf("armed, pausing\n");
    fflush(stdout);
    pause();
    printf("not reached\n");
    return 0;
}
