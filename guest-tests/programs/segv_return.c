/* A SIGSEGV handler that makes the page writable and returns: the faulting store runs
 * again and succeeds (the frame returns to the faulting instruction with every register
 * as it was), si_addr and si_code are the kernel's, and the program carries on. */
#include "common.h"
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

static char *page;
static long pagesz;
static volatile int faults, code_ok, addr_ok;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    faults++;
    code_ok = si->si_code == SEGV_ACCERR;
    addr_ok = (char *)si->si_addr >= page && (char *)si->si_addr < page + pagesz;
    CHECK(mprotect(page, pagesz, PROT_READ | PROT_WRITE) == 0);
}

/* Stores depending on a loop and a branch, so that the store may land in a delay slot. */
static __attribute__((noinline)) long fill(volatile long *p, long n)
{
    long sum = 0;
    for (long i = 0; i < n; i++) {
        if (i & 1)
            p[i] = i * 3;
        else
            p[i] = i + 7;
        sum += p[i];
    }
    return sum;
}

int main(void)
{
    pagesz = sysconf(_SC_PAGESIZE);
    page = mmap(NULL, pagesz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

    long sum = fill((volatile long *)(page + 64), 100);
    printf("store faulted %d time(s), si_code SEGV_ACCERR %d, si_addr in page %d\n", faults, code_ok, addr_ok);
    printf("sum after the handler returned: %ld\n", sum);

    CHECK(mprotect(page, pagesz, PROT_READ) == 0);
    volatile long *q = (volatile long *)(page + 8);
    *q = 42;
    printf("second fault: %d, value %ld\n", faults, *q);
    return 0;
}
