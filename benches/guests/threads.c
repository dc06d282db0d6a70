/* CPU-bound threads for the thread-scaling workload: `threads N ITERS` starts N threads that
 * each run ITERS rounds of a xorshift64 generator on their own state (no shared memory, no
 * system calls), joins them and prints the XOR of their results, which the harness checks
 * against its own computation. Run with N = 1 and N = the host's cores: the wall-time ratio of
 * the two shows whether threads run at once. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static long iters;

static void *work(void *arg)
{
    uint64_t x = (uintptr_t)arg + 0x9e3779b97f4a7c15ull;
    for (long i = 0; i < iters; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return (void *)(uintptr_t)(x & 0xffffffffu);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int n = atoi(argv[1]);
    iters = atol(argv[2]);
    if (n < 1 || n > 64 || iters < 1)
        return 2;
    pthread_t t[64];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, work, (void *)(uintptr_t)i) != 0)
            return 1;
    uint32_t all = 0;
    for (int i = 0; i < n; i++) {
        void *r;
        if (pthread_join(t[i], &r) != 0)
            return 1;
        all ^= (uint32_t)(uintptr_t)r;
    }
    printf("%08x\n", all);
    return 0;
}
