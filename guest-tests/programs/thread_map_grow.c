/* Memory that one thread adds while others run (mmap(2), mprotect(2), brk(2)): what the
 * adding thread has made accessible and announced is accessible to every other thread, with
 * the contents it wrote; what it has not is a fault. The shapes of real programs: glibc's
 * malloc arenas (a PROT_NONE reservation made read-write piece by piece with mprotect), Go's
 * heap (a PROT_NONE reservation mapped over with MAP_FIXED), large allocations (mmap, touch,
 * munmap in several threads at once), a page made writable after other threads read it, and
 * the break moved up while other threads use the heap; a writable page made executable
 * (a JIT's buffer) into which another thread, which stored there before, then writes code.
 * An emulator that lets such calls go without stopping the other threads must still show
 * each of them the new permissions at once. */
#include "common.h"
#include "jit.h"
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

enum { PAGE = 65536, PIECES = 64, CHURN_THREADS = 4, CHURN_ROUNDS = 300, BRK_STEPS = 64 };

static unsigned char *region;
static volatile int published = -1; /* the last piece made accessible and filled */
static volatile int done;
static __thread sigjmp_buf probe_env;
static __thread volatile int probing;

static void on_segv(int sig)
{
    (void)sig;
    if (probing)
        siglongjmp(probe_env, 1);
    _exit(99);
}

/* 1 if the byte at `p` can be read (its value in *v) or, with `write`, written with *v; 0 if
 * the access faults. */
static int access_byte(volatile unsigned char *p, unsigned char *v, int write)
{
    if (sigsetjmp(probe_env, 1)) {
        probing = 0;
        return 0;
    }
    probing = 1;
    if (write)
        *p = *v;
    else
        *v = *p;
    probing = 0;
    return 1;
}

static int probe(volatile unsigned char *p, unsigned char *v)
{
    return access_byte(p, v, 0);
}

static int probe_write(volatile unsigned char *p, unsigned char v)
{
    return access_byte(p, &v, 1);
}

static int watcher_bad;

/* Reads every piece again and again: a published piece must read back its pattern, a piece
 * past the last published one may fault or not (it may be on its way). */
static void *watcher(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        int last = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
        for (int i = 0; i < PIECES; i++) {
            unsigned char v;
            int ok = probe(region + (size_t)i * PAGE + 123, &v);
            if (i <= last && (!ok || v != (unsigned char)(i + 1)))
                watcher_bad++;
        }
    }
    return NULL;
}

