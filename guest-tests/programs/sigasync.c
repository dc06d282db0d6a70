/* Asynchronous signals leave the interrupted code exactly as it was: a periodic SIGALRM
 * handler interrupts a pointer-chasing walk of a circular list (a load whose destination is
 * its own address register: `p = p->next`) and a loop of read-modify-write increments of a
 * memory counter, hundreds of times. The walk must end on the node arithmetic predicts and
 * the counter must equal the number of increments: an interrupted instruction must run
 * exactly once, whether the signal arrived before, inside or after it. */
#include "common.h"
#include <signal.h>
#include <sys/time.h>
#include <time.h>

struct node {
    struct node *next;
    long index;
};

enum { NODES = 1000, TICKS = 200 };

static struct node nodes[NODES];
static volatile sig_atomic_t ticks;
static long counter;

static void on_alarm(int sig)
{
    (void)sig;
    ticks++;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* `steps` hops from `p`. */
static struct node *__attribute__((noinline)) walk(struct node *p, long steps)
{
    while (steps-- > 0)
        p = p->next;
    return p;
}

/* `n` increments of the memory counter (kept in memory by the barrier). */
static void __attribute__((noinline)) bump(long n)
{
    while (n-- > 0) {
        counter++;
        __asm__ volatile("" ::: "memory");
    }
}

int main(void)
{
    for (int i = 0; i < NODES; i++) {
        nodes[i].next = &nodes[(i + 1) % NODES];
        nodes[i].index = i;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    struct itimerval it = {{0, 500}, {0, 500}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);

    const long chunk = 100000;
    long steps = 0, bumps = 0;
    struct node *p = &nodes[0];
    double deadline = now() + 20.0;
    while (ticks < TICKS && now() < deadline) {
        p = walk(p, chunk);
        steps += chunk;
        bump(chunk);
        bumps += chunk;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);

    printf("handler ran at least %d times: %d\n", TICKS, ticks >= TICKS);
    printf("walk ended on the predicted node: %d\n", p->index == steps % NODES);
    printf("counter equals the increments: %d\n", counter == bumps);
    if (counter != bumps || p->index != steps % NODES)
        printf("  counter off by %ld, walk off by %ld nodes\n", counter - bumps,
               ((p->index - steps % NODES) % NODES + NODES) % NODES);
    return 0;
}
