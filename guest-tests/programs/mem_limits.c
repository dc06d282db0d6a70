/* The process's own address-space limits (getrlimit(2)): RLIMIT_AS caps the total size of its
 * mappings, RLIMIT_DATA its private writable ones that are not a stack; a mapping, a brk or an
 * mremap beyond either fails with ENOMEM (mm/mmap.c may_expand_vm, check_data_rlimit).
 * Checked: each limit reads back as set, a mapping within it works and one beyond it fails,
 * read-only and shared mappings do not count as data, cur > max is EINVAL, the soft limit goes
 * back up to the hard one, a forked child and a program the child execs keep the limit, and
 * malloc until it fails stops short of the limit.
 *
 * Usage: mem_limits              the checks above
 *        mem_limits exec-check   (run by the checks through execve: the limit it inherited)
 *        mem_limits alloc        malloc 1 MiB at a time, touching it, until malloc fails; prints
 *                                how many, exits 3 (for `endgate --max-memory`: its own error)
 *        mem_limits stack        recurses until the stack cannot grow (a SIGSEGV) */
#include "common.h"
#include <stdint.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MiB (1024UL * 1024)

static void *map(size_t len, int prot, int flags)
{
    return mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);
}

static void set_limit(int res, rlim_t cur)
{
    struct rlimit rl;
    CHECK(getrlimit(res, &rl) == 0);
    rl.rlim_cur = cur;
    CHECK(setrlimit(res, &rl) == 0);
    struct rlimit back;
    CHECK(getrlimit(res, &back) == 0);
    CHECK(back.rlim_cur == cur && back.rlim_max == rl.rlim_max);
}

