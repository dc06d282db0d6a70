/* Two private anonymous mappings made apart that end up side by side are one mapping, as
 * Linux's vma_merge makes them (mm/vma.c: a new mapping joins the one before and the one
 * after it when they are alike): one line of /proc/self/maps, one range for system calls
 * (read, write, mincore, madvise, mlock, msync) and for mremap. The upper page is mapped
 * first, then one far below, then the page right below the first: on a 64-bit arch the two
 * neighbours lie in different 64 GiB granules of endgate's address space (whose windows are
 * made one at a time), above 2^47 on aarch64 and at 2^56 on s390x. Also the heap: brk keeps a
 * page below the next mapping, and a mapping right after the heap is one [heap] with it. */
#include "mapping.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#if defined(__x86_64__)
#define UPPER ((uintptr_t)0x7e0000000000)
#elif defined(__aarch64__)
#define UPPER ((uintptr_t)0xc00000000000)
#elif defined(__riscv)
#define UPPER ((uintptr_t)0x3000000000)
#elif defined(__mips__) && __SIZEOF_POINTER__ == 8
#define UPPER ((uintptr_t)0xc000000000)
#elif defined(__s390x__)
#define UPPER ((uintptr_t)1 << 56)
#else
#define UPPER ((uintptr_t)0x90000000u)
#endif
#define FAR (UPPER - (sizeof(void *) == 8 ? (uintptr_t)128 << 30 : (uintptr_t)0x10000000))
#define P ((uintptr_t)4096)

static void *map_at(uintptr_t a, size_t len)
{
    return mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

/* Lines of /proc/self/maps that touch [a, b). */
static int lines_in(uintptr_t a, uintptr_t b)
{
    struct maps m;
    int n = 0;
    maps_open(&m);
    while (maps_next(&m))
        if (m.hi > a && m.lo < b)
            n++;
    return n;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    CHECK(map_at(UPPER, P) == (void *)UPPER);
    CHECK(map_at(FAR, P) == (void *)FAR);
    CHECK(map_at(UPPER - P, P) == (void *)(UPPER - P));
    char *lo = (char *)(UPPER - P);
    memset(lo, 7, 2 * P);
    printf("lines of /proc/self/maps: %d\n", lines_in(UPPER - P, UPPER + P));

    /* The kernel reading and writing a buffer across the two. */
    int fd = open("/dev/zero", O_RDONLY);
    CHECK(fd >= 0);
    CHECK(read(fd, lo + P - 100, 200) == 200);
    CHECK(lo[P - 100] == 0 && lo[P + 99] == 0 && lo[P + 100] == 7);
    close(fd);
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], lo + P - 150, 300) == 300);
    char back[300];
    CHECK(read(fds[0], back, 300) == 300);
    CHECK(back[0] == 7 && back[60] == 0 && back[260] == 7);
    close(fds[0]);
    close(fds[1]);
    unsigned char v[2];
    CHECK(mincore(lo, 2 * P, v) == 0);
    CHECK(mlock(lo, 2 * P) == 0);
    CHECK(munlock(lo, 2 * P) == 0);
    CHECK(msync(lo, 2 * P, MS_SYNC) == 0);
    CHECK(madvise(lo, 2 * P, MADV_DONTNEED) == 0);
    CHECK(lo[0] == 0 && lo[P] == 0);
    printf("system calls across the two: ok\n");

    /* mremap of the pair as one mapping: away and back. */
    memset(lo, 9, 2 * P);
    char *moved = mremap(lo, 2 * P, 4 * P, MREMAP_MAYMOVE);
    CHECK(moved != MAP_FAILED);
    CHECK(moved[0] == 9 && moved[2 * P - 1] == 9);
    printf("mremap of the pair: ok\n");
    CHECK(munmap(moved, 4 * P) == 0);
    CHECK(munmap((void *)FAR, P) == 0);

    /* The heap: brk keeps a page of room below the next mapping (mm/mmap.c brk), and a
     * mapping right after the heap joins it (one [heap] line). */
    CHECK(sbrk((intptr_t)P) != (void *)-1);
    uintptr_t top = ((uintptr_t)sbrk(0) + P - 1) & ~(P - 1);
    CHECK(map_at(top + P, P) == (void *)(top + P));
    CHECK(brk((void *)(top + P)) == -1);
    CHECK(brk((void *)top) == 0);
    CHECK(munmap((void *)(top + P), P) == 0);
    CHECK(map_at(top, P) == (void *)top);
    struct maps m;
    int heap = 0;
    maps_open(&m);
    while (maps_next(&m))
        if (strstr(m.line, "[heap]") && m.lo < top && m.hi >= top + P)
            heap++;
    printf("[heap] lines over the heap and the mapping after it: %d\n", heap);
    return 0;
}
