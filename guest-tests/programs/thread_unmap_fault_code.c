/* Six workers store into two pages in long branch-free blocks while main keeps unmapping the
 * pages and mapping fresh read-write ones there (munmap(2), mmap(2) with MAP_FIXED). The pages
 * are only ever read-write or unmapped, so every SIGSEGV a worker takes is SEGV_MAPERR at an
 * address inside the pages (sigaction(2): SEGV_ACCERR is for mapped pages without the
 * permission). An emulator whose engine retries an access the host refused while another
 * thread remaps the page, and then gives up, must still name it as unmapped or run it. */
#include "common.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

enum { ROUNDS = 200, WORKERS = 6, STEP = 64 };
static long *volatile area;
static long page;
static int done, phase;
static __thread sigjmp_buf jb;
static __thread volatile int in_block;
static unsigned long runs[WORKERS], nfault, nbad;
static int first_bad_code = 0, first_bad_phase = -1;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (!in_block)
        _exit(3);
    int p = __atomic_load_n(&phase, __ATOMIC_ACQUIRE);
    uintptr_t a = (uintptr_t)si->si_addr, lo = (uintptr_t)area;
    __atomic_add_fetch(&nfault, 1, __ATOMIC_RELAXED);
    if (si->si_code != SEGV_MAPERR || a < lo || a >= lo + 2 * (uintptr_t)page) {
        if (__atomic_add_fetch(&nbad, 1, __ATOMIC_RELAXED) == 1) {
            first_bad_code = si->si_code;
            first_bad_phase = p;
        }
    }
    siglongjmp(jb, 1);
}

#define S(i) ((volatile long *)w)[(i) * STEP] = tag
#define S8(i) S(i); S(i + 1); S(i + 2); S(i + 3); S(i + 4); S(i + 5); S(i + 6); S(i + 7)
static __attribute__((noinline)) void block(long *w, long tag)
{
    S8(0);
    S8(8);
}

static void *worker(void *arg)
{
    unsigned long *mine = &runs[(uintptr_t)arg];
    long *w = area;
    if (sigsetjmp(jb, 1)) {
        in_block = 0;
        __atomic_add_fetch(mine, 1, __ATOMIC_RELEASE);
    }
    in_block = 1;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        block(w, 7);
        __atomic_add_fetch(mine, 1, __ATOMIC_RELEASE);
    }
    in_block = 0;
    return NULL;
}

#include "stale_pages.h"

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    page = sysconf(_SC_PAGESIZE);
    struct sigaction sa = {0};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    void *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    area = p;
    pthread_t t[WORKERS];
    for (uintptr_t k = 0; k < WORKERS; k++)
        CHECK(pthread_create(&t[k], NULL, worker, (void *)k) == 0);
    for (int r = 0; r < ROUNDS; r++) {
        settle();
        CHECK(munmap(area, 2 * page) == 0);
        __atomic_store_n(&phase, r * 4 + 1, __ATOMIC_RELEASE);
        if (r % 2)
            settle();
        __atomic_store_n(&phase, r * 4 + 2, __ATOMIC_RELEASE);
        __atomic_store_n(&phase, r * 4 + 3, __ATOMIC_RELEASE);
        map_at(PROT_READ | PROT_WRITE);
        __atomic_store_n(&phase, (r + 1) * 4, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < WORKERS; k++)
        CHECK(pthread_join(t[k], NULL) == 0);
    if (nbad)
        printf("first bad fault: si_code %d in phase %d\n", first_bad_code, first_bad_phase);
    printf("faults not SEGV_MAPERR inside the pages: %lu\n", nbad);
    printf("workers faulted: %s\n", nfault ? "yes" : "no");
    return 0;
}
