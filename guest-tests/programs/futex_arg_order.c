/* futex(2) judges its arguments before it looks at a futex word (kernel/futex/syscalls.c,
 * waitwake.c, requeue.c, core.c): a bad timeout is EINVAL, an unknown operation or
 * FUTEX_CLOCK_REALTIME on an operation that does not wait ENOSYS, a bitset of 0 EINVAL,
 * whatever the word's address. Then the words: a private key is only range-checked, so a
 * private wake of an address nothing is mapped at (or NULL) wakes no one and a private
 * requeue onto one requeues no one (0), while a wait or a requeue that reads the word gets
 * EFAULT. A shared key needs the page: a shared requeue onto a read-only anonymous page is
 * EFAULT. */
#include "common.h"
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

static void show(const char *what, long r)
{
    printf("%s: %s\n", what, r == -1 ? errname(errno) : r == 0 ? "0" : "other");
}

int main(void)
{
    int *unmapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(unmapped != MAP_FAILED);
    CHECK(munmap(unmapped, 4096) == 0);
    struct timespec bad = { 0, 2000000000 }, tiny = { 0, 1000 };
    int *words[2] = { NULL, unmapped };
    const char *names[2] = { "NULL", "unmapped" };
    char b[96];
    for (int i = 0; i < 2; i++) {
        int *p = words[i];
        int w = 0;
#define SHOW(label, ...)                                                              \
    do {                                                                              \
        snprintf(b, sizeof b, "%s: %s", names[i], label);                             \
        show(b, syscall(SYS_futex, __VA_ARGS__));                                     \
    } while (0)
        SHOW("wake private", p, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
        SHOW("wake private, realtime clock", p, FUTEX_WAKE_PRIVATE | FUTEX_CLOCK_REALTIME, 1, 0, 0, 0);
        SHOW("wake bitset private, bitset 0", p, FUTEX_WAKE_BITSET_PRIVATE, 1, 0, 0, 0);
        SHOW("wait private, bad timeout", p, FUTEX_WAIT_PRIVATE, 0, &bad, 0, 0);
        SHOW("wait private", p, FUTEX_WAIT_PRIVATE, 0, &tiny, 0, 0);
        SHOW("wait bitset private, bitset 0", p, FUTEX_WAIT_BITSET_PRIVATE, 0, &tiny, 0, 0);
        SHOW("operation 15 private", p, 15 | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0);
        SHOW("cmp_requeue private onto it", &w, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, p, 0);
        SHOW("cmp_requeue private from it", p, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, &w, 0);
        SHOW("cmp_requeue private, negative count", &w, FUTEX_CMP_REQUEUE_PRIVATE, -1, 1, p, 0);
        SHOW("wake_op private onto it", &w, FUTEX_WAKE_OP_PRIVATE, 1, 1, p, 0);
#undef SHOW
    }
    int *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    static int w2;
    show("shared cmp_requeue onto a read-only anonymous page", syscall(SYS_futex, &w2, FUTEX_CMP_REQUEUE, 1, 1, ro, 0));
    show("shared cmp_requeue from a read-only anonymous page", syscall(SYS_futex, ro, FUTEX_CMP_REQUEUE, 1, 1, &w2, 0));
    show("shared cmp_requeue between writable words", syscall(SYS_futex, &w2, FUTEX_CMP_REQUEUE, 1, 1, &w2 + 1, 0));
    /* PI futexes without contention (kernel/futex/pi.c): a free word is taken (it holds the
     * caller's id), taken again EDEADLK, unlocked (0 again), unlocked again EPERM. */
    static unsigned pi;
    show("PI lock of a free word", syscall(SYS_futex, &pi, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    printf("word holds the caller's id: %s\n", pi == (unsigned)syscall(SYS_gettid) ? "yes" : "no");
    show("PI lock again", syscall(SYS_futex, &pi, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    show("PI trylock of the own word", syscall(SYS_futex, &pi, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    show("PI unlock", syscall(SYS_futex, &pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    printf("word after the unlock: %u\n", pi);
    show("PI unlock again", syscall(SYS_futex, &pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    return 0;
}
