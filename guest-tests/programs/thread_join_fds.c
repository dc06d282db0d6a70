/* Once pthread_join has returned, the thread has ended and left nothing behind: the kernel
 * clears the thread's CLONE_CHILD_CLEARTID word and wakes the joiner in mm_release
 * (kernel/fork.c), after which the thread allocates no descriptors. So open(2), which gives
 * the lowest descriptor not open (POSIX, open(2) "lowest-numbered file descriptor not
 * currently open"), keeps giving the same one to a process that opens and closes a file over
 * and over right after the join. Sixteen processes, each with its first thread. */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include "common.h"

static void *noop(void *arg)
{
    return arg;
}

static long ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000L + (t.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* In a new process: a thread, its join, then 30 ms of open and close; the status is 0 if
 * every open gave the lowest free descriptor. */
static int one_process(void)
{
    int lowest = open("/dev/null", O_RDONLY);
    CHECK(lowest >= 0);
    close(lowest);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, noop, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int other = -1;
    do {
        int fd = open("/dev/null", O_RDONLY);
        CHECK(fd >= 0);
        if (fd != lowest)
            other = fd;
        close(fd);
    } while (ms_since(&t0) < 30);
    if (other >= 0)
        printf("open gave %d, not the lowest free descriptor %d\n", other, lowest);
    fflush(stdout);
    return other >= 0;
}

int main(void)
{
    int bad = 0;
    for (int i = 0; i < 16; i++) {
        fflush(stdout);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0)
            _exit(one_process());
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st));
        bad += WEXITSTATUS(st) != 0;
    }
    printf("processes where open gave another descriptor after the join: %d of 16\n", bad);
    return 0;
}
