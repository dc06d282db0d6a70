/* Memory locking (mlock(2), mlock2(2), mlockall(2), MAP_LOCKED) seen through mincore(2):
 * a locked range is resident at once, an MLOCK_ONFAULT one only where touched, and
 * MCL_FUTURE locks later mappings; the errors; membarrier(2)'s query, registration and
 * private expedited barrier. */
#define _GNU_SOURCE 1
#include "common.h"
#include <stdint.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define PAGES 4

static int resident(void *p)
{
    unsigned char v[PAGES];
    CHECK(mincore(p, PAGES * 4096, v) == 0);
    int n = 0;
    for (int i = 0; i < PAGES; i++)
        n += v[i] & 1;
    return n;
}

static void *fresh(int extra)
{
    void *p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
    CHECK(p != MAP_FAILED);
    return p;
}

int main(void)
{
    void *a = fresh(0);
    printf("fresh mapping: %d pages resident\n", resident(a));
    CHECK(mlock2(a, PAGES * 4096, 0) == 0);
    printf("after mlock2: %d resident\n", resident(a));
    CHECK(munlock(a, PAGES * 4096) == 0);

    char *b = fresh(0);
    CHECK(mlock2(b, PAGES * 4096, MLOCK_ONFAULT) == 0);
    printf("after mlock2(MLOCK_ONFAULT): %d resident\n", resident(b));
    b[4096] = 1;
    printf("after touching one page: %d resident\n", resident(b));

    printf("MAP_LOCKED mapping: %d resident\n", resident(fresh(MAP_LOCKED)));

    CHECK(mlockall(MCL_CURRENT | MCL_FUTURE) == 0);
    printf("mapping made after mlockall(MCL_FUTURE): %d resident\n", resident(fresh(0)));
    CHECK(munlockall() == 0);
    printf("mapping made after munlockall: %d resident\n", resident(fresh(0)));

    EXPECT_ERR("mlock2 with an unknown flag", mlock2(a, 4096, 2), EINVAL);
    EXPECT_ERR("mlockall(0)", mlockall(0), EINVAL);
    EXPECT_ERR("mlockall(MCL_ONFAULT) alone", mlockall(MCL_ONFAULT), EINVAL);
    /* mm/mlock.c: the length grows by the start's offset in its page and is rounded up to
     * pages, wrapping; an end past the top of the address space is EINVAL, a length that
     * rounds to nothing locks nothing. */
    char *c = a;
    printf("mlock of SIZE_MAX bytes (rounds to 0): %d\n", mlock(c, SIZE_MAX));
    printf("mlock of SIZE_MAX bytes from the last byte of a page (one page): %d\n", mlock(c + 4095, SIZE_MAX));
    EXPECT_ERR("mlock of a length that wraps", mlock(c, (size_t)-4096), EINVAL);
    EXPECT_ERR("mlock up to exactly the top of the address space", mlock(c, -(uintptr_t)c), EINVAL);
    EXPECT_ERR("mlock of the last page and one more", mlock((void *)-4096, 8192), EINVAL);
    EXPECT_ERR("mlock2 of a length that wraps", mlock2(c, (size_t)-4096, 0), EINVAL);
    EXPECT_ERR("munlock of a length that wraps", munlock(c, (size_t)-4096), EINVAL);
    printf("munlock of SIZE_MAX bytes: %d\n", munlock(c, SIZE_MAX));
    CHECK(munmap(a, PAGES * 4096) == 0);
    EXPECT_ERR("mlock of an unmapped range", mlock(a, 4096), ENOMEM);

    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    printf("membarrier query: has PRIVATE_EXPEDITED %d\n", q >= 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0);
    EXPECT_ERR("membarrier PRIVATE_EXPEDITED before registering",
               syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0), EPERM);
    CHECK(syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0);
    printf("membarrier PRIVATE_EXPEDITED after registering: %ld\n",
           syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0));
    EXPECT_ERR("membarrier with an unknown command", syscall(SYS_membarrier, 1 << 20, 0, 0), EINVAL);
    return 0;
}