/* One reservation filled piece by piece by `grow`, watched by another thread. */
static int grow_watched(int (*grow)(unsigned char *))
{
    region = mmap(NULL, (size_t)PIECES * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(region != MAP_FAILED);
    __atomic_store_n(&published, -1, __ATOMIC_RELEASE);
    __atomic_store_n(&done, 0, __ATOMIC_RELEASE);
    watcher_bad = 0;
    pthread_t w;
    CHECK(pthread_create(&w, NULL, watcher, NULL) == 0);
    for (int i = 0; i < PIECES; i++) {
        unsigned char *p = region + (size_t)i * PAGE;
        CHECK(grow(p) == 0);
        memset(p, i + 1, PAGE);
        __atomic_store_n(&published, i, __ATOMIC_RELEASE);
        usleep(200);
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(w, NULL) == 0);
    CHECK(munmap(region, (size_t)PIECES * PAGE) == 0);
    return watcher_bad;
}

static int grow_mprotect(unsigned char *p)
{
    return mprotect(p, PAGE, PROT_READ | PROT_WRITE);
}

static int grow_fixed(unsigned char *p)
{
    void *q = mmap(p, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    return q == p ? 0 : -1;
}

/* A page other threads have read, then made writable: each writes its mark at once. */
static unsigned char *ro_page;
static volatile int writable;
static int writer_bad;

static void *late_writer(void *arg)
{
    long id = (long)arg;
    unsigned char v;
    for (int i = 0; i < 1000; i++)
        if (!probe(ro_page + id * 64, &v) || v != 7)
            __atomic_add_fetch(&writer_bad, 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&writable, __ATOMIC_ACQUIRE))
        (void)probe(ro_page + id * 64, &v);
    if (!probe_write(ro_page + id * 64, (unsigned char)(100 + id)))
        __atomic_add_fetch(&writer_bad, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* mmap, fill, check, munmap in several threads at once. */
static int churn_bad;

static void *churn(void *arg)
{
    long id = (long)arg;
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        size_t len = (size_t)(1 + (r + id) % 5) * PAGE;
        unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(p != MAP_FAILED);
        for (size_t j = 0; j < len; j += 4096)
            if (p[j] != 0)
                __atomic_add_fetch(&churn_bad, 1, __ATOMIC_SEQ_CST);
        for (size_t j = 0; j < len; j += 4096)
            p[j] = (unsigned char)(id + r);
        for (size_t j = 0; j < len; j += 4096)
            if (p[j] != (unsigned char)(id + r))
                __atomic_add_fetch(&churn_bad, 1, __ATOMIC_SEQ_CST);
        CHECK(munmap(p, len) == 0);
    }
    return NULL;
}

/* The break moved up while another thread keeps reading what was there. */
static unsigned char *heap0;
static volatile int brk_done;
static int brk_bad;

static void *heap_reader(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&brk_done, __ATOMIC_ACQUIRE))
        for (int i = 0; i < 4096; i += 512)
            if (heap0[i] != 0x5a)
                __atomic_add_fetch(&brk_bad, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* A writable page another thread keeps storing to, made executable; that thread then writes
 * `return 6` over the `return 5` the main thread ran, through the same store instructions. */
static unsigned char *jit_page;
static volatile int jit_phase;

static void __attribute__((noinline)) store_bytes(volatile unsigned char *p, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = src[i];
}

static void *jit_patcher(void *arg)
{
    (void)arg;
    unsigned char junk[64] = {0};
    while (__atomic_load_n(&jit_phase, __ATOMIC_ACQUIRE) == 0)
        store_bytes(jit_page + 2048, junk, sizeof junk);
    while (__atomic_load_n(&jit_phase, __ATOMIC_ACQUIRE) == 1)
        ;
    unsigned char six[64];
    size_t len = assemble(six, 6);
    store_bytes(jit_page, six, len);
    __atomic_store_n(&jit_phase, 3, __ATOMIC_RELEASE);
    return NULL;
}

static int call(void *p)
{
    return ((int (*)(void))p)();
}

static int writable_made_executable(void)
{
    jit_page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(jit_page != MAP_FAILED);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, jit_patcher, NULL) == 0);
    usleep(20000);
    CHECK(mprotect(jit_page, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) == 0);
    __atomic_store_n(&jit_phase, 1, __ATOMIC_RELEASE);
    size_t len = assemble(jit_page, 5);
    __builtin___clear_cache((char *)jit_page, (char *)jit_page + len);
    int first = call(jit_page);
    __atomic_store_n(&jit_phase, 2, __ATOMIC_RELEASE);
    while (__atomic_load_n(&jit_phase, __ATOMIC_ACQUIRE) != 3)
        ;
    __builtin___clear_cache((char *)jit_page, (char *)jit_page + len);
    int second = call(jit_page);
    CHECK(pthread_join(t, NULL) == 0);
    return (first == 5) + (second == 6);
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_NODEFER;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

    printf("reservation grown with mprotect, watched: %d bad reads\n", grow_watched(grow_mprotect));
    printf("reservation grown with MAP_FIXED, watched: %d bad reads\n", grow_watched(grow_fixed));

    ro_page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro_page != MAP_FAILED);
    memset(ro_page, 7, PAGE);
    CHECK(mprotect(ro_page, PAGE, PROT_READ) == 0);
    pthread_t lw[4];
    for (long i = 0; i < 4; i++)
        CHECK(pthread_create(&lw[i], NULL, late_writer, (void *)i) == 0);
    usleep(20000);
    CHECK(mprotect(ro_page, PAGE, PROT_READ | PROT_WRITE) == 0);
    __atomic_store_n(&writable, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 4; i++)
        CHECK(pthread_join(lw[i], NULL) == 0);
    int marks = 0;
    for (int i = 0; i < 4; i++)
        marks += ro_page[i * 64] == 100 + i;
    printf("page made writable while read: %d bad accesses, %d of 4 marks\n", writer_bad, marks);

    pthread_t ch[CHURN_THREADS];
    for (long i = 0; i < CHURN_THREADS; i++)
        CHECK(pthread_create(&ch[i], NULL, churn, (void *)i) == 0);
    for (int i = 0; i < CHURN_THREADS; i++)
        CHECK(pthread_join(ch[i], NULL) == 0);
    printf("%d threads x %d mmap/fill/munmap rounds: %d bad bytes\n", CHURN_THREADS, CHURN_ROUNDS, churn_bad);

    heap0 = sbrk(0);
    CHECK(sbrk(4096) == heap0);
    memset(heap0, 0x5a, 4096);
    pthread_t hr;
    CHECK(pthread_create(&hr, NULL, heap_reader, NULL) == 0);
    int grown = 0;
    for (int i = 0; i < BRK_STEPS; i++) {
        unsigned char *top = sbrk(PAGE);
        CHECK(top != (void *)-1);
        memset(top, i, PAGE);
        grown += top[PAGE - 1] == (unsigned char)i;
    }
    __atomic_store_n(&brk_done, 1, __ATOMIC_RELEASE);
    CHECK(pthread_join(hr, NULL) == 0);
    printf("break moved up %d times while read: %d grown, %d bad reads\n", BRK_STEPS, grown, brk_bad);
    printf("writable page made executable, patched by another thread: %d of 2 right\n", writable_made_executable());
    return 0;
}
