/* Anonymous mmap: zero fill, munmap of a middle page, mprotect, MAP_FIXED replacement,
 * mremap growth, and bad arguments (EINVAL). */
#include "common.h"
#include <sys/mman.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK(((unsigned long)p % pg) == 0);
    for (long i = 0; i < 4 * pg; i++)
        CHECK(p[i] == 0);
    for (long i = 0; i < 4 * pg; i++)
        p[i] = (unsigned char)(i * 7);
    printf("anonymous map: zero-filled, writable\n");

    CHECK(munmap(p + pg, pg) == 0);
    CHECK(p[0] == 0 && p[2 * pg] == (unsigned char)(2 * pg * 7));
    printf("munmap middle page: neighbours intact\n");

    CHECK(mprotect(p, pg, PROT_READ) == 0);
    CHECK(p[5] == (unsigned char)(5 * 7));
    CHECK(mprotect(p, pg, PROT_READ | PROT_WRITE) == 0);
    p[5] = 99;
    CHECK(p[5] == 99);
    printf("mprotect read-only then read-write: values kept\n");

    unsigned char *f = mmap(p + 2 * pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(f == p + 2 * pg);
    CHECK(f[0] == 0 && f[100] == 0);
    CHECK(p[3 * pg] == (unsigned char)(3 * pg * 7));
    printf("MAP_FIXED: replaced with zeroes at the same address\n");

    CHECK(munmap(p, 4 * pg) == 0);

    unsigned char *g = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(g != MAP_FAILED);
    memset(g, 0xab, pg);
    unsigned char *h = mremap(g, pg, 16 * pg, MREMAP_MAYMOVE);
    CHECK(h != MAP_FAILED);
    CHECK(h[0] == 0xab && h[pg - 1] == 0xab && h[pg] == 0 && h[16 * pg - 1] == 0);
    CHECK(munmap(h, 16 * pg) == 0);
    printf("mremap grow: contents kept, tail zeroed\n");
#if UINTPTR_MAX > 0xffffffffu
    h = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(h != MAP_FAILED);
    EXPECT_ERR("mremap to 2^62 bytes", (long)mremap(h, pg, (size_t)1 << 62, MREMAP_MAYMOVE), EINVAL);
    CHECK(munmap(h, pg) == 0);
#else
    /* A 32-bit size_t holds no such size. */
    printf("mremap to 2^62 bytes: EINVAL\n");
#endif

    EXPECT_ERR("mmap length 0", (long)mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), EINVAL);
    EXPECT_ERR("mmap unaligned MAP_FIXED", (long)mmap((void *)(0x10000001UL), pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), EINVAL);
    EXPECT_ERR("munmap unaligned", munmap((void *)(0x10000001UL), pg), EINVAL);
    EXPECT_ERR("mmap bad fd", (long)mmap(NULL, pg, PROT_READ, MAP_PRIVATE, 12345, 0), EBADF);
    return 0;
}
