/* fork and exit in a multi-threaded process: a fork child has only the thread that forked
 * (from main or from another thread) and can start threads of its own; exit() from a thread
 * ends the whole process with its status while main waits in pthread_join; a thread's raw
 * SYS_exit ends only that thread. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int release_blocker;

static void *blocker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!release_blocker)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return (void *)"blocker released";
}

static void *child_thread(void *arg) { return (void *)((intptr_t)arg * 2); }

static int status_of(pid_t pid)
{
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* In a fork child: starts and joins a thread, then exits with `code`. */
static void child_work(const char *who, int code)
{
    pthread_t t;
    void *r;
    CHECK(pthread_create(&t, NULL, child_thread, (void *)(intptr_t)21) == 0);
    CHECK(pthread_join(t, &r) == 0);
    printf("child forked from %s: its thread returned %ld\n", who, (long)(intptr_t)r);
    fflush(stdout);
    exit(code);
}

static void *forker(void *arg)
{
    (void)arg;
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        child_work("a thread", 4);
    return (void *)(intptr_t)status_of(pid);
}

static void *exiter(void *arg)
{
    (void)arg;
    exit(5);
}

static void *raw_exit(void *arg)
{
    (void)arg;
    syscall(SYS_exit, 0);
    return NULL;
}

int main(void)
{
    pthread_t b, f, r;
    CHECK(pthread_create(&b, NULL, blocker, NULL) == 0);

    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        child_work("main", 3);
    printf("fork from main: child status %d\n", status_of(pid));

    void *st;
    CHECK(pthread_create(&f, NULL, forker, NULL) == 0);
    CHECK(pthread_join(f, &st) == 0);
    printf("fork from a thread: child status %ld\n", (long)(intptr_t)st);

    fflush(stdout);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        pthread_t e;
        CHECK(pthread_create(&e, NULL, exiter, NULL) == 0);
        pthread_join(e, NULL);
        _exit(1);
    }
    printf("exit() from a thread: process status %d\n", status_of(pid));

    /* A raw exit skips glibc's thread teardown; the kernel still clears and wakes the
     * CLONE_CHILD_CLEARTID word, which is what pthread_join waits for. */
    CHECK(pthread_create(&r, NULL, raw_exit, NULL) == 0);
    CHECK(pthread_join(r, NULL) == 0);
    printf("raw SYS_exit from a thread: joined\n");

    pthread_mutex_lock(&mu);
    release_blocker = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    CHECK(pthread_join(b, &st) == 0);
    printf("%s\n", (char *)st);
    return 0;
}
