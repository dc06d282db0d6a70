/* x86-64 data accesses the kernel refuses otherwise than with a page fault: a non-canonical
 * address (bits 47-63 not all equal) raises a general-protection fault, which Linux sends as
 * SIGSEGV with si_code SI_KERNEL and si_addr 0; the vsyscall page is execute-only, so a load
 * or store there is SEGV_MAPERR at the address. A canonical kernel address is an ordinary
 * SEGV_MAPERR at the address. The vDSO's stores fault alike. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

static sigjmp_buf env;
static volatile int fault_code;
static void *volatile fault_addr;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    fault_code = si->si_code;
    fault_addr = si->si_addr;
    siglongjmp(env, 1);
}

/* store: 0 a load, 1 a store, 2 the vDSO's clock_gettime storing its result there (glibc
 * calls the vDSO, whose store faults as the program's own would). */
static void try_access(const char *what, uintptr_t a, int store)
{
    fault_code = -1;
    fault_addr = (void *)1;
    if (sigsetjmp(env, 1) == 0) {
        if (store == 2)
            clock_gettime(CLOCK_MONOTONIC, (struct timespec *)a);
        else if (store)
            *(volatile uint64_t *)a = 1;
        else
            (void)*(volatile uint64_t *)a;
    }
    const char *code = fault_code == SEGV_MAPERR ? "SEGV_MAPERR"
                       : fault_code == SEGV_ACCERR ? "SEGV_ACCERR"
                       : fault_code == SI_KERNEL  ? "SI_KERNEL"
                                                  : "other";
    printf("%s %s: %s, si_addr %s\n", store == 2 ? "vDSO clock_gettime into" : store ? "store to" : "load from", what, code,
           fault_addr == NULL ? "0" : fault_addr == (void *)a ? "the address" : "elsewhere");
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    for (int store = 0; store < 3; store++) {
        try_access("the first non-canonical address", 0x800000000000UL, store);
        try_access("a high non-canonical address", 0x8000000000001000UL, store);
        try_access("the vsyscall page", 0xffffffffff600000UL, store);
        try_access("the vsyscall page's time entry", 0xffffffffff600400UL, store);
        try_access("a canonical kernel address", 0xffff800000000000UL, store);
    }
    return 0;
}
