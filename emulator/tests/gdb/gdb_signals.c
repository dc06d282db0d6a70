/* Raises SIGUSR1 five times, each counted by a handler: under GDB, which stops at the first
 * and then detaches, every one must still reach the handler (as natively, and after a
 * ptrace detach). */
#include <signal.h>
#include <stdio.h>

static volatile sig_atomic_t n;

static void count(int sig) {
    (void)sig;
    n++;
}

int main(void) {
    signal(SIGUSR1, count);
    for (int i = 0; i < 5; i++)
        raise(SIGUSR1);
    printf("handled %d\n", (int)n);
    return n == 5 ? 0 : 1;
}
