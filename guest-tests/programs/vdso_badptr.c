/* The vDSO's clock functions (clock_gettime and gettimeofday: glibc calls the vDSO for them;
 * clock_getres is left out, as some arches' glibc makes the system call for it) with a pointer the caller may not write fault as the store inside Linux's vDSO
 * does: SIGSEGV, si_code SEGV_MAPERR for an unmapped page (NULL, an address in page 0, a page
 * munmap'ed, a timespec running past the end of a mapping into an unmapped page) and
 * SEGV_ACCERR for a mapped page without write permission (read-only, PROT_NONE); si_addr is
 * the first byte the store could not write (the page only on s390x, which reports no more, so
 * the page is compared). A misaligned bad pointer is SIGSEGV too (on mips64el glibc stores
 * the vDSO's result itself, and Linux's unaligned-access emulation faults). Without a handler
 * the process dies of SIGSEGV. */
#define _GNU_SOURCE 1
#include <signal.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static void *volatile got_addr;
static void h(int s, siginfo_t *si, void *u) { (void)u; got_sig = s; got_code = si->si_code; got_addr = si->si_addr; siglongjmp(env, 1); }

static const char *signame(int s) { return s == SIGSEGV ? "SIGSEGV" : s == SIGBUS ? "SIGBUS" : s == SIGILL ? "SIGILL" : "other"; }
static const char *codename(int s, int c)
{
    if (s == SIGSEGV) return c == SEGV_MAPERR ? "SEGV_MAPERR" : c == SEGV_ACCERR ? "SEGV_ACCERR" : c == SI_KERNEL ? "SI_KERNEL" : "?";
    if (s == SIGBUS) return c == BUS_ADRERR ? "BUS_ADRERR" : c == BUS_ADRALN ? "BUS_ADRALN" : c == SI_KERNEL ? "SI_KERNEL" : "?";
    return "?";
}

enum fn { GETTIME, GETTIMEOFDAY };
static const char *fname[] = { "clock_gettime", "gettimeofday" };
static int call(enum fn f, void *p)
{
    switch (f) {
    case GETTIME: return clock_gettime(CLOCK_MONOTONIC, p);
    default: return gettimeofday(p, 0);
    }
}

/* `fault_page` -1: only the signal is compared (a misaligned store: MIPS Linux completes it
 * in do_ade's emulation, whose fault is SIGSEGV SI_KERNEL without an address,
 * arch/mips/kernel/unaligned.c; elsewhere it is an ordinary page fault). */
static void try(enum fn f, const char *what, void *p, void *fault_page)
{
    got_sig = 0;
    if (!sigsetjmp(env, 1)) {
        int r = call(f, p);
        printf("%s(%s): returned %d\n", fname[f], what, r);
        return;
    }
    unsigned long a = (unsigned long)got_addr;
    if (fault_page == (void *)-1) {
        printf("%s(%s): %s\n", fname[f], what, signame(got_sig));
        return;
    }
    printf("%s(%s): %s %s, si_addr in the expected page: %d\n", fname[f], what, signame(got_sig),
           codename(got_sig, got_code), (a & ~4095UL) == (unsigned long)fault_page);
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, 0);
    sigaction(SIGBUS, &sa, 0);
    sigaction(SIGILL, &sa, 0);
    char *ro = mmap(0, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *none = mmap(0, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *two = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ro == MAP_FAILED || none == MAP_FAILED || two == MAP_FAILED) { printf("mmap failed\n"); return 1; }
    munmap(two + pg, pg);
    for (int f = GETTIME; f <= GETTIMEOFDAY; f++) {
        if (f != GETTIMEOFDAY) /* glibc's 32-bit gettimeofday writes a NULL tv itself */
            try(f, "NULL", 0, 0);
        try(f, "16", (void *)16, 0);
        try(f, "read-only", ro, ro);
        try(f, "PROT_NONE", none, none);
        try(f, "unmapped", two + pg, two + pg);
        /* The first word writable, then the unmapped page: the second word's store faults. */
        try(f, "straddling", two + pg - sizeof(struct timespec) / 2, two + pg);
        try(f, "misaligned", two + 4, 0);
        try(f, "misaligned read-only", ro + 4, (void *)-1);
        try(f, "misaligned unmapped", two + pg + 4, (void *)-1);
    }
    /* Without a handler the process dies of SIGSEGV. */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    pid_t c = fork();
    if (c == 0) { clock_gettime(CLOCK_REALTIME, (struct timespec *)ro); _exit(0); }
    int st;
    waitpid(c, &st, 0);
    printf("no handler: %s\n", WIFSIGNALED(st) ? signame(WTERMSIG(st)) : "exited");
    struct timespec ts;
    printf("ok after: %d\n", clock_gettime(CLOCK_MONOTONIC, &ts));
    return 0;
}
