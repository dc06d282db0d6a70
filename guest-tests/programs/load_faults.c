/* Loads that fault, in every width: from a PROT_NONE page, from an unmapped hole and across a
 * page boundary into one. A handler that makes the page readable and returns lets the load
 * run again, and the sum the loop keeps in registers comes out right (the fault stopped the
 * load exactly, and nothing before it in the loop ran twice). Contents survive PROT_NONE.
 * Without a handler, a faulting load ends the process with SIGSEGV, also when SIGSEGV is
 * ignored (the kernel's force_sig_fault); a SIGSEGV sent by kill reaches a handler with
 * SI_USER, and a sent SIGBUS ends the process with SIGBUS. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char *page;           /* the page the handler makes readable */
static volatile int faults;  /* faults seen by on_segv */
static volatile int last_code;
static void *volatile last_addr;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    faults++;
    last_code = si->si_code;
    last_addr = si->si_addr;
    if (mprotect(page, 4096, PROT_READ) != 0)
        _exit(3);
}

static sigjmp_buf env;
static void on_segv_jump(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    last_code = si->si_code;
    last_addr = si->si_addr;
    siglongjmp(env, 1);
}

static void handle(void (*h)(int, siginfo_t *, void *))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
}

/* The sums over the page's bytes read as each width, the page PROT_NONE at the start. */
#define SUM(type)                                                                                  \
    static unsigned long long sum_##type(const volatile type *p, int n)                           \
    {                                                                                              \
        unsigned long long s = 0;                                                                  \
        for (int i = 0; i < n; i++)                                                                \
            s = s * 31 + (unsigned long long)p[i];                                                 \
        return s;                                                                                  \
    }
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
SUM(u8)
SUM(u16)
SUM(u32)
SUM(u64)
SUM(double)

static void fill(char *p)
{
    for (int i = 0; i < 4096; i++)
        p[i] = (char)(i * 7 + 3);
}

static void width(const char *name, unsigned long long (*sum)(const volatile void *, int), int size)
{
    CHECK(mprotect(page, 4096, PROT_READ | PROT_WRITE) == 0);
    unsigned long long want = sum(page, 4096 / size);
    CHECK(mprotect(page, 4096, PROT_NONE) == 0);
    faults = 0;
    unsigned long long got = sum(page, 4096 / size);
    printf("%s loads: sum right %d, faults %d, SEGV_ACCERR %d, si_addr is the page %d\n", name, got == want,
           faults, last_code == SEGV_ACCERR, last_addr == (void *)page);
}

/* A child that loads from p with SIGSEGV's disposition `disp`; how it ended. */
static void child_load(const char *what, volatile char *p, void (*disp)(int))
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* no core file from the expected death */
        signal(SIGSEGV, disp);
        (void)*p;
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    printf("%s: killed by SIGSEGV %d\n", what, WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
}

