/* A seqlock: one writer updates a pair (a, -a) under a sequence counter (odd while writing),
 * three readers read the pair and retry while the counter is odd or changed. A reader must
 * never accept a torn pair. The writer makes 200,000 updates; the readers count their reads. */
#include "common.h"
#include <pthread.h>

enum { READERS = 3, UPDATES = 200000 };
static unsigned long seq;
static long a, b;
static int done, torn;
static long reads[READERS];

static void *reader(void *arg)
{
    long *count = arg;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        unsigned long s1, s2;
        long x, y;
        do {
            s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
            x = __atomic_load_n(&a, __ATOMIC_RELAXED);
            y = __atomic_load_n(&b, __ATOMIC_RELAXED);
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            s2 = __atomic_load_n(&seq, __ATOMIC_RELAXED);
        } while ((s1 & 1) || s1 != s2);
        if (x != -y)
            __atomic_store_n(&torn, 1, __ATOMIC_RELAXED);
        (*count)++;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[READERS];
    for (int i = 0; i < READERS; i++)
        CHECK(pthread_create(&t[i], NULL, reader, &reads[i]) == 0);
    for (long i = 1; i <= UPDATES; i++) {
        unsigned long s = __atomic_load_n(&seq, __ATOMIC_RELAXED);
        __atomic_store_n(&seq, s + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __atomic_store_n(&a, i, __ATOMIC_RELAXED);
        __atomic_store_n(&b, -i, __ATOMIC_RELAXED);
        __atomic_store_n(&seq, s + 2, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < READERS; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    CHECK(!torn);
    CHECK(a == UPDATES && b == -UPDATES);
    printf("%d updates, readers never saw a torn pair: ok\n", UPDATES);
    return 0;
}
