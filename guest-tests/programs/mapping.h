/* Helpers of the mmap tests (mmap_anywhere, mmap_task_size): whether /proc/self/maps covers a
 * range, and a page used as a program uses memory. */
#ifndef MAPPING_H
#define MAPPING_H

#include "common.h"
#include <stdint.h>

/* Is [a, a+len) covered by lines of /proc/self/maps? */
static inline int listed(uintptr_t a, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    uintptr_t covered = a;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
            continue;
        if (lo <= covered && hi > covered)
            covered = hi;
    }
    fclose(f);
    return covered >= a + len;
}

/* Uses the page at p: stores and loads, the arch's atomic instructions (mips64el's ll/sc,
 * aarch64's exclusives…), the kernel writing it (read from a pipe) and reading it (write to a
 * pipe). */
static inline void use_page(volatile char *p)
{
    for (int i = 0; i < 4096; i += 512)
        p[i] = (char)(i / 512 + 1);
    for (int i = 0; i < 4096; i += 512)
        CHECK(p[i] == (char)(i / 512 + 1));
    long *w = (long *)(p + 256);
    __atomic_store_n(w, 40, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(w, 2, __ATOMIC_SEQ_CST);
    CHECK(__atomic_load_n(w, __ATOMIC_SEQ_CST) == 42);
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], "from a pipe", 11) == 11);
    CHECK(read(fds[0], (char *)p + 100, 11) == 11);
    CHECK(memcmp((char *)p + 100, "from a pipe", 11) == 0);
    CHECK(write(fds[1], (char *)p + 100, 11) == 11);
    char back[11];
    CHECK(read(fds[0], back, 11) == 11);
    CHECK(memcmp(back, "from a pipe", 11) == 0);
    close(fds[0]);
    close(fds[1]);
}

#endif
