/* munmap(2) and mprotect(2) while other threads are in the middle of long runs of loads and
 * stores to the pages, with no branch between them (one translated block in an emulator: the
 * accesses of a block that had begun before the call returned go on through whatever the
 * emulator cached for those pages). Once munmap or mprotect has returned, no thread may reach
 * the pages with the permissions they lost: an access faults (SIGSEGV at an address inside the
 * range), or, once a new mapping is in place, reaches the new one with its permissions.
 *
 * Six workers (more than most machines running the test have free cores, so that one is often
 * preempted in the middle of its block) run their block over and over: it reads the round's
 * phase first, inside the block, then loads and stores (a new value each time) every 64th word
 * of two pages. Rounds of three kinds, each starting from the pages mapped read-write and
 * filled with OLD(r):
 * 0. munmap, then at once a read-only mapping there (fresh zero pages), then munmap and a
 *    read-write mapping;
 * 1. the same, with the workers run on between the munmap and the read-only mapping;
 * 2. mprotect to read-only, then to PROT_NONE, then munmap and a read-write mapping.
 * Judged:
 * - a load made after the worker saw the phase "unmapped" or "PROT_NONE" never returns OLD(r);
 * - no store lands in the read-only mapping (it stays all zero) or in the pages made read-only
 *   (they keep what they held when mprotect returned);
 * - every SIGSEGV names an address inside the two pages;
 * - the workers keep running (faults are taken and survived) to the end. */
#include "common.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

enum { ROUNDS = 81, STEP = 64, WORKERS = 6 };
#define OLD(r) (0x5a000000L + (r))

static long *volatile area;
static long page;
/* round * 4 + step. Rounds of kinds 0 and 1 (round % 3): step 0 read-write OLD, 1 unmapped,
 * 2 read-only, 3 unmapped again; kind 2: 0 read-write OLD, 1 made read-only, 2 PROT_NONE. */
static int phase;
static int done;
static __thread sigjmp_buf jb;
static __thread volatile int in_block;
static __thread volatile uintptr_t fault_addr;
static int bad_addr, bad_old, any_fault;
/* Blocks run and faults taken, per worker. */
static unsigned long runs[WORKERS];

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (!in_block)
        _exit(3);
    fault_addr = (uintptr_t)si->si_addr;
    siglongjmp(jb, 1);
}

/* One run of loads and stores with no branch between them. Returns the phase read at its start;
 * *old counts the loads that returned OLD of that phase's round. */
#define ACCESS(i)                                                                   \
    do {                                                                            \
        long v_ = ((volatile long *)w)[(i) * STEP];                                 \
        hits += v_ == want;                                                         \
        ((volatile long *)w)[(i) * STEP + 1] = tag;                                 \
    } while (0)
#define ACCESS8(i)                                                                  \
    ACCESS(i);                                                                      \
    ACCESS(i + 1);                                                                  \
    ACCESS(i + 2);                                                                  \
    ACCESS(i + 3);                                                                  \
    ACCESS(i + 4);                                                                  \
    ACCESS(i + 5);                                                                  \
    ACCESS(i + 6);                                                                  \
    ACCESS(i + 7)

static __attribute__((noinline)) int block(long *w, long tag, long *old)
{
    int p = __atomic_load_n(&phase, __ATOMIC_ACQUIRE);
    long want = OLD(p / 4);
    long hits = 0;
    ACCESS8(0);
    ACCESS8(8);
    /* The steps in which the pages holding OLD are gone or inaccessible. */
    int gone = (p / 4) % 3 == 2 ? p % 4 == 2 : p % 4 != 0;
    *old = gone ? hits : 0;
    return p;
}