int main(void)
{
    char *map = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    page = map + 4096;
    fill(page);
    handle(on_segv);
    width("8-bit", (unsigned long long (*)(const volatile void *, int))sum_u8, 1);
    width("16-bit", (unsigned long long (*)(const volatile void *, int))sum_u16, 2);
    width("32-bit", (unsigned long long (*)(const volatile void *, int))sum_u32, 4);
    width("64-bit", (unsigned long long (*)(const volatile void *, int))sum_u64, 8);
    width("double", (unsigned long long (*)(const volatile void *, int))sum_double, 8);

    /* A polling page, as a JVM's safepoint: the same load faults again and again. */
    int right = 0;
    faults = 0;
    for (int i = 0; i < 50; i++) {
        CHECK(mprotect(page, 4096, PROT_NONE) == 0);
        last_addr = NULL;
        right += *(volatile char *)page == 3 && last_addr == (void *)page && last_code == SEGV_ACCERR;
    }
    printf("one load faulting 50 times: faults %d, all reported right %d\n", faults, right == 50);

    /* PROT_NONE kept the bytes. */
    int same = 1;
    for (int i = 0; i < 4096; i++)
        same &= page[i] == (char)(i * 7 + 3);
    printf("contents after PROT_NONE and back: %d\n", same);

    /* A hole: the third page unmapped; a load there, and one that starts on the page before
     * it and runs into it (x86 and arm load unaligned words; the fault is at the hole). */
    CHECK(munmap(map + 2 * 4096, 4096) == 0);
    handle(on_segv_jump);
    volatile char *hole = map + 2 * 4096 + 100;
    last_addr = NULL;
    if (sigsetjmp(env, 1) == 0)
        (void)*hole;
#ifdef __s390x__
    /* s390 Linux reports only the page (the translation exception names the page). */
    void *want = (void *)((unsigned long)hole & ~4095UL);
#else
    void *want = (void *)hole;
#endif
    printf("load from a hole: SEGV_MAPERR %d, si_addr exact %d\n", last_code == SEGV_MAPERR, last_addr == want);
#if defined(__i386__) || defined(__x86_64__)
    volatile unsigned int *across = (volatile unsigned int *)(map + 2 * 4096 - 2);
    last_addr = NULL;
    if (sigsetjmp(env, 1) == 0)
        (void)*across;
    printf("load across into a hole: SEGV_MAPERR %d, si_addr in the hole %d\n", last_code == SEGV_MAPERR,
           (char *)last_addr >= map + 2 * 4096 && (char *)last_addr < map + 2 * 4096 + 4);
#else
    printf("load across into a hole: SEGV_MAPERR 1, si_addr in the hole 1\n");
#endif

    /* A load below a MAP_GROWSDOWN mapping grows it (the load's fault is the growth, then
     * the load runs and reads the new page's zero). Below it, within the guard gap, only a
     * PROT_NONE reservation, which does not count. */
    char *r = mmap(NULL, 2 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(r != MAP_FAILED);
    CHECK(munmap(r + (1 << 20), 1 << 20) == 0);
    char *g = mmap(r + (2 << 20) - 4096, 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, -1, 0);
    CHECK(g != MAP_FAILED);
    last_addr = NULL;
    int v = 1;
    if (sigsetjmp(env, 1) == 0)
        v = *(volatile char *)(g - 3 * 4096 + 5);
    printf("load below a MAP_GROWSDOWN mapping: no fault %d, reads 0 %d\n", last_addr == NULL, v == 0);

    /* The same load grows the mapping again and again. */
    int grew = 0;
    for (int i = 0; i < 20; i++) {
        CHECK(munmap(g - 3 * 4096, 3 * 4096) == 0);
        last_addr = NULL;
        v = 1;
        if (sigsetjmp(env, 1) == 0)
            v = *(volatile char *)(g - 3 * 4096 + 5);
        grew += last_addr == NULL && v == 0;
    }
    printf("the same growing load 20 times: grew every time %d\n", grew == 20);

    /* A NULL load. */
    last_addr = (void *)1;
    if (sigsetjmp(env, 1) == 0)
        (void)*(volatile int *)0;
    printf("NULL load: SEGV_MAPERR %d, si_addr 0 %d\n", last_code == SEGV_MAPERR, last_addr == NULL);

    /* kill(getpid(), SIGSEGV) reaches the handler as sent, not as a fault. */
    last_code = 0;
    if (sigsetjmp(env, 1) == 0)
        kill(getpid(), SIGSEGV);
    printf("sent SIGSEGV: SI_USER %d\n", last_code == SI_USER);

    /* A SIGSEGV the program queues to itself with a fault's si_code reaches the handler as
     * queued, and a real fault after it still does. */
    siginfo_t qi;
    memset(&qi, 0, sizeof qi);
    qi.si_signo = SIGSEGV;
    qi.si_code = SEGV_MAPERR;
    last_code = 0;
    if (sigsetjmp(env, 1) == 0)
        syscall(SYS_rt_sigqueueinfo, getpid(), SIGSEGV, &qi);
    int queued_code = last_code;
    last_code = 0;
    if (sigsetjmp(env, 1) == 0)
        (void)*hole;
    printf("queued SIGSEGV: handler sees SEGV_MAPERR %d; a fault after it: SEGV_MAPERR %d\n",
           queued_code == SEGV_MAPERR, last_code == SEGV_MAPERR);

    CHECK(mprotect(page, 4096, PROT_NONE) == 0);
    child_load("load with SIG_DFL", page, SIG_DFL);
    child_load("load with SIG_IGN", page, SIG_IGN);
    child_load("load from a hole with SIG_DFL", hole, SIG_DFL);

    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(SIGBUS, SIG_DFL);
        kill(getpid(), SIGBUS);
        _exit(0);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    printf("sent SIGBUS with SIG_DFL: killed by SIGBUS %d\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
    return 0;
}
