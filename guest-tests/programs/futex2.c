/* The futex2 calls of Linux 6.7 (futex_wait, futex_wake, futex_requeue; uapi
 * linux/futex.h): value mismatch, absolute timeouts on both clocks, wake masks, nr 0,
 * requeueing two waiting threads to another word, the compare value of a requeue, and the
 * flags and arguments the kernel refuses. */
#include "common.h"
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#ifndef __NR_futex_wake
#ifdef __mips__
#define __NR_futex_wake 5454
#define __NR_futex_wait 5455
#define __NR_futex_requeue 5456
#else
#define __NR_futex_wake 454
#define __NR_futex_wait 455
#define __NR_futex_requeue 456
#endif
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U8 0x00
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_SIZE_U64 0x03
#define FUTEX2_PRIVATE FUTEX_PRIVATE_FLAG
#endif
#define F32P (FUTEX2_SIZE_U32 | FUTEX2_PRIVATE)

struct waitv {
    uint64_t val, uaddr;
    uint32_t flags, reserved;
};

static long fwait(void *w, unsigned long val, unsigned long mask, unsigned flags, struct timespec *ts, int clk)
{
    /* struct __kernel_timespec: 64-bit seconds and nanoseconds on every arch. */
    struct {
        int64_t sec, nsec;
    } k, *kp = NULL;
    if (ts) {
        k.sec = ts->tv_sec;
        k.nsec = ts->tv_nsec;
        kp = &k;
    }
    return syscall(__NR_futex_wait, w, val, mask, flags, kp, clk);
}

static long fwake(void *w, unsigned long mask, int nr, unsigned flags)
{
    return syscall(__NR_futex_wake, w, mask, nr, flags);
}

static long frequeue(uint32_t *from, uint32_t val, uint32_t *to, unsigned flags1, unsigned flags2, int nr_wake,
                     int nr_requeue)
{
    struct waitv w[2] = { { val, (uintptr_t)from, flags1, 0 }, { 0, (uintptr_t)to, flags2, 0 } };
    return syscall(__NR_futex_requeue, w, 0, nr_wake, nr_requeue);
}

static uint32_t w1, w2;
static volatile long results[2];

/* Waits on w1 with mask 1 until woken.
 *
 * A waiter that wakes without being woken (Linux allows spurious wakeups, and a stray one
 * comes now and then on a loaded machine) waits again on the word it named, w1, even after
 * a requeue had moved it to w2: kernel/futex/waitwake.c `__futex_wait` retries
 * `futex_wait_setup` with its own `uaddr`. So once both waiters are requeued, main sets w1
 * to 1: a waiter that comes back then gets EAGAIN and waits on w2 itself, where the requeue
 * had put it, with the same mask. */
static void *waiter(void *arg)
{
    long i = (long)arg;
    long r = fwait(&w1, 0, 1, F32P, NULL, 0);
    while (r == -1 && errno == EAGAIN)
        r = fwait(&w2, 0, 1, F32P, NULL, 0);
    results[i] = r == 0 ? 0 : -errno;
    return NULL;
}

/* fwake(&w2, mask, 1, F32P) until it wakes one waiter (a waiter back from a spurious wakeup
 * may still be on its way to w2), for at most 10 s. */
static long wake_one_on_w2(unsigned long mask)
{
    for (int tries = 0; tries < 10000; tries++) {
        long r = fwake(&w2, mask, 1, F32P);
        if (r != 0)
            return r;
        usleep(1000);
    }
    return 0;
}

/* The time on `clk` `ms` (>= 0) milliseconds from now. */
static struct timespec abs_in(int clk, long ms)
{
    struct timespec t;
    clock_gettime(clk, &t);
    t.tv_nsec += ms * 1000000L;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    return t;
}

