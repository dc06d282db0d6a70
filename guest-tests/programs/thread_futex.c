/* futex between threads: FUTEX_WAIT_BITSET with absolute timeouts (CLOCK_MONOTONIC and
 * FUTEX_CLOCK_REALTIME), FUTEX_CMP_REQUEUE (EAGAIN on a changed value, then wake one and move
 * the rest), FUTEX_REQUEUE, FUTEX_WAKE counts, and FUTEX_WAKE_OP (the operation on the second
 * word, in the guest's byte order, and the conditional wake). */
#include "common.h"
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

static long futex(uint32_t *uaddr, int op, uint32_t val, const void *ts_or_val2, uint32_t *uaddr2, uint32_t val3)
{
    return syscall(SYS_futex, uaddr, op, val, ts_or_val2, uaddr2, val3);
}

static uint32_t a __attribute__((aligned(8))), b __attribute__((aligned(8)));
static int waiting;

static void *waiter(void *arg)
{
    (void)arg;
    __atomic_fetch_add(&waiting, 1, __ATOMIC_SEQ_CST);
    long r = futex(&a, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    return (void *)(intptr_t)r;
}

/* Starts n waiters on `a` and gives them time to block in the kernel. */
static void start_waiters(pthread_t *t, int n)
{
    waiting = 0;
    for (int i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, waiter, NULL) == 0);
    while (__atomic_load_n(&waiting, __ATOMIC_SEQ_CST) < n)
        sched_yield();
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

static void join_all(pthread_t *t, int n, const char *what)
{
    int ok = 0;
    for (int i = 0; i < n; i++) {
        void *r;
        CHECK(pthread_join(t[i], &r) == 0);
        ok += (intptr_t)r == 0;
    }
    printf("%s: %d of %d waiters returned 0\n", what, ok, n);
}

static long ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static void bitset_timeout(clockid_t clk, int flag, const char *name)
{
    struct timespec now, until, t0;
    /* t0 first: however long reading the clock takes, the deadline is >= 30 ms after t0. */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(clk, &now);
    until = now;
    until.tv_nsec += 30 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    EXPECT_ERR(name, futex(&a, FUTEX_WAIT_BITSET_PRIVATE | flag, 0, &until, NULL, FUTEX_BITSET_MATCH_ANY), ETIMEDOUT);
    printf("  waited until the deadline: %d\n", ms_since(&t0) >= 25);
}

int main(void)
{
    pthread_t t[3];
    bitset_timeout(CLOCK_MONOTONIC, 0, "WAIT_BITSET, CLOCK_MONOTONIC deadline");
    bitset_timeout(CLOCK_REALTIME, FUTEX_CLOCK_REALTIME, "WAIT_BITSET, CLOCK_REALTIME deadline");

    start_waiters(t, 3);
    EXPECT_ERR("CMP_REQUEUE with a stale value", futex(&a, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)10, &b, 7), EAGAIN);
    printf("CMP_REQUEUE: %ld woken or moved\n", futex(&a, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)10, &b, 0));
    printf("WAKE on the first word: %ld\n", futex(&a, FUTEX_WAKE_PRIVATE, 10, NULL, NULL, 0));
    printf("WAKE one on the second word: %ld\n", futex(&b, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
    /* b += 10; wake up to 5 on b if b was 0 before (it was). */
    long r = futex(&a, FUTEX_WAKE_OP_PRIVATE, 1, (void *)5, &b, FUTEX_OP(FUTEX_OP_ADD, 10, FUTEX_OP_CMP_EQ, 0));
    printf("WAKE_OP add: %ld woken, second word %u\n", r, b);
    join_all(t, 3, "requeue round");

    start_waiters(t, 2);
    printf("REQUEUE: %ld woken or moved\n", futex(&a, FUTEX_REQUEUE_PRIVATE, 0, (void *)1, &b, 0));
    /* b = 1 << 4; the old value (10) is not > 20: nobody on b is woken; one on a is. */
    b = 10;
    r = futex(&a, FUTEX_WAKE_OP_PRIVATE, 1, (void *)5, &b,
              FUTEX_OP((FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT), 4, FUTEX_OP_CMP_GT, 20));
    printf("WAKE_OP set with shift: %ld woken, second word %u\n", r, b);
    printf("WAKE the one left on the second word: %ld\n", futex(&b, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
    join_all(t, 2, "second round");
    return 0;
}
