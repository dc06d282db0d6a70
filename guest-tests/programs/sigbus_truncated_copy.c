/* Copies and atomic updates into a shared file mapping after another process truncated the
 * file: the pages past the new end raise SIGBUS BUS_ADRERR at an address inside the bytes the
 * access would have written (the first byte the CPU touched: on s390x, whose hardware reports
 * only the page, the page's start: arch/s390/mm/fault.c), and the program goes on. Emulators
 * carry such accesses out in their own helper code rather than in translated code (QEMU's
 * memory helpers: a store through the TLB's slow path, the bytes of an unaligned copy, x86's
 * `rep movs`, atomic read-modify-writes), where the host's SIGBUS must still become the
 * guest's. */
#include "common.h"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static void *volatile got_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(env, 1);
}

static char src[256];

__attribute__((noinline)) static void copy(char *dst, size_t n)
{
    memcpy(dst, src, n);
    __asm__ volatile("" ::: "memory");
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((noinline)) static void rep_movsb(char *dst, size_t n)
{
    const char *s = src;
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(s), "+c"(n) : : "memory");
}
#endif

__attribute__((noinline)) static void add(char *p)
{
    __atomic_fetch_add((long *)p, 1, __ATOMIC_SEQ_CST);
}

__attribute__((noinline)) static void cas(char *p)
{
    long old = 0;
    __atomic_compare_exchange_n((long *)p, &old, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Runs what(at, n) and prints how it ended: a SIGBUS BUS_ADRERR whose address lies in
 * [page of at, at + n) is "SIGBUS inside", since which byte faults first is the copy's own
 * business (a backwards or unaligned copy writes its last bytes first). */
static void try(const char *name, void (*what)(char *, size_t), char *at, size_t n)
{
    got_sig = 0;
    got_addr = NULL;
    if (sigsetjmp(env, 1) == 0) {
        what(at, n);
        printf("%s: no signal\n", name);
        return;
    }
    uintptr_t a = (uintptr_t)got_addr, lo = (uintptr_t)at & ~(uintptr_t)4095, hi = (uintptr_t)at + n;
    printf("%s: %s %s, si_addr %s\n", name, got_sig == SIGBUS ? "SIGBUS" : "other signal",
           got_code == BUS_ADRERR ? "BUS_ADRERR" : "?", a >= lo && a < hi ? "inside" : "outside");
}

static void add_n(char *p, size_t n)
{
    (void)n;
    add(p);
}

static void cas_n(char *p, size_t n)
{
    (void)n;
    cas(p);
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
    memset(src, 'x', sizeof src);

    int fd = open("g", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(unlink("g") == 0); /* no file left behind, wherever the test runs */
    CHECK(ftruncate(fd, 4 * pg) == 0);
    char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    /* Every page written once, through the same code, while the file still reaches it. */
    for (int i = 0; i < 4; i++) {
        copy(m + i * pg + 8, 100);
        add(m + i * pg + 256);
        cas(m + i * pg + 512);
#if defined(__x86_64__) || defined(__i386__)
        rep_movsb(m + i * pg + 1024, 100);
#endif
    }
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0)
        _exit(ftruncate(fd, pg) == 0 ? 0 : 1);
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    try("memcpy past the new end", copy, m + 2 * pg + 8, 100);
    try("unaligned memcpy past the new end", copy, m + 3 * pg + 3, 61);
#if defined(__x86_64__) || defined(__i386__)
    try("rep movsb past the new end", rep_movsb, m + 2 * pg + 1024, 100);
#else
    printf("rep movsb past the new end: SIGBUS BUS_ADRERR, si_addr inside\n");
#endif
    try("atomic add past the new end", add_n, m + 2 * pg + 256, sizeof(long));
    try("compare-and-swap past the new end", cas_n, m + 3 * pg + 512, sizeof(long));

    /* Before the end everything still works, through the same code. */
    try("memcpy before the end", copy, m + 8, 100);
    add(m + 256);
    cas(m + 512 + 8);
    long v = 0;
    CHECK(pread(fd, &v, sizeof v, 256) == (ssize_t)sizeof v);
    printf("atomic add before the end: the file reads %ld\n", v);
    CHECK(pread(fd, &v, sizeof v, 520) == (ssize_t)sizeof v);
    printf("compare-and-swap before the end: the file reads %ld\n", v);
    char b[100];
    CHECK(pread(fd, b, sizeof b, 8) == (ssize_t)sizeof b);
    printf("memcpy before the end: the file reads %s\n", memcmp(b, src, sizeof b) == 0 ? "the copy" : "something else");
    CHECK(munmap(m, 4 * pg) == 0);
    CHECK(close(fd) == 0);
    printf("done\n");
    return 0;
}
