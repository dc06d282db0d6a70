/* Stacks that grow (mm/mmap.c expand_downwards): a touch below a MAP_GROWSDOWN mapping
 * extends it down to the touched page, unless the mapping would exceed RLIMIT_STACK or come
 * within stack_guard_gap (256 pages) of an accessible mapping below it (then SIGSEGV); the
 * main stack grows the same way on demand, also for a system call's buffer the program has
 * not touched yet. */
#include "common.h"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    siglongjmp(env, 1);
}

/* Touches `p`; 1 if it faulted. */
static int touch(volatile char *p)
{
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        *p = 1;
    return got_sig != 0;
}

/* The start of the maps line that ends at `end`, or 0. */
static uintptr_t start_of_mapping_ending_at(uintptr_t end)
{
    static char maps[1 << 18];
    int fd = open("/proc/self/maps", O_RDONLY);
    CHECK(fd >= 0);
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, maps + n, sizeof maps - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    maps[n] = 0;
    for (char *l = maps; *l; l = strchr(l, '\n') + 1) {
        unsigned long a, b;
        if (sscanf(l, "%lx-%lx", &a, &b) == 2 && b == end)
            return a;
    }
    return 0;
}

static size_t stack_size(void)
{
    static char maps[1 << 18];
    int fd = open("/proc/self/maps", O_RDONLY);
    CHECK(fd >= 0);
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, maps + n, sizeof maps - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    maps[n] = 0;
    char *s = strstr(maps, "[stack]");
    CHECK(s);
    while (s > maps && s[-1] != '\n')
        s--;
    unsigned long a, b;
    CHECK(sscanf(s, "%lx-%lx", &a, &b) == 2);
    return b - a;
}

static void set_stack_limit(rlim_t v)
{
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_STACK, &rl) == 0);
    rl.rlim_cur = v;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < v)
        rl.rlim_cur = rl.rlim_max;
    CHECK(setrlimit(RLIMIT_STACK, &rl) == 0);
}

/* Uses about `depth` KiB of stack, touching every page. */
static __attribute__((noinline)) int deep(int depth)
{
    volatile char frame[1024];
    frame[0] = (char)depth;
    frame[1023] = 0;
    if (depth <= 1)
        return frame[0];
    return deep(depth - 1) + frame[1023];
}

/* Reads into a buffer far below anything the program touched on its stack. */
static __attribute__((noinline)) ssize_t read_deep(int fd)
{
    char big[2 << 20];
    ssize_t n = read(fd, big, sizeof big);
    return n == (ssize_t)sizeof big && big[0] == 0 && big[sizeof big - 1] == 0 ? n : -1;
}

int main(void)
{
    const size_t M = 1 << 20, pg = (size_t)sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    set_stack_limit(64 * M);

    /* A layout of our own: a readable mapping A = [B, B+4M), free space up to B+24M, and a
     * MAP_GROWSDOWN mapping G = [B+24M, B+24M+16K). */
    char *b = mmap(NULL, 32 * M, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(b != MAP_FAILED);
    CHECK(munmap(b + 4 * M, 28 * M) == 0);
    CHECK(mprotect(b, 4 * M, PROT_READ) == 0);
    char *g = mmap(b + 24 * M, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN,
                   -1, 0);
    CHECK(g == b + 24 * M);
    uintptr_t end = (uintptr_t)(g + 4 * pg);
    int f;

    f = touch(g - 1);
    printf("touch 1 byte below: fault %d, mapping starts there: %d\n", f,
           start_of_mapping_ending_at(end) == (uintptr_t)(g - pg));
    f = touch(b + 20 * M);
    printf("touch 4 MiB below: fault %d, mapping starts there: %d\n", f,
           start_of_mapping_ending_at(end) == (uintptr_t)(b + 20 * M));
    set_stack_limit(6 * M);
    f = touch(b + 16 * M);
    printf("touch past RLIMIT_STACK: fault %s %s, mapping unchanged: %d\n", f ? "SIGSEGV" : "none",
           got_code == SEGV_MAPERR ? "SEGV_MAPERR" : "?", start_of_mapping_ending_at(end) == (uintptr_t)(b + 20 * M));
    set_stack_limit(64 * M);
    f = touch(b + 4 * M + M / 2);
    printf("touch within the guard gap of A: fault %s %s, mapping unchanged: %d\n", f ? "SIGSEGV" : "none",
           got_code == SEGV_MAPERR ? "SEGV_MAPERR" : "?", start_of_mapping_ending_at(end) == (uintptr_t)(b + 20 * M));
    f = touch(b + 5 * M + pg);
    printf("touch just past the guard gap: fault %d, mapping starts there: %d\n", f,
           start_of_mapping_ending_at(end) == (uintptr_t)(b + 5 * M + pg));
    printf("grown pages read zero, flags kept: %d\n", b[5 * M + pg + 1] == 0 && b[20 * M + 7] == 0);

    /* The main stack: small at start, grows on demand. */
    size_t before = stack_size();
    printf("main stack starts below 1 MiB: %d\n", before < M);
    int d = deep(4096);
    printf("recursion through 4 MiB: %d\n", d == 1);
    printf("main stack grew past 4 MiB: %d\n", stack_size() >= 4 * M);
    int zero = open("/dev/zero", O_RDONLY);
    CHECK(zero >= 0);
    printf("read(2) into an untouched 2 MiB stack buffer: %s\n", read_deep(zero) > 0 ? "ok" : "no");
    return 0;
}
