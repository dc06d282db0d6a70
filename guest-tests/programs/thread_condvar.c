/* Two threads hand a token back and forth 10,000 times through one mutex and two condition
 * variables; every handoff is a futex wait and wake between threads. A third thread waits with
 * a timeout that expires (pthread_cond_timedwait gives ETIMEDOUT) while the ping-pong runs. */
#include "common.h"
#include <pthread.h>
#include <time.h>

enum { ROUNDS = 10000 };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t to_pong = PTHREAD_COND_INITIALIZER, to_ping = PTHREAD_COND_INITIALIZER;
static int turn; /* 0: ping's turn, 1: pong's */
static long pings, pongs;

static void *pong(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&mu);
        while (turn != 1)
            pthread_cond_wait(&to_pong, &mu);
        pongs++;
        turn = 0;
        pthread_cond_signal(&to_ping);
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

static void *sleeper(void *arg)
{
    (void)arg;
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 50 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&m);
    int r = pthread_cond_timedwait(&never, &m, &until);
    pthread_mutex_unlock(&m);
    return (void *)errname(r);
}

int main(void)
{
    pthread_t p, s;
    CHECK(pthread_create(&s, NULL, sleeper, NULL) == 0);
    CHECK(pthread_create(&p, NULL, pong, NULL) == 0);
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&mu);
        while (turn != 0)
            pthread_cond_wait(&to_ping, &mu);
        pings++;
        turn = 1;
        pthread_cond_signal(&to_pong);
        pthread_mutex_unlock(&mu);
    }
    CHECK(pthread_join(p, NULL) == 0);
    void *why;
    CHECK(pthread_join(s, &why) == 0);
    printf("pings %ld, pongs %ld\n", pings, pongs);
    printf("timed wait: %s\n", (const char *)why);
    return 0;
}