int main(void)
{
    uint32_t w = 7;
    printf("wake with nobody waiting: %ld\n", fwake(&w, ~0U, 1, F32P));
    EXPECT_ERR("wait for another value", fwait(&w, 8, ~0U, F32P, NULL, 0), EAGAIN);
    struct timespec t = abs_in(CLOCK_MONOTONIC, 20);
    EXPECT_ERR("wait until a CLOCK_MONOTONIC time", fwait(&w, 7, ~0U, F32P, &t, CLOCK_MONOTONIC), ETIMEDOUT);
    t = abs_in(CLOCK_REALTIME, 0);
    t.tv_sec -= 1;
    EXPECT_ERR("wait until a past CLOCK_REALTIME time (shared)", fwait(&w, 7, ~0U, FUTEX2_SIZE_U32, &t, CLOCK_REALTIME),
               ETIMEDOUT);

    /* Refused arguments. */
    EXPECT_ERR("8-bit futex", fwait(&w, 7, ~0U, FUTEX2_SIZE_U8 | FUTEX2_PRIVATE, NULL, 0), EINVAL);
    EXPECT_ERR("64-bit futex", fwake(&w, ~0U, 1, FUTEX2_SIZE_U64 | FUTEX2_PRIVATE), EINVAL);
    EXPECT_ERR("unknown flag 0x40", fwake(&w, ~0U, 1, F32P | 0x40), EINVAL);
    EXPECT_ERR("wait mask 0", fwait(&w, 7, 0, F32P, NULL, 0), EINVAL);
    EXPECT_ERR("wake mask 0", fwake(&w, 0, 1, F32P), EINVAL);
    EXPECT_ERR("misaligned word", fwake((char *)&w + 1, ~0U, 1, F32P), EINVAL);
    EXPECT_ERR("unmapped word", fwait((void *)16, 7, ~0U, F32P, NULL, 0), EFAULT);
    t = abs_in(CLOCK_MONOTONIC, 20);
    EXPECT_ERR("CLOCK_BOOTTIME timeout", fwait(&w, 7, ~0U, F32P, &t, CLOCK_BOOTTIME), EINVAL);
    EXPECT_ERR("bad clock without a timeout: only the value counts", fwait(&w, 8, ~0U, F32P, NULL, 12345), EAGAIN);
    t.tv_nsec = 1000000000L;
    EXPECT_ERR("timeout of 10^9 ns", fwait(&w, 7, ~0U, F32P, &t, CLOCK_MONOTONIC), EINVAL);
    EXPECT_ERR("unmapped timeout", syscall(__NR_futex_wait, &w, 7UL, (unsigned long)~0U, F32P, (void *)16, CLOCK_MONOTONIC), EFAULT);
    if (sizeof(long) == 8) {
        unsigned long big = (unsigned long)1 << 31 << 1;
        CHECK(fwait(&w, 7 | big, ~0U, F32P, NULL, 0) == -1 && errno == EINVAL);
        CHECK(fwake(&w, big, 1, F32P) == -1 && errno == EINVAL);
    }
    printf("value or mask wider than 32 bits: EINVAL\n");
    EXPECT_ERR("requeue flags", syscall(__NR_futex_requeue, NULL, 1, 1, 1), EINVAL);
    EXPECT_ERR("requeue NULL waiters", syscall(__NR_futex_requeue, NULL, 0, 1, 1), EINVAL);
    EXPECT_ERR("requeue unmapped waiters", syscall(__NR_futex_requeue, (void *)16, 0, 1, 1), EFAULT);
    EXPECT_ERR("requeue negative nr_wake", frequeue(&w1, 0, &w2, F32P, F32P, -1, 1), EINVAL);
    EXPECT_ERR("requeue 8-bit entry", frequeue(&w1, 0, &w2, F32P, FUTEX2_SIZE_U8, 1, 1), EINVAL);
    EXPECT_ERR("requeue with another value", frequeue(&w1, 1, &w2, F32P, F32P, 1, 1), EAGAIN);

    /* Two threads wait on w1 with mask 1; once both are moved to w2 nothing else wakes
     * them but a wake with a mask that shares that bit. */
    pthread_t th[2];
    for (long i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, waiter, (void *)i) == 0);
    long moved = 0;
    while (moved < 2) {
        long r = frequeue(&w1, 0, &w2, F32P, F32P, 0, INT_MAX);
        CHECK(r >= 0);
        moved += r;
        if (r == 0)
            sched_yield();
    }
    printf("requeued: %ld\n", moved);
    /* A waiter woken spuriously since its requeue waits on w1 again (see `waiter`): from
     * now on it finds w1 changed and goes to w2, and one that came back before the store
     * is moved there. */
    __atomic_store_n(&w1, 1, __ATOMIC_SEQ_CST);
    CHECK(frequeue(&w1, 1, &w2, F32P, F32P, 0, INT_MAX) >= 0);
    printf("wake w1 (nobody left): %ld\n", fwake(&w1, ~0U, INT_MAX, F32P));
    printf("wake w2 with mask 2: %ld\n", fwake(&w2, 2, INT_MAX, F32P));
    printf("wake w2 with nr 0: %ld\n", fwake(&w2, 1, 0, F32P));
    printf("wake w2 as a shared futex: %ld\n", fwake(&w2, 1, INT_MAX, FUTEX2_SIZE_U32));
    printf("wake w2 with mask 3: %ld\n", wake_one_on_w2(3));
    printf("wake w2 with mask 1: %ld\n", wake_one_on_w2(1));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(th[i], NULL) == 0);
    printf("waiters returned: %ld %ld\n", results[0], results[1]);
    return 0;
}
