/* Stores to a read-only page: the process must die of SIGSEGV (status 139). */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    volatile char *p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    p[0] = 'w';
    CHECK(mprotect((void *)p, pg, PROT_READ) == 0);
    printf("read back %c, now writing to the read-only page\n", p[0]);
    fflush(stdout);
    p[1] = 'x';
    printf("not reached\n");
    return 0;
}
