/* Asynchronous signals and instructions that read, modify and write memory: a 0.5 ms timer
 * interrupts a loop of in-place memory increments (x86 `incl mem`, one instruction; a plain
 * increment elsewhere), and every increment must count exactly once. An emulator that stops
 * the CPU for a signal between an instruction's store and its end, and resumes at that
 * instruction, counts some increments twice. */
#include "common.h"
#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t hits;
static void on_alarm(int sig)
{
    (void)sig;
    hits++;
}

static __attribute__((noinline)) int count_to(int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
#if defined(__x86_64__) || defined(__i386__)
        __asm__ volatile("incl %0" : "+m"(c));
#else
        *(volatile int *)&c += 1;
#endif
    }
    return c;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    struct itimerval it = {{0, 500}, {0, 500}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    int wrong = 0;
    for (int round = 0; round < 5000 && hits < 100; round++)
        wrong += count_to(100000) != 100000;
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    printf("every increment counted once: %d, handler ran: %d\n", wrong == 0, hits >= 100);
    return 0;
}
