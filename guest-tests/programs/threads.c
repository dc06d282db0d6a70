/* Threads: pthread_create/join with return values, per-thread __thread values, a mutex-
 * protected counter, a condition variable handshake, and gettid differing per thread. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>

enum { T = 4, ITER = 20000 };
static __thread int mine = 100;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long counter;
static int ready;
static pid_t tids[T];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    mine += id;
    tids[id] = gettid();
    for (int i = 0; i < ITER; i++) {
        pthread_mutex_lock(&mu);
        counter++;
        pthread_mutex_unlock(&mu);
    }
    return (void *)(intptr_t)(mine * 10);
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!ready)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return (void *)"woken";
}

int main(void)
{
    pthread_t th[T];
    for (int i = 0; i < T; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < T; i++) {
        void *ret;
        CHECK(pthread_join(th[i], &ret) == 0);
        printf("thread %d returned %ld\n", i, (long)(intptr_t)ret);
    }
    printf("counter: %ld (expected %d)\n", counter, T * ITER);
    printf("main's __thread value untouched: %d\n", mine);
    int distinct = 1;
    for (int i = 0; i < T; i++) {
        distinct &= tids[i] != getpid() && tids[i] > 0;
        for (int j = 0; j < i; j++)
            distinct &= tids[i] != tids[j];
    }
    printf("thread ids distinct and not the pid: %d\n", distinct);

    pthread_t w;
    CHECK(pthread_create(&w, NULL, waiter, NULL) == 0);
    pthread_mutex_lock(&mu);
    ready = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    void *ret;
    CHECK(pthread_join(w, &ret) == 0);
    printf("condition variable: %s\n", (char *)ret);
    return 0;
}
