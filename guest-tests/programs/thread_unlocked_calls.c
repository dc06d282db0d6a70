/* System calls that touch nothing but their arguments and the caller, made by three threads
 * while the main thread changes the mapping their buffers lie in: clock_gettime(2) writing a
 * timespec into that page, getrandom(2) filling 16 bytes of it, futex(2) FUTEX_WAKE (private
 * and shared) on a word in it, and getpid/gettid/sched_yield/the vDSO clock beside them. The page goes through four states,
 * 100 rounds: read-write, read-only (mprotect), unmapped (munmap), mapped again read-only
 * (a new, zero page at the same address); the workers also wait briefly in a futex and a
 * sleep on each round. In each state the main thread waits until every
 * worker has made a whole round of calls, then checks the page.
 *
 * What Linux guarantees (clock_gettime(2), futex(2), mprotect(2), munmap(2)):
 * - clock_gettime returns 0 when the page is writable, EFAULT otherwise; getrandom(2) of
 *   16 bytes (printed as 0 when it fills all 16) likewise;
 * - FUTEX_WAKE on a private futex returns 0 (nothing woken) whatever the page, as the kernel
 *   only range-checks the address; a shared one returns 0 while the page is mapped, EFAULT
 *   when it is not;
 * - once mprotect(PROT_READ) or munmap has returned, no call stores into the page: the bytes
 *   of the read-only page and of the new zero page stay as the main thread saw them;
 * - getpid is the process's, gettid each thread's own (as first read), sched_yield 0, and
 *   CLOCK_MONOTONIC never goes back;
 * - a private FUTEX_WAIT on a word holding the value times out (ETIMEDOUT) after its 1 us,
 *   one on a word holding another value fails with EAGAIN, and nanosleep returns 0 (no
 *   signal is sent).
 * An emulator that serves such calls without its own locks must keep all of this while the
 * mappings change under it. */
#include "common.h"
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { WORKERS = 3, ROUNDS = 100 };
#include "page_states.h"

static pid_t pid;
/* Per state and call: the results seen, as bits (OK_BIT: 0, EFAULT_BIT, OTHER_BIT: anything
 * else). */
enum { OK_BIT = 1, EFAULT_BIT = 2, OTHER_BIT = 4 };
static int seen_clock[STATES], seen_random[STATES], seen_wake_private[STATES], seen_wake_shared[STATES];
static long bad_ids, bad_mono, bad_waits;
static pthread_mutex_t bad_lock = PTHREAD_MUTEX_INITIALIZER;

/* The result bit of a call that returned r (errno e when r is -1). */
static int result_bit(long r, int e)
{
    if (r == 0)
        return OK_BIT;
    return r == -1 && e == EFAULT ? EFAULT_BIT : OTHER_BIT;
}

/* The outcome bits' names, lowest bit first. */
static const char *const outcome_name[] = { "0", "EFAULT", "other", NULL };

static void print_bits(const char *call, int bits)
{
    print_outcomes(call, bits, outcome_name);
}

static void *worker(void *arg)
{
    long w = (long)arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    struct timespec last = { 0, 0 };
    while (!stop) {
        int s = state;
        struct timespec *slot = (struct timespec *)(page + 64 * (w + 1));
        long r = syscall(SYS_clock_gettime, CLOCK_MONOTONIC, slot);
        int c = result_bit(r, errno);
        r = syscall(SYS_getrandom, page + 64 * (w + 1) + 32, 16, 0);
        int g = result_bit(r == 16 ? 0 : r, errno);
        int *word = (int *)(page + 16 * w);
        r = syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        int wp = result_bit(r, errno);
        r = syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
        int ws = result_bit(r, errno);
        /* Two calls that wait, on the thread's own stack: a private futex wait that times
         * out, and a sleep. */
        int own = 7;
        struct timespec tiny = { 0, 1000 };
        r = syscall(SYS_futex, &own, FUTEX_WAIT_PRIVATE, 7, &tiny, NULL, 0);
        int waits_ok = r == -1 && errno == ETIMEDOUT;
        waits_ok &= syscall(SYS_futex, &own, FUTEX_WAIT_PRIVATE, 8, &tiny, NULL, 0) == -1 && errno == EAGAIN;
        waits_ok &= nanosleep(&tiny, NULL) == 0;
        int s2 = state;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int ids_ok = getpid() == pid && syscall(SYS_gettid) == tid && sched_yield() == 0;
        int mono_ok = now.tv_sec > last.tv_sec || (now.tv_sec == last.tv_sec && now.tv_nsec >= last.tv_nsec);
        last = now;
        pthread_mutex_lock(&bad_lock);
        if (s == s2 && s != CHANGING) {
            /* The state did not change during the calls: each result is the state's. */
            seen_clock[s] |= c;
            seen_random[s] |= g;
            seen_wake_private[s] |= wp;
            seen_wake_shared[s] |= ws;
        }
        if (!ids_ok)
            bad_ids++;
        if (!waits_ok)
            bad_waits++;
        if (!mono_ok)
            bad_mono++;
        pthread_mutex_unlock(&bad_lock);
        __atomic_add_fetch(&calls[w], 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

int main(void)
{
    pid = getpid();
    pagesize = sysconf(_SC_PAGESIZE);
    page = mmap(NULL, pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    struct page_rounds seen_rounds = run_page_rounds(worker, ROUNDS, NULL);
    printf("%d rounds of %d states, %d workers\n", ROUNDS, STATES, WORKERS);
    for (int s = 0; s < STATES; s++) {
        printf("%s:", state_name[s]);
        print_bits(" clock_gettime", seen_clock[s]);
        print_bits(", getrandom", seen_random[s]);
        print_bits(", private wake", seen_wake_private[s]);
        print_bits(", shared wake", seen_wake_shared[s]);
        printf("\n");
    }
    printf("read-only page stored to: %ld rounds\n", seen_rounds.changed_ro);
    printf("new page stored to: %ld rounds\n", seen_rounds.changed_fresh);
    printf("remap failed: %ld\n", seen_rounds.remap_failed);
    printf("ids or yield wrong: %ld, monotonic clock went back: %ld\n", bad_ids, bad_mono);
    printf("futex waits or sleeps wrong: %ld\n", bad_waits);

    /* A shared futex in a read-only anonymous page is EFAULT only once the kernel's checks of
     * the other arguments passed: their errors come first. */
    CHECK(mprotect(page, pagesize, PROT_READ) == 0);
    int *w0 = (int *)page;
    struct timespec bad_ts = { 0, 2000000000 };
    long r1 = syscall(SYS_futex, w0, FUTEX_WAKE, 1, NULL, NULL, 0);
    int e1 = errno;
    long r2 = syscall(SYS_futex, w0, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0);
    int e2 = errno;
    long r3 = syscall(SYS_futex, w0, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0);
    int e3 = errno;
    long r4 = syscall(SYS_futex, w0, FUTEX_WAIT, 0, &bad_ts, NULL, 0);
    int e4 = errno;
    long r5 = syscall(SYS_futex, w0, 15, 0, NULL, NULL, 0);
    int e5 = errno;
    printf("read-only page, shared futex: wake %s, wake realtime %s, wake bitset 0 %s, "
           "wait bad timeout %s, op 15 %s\n",
           r1 == -1 ? errname(e1) : "0", r2 == -1 ? errname(e2) : "0", r3 == -1 ? errname(e3) : "0",
           r4 == -1 ? errname(e4) : "0", r5 == -1 ? errname(e5) : "0");
    return 0;
}
