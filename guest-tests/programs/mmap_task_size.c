/* The ends of a 64-bit guest's address space, as its arch's Linux draws them (mmap(2); the
 * kernel's TASK_SIZE per arch):
 * - x86_64 2^47 - 4096 (4-level paging, arch/x86/include/asm/page_64_types.h TASK_SIZE_MAX;
 *   an address above needs a hint on a 5-level machine);
 * - aarch64 2^48 (VA_BITS 48), riscv64 2^38 (Sv39), mips64el 2^40 (TASK_SIZE64);
 * - s390x 2^64 - 4096 (arch/s390/include/asm/processor.h TASK_SIZE_MAX, -PAGE_SIZE: the stack
 *   and the default mmap area stay below 2^42, the three-level page tables a new mm starts
 *   with, and a hint or MAP_FIXED above makes the kernel add a fourth and fifth level).
 * Checks, with each arch's own addresses:
 * - the mappings a program starts with (its image, stack, vDSO) lie below the stack's limit
 *   (s390x: 2^42) or TASK_SIZE;
 * - a hint high in the space (s390x: 2^50) is where the mapping goes, and the memory works
 *   there (loads, stores, an atomic add, system calls reading and writing it, /proc/self/maps);
 * - MAP_FIXED_NOREPLACE of the last page below TASK_SIZE maps it (or finds the stack there);
 * - a page at TASK_SIZE, or a range running past it, is ENOMEM (mm/mmap.c
 *   __get_unmapped_area: addr > TASK_SIZE - len); a hint there is placed below instead;
 * - a mapping across a boundary far from the others (s390x: 2^48) works as one range, an
 *   unaligned 8-byte load across the boundary included;
 * - s390x: a mapping right above 2^42, where a new mm's page tables end, and code run from
 *   2^51. */
#include "mapping.h"
#include <stdint.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#if defined(__x86_64__)
#define TASK_SIZE (((uintptr_t)1 << 47) - 4096)
#define HIGH ((uintptr_t)0x7f0000000000)
#define SPLIT ((uintptr_t)1 << 46)
#elif defined(__aarch64__)
#define TASK_SIZE ((uintptr_t)1 << 48)
#define HIGH ((uintptr_t)0xff0000000000)
#define SPLIT ((uintptr_t)1 << 47)
#elif defined(__riscv)
#define TASK_SIZE ((uintptr_t)1 << 38)
#define HIGH ((uintptr_t)0x3c00000000)
#define SPLIT ((uintptr_t)1 << 37)
#elif defined(__mips__)
#define TASK_SIZE ((uintptr_t)1 << 40)
#define HIGH ((uintptr_t)0xfc00000000)
#define SPLIT ((uintptr_t)1 << 39)
#elif defined(__s390x__)
#define TASK_SIZE ((uintptr_t)0 - 4096)
#define HIGH ((uintptr_t)1 << 50)
#define SPLIT ((uintptr_t)1 << 48)
#else
#error "a 64-bit arch"
#endif

static void *map(uintptr_t a, size_t len, int flags)
{
    return mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
}

/* Where the mappings a program starts with end at most: the stack's top (s390x: 2^42, the
 * vDSO just below it, the interpreter and the mmap area under the stack), TASK_SIZE elsewhere
 * (x86_64's vDSO lies above its stack; its [vsyscall] page above TASK_SIZE is not counted). */
