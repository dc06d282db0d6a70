/* pthread_cancel of threads blocked in cancellation points (read on an empty pipe,
 * pthread_cond_wait, nanosleep): glibc sends the thread SIGCANCEL (signal 32) with tgkill; its
 * handler unwinds the thread, running the cleanup handlers, and pthread_join sees
 * PTHREAD_CANCELED. A thread with cancellation disabled finishes its work first. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static int fds[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started;
static const char *cleaned[3];

static void cleanup(void *arg) { cleaned[(intptr_t)arg] = "cleanup ran"; }

static void announce(void)
{
    pthread_mutex_lock(&mu);
    started++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void *in_read(void *arg)
{
    (void)arg;
    char c;
    pthread_cleanup_push(cleanup, (void *)0);
    announce();
    read(fds[0], &c, 1);
    pthread_cleanup_pop(0);
    return (void *)"read returned";
}

static void *in_cond_wait(void *arg)
{
    (void)arg;
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
    pthread_mutex_lock(&m);
    pthread_cleanup_push(cleanup, (void *)1);
    announce();
    for (;;)
        pthread_cond_wait(&never, &m);
    pthread_cleanup_pop(0);
    return NULL;
}

static void *in_sleep(void *arg)
{
    (void)arg;
    pthread_cleanup_push(cleanup, (void *)2);
    announce();
    struct timespec ts = {60, 0};
    nanosleep(&ts, NULL);
    pthread_cleanup_pop(0);
    return (void *)"sleep returned";
}

static void *uncancelable(void *arg)
{
    (void)arg;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    announce();
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return (void *)"finished with cancellation disabled";
}

int main(void)
{
    CHECK(pipe(fds) == 0);
    void *(*fns[4])(void *) = {in_read, in_cond_wait, in_sleep, uncancelable};
    const char *names[4] = {"read", "pthread_cond_wait", "nanosleep", "disabled"};
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, fns[i], NULL) == 0);
    pthread_mutex_lock(&mu);
    while (started < 4)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    /* Let them reach their blocking calls. */
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_cancel(th[i]) == 0);
    for (int i = 0; i < 4; i++) {
        void *ret;
        CHECK(pthread_join(th[i], &ret) == 0);
        printf("%s: %s%s%s\n", names[i], ret == PTHREAD_CANCELED ? "canceled" : (char *)ret,
               i < 3 ? ", " : "", i < 3 ? (cleaned[i] ? cleaned[i] : "no cleanup") : "");
    }
    return 0;
}
