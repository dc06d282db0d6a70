/* One thread rewrites code that another thread runs (an RWX JIT across threads): a writer
 * assembles `return k` into an RWX page, makes it visible as the architecture asks (the cache
 * flush), publishes k, and waits; the runner waits for k, calls the function and must get
 * exactly k, then acknowledges. 1000 rounds, k cycling through 0..127. The emulator must drop
 * code it translated for the runner when the writer's stores replace it. With
 * THREAD_JIT_ALIAS (thread_jit_alias.c) the page is a memfd mapped twice, the code written
 * through the writable view and run through the executable one. */
#define _GNU_SOURCE
#include "common.h"
#include "jit.h"
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

enum { ROUNDS = 1000 };
static unsigned char *code, *view;
static int published = -1, acked = -1, wrong;

static void sync_instructions(void)
{
    /* The running thread's side of cross-modifying code: a context synchronisation. */
#if defined(__aarch64__)
    __asm__ volatile("isb" ::: "memory");
#elif defined(__arm__)
    __asm__ volatile("isb" ::: "memory");
#elif defined(__riscv)
    __asm__ volatile("fence.i" ::: "memory");
#endif
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void *runner(void *arg)
{
    (void)arg;
    for (int round = 0; round < ROUNDS; round++) {
        while (__atomic_load_n(&published, __ATOMIC_ACQUIRE) != round)
            ;
        sync_instructions();
        int (*f)(void) = (int (*)(void))(uintptr_t)code;
        int r = f();
        if (r != round % 128 && !wrong) {
            printf("round %d: the function returned %d\n", round, r);
            wrong = 1;
        }
        __atomic_store_n(&acked, round, __ATOMIC_RELEASE);
    }
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    long page = sysconf(_SC_PAGESIZE);
#ifdef THREAD_JIT_ALIAS
    int fd = memfd_create("thread_jit_alias", 0);
    CHECK(fd >= 0 && ftruncate(fd, page) == 0);
    view = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    code = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    CHECK(view != MAP_FAILED && code != MAP_FAILED);
#else
    code = mmap(NULL, page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(code != MAP_FAILED);
    view = code;
#endif
    pthread_t t;
    CHECK(pthread_create(&t, NULL, runner, NULL) == 0);
    for (int round = 0; round < ROUNDS; round++) {
        size_t n = assemble(view, (unsigned)round % 128);
        __builtin___clear_cache((char *)code, (char *)code + n);
        __atomic_store_n(&published, round, __ATOMIC_RELEASE);
        while (__atomic_load_n(&acked, __ATOMIC_ACQUIRE) != round)
            ;
    }
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(!wrong);
#ifdef THREAD_JIT_ALIAS
    printf("%d rewrites through another mapping run by another thread: ok\n", ROUNDS);
#else
    printf("%d rewrites run by another thread: ok\n", ROUNDS);
#endif
    return 0;
}
