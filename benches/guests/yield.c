/* Many threads handing the CPU back for the yield workload: `yield [T [K]]` starts T threads
 * (default 32) that wait at a barrier until all of them run, then each call sched_yield() K
 * times (default 3000) and count the calls that returned 0; main joins them and prints
 * `yield T x K` if every call succeeded, which the harness checks. Under an emulator with a
 * global guest lock every yield is a hand-off between guest threads, so this shows what a
 * hand-off costs when many threads wait (endgate once woke every waiter at each one and made
 * sched_yield queue for the lock again: 12.3 s for 32 x 3000 on aarch64, qemu-user 0.27 s). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static long iters = 3000;
static pthread_barrier_t start;

static void *work(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    long ok = 0;
    for (long i = 0; i < iters; i++)
        if (sched_yield() == 0)
            ok++;
    return (void *)ok;
}

int main(int argc, char **argv)
{
    if (argc > 3)
        return 2;
    int n = argc > 1 ? atoi(argv[1]) : 32;
    if (argc > 2)
        iters = atol(argv[2]);
    if (n < 1 || n > 256 || iters < 1)
        return 2;
    if (pthread_barrier_init(&start, NULL, (unsigned)n) != 0)
        return 1;
    pthread_t t[256];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, work, NULL) != 0)
            return 1;
    long ok = 0;
    for (int i = 0; i < n; i++) {
        void *r;
        if (pthread_join(t[i], &r) != 0)
            return 1;
        ok += (long)r;
    }
    if (ok != n * iters) {
        fprintf(stderr, "%ld of %ld sched_yield calls failed\n", n * iters - ok, n * iters);
        return 1;
    }
    printf("yield %d x %ld\n", n, iters);
    return 0;
}
