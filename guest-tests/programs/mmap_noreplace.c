/* MAP_FIXED_NOREPLACE: EEXIST over any part of an existing mapping (which stays intact),
 * success in a hole, and MAP_FIXED replacing where NOREPLACE refuses. */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    memset(p, 0x5c, 4 * pg);
    CHECK(munmap(p + pg, pg) == 0);

    errno = 0;
    void *r = mmap(p + 3 * pg, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    printf("over a mapping: %s\n", r == MAP_FAILED ? errname(errno) : "mapped");
    CHECK(r == MAP_FAILED);
    CHECK(p[3 * pg] == 0x5c);
    printf("old contents intact: ok\n");

    errno = 0;
    r = mmap(p + pg, 2 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    printf("hole plus one mapped page: %s\n", r == MAP_FAILED ? errname(errno) : "mapped");
    CHECK(r == MAP_FAILED);

    r = mmap(p + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(r == p + pg);
    CHECK(p[pg] == 0);
    printf("into the hole: at the requested address, zeroed\n");

    r = mmap(p, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(r == p && p[0] == 0);
    printf("MAP_FIXED over the same place: replaced\n");
    CHECK(munmap(p, 4 * pg) == 0);
    return 0;
}
