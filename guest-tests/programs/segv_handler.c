/* SIGSEGV handlers: a store to an unmapped address and to a read-only page each run an
 * SA_SIGINFO handler that reports si_signo, si_code (SEGV_MAPERR / SEGV_ACCERR) and whether
 * si_addr is the faulting address (s390 Linux reports only its page: the CPU's translation
 * exception identifies the page), then siglongjmps out; the program carries on. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int got_signo, got_code;
static void *volatile got_addr;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_signo = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(env, 1);
}

/* The si_addr the kernel reports for a fault at `a`. */
static void *fault_addr(volatile char *a)
{
#ifdef __s390x__
    return (void *)((unsigned long)a & ~4095UL);
#else
    return (void *)a;
#endif
}

static const char *code_name(int c)
{
    return c == SEGV_MAPERR ? "SEGV_MAPERR" : c == SEGV_ACCERR ? "SEGV_ACCERR" : "other";
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

    /* An address inside a hole: map two pages, unmap the second. */
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK(munmap(p + 4096, 4096) == 0);
    volatile char *target = p + 4096 + 123;
    if (sigsetjmp(env, 1) == 0) {
        *target = 1;
        printf("not reached\n");
    }
    printf("unmapped store: signo SIGSEGV %d, %s, si_addr exact %d\n", got_signo == SIGSEGV, code_name(got_code),
           got_addr == fault_addr(target));

    CHECK(mprotect(p, 4096, PROT_READ) == 0);
    target = p + 77;
    got_signo = 0;
    if (sigsetjmp(env, 1) == 0) {
        *target = 2;
        printf("not reached\n");
    }
    printf("read-only store: signo SIGSEGV %d, %s, si_addr exact %d\n", got_signo == SIGSEGV, code_name(got_code),
           got_addr == fault_addr(target));

    /* The handler ran with SIGSEGV blocked; siglongjmp(env, 1) restored the mask. */
    sigset_t now;
    CHECK(sigprocmask(SIG_BLOCK, NULL, &now) == 0);
    printf("SIGSEGV unblocked after siglongjmp: %d\n", !sigismember(&now, SIGSEGV));

    /* A second round trip still works (the handler is still installed). */
    got_signo = 0;
    if (sigsetjmp(env, 1) == 0)
        *(volatile int *)16 = 3;
    printf("null page store: signo SIGSEGV %d, %s\n", got_signo == SIGSEGV, code_name(got_code));
    return 0;
}
