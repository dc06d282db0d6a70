/* Four threads add 1 twenty thousand times each to a misaligned counter (inside one cache
 * line: a split lock across two lines is slowed down on purpose by Linux's split-lock detection),
 * and four more swap values through a second such word. x86 allows LOCK-prefixed operations
 * (and xchg) on misaligned memory and keeps them atomic; an emulator running threads in
 * parallel must do each one as one host atomic that allows such an operand (an x86 host's,
 * inside a cache line) or with every other thread stopped. The sum must be exact and every
 * swapped-in value must come out exactly once. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>

enum { T = 4, N = 20000 };
static unsigned char area[256] __attribute__((aligned(64)));
static volatile unsigned *counter, *slot;
static unsigned long long seen_sum[T];
static pthread_barrier_t start;

static void *adder(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < N; i++)
        __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *swapper(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned long long sum = 0;
    pthread_barrier_wait(&start);
    for (unsigned i = 1; i <= N / 10; i++)
        sum += __atomic_exchange_n(slot, (unsigned)id * 1000000u + i, __ATOMIC_SEQ_CST);
    seen_sum[id] = sum;
    return NULL;
}

int main(void)
{
    /* 57 and 185: not 4-byte aligned, inside the 64-byte lines that start at 0 and 128. */
    counter = (volatile unsigned *)(area + 57);
    slot = (volatile unsigned *)(area + 185);
    CHECK(pthread_barrier_init(&start, NULL, 2 * T) == 0);
    pthread_t th[2 * T];
    for (int i = 0; i < T; i++) {
        CHECK(pthread_create(&th[i], NULL, adder, NULL) == 0);
        CHECK(pthread_create(&th[T + i], NULL, swapper, (void *)(intptr_t)i) == 0);
    }
    for (int i = 0; i < 2 * T; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    printf("misaligned lock add: %u\n", *counter);
    /* Every value put in is taken out once, by a later exchange or the final read. */
    unsigned long long want = 0, got = *slot;
    for (int id = 0; id < T; id++) {
        want += (unsigned long long)id * 1000000u * (N / 10) + (unsigned long long)(N / 10) * (N / 10 + 1) / 2;
        got += seen_sum[id];
    }
    printf("misaligned xchg: %s\n", got == want ? "every value once" : "values lost or doubled");
    return 0;
}
