/* Shared by the tests in which worker threads access two pages while main unmaps, remaps or
 * write-protects them (thread_unmap_inflight, thread_unmap_fault_code). The including program
 * defines, before including this: WORKERS, `static unsigned long runs[WORKERS]` (blocks each
 * worker finished, run or faulted), `static long *volatile area` (the two pages) and
 * `static long page` (the page size). */
#ifndef GUEST_TESTS_STALE_PAGES_H
#define GUEST_TESTS_STALE_PAGES_H

#include <sched.h>
#include <sys/mman.h>

/* Waits until every worker has finished two more blocks: one that may have begun before the
 * last change, and one begun after it. */
static void settle(void)
{
    unsigned long b[WORKERS];
    for (int k = 0; k < WORKERS; k++)
        b[k] = __atomic_load_n(&runs[k], __ATOMIC_ACQUIRE);
    for (int k = 0; k < WORKERS; k++)
        while (__atomic_load_n(&runs[k], __ATOMIC_ACQUIRE) < b[k] + 2)
            sched_yield();
}

/* Maps two fresh pages with `prot` at `area` (MAP_FIXED over whatever is there). */
static void map_at(int prot)
{
    void *q = mmap(area, 2 * page, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(q == area);
}

#endif
