/* The page whose mapping the main thread changes under worker threads, for the tests of
 * system calls served without an emulator's locks (thread_unlocked_calls, thread_unlocked_io).
 * Include after defining WORKERS. The page goes through four states per round: read-write,
 * read-only (mprotect), unmapped (munmap), mapped again read-only (a new zero page at the same
 * address); in each, the main thread waits until every worker made two whole rounds of calls
 * (so one ran entirely in that state; workers read `state` before and after their calls and
 * count a round in `calls`). */
#ifndef GUEST_TESTS_PAGE_STATES_H
#define GUEST_TESTS_PAGE_STATES_H

#include "common.h"
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

/* The page's state; CHANGING while the main thread changes it. */
enum { CHANGING = -1, RW, RO, GONE, FRESH, STATES };
static const char *const state_name[STATES] = { "read-write", "read-only", "unmapped", "new read-only" };

static char *page;
static long pagesize;
static volatile int state;
static long calls[WORKERS];
/* Set once the rounds are over: the workers return. */
static volatile int stop;

/* Waits until every worker has made two whole rounds of calls since now. */
static void wait_for_workers(void)
{
    long at[WORKERS];
    for (int w = 0; w < WORKERS; w++)
        at[w] = __atomic_load_n(&calls[w], __ATOMIC_SEQ_CST);
    for (int w = 0; w < WORKERS; w++)
        while (__atomic_load_n(&calls[w], __ATOMIC_SEQ_CST) < at[w] + 2)
            sched_yield();
}

/* What the rounds saw: rounds in which the read-only page or the new page changed, and
 * whether mapping the page again failed (the rounds stop then). */
struct page_rounds {
    long changed_ro, changed_fresh, remap_failed;
};

/* Runs `rounds` rounds of the four states on `page`; `refill` (if any) runs each time the
 * page is read-write again at the end of a round. */
static struct page_rounds cycle_page_states(int rounds, void (*refill)(void))
{
    static char snap[1 << 16];
    struct page_rounds out = { 0, 0, 0 };
    CHECK(pagesize <= (long)sizeof snap);
    for (int r = 0; r < rounds; r++) {
        state = RW;
        wait_for_workers();
        state = CHANGING;
        CHECK(mprotect(page, pagesize, PROT_READ) == 0);
        state = RO;
        memcpy(snap, page, pagesize);
        wait_for_workers();
        if (memcmp(snap, page, pagesize) != 0)
            out.changed_ro++;
        state = CHANGING;
        CHECK(munmap(page, pagesize) == 0);
        state = GONE;
        wait_for_workers();
        state = CHANGING;
        char *again = mmap(page, pagesize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (again != page) {
            out.remap_failed++;
            break;
        }
        state = FRESH;
        wait_for_workers();
        for (long i = 0; i < pagesize; i++)
            if (page[i] != 0) {
                out.changed_fresh++;
                break;
            }
        state = CHANGING;
        CHECK(mprotect(page, pagesize, PROT_READ | PROT_WRITE) == 0);
        if (refill)
            refill();
    }
    return out;
}

/* Starts WORKERS threads running `worker` (argument: the worker's number), runs `rounds`
 * rounds of the page states (see cycle_page_states), then stops and joins the workers. */
static struct page_rounds run_page_rounds(void *(*worker)(void *), int rounds, void (*refill)(void))
{
    pthread_t t[WORKERS];
    for (long w = 0; w < WORKERS; w++)
        CHECK(pthread_create(&t[w], NULL, worker, (void *)w) == 0);
    struct page_rounds out = cycle_page_states(rounds, refill);
    stop = 1;
    for (int w = 0; w < WORKERS; w++)
        CHECK(pthread_join(t[w], NULL) == 0);
    return out;
}

/* Prints `label`, then the name of each outcome bit set in `bits` (names[i] for bit 1 << i,
 * `names` ending with NULL), or " none". */
static void print_outcomes(const char *label, int bits, const char *const *names)
{
    printf("%s", label);
    for (int i = 0; names[i]; i++)
        if (bits & (1 << i))
            printf(" %s", names[i]);
    if (!bits)
        printf(" none");
}

#endif
