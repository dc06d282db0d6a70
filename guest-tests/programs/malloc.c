/* malloc/calloc/realloc/free: many small blocks, a large (mmap-backed) block, and realloc
 * growth of a large block (mremap in glibc), with contents verified after every step. */
#include "common.h"
#include <stddef.h>
#include <stdint.h>

int main(void)
{
    enum { N = 2000 };
    static unsigned char *small[N];
    for (int i = 0; i < N; i++) {
        size_t sz = 1 + (i * 37) % 500;
        small[i] = malloc(sz);
        CHECK(small[i] != NULL);
        /* malloc's guarantee is max_align_t: 16 bytes on most arches, 8 on 32-bit arm. */
        CHECK(((uintptr_t)small[i] & (_Alignof(max_align_t) - 1)) == 0);
        memset(small[i], i & 0xff, sz);
    }
    for (int i = 0; i < N; i += 2)
        free(small[i]);
    for (int i = 1; i < N; i += 2) {
        size_t sz = 1 + (i * 37) % 500;
        for (size_t j = 0; j < sz; j++)
            CHECK(small[i][j] == (i & 0xff));
        free(small[i]);
    }
    printf("small blocks: ok\n");

    size_t big = 64u << 20;
    unsigned char *p = malloc(big);
    CHECK(p != NULL);
    for (size_t i = 0; i < big; i += 4096)
        p[i] = (unsigned char)(i >> 12);
    for (size_t i = 0; i < big; i += 4096)
        CHECK(p[i] == (unsigned char)(i >> 12));
    printf("64 MiB block: ok\n");

    unsigned char *q = realloc(p, 2 * big);
    CHECK(q != NULL);
    for (size_t i = 0; i < big; i += 4096)
        CHECK(q[i] == (unsigned char)(i >> 12));
    q[2 * big - 1] = 0x5a;
    CHECK(q[2 * big - 1] == 0x5a);
    q = realloc(q, 4096);
    CHECK(q != NULL && q[0] == 0 && q[4095] == (unsigned char)(4095 >> 12));
    free(q);
    printf("realloc grow/shrink: ok\n");

    unsigned *z = calloc(1 << 20, sizeof *z);
    CHECK(z != NULL);
    unsigned long sum = 0;
    for (int i = 0; i < (1 << 20); i++)
        sum += z[i];
    CHECK(sum == 0);
    free(z);
    printf("calloc zeroed: ok\n");

    void *a = aligned_alloc(65536, 100);
    CHECK(a != NULL && ((uintptr_t)a & 65535) == 0);
    free(a);
    void *pm = NULL;
    CHECK(posix_memalign(&pm, 4096, 10000) == 0 && ((uintptr_t)pm & 4095) == 0);
    free(pm);
    printf("aligned allocations: ok\n");
    return 0;
}
