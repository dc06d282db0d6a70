/* One thread unmaps and remaps memory that another thread keeps reading (munmap(2): once munmap
 * returns, no thread can reach the old pages). The reader reads a word in a loop, catching
 * SIGSEGV: after it has seen the writer's "unmapped" flag its reads must fault (or, once the
 * writer has remapped, give the new value), never return the old value; after the "remapped"
 * flag (a new mapping at the same address with another value) they must return the new value.
 * 200 rounds. */
#include "common.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

enum { ROUNDS = 200 };
/* The value of round r's first mapping, and of the mapping that replaces it (never 0, the
 * value of a new page). */
#define OLD(r) (4L * (r) + 10)
#define NEW(r) (4L * (r) + 11)
static volatile long *word;
static long page;
static int phase; /* round * 3 + 0 mapped (old value), 1 unmapped, 2 remapped (new value) */
static int reader_phase = -1;
static __thread sigjmp_buf jb;
static __thread volatile int in_read;
static int bad;

static void on_segv(int sig)
{
    (void)sig;
    if (in_read)
        siglongjmp(jb, 1);
    _exit(3);
}

/* Reads the word: 1 and *out on success, 0 on SIGSEGV. */
static int try_read(long *out)
{
    if (sigsetjmp(jb, 1)) {
        in_read = 0;
        return 0;
    }
    in_read = 1;
    long v = *word;
    in_read = 0;
    *out = v;
    return 1;
}

/* Judges one read made in phase p (confirmed: the phase had not moved on after the read). The
 * writer may already have begun the step to the next phase (munmap in phase 0, the remap and
 * its store in phase 1, the next round's store in phase 2); what it must never give is the old
 * value once munmap has returned, or a fault once the new mapping is in place. */
static int judge(int p, int ok, long v)
{
    long round = p / 3;
    switch (p % 3) {
    case 0:
        return !ok || v == OLD(round);
    case 1:
        /* 0: the new mapping before the writer's store. */
        return !ok || v == 0 || v == NEW(round);
    default:
        return ok && (v == NEW(round) || v == OLD(round + 1));
    }
}

static void *reader(void *arg)
{
    (void)arg;
    for (;;) {
        int p = __atomic_load_n(&phase, __ATOMIC_ACQUIRE);
        if (p < 0)
            return NULL;
        long v = 0;
        int ok = try_read(&v);
        if (__atomic_load_n(&phase, __ATOMIC_ACQUIRE) != p)
            continue; /* the writer moved on during the read: judge the next one */
        if (!judge(p, ok, v) && !bad) {
            printf("round %d phase %d: read %s %ld\n", p / 3, p % 3, ok ? "value" : "fault", ok ? v : 0L);
            bad = 1;
        }
        __atomic_store_n(&reader_phase, p, __ATOMIC_RELEASE);
    }
}

/* Waits until the reader has read at least once in phase p. */
static void wait_reader(int p)
{
    while (__atomic_load_n(&reader_phase, __ATOMIC_ACQUIRE) < p)
        ;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    struct sigaction sa = {0};
    sa.sa_handler = on_segv;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    page = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    word = p;
    *word = OLD(0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, reader, NULL) == 0);
    for (int round = 0; round < ROUNDS; round++) {
        /* Phase 0: mapped (the previous round's new mapping), value OLD(round). */
        *word = OLD(round);
        __atomic_store_n(&phase, round * 3, __ATOMIC_RELEASE);
        wait_reader(round * 3);
        CHECK(munmap((void *)word, page) == 0);
        __atomic_store_n(&phase, round * 3 + 1, __ATOMIC_RELEASE);
        wait_reader(round * 3 + 1);
        void *q = mmap((void *)word, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        CHECK(q == (void *)word);
        *word = NEW(round);
        __atomic_store_n(&phase, round * 3 + 2, __ATOMIC_RELEASE);
        wait_reader(round * 3 + 2);
    }
    __atomic_store_n(&phase, -1, __ATOMIC_RELEASE);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(!bad);
    printf("%d unmaps seen by another thread: ok\n", ROUNDS);
    return 0;
}