static void *worker(void *arg)
{
    unsigned long *mine = &runs[(uintptr_t)arg];
    long *w = area;
    long tag = 1;
    /* The jump buffer is set again only after a fault (with the signal mask: a system call),
     * so that the workers spend their time in their blocks. */
    if (sigsetjmp(jb, 1)) {
        in_block = 0;
        __atomic_add_fetch(mine, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&any_fault, 1, __ATOMIC_RELAXED);
        uintptr_t a = fault_addr, lo = (uintptr_t)w;
        if (a < lo || a >= lo + 2 * (uintptr_t)page)
            __atomic_store_n(&bad_addr, 1, __ATOMIC_RELAXED);
    }
    in_block = 1;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        long old = 0;
        int p = block(w, ++tag, &old);
        __atomic_add_fetch(mine, 1, __ATOMIC_RELEASE);
        if (old && !__atomic_exchange_n(&bad_old, 1, __ATOMIC_RELAXED))
            printf("round %d step %d: a load returned the old pages' value\n", p / 4, p % 4);
    }
    in_block = 0;
    return NULL;
}

/* Waits until every worker has finished two more blocks (run or faulted): one that may have
 * begun before the last change, and one begun after it. */
#include "stale_pages.h"

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    page = sysconf(_SC_PAGESIZE);
    /* The block's last access is word 15 * STEP + 1 of the two pages. */
    CHECK((15 * STEP + 2) * (long)sizeof(long) <= 2 * page);
    struct sigaction sa = {0};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    void *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    area = p;
    for (size_t i = 0; i < 2 * page / sizeof(long); i++)
        area[i] = OLD(0);
    pthread_t t[WORKERS];
    for (uintptr_t k = 0; k < WORKERS; k++)
        CHECK(pthread_create(&t[k], NULL, worker, (void *)k) == 0);
    int landed = 0, changed = 0;
    static long held[2 * 65536 / sizeof(long)];
    CHECK(2 * page <= (long)sizeof held);
    for (int r = 0; r < ROUNDS; r++) {
        settle();
        if (r % 3 == 2) {
            CHECK(mprotect(area, 2 * page, PROT_READ) == 0);
            memcpy(held, area, 2 * page);
            __atomic_store_n(&phase, r * 4 + 1, __ATOMIC_RELEASE);
            settle();
            if (memcmp(held, area, 2 * page) != 0)
                changed = 1;
            CHECK(mprotect(area, 2 * page, PROT_NONE) == 0);
            __atomic_store_n(&phase, r * 4 + 2, __ATOMIC_RELEASE);
            settle();
            /* Fresh pages, so that a load made after the PROT_NONE step (as its phase says)
             * can find OLD(r) only through what it cached. */
            CHECK(munmap(area, 2 * page) == 0);
            map_at(PROT_READ | PROT_WRITE);
        } else {
            CHECK(munmap(area, 2 * page) == 0);
            __atomic_store_n(&phase, r * 4 + 1, __ATOMIC_RELEASE);
            if (r % 3 == 1)
                settle();
            /* In rounds of kind 0 at once: a worker preempted in the middle of its block before
             * the munmap finishes it after this mapping is in place. */
            map_at(PROT_READ);
            __atomic_store_n(&phase, r * 4 + 2, __ATOMIC_RELEASE);
            settle();
            for (size_t i = 0; i < 2 * page / sizeof(long); i++)
                if (area[i] != 0)
                    landed = 1;
            CHECK(munmap(area, 2 * page) == 0);
            __atomic_store_n(&phase, r * 4 + 3, __ATOMIC_RELEASE);
            settle();
            map_at(PROT_READ | PROT_WRITE);
        }
        for (size_t i = 0; i < 2 * page / sizeof(long); i++)
            area[i] = OLD(r + 1);
        __atomic_store_n(&phase, (r + 1) * 4, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < WORKERS; k++)
        CHECK(pthread_join(t[k], NULL) == 0);
    printf("stores into the read-only mapping: %s\n", landed ? "some landed" : "none");
    printf("faults outside the pages: %d\n", bad_addr);
    printf("stores into the pages made read-only: %s\n", changed ? "some landed" : "none");
    printf("old values after munmap or PROT_NONE: %s\n", bad_old ? "seen" : "never");
    printf("workers ran through every round with faults: %s\n", any_fault ? "yes" : "no");
    return 0;
}
