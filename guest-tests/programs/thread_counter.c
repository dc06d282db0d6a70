/* Four threads each add 1 a million times to two shared counters: one with __atomic builtins
 * (relaxed fetch-add and a compare-and-swap loop), one under a pthread mutex. Guest atomics
 * must stay atomic and the mutex exclusive: every counter ends at exactly 4,000,000. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>

enum { T = 4, N = 1000000 };
static long fetch_added, cas_added, locked;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;

static void *worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    for (int i = 0; i < N; i++) {
        __atomic_fetch_add(&fetch_added, 1, __ATOMIC_RELAXED);
        long old = __atomic_load_n(&cas_added, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&cas_added, &old, old + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            ;
    }
    for (int i = 0; i < N; i++) {
        pthread_mutex_lock(&mu);
        locked++;
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

int main(void)
{
    pthread_t th[T];
    CHECK(pthread_barrier_init(&start, NULL, T) == 0);
    for (int i = 0; i < T; i++)
        CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0);
    for (int i = 0; i < T; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    printf("__atomic_fetch_add: %ld\n", fetch_added);
    printf("__atomic_compare_exchange: %ld\n", cas_added);
    printf("pthread_mutex: %ld\n", locked);
    return 0;
}
