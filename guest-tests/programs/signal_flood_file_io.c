/* Calls on regular files under a flood of signals whose handler has no SA_RESTART: Linux
 * interrupts only calls that wait on "slow" devices (signal(7), "Interruption of system
 * calls and library functions by signal handlers"), so read, write, pread, pwrite and readv
 * of a regular file and an open of one never fail with EINTR, however many signals arrive;
 * the handler runs after the call. Another thread sends SIGUSR1 to the main thread without
 * pause while it makes 20,000 rounds of these calls. An emulator that checks for pending
 * guest signals just before making the host call must not end these calls early. */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/uio.h>
static volatile long hits;
static void on_sig(int s)
{
    (void)s;
    hits++;
}
static volatile int stop;
static pthread_t main_thread;
static void *flood(void *a)
{
    (void)a;
    while (!stop)
        pthread_kill(main_thread, SIGUSR1);
    return NULL;
}
int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_sig; /* no SA_RESTART */
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    char path[64];
    snprintf(path, sizeof path, "/tmp/eg_signal_flood_%d", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    char buf[4096] = {0};
    CHECK(write(fd, buf, sizeof buf) == sizeof buf);
    main_thread = pthread_self();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, flood, NULL) == 0);
    long eintr[6] = {0}, other[6] = {0};
    for (int i = 0; i < 20000; i++) {
        long r[6];
        int e[6];
#define CALL(k, call) (errno = 0, r[k] = (call), e[k] = errno)
        CALL(0, pread(fd, buf, 512, 0));
        CALL(1, pwrite(fd, buf, 512, 512));
        CHECK(lseek(fd, 0, SEEK_SET) == 0);
        CALL(2, read(fd, buf, 512));
        CALL(3, write(fd, buf, 512));
        struct iovec v = {buf, 256};
        CALL(4, readv(fd, &v, 1));
        CALL(5, open(path, O_RDONLY | O_CLOEXEC));
        if (r[5] >= 0)
            close((int)r[5]);
        for (int k = 0; k < 6; k++) {
            if (r[k] < 0 && e[k] == EINTR)
                eintr[k]++;
            else if (r[k] < 0)
                other[k]++;
        }
    }
    stop = 1;
    CHECK(pthread_join(t, NULL) == 0);
    unlink(path);
    printf("EINTR: pread %ld pwrite %ld read %ld write %ld readv %ld open %ld; other errors %ld; signals handled: %s\n",
           eintr[0], eintr[1], eintr[2], eintr[3], eintr[4], eintr[5], other[0] + other[1] + other[2] + other[3] + other[4] + other[5], hits > 0 ? "yes" : "no");
    return 0;
}
