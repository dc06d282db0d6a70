/* pthread_join gives each thread's return value (returned, or passed to pthread_exit from
 * deep in a call); threads end while others keep running; a detached thread runs to its end;
 * a joined thread's id can be reused by a new thread. Finally main calls pthread_exit while a
 * thread still runs: the process lives on and ends with status 0 when that thread returns. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int finished, detached_done;

/* Ends the thread from n calls deep (returns the depth only if exit_there is cleared). */
static volatile int exit_there = 1;
static int deep(int n, int id)
{
    if (n == 0) {
        if (exit_there)
            pthread_exit((void *)(intptr_t)(id * 100));
        return 0;
    }
    return 1 + deep(n - 1, id);
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    if (id % 2)
        printf("not reached: %d\n", deep(10, id));
    pthread_mutex_lock(&mu);
    finished++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return (void *)(intptr_t)(id * 10);
}

static void *long_runner(void *arg)
{
    (void)arg;
    /* Runs while the short threads end and are joined. */
    pthread_mutex_lock(&mu);
    while (finished < 3)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return (void *)"long runner saw the others end";
}

static void *detached(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    detached_done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *last(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    printf("last thread runs after main's pthread_exit\n");
    fflush(stdout);
    return NULL;
}

int main(void)
{
    pthread_t lr, th[6], d, l;
    CHECK(pthread_create(&lr, NULL, long_runner, NULL) == 0);
    for (int i = 0; i < 6; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1)) == 0);
    for (int i = 0; i < 6; i++) {
        void *ret;
        CHECK(pthread_join(th[i], &ret) == 0);
        printf("thread %d returned %ld\n", i + 1, (long)(intptr_t)ret);
    }
    void *ret;
    CHECK(pthread_join(lr, &ret) == 0);
    printf("%s\n", (char *)ret);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    CHECK(pthread_create(&d, &attr, detached, NULL) == 0);
    pthread_mutex_lock(&mu);
    while (!detached_done)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    printf("detached thread ran\n");

    for (int i = 0; i < 50; i++) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, worker, (void *)(intptr_t)2) == 0);
        CHECK(pthread_join(t, &ret) == 0);
        CHECK((intptr_t)ret == 20);
    }
    printf("50 create/join cycles\n");

    CHECK(pthread_create(&l, NULL, last, NULL) == 0);
    printf("main calls pthread_exit\n");
    fflush(stdout);
    pthread_exit(NULL);
}
