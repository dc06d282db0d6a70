/* mprotect over a range with a hole (mm/mprotect.c do_mprotect_pkey): the mappings before the
 * hole change, the call fails with ENOMEM, and the mapping after the hole keeps its
 * permissions; a range that starts in a hole changes nothing. */
#include "common.h"
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;

static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(env, 1);
}

/* 1 if a store to p faults. */
static int store_faults(volatile char *p)
{
    if (sigsetjmp(env, 1) == 0) {
        *p = 1;
        return 0;
    }
    return 1;
}

int main(void)
{
    signal(SIGSEGV, on_segv);
    char *p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK(munmap(p + 2 * 4096, 4096) == 0);
    errno = 0;
    int r = mprotect(p, 4 * 4096, PROT_READ);
    printf("mprotect across a hole: %d, ENOMEM %d\n", r, errno == ENOMEM);
    printf("before the hole read-only: %d %d\n", store_faults(p), store_faults(p + 4096));
    printf("after the hole still writable: %d\n", !store_faults(p + 3 * 4096));
    errno = 0;
    r = mprotect(p + 2 * 4096, 2 * 4096, PROT_NONE);
    printf("mprotect starting in the hole: %d, ENOMEM %d\n", r, errno == ENOMEM);
    printf("after the hole still writable: %d\n", !store_faults(p + 3 * 4096));
    return 0;
}