/* Under a 64 MiB RLIMIT_AS: 128 MiB cannot be mapped, 1 MiB can. */
static void big_refused(const char *who)
{
    void *p = map(128 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    printf("%s: 128 MiB under a 64 MiB RLIMIT_AS: %s\n", who, p == MAP_FAILED ? errname(errno) : "mapped");
    void *q = map(1 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    printf("%s: 1 MiB under it: %s\n", who, q == MAP_FAILED ? errname(errno) : "mapped");
    if (q != MAP_FAILED)
        munmap(q, 1 * MiB);
}

static int alloc_until_failure(void)
{
    unsigned long n = 0;
    for (;;) {
        char *p = malloc(1 * MiB);
        if (p == NULL)
            break;
        for (size_t i = 0; i < 1 * MiB; i += 4096)
            p[i] = 1;
        n++;
        if (n > 1024 * 1024)
            break;
    }
    printf("mem_limits: malloc failed after %lu MiB\n", n);
    fflush(stdout);
    return 3;
}

/* Another thread of the process sets RLIMIT_AS through its own thread id: a limit of the
 * process. */
/* The kernel's struct rlimit64 (include/uapi/linux/resource.h), prlimit64's on every arch. */
struct rlimit64_k {
    uint64_t cur, max;
};

static void *set_through_tid(void *arg)
{
    (void)arg;
    struct rlimit64_k old;
    CHECK(syscall(SYS_prlimit64, 0, RLIMIT_AS, NULL, &old) == 0);
    struct rlimit64_k rl = {.cur = 64 * MiB, .max = old.max};
    CHECK(syscall(SYS_prlimit64, (long)syscall(SYS_gettid), RLIMIT_AS, &rl, NULL) == 0);
    return NULL;
}

static int depth(int n)
{
    volatile char pad[4096];
    pad[0] = (char)n;
    return depth(n + 1) + pad[0];
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && strcmp(argv[1], "alloc") == 0)
        return alloc_until_failure();
    if (argc > 1 && strcmp(argv[1], "stack") == 0)
        return depth(0);
    if (argc > 1 && strcmp(argv[1], "show") == 0) {
        /* The limits the guest started with (emulator/tests/limits.rs: a shell's ulimit -S -v). */
        struct rlimit rl;
        CHECK(getrlimit(RLIMIT_AS, &rl) == 0);
        if (rl.rlim_max == RLIM_INFINITY)
            printf("RLIMIT_AS soft %lu KiB, hard unlimited\n", (unsigned long)(rl.rlim_cur / 1024));
        else
            printf("RLIMIT_AS soft %lu KiB, hard %lu KiB\n", (unsigned long)(rl.rlim_cur / 1024),
                   (unsigned long)(rl.rlim_max / 1024));
        void *p = malloc(16 * MiB);
        printf("malloc 16 MiB: %s\n", p ? "ok" : "failed");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "exec-check") == 0) {
        struct rlimit rl;
        CHECK(getrlimit(RLIMIT_AS, &rl) == 0);
        printf("after execve: RLIMIT_AS %lu MiB\n", (unsigned long)(rl.rlim_cur / MiB));
        big_refused("after execve");
        return 0;
    }

    /* RLIMIT_AS. */
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_AS, &rl) == 0);
    rlim_t hard = rl.rlim_max;
    set_limit(RLIMIT_AS, 64 * MiB);
    big_refused("RLIMIT_AS");
    void *small = map(1 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    CHECK(small != MAP_FAILED);
    void *grown = mremap(small, 1 * MiB, 128 * MiB, MREMAP_MAYMOVE);
    printf("RLIMIT_AS: mremap 1 -> 128 MiB: %s\n", grown == MAP_FAILED ? errname(errno) : "grown");
    CHECK(munmap(grown == MAP_FAILED ? small : grown, grown == MAP_FAILED ? 1 * MiB : 128 * MiB) == 0);

    /* prlimit64 with a bad pointer for the old value: the new one is set, then EFAULT. */
    set_limit(RLIMIT_AS, hard);
    struct rlimit64_k cur64;
    CHECK(syscall(SYS_prlimit64, 0, RLIMIT_AS, NULL, &cur64) == 0);
    struct rlimit64_k want = {.cur = 64 * MiB, .max = cur64.max};
    errno = 0;
    long pr = syscall(SYS_prlimit64, 0, RLIMIT_AS, &want, (void *)8);
    printf("prlimit64 with a bad old pointer: %s\n", pr == -1 ? errname(errno) : "no error");
    CHECK(getrlimit(RLIMIT_AS, &rl) == 0);
    printf("  and the new limit is %lu MiB\n", (unsigned long)(rl.rlim_cur / MiB));

    /* Set by another thread through its thread id. */
    set_limit(RLIMIT_AS, hard);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, set_through_tid, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(getrlimit(RLIMIT_AS, &rl) == 0);
    printf("set by another thread's tid: RLIMIT_AS %lu MiB\n", (unsigned long)(rl.rlim_cur / MiB));
    big_refused("after the thread");

    /* Inherited by a forked child and by the program it execs. */
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        big_refused("forked child");
        execl("/proc/self/exe", argv[0], "exec-check", (char *)NULL);
        printf("FAIL: execl: %s\n", errname(errno));
        _exit(1);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    /* cur above max is refused; the soft limit goes back up to the hard one. */
    struct rlimit bad = {.rlim_cur = 128 * MiB, .rlim_max = 64 * MiB};
    EXPECT_ERR("RLIMIT_AS cur > max", setrlimit(RLIMIT_AS, &bad), EINVAL);
    set_limit(RLIMIT_AS, hard);
    void *p = map(128 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE);
    printf("RLIMIT_AS raised again: 128 MiB %s\n", p == MAP_FAILED ? errname(errno) : "mapped");
    if (p != MAP_FAILED)
        munmap(p, 128 * MiB);

    /* RLIMIT_DATA: private writable mappings and brk; not read-only or shared ones. */
    CHECK(getrlimit(RLIMIT_DATA, &rl) == 0);
    rlim_t data_hard = rl.rlim_cur;
    set_limit(RLIMIT_DATA, 32 * MiB);
    p = map(64 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    printf("RLIMIT_DATA: 64 MiB private writable: %s\n", p == MAP_FAILED ? errname(errno) : "mapped");
    p = map(64 * MiB, PROT_READ, MAP_PRIVATE);
    printf("RLIMIT_DATA: 64 MiB read-only: %s\n", p == MAP_FAILED ? errname(errno) : "mapped");
    if (p != MAP_FAILED) {
        errno = 0;
        int m = mprotect(p, 64 * MiB, PROT_READ | PROT_WRITE);
        printf("RLIMIT_DATA: made writable: %s\n", m == -1 ? errname(errno) : "done");
        munmap(p, 64 * MiB);
    }
    p = map(64 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED);
    printf("RLIMIT_DATA: 64 MiB shared writable: %s\n", p == MAP_FAILED ? errname(errno) : "mapped");
    if (p != MAP_FAILED)
        munmap(p, 64 * MiB);
    p = map(1 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
    printf("RLIMIT_DATA: 1 MiB private writable: %s\n", p == MAP_FAILED ? errname(errno) : "mapped");
    if (p != MAP_FAILED)
        munmap(p, 1 * MiB);
    void *brk0 = sbrk(0);
    void *r = sbrk(64 * MiB);
    printf("RLIMIT_DATA: brk + 64 MiB: %s\n", r == (void *)-1 ? errname(errno) : "grown");
    CHECK(sbrk(0) == (r == (void *)-1 ? brk0 : (char *)brk0 + 64 * MiB));
    set_limit(RLIMIT_DATA, data_hard);
    r = sbrk(64 * MiB);
    printf("RLIMIT_DATA raised again: brk + 64 MiB: %s\n", r == (void *)-1 ? errname(errno) : "grown");
    return 0;
}
