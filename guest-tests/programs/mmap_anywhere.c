/* Mappings anywhere in the user address space, as Linux allows them (mmap(2): MAP_FIXED,
 * MAP_FIXED_NOREPLACE, a hint honoured when the range is free):
 * - at 64 GiB, where AddressSanitizer's aarch64 shadow begins, and a large MAP_NORESERVE
 *   reservation there (8 GiB; 512 MiB on 32-bit arches);
 * - a 3 GiB mapping at an address that is not 1 GiB-aligned (256 MiB on 32-bit arches);
 * - a hint far from every other mapping, honoured;
 * - 128 GiB below the stack (1 GiB on 32-bit arches), outside the area mmap fills top-down;
 * - from each: guest stores and loads, an atomic add, a system call reading and one writing the
 *   memory, the range listed in /proc/self/maps, MAP_FIXED_NOREPLACE over it refused with
 *   EEXIST, and munmap.
 * The addresses lie below every 64-bit guest's TASK_SIZE (riscv64's Sv39 256 GiB is the
 * smallest) and in every 32-bit one. */
#include "mapping.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static const int wide = sizeof(void *) == 8;

/* Maps [a, a+len) with `flags`, uses its first and last pages, checks the maps listing and
 * MAP_FIXED_NOREPLACE's refusal, unmaps it. */
static void try_at(const char *label, uintptr_t a, size_t len, int flags)
{
    void *p = mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK((uintptr_t)p == a);
    use_page((char *)p);
    use_page((char *)p + len - 4096);
    CHECK(listed(a, len));
    errno = 0;
    void *q = mmap((void *)(a + len / 2), 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(q == MAP_FAILED && errno == EEXIST);
    CHECK(munmap(p, len) == 0);
    CHECK(!listed(a, 4096));
    printf("%s: ok\n", label);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    uintptr_t gib = (uintptr_t)1 << 30;

    /* 64 GiB (0x1000000000), MAP_FIXED_NOREPLACE; 0x90000000 on 32-bit arches. */
    uintptr_t low = wide ? (uintptr_t)64 * gib : (uintptr_t)0x90000000u;
    try_at("fixed, far from the image", low, 1 << 20, MAP_FIXED_NOREPLACE);

    /* An 8 GiB MAP_NORESERVE reservation just below 64 GiB + 8 GiB, as an ASan shadow. */
    size_t big = wide ? (size_t)8 * gib : (size_t)512 << 20;
    try_at("large noreserve reservation", low - 4096, big, MAP_FIXED | MAP_NORESERVE);

    /* 3 GiB from an address that is not 1 GiB-aligned: several GiB boundaries inside. */
    uintptr_t odd = wide ? (uintptr_t)129 * gib + 0x1000 : (uintptr_t)0x60001000u;
    try_at("spanning gigabyte boundaries", odd, wide ? 3 * gib : (size_t)256 << 20, MAP_FIXED);

    /* A hint in free space is where the mapping goes. */
    uintptr_t hint = wide ? (uintptr_t)192 * gib : (uintptr_t)0x98000000u;
    try_at("hint honoured", hint, 1 << 20, 0);

    /* An unaligned hint: x86's kernel rounds it down (arch_get_unmapped_area: addr &=
     * PAGE_MASK), the others' up (PAGE_ALIGN: mm/mmap.c, arch/s390/mm/mmap.c, arch/arm/mm/mmap.c,
     * arch/mips/mm/mmap.c). */
    uintptr_t odd_hint = hint + ((uintptr_t)4 << 20) + 1;
#if defined(__x86_64__) || defined(__i386__)
    uintptr_t want = odd_hint - 1;
#else
    uintptr_t want = odd_hint - 1 + 4096;
#endif
    void *r = mmap((void *)odd_hint, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(r == (void *)want);
    CHECK(munmap(r, 4096) == 0);
    printf("unaligned hint rounded as the arch's kernel does: ok\n");

    /* A hint just below the stack, inside the gap Linux keeps there (stack_guard_gap, 256
     * pages): placed elsewhere. */
    struct maps m;
    uintptr_t stack_lo = 0;
    maps_open(&m);
    while (maps_next(&m))
        if (strstr(m.line, "[stack]"))
            stack_lo = m.lo;
    CHECK(stack_lo != 0);
    r = mmap((void *)(stack_lo - 8192), 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(r != MAP_FAILED && r != (void *)(stack_lo - 8192));
    CHECK(munmap(r, 4096) == 0);
    printf("hint in the stack's guard gap: placed elsewhere\n");

    /* Far below the stack. */
    int on_stack;
    uintptr_t below = (((uintptr_t)&on_stack) & ~(gib - 1)) - (wide ? 128 * gib : gib);
    try_at("far below the stack", below, 1 << 20, MAP_FIXED_NOREPLACE);

    /* Two neighbouring mappings made apart, then used as one range by a system call. */
    uintptr_t pair = wide ? (uintptr_t)200 * gib - 4096 : (uintptr_t)0xa0000000u - 4096;
    char *a = mmap((void *)pair, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(a == (char *)pair);
    char *b = mmap((void *)(pair + 4096), 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(b == a + 4096);
    int fd = open("/proc/self/exe", O_RDONLY);
    CHECK(fd >= 0);
    CHECK(pread(fd, a + 4000, 200, 0) == 200);
    CHECK(memcmp(a + 4000, "\177ELF", 4) == 0);
    close(fd);
    CHECK(munmap(a, 8192) == 0);
    printf("neighbours used as one range: ok\n");
    return 0;
}
