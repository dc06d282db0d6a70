/* futex on a single thread, as libc uses it without other threads: FUTEX_WAKE with no waiter
 * wakes 0, FUTEX_WAIT on a changed value is EAGAIN, FUTEX_WAIT with a timeout is ETIMEDOUT,
 * a misaligned word is EINVAL; pthread_once and a mutex (which glibc builds on futex) work. */
#include "common.h"
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static int once_count;
static void once_init(void) { once_count++; }

int main(void)
{
    static uint32_t word __attribute__((aligned(8))) = 5;
    printf("wake with no waiter: %ld\n", futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL));
    EXPECT_ERR("wait on a changed value", futex(&word, FUTEX_WAIT_PRIVATE, 4, NULL), EAGAIN);
    struct timespec ts = {0, 20 * 1000 * 1000};
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    EXPECT_ERR("wait with timeout", futex(&word, FUTEX_WAIT_PRIVATE, 5, &ts), ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
    printf("waited at least 20ms: %d\n", ms >= 19);
    EXPECT_ERR("misaligned word", futex((uint32_t *)((char *)&word + 1), FUTEX_WAKE_PRIVATE, 1, NULL), EINVAL);
    EXPECT_ERR("bad pointer", futex((uint32_t *)16, FUTEX_WAIT_PRIVATE, 0, NULL), EFAULT);
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, once_init);
    pthread_once(&once, once_init);
    printf("pthread_once ran %d time(s)\n", once_count);
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    CHECK(pthread_mutex_lock(&m) == 0);
    printf("trylock while held: %s\n", errname(pthread_mutex_trylock(&m)));
    CHECK(pthread_mutex_unlock(&m) == 0);
    return 0;
}