#if defined(__s390x__)
#define START_TOP ((uintptr_t)1 << 42)
#else
#define START_TOP TASK_SIZE
#endif

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    uintptr_t top = TASK_SIZE;

    struct maps m;
    maps_open(&m);
    while (maps_next(&m)) {
        if (strstr(m.line, "[vsyscall]"))
            continue;
        if (m.hi > START_TOP)
            printf("above the start's top: %s", m.line);
        CHECK(m.hi <= START_TOP);
    }
    printf("initial mappings below the stack's limit: ok\n");

    /* A hint high in the space. */
    char *p = map(HIGH, 1 << 20, 0);
    CHECK(p == (char *)HIGH);
    use_page(p);
    use_page(p + (1 << 20) - 4096);
    CHECK(listed(HIGH, 1 << 20));
    CHECK(mprotect(p, 4096, PROT_READ) == 0);
    CHECK(p[100] == 'f');
    CHECK(munmap(p, 1 << 20) == 0);
    CHECK(!listed(HIGH, 4096));
    printf("high hint honoured: ok\n");

    /* The last page below TASK_SIZE. */
    errno = 0;
    p = map(top - 4096, 4096, MAP_FIXED_NOREPLACE);
    if (p == MAP_FAILED) {
        CHECK(errno == EEXIST);
        CHECK(listed(top - 4096, 4096));
    } else {
        CHECK(p == (char *)(top - 4096));
        use_page(p);
        CHECK(listed(top - 4096, 4096));
        CHECK(munmap(p, 4096) == 0);
    }
    printf("last page below TASK_SIZE: ok\n");

    /* At and across TASK_SIZE. */
    errno = 0;
    CHECK(map(top, 4096, MAP_FIXED) == MAP_FAILED && errno == ENOMEM);
    errno = 0;
    CHECK(map(top - 4096, 8192, MAP_FIXED_NOREPLACE) == MAP_FAILED && errno == ENOMEM);
    errno = 0;
    CHECK(map(top - 8192, 3 * 4096, MAP_FIXED) == MAP_FAILED && errno == ENOMEM);
    printf("at and past TASK_SIZE: ENOMEM\n");
    p = map(top, 4096, 0);
    CHECK(p != MAP_FAILED && (uintptr_t)p < top);
    CHECK(munmap(p, 4096) == 0);
    printf("hint at TASK_SIZE: placed below\n");

    /* Across a far boundary. */
    p = map(SPLIT - (1 << 20), 2 << 20, MAP_FIXED_NOREPLACE);
    CHECK(p == (char *)(SPLIT - (1 << 20)));
    use_page(p + (1 << 20) - 4096);
    use_page(p + (1 << 20));
    for (int i = 0; i < 16; i++)
        p[(1 << 20) - 8 + i] = (char)(0x10 + i);
    uint64_t word, expect;
    memcpy(&word, (void *)(p + (1 << 20) - 4), 8);
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (unsigned char)(0x14 + i);
    memcpy(&expect, bytes, 8);
    CHECK(word == expect);
    /* The kernel copying across it. */
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], p + (1 << 20) - 8, 16) == 16);
    char back[16];
    CHECK(read(fds[0], back, 16) == 16);
    for (int i = 0; i < 16; i++)
        CHECK(back[i] == (char)(0x10 + i));
    close(fds[0]);
    close(fds[1]);
    CHECK(listed(SPLIT - (1 << 20), 2 << 20));
    CHECK(munmap(p, 2 << 20) == 0);
    printf("mapping across a far boundary: ok\n");
#if defined(__s390x__)
    p = map((uintptr_t)1 << 42, 1 << 20, MAP_FIXED_NOREPLACE);
    CHECK(p == (char *)((uintptr_t)1 << 42));
    use_page(p);
    use_page(p + (1 << 20) - 4096);
    CHECK(munmap(p, 1 << 20) == 0);
    /* Code there: `lghi %r2,42; br %r14` run from 2^51. */
    static const unsigned char code[] = {0xa7, 0x29, 0x00, 0x2a, 0x07, 0xfe};
    p = mmap((void *)((uintptr_t)1 << 51), 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(p == (char *)((uintptr_t)1 << 51));
    memcpy(p, code, sizeof code);
    __builtin___clear_cache(p, p + sizeof code);
    CHECK(((long (*)(void))(void *)p)() == 42);
    CHECK(munmap(p, 4096) == 0);
#endif
    return 0;
}
