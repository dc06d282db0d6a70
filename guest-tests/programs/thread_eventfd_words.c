/* 8-byte transfers between threads: an eventfd's counter (eventfd(2): the value is a u64 in
 * the host's byte order as the kernel sees it, the guest's own as it reads it) and 8-byte
 * words through a pipe (bytes, never reordered), written by one thread and read by another
 * while both run. The eventfd adds up to 5 x 100; every pipe word arrives as written. Then,
 * while another thread still exists, the counter read into a larger buffer (the kernel
 * stores 8 bytes whatever the count) and a timerfd's expiration count. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

static int efd, p[2];

static void *writer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        uint64_t v = 5;
        CHECK(write(efd, &v, 8) == 8);
        uint64_t x = 0x0102030405060708ULL;
        CHECK(write(p[1], &x, 8) == 8);
    }
    return NULL;
}

static volatile int sleeping = 1;

static void *sleeper(void *arg)
{
    (void)arg;
    while (__atomic_load_n(&sleeping, __ATOMIC_ACQUIRE))
        usleep(1000);
    return NULL;
}

int main(void)
{
    efd = eventfd(0, EFD_CLOEXEC);
    CHECK(efd >= 0 && pipe(p) == 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
    long wrong = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = 0;
        CHECK(read(p[0], &x, 8) == 8);
        wrong += x != 0x0102030405060708ULL;
    }
    CHECK(pthread_join(t, NULL) == 0);
    uint64_t v = 0;
    CHECK(read(efd, &v, 8) == 8);
    printf("eventfd counter: %llu\n", (unsigned long long)v);
    printf("pipe words changed on the way: %ld\n", wrong);

    CHECK(pthread_create(&t, NULL, sleeper, NULL) == 0);
    uint64_t w = 7, big[2] = {0, 0};
    CHECK(write(efd, &w, 8) == 8);
    CHECK(read(efd, big, sizeof big) == 8);
    printf("eventfd counter read into 16 bytes beside a thread: %llu\n", (unsigned long long)big[0]);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    CHECK(tfd >= 0);
    struct itimerspec its = {.it_value = {.tv_nsec = 1000000}};
    CHECK(timerfd_settime(tfd, 0, &its, NULL) == 0);
    big[0] = 0;
    CHECK(read(tfd, big, sizeof big) == 8);
    printf("timerfd expirations read into 16 bytes beside a thread: %llu\n", (unsigned long long)big[0]);
    __atomic_store_n(&sleeping, 0, __ATOMIC_RELEASE);
    CHECK(pthread_join(t, NULL) == 0);
    return 0;
}
