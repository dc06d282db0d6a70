/* __thread variables: each thread starts with the initial values (initialized and zeroed
 * ones, a struct and an array), changes only its own copies, and sees its own addresses; the
 * main thread's copies are untouched. Thread-local addresses differ between threads. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>

enum { T = 6 };
static __thread int counter = 7;
static __thread long zeroed;
static __thread char name[32] = "initial";
static __thread struct { short a; double b; } pair = {3, 1.5};
static __thread int big[256];
static uintptr_t addrs[T + 1];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    int ok = counter == 7 && zeroed == 0 && strcmp(name, "initial") == 0 && pair.a == 3 && pair.b == 1.5;
    for (int i = 0; i < 256; i++)
        ok &= big[i] == 0;
    for (int round = 0; round < 1000; round++) {
        counter += id;
        zeroed += 2;
        big[round % 256] += id;
        sched_yield();
    }
    snprintf(name, sizeof name, "thread %d", id);
    pair.b *= id;
    addrs[id] = (uintptr_t)&counter;
    long sum = 0;
    for (int i = 0; i < 256; i++)
        sum += big[i];
    char *line = malloc(128);
    snprintf(line, 128, "%s: initial values %s, counter %d, zeroed %ld, pair.b %g, sum %ld", name,
             ok ? "ok" : "WRONG", counter, zeroed, pair.b, sum);
    return line;
}

int main(void)
{
    pthread_t th[T];
    for (int i = 0; i < T; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1)) == 0);
    for (int i = 0; i < T; i++) {
        void *line;
        CHECK(pthread_join(th[i], &line) == 0);
        printf("%s\n", (char *)line);
        free(line);
    }
    addrs[0] = (uintptr_t)&counter;
    int distinct = 1;
    for (int i = 0; i <= T; i++)
        for (int j = 0; j < i; j++)
            distinct &= addrs[i] != addrs[j];
    printf("addresses distinct: %d\n", distinct);
    printf("main: counter %d, zeroed %ld, name %s, pair %d %g\n", counter, zeroed, name, pair.a, pair.b);
    return 0;
}
