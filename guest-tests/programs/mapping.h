/* Helpers of the mmap tests (mmap_anywhere, mmap_task_size, mmap_neighbours): the lines of
 * /proc/self/maps one by one, whether they cover a range, and a page used as a program uses
 * memory. */
#ifndef MAPPING_H
#define MAPPING_H

#include "common.h"
#include <stdint.h>

/* The lines of /proc/self/maps, one at a time:
 *     struct maps m;
 *     maps_open(&m);
 *     while (maps_next(&m))
 *         ... m.lo, m.hi: the line's range; m.line: the whole line ...
 * maps_next closes the file after the last line. */
struct maps {
    FILE *f;
    unsigned long lo, hi;
    char line[512];
};

static inline void maps_open(struct maps *m)
{
    m->f = fopen("/proc/self/maps", "r");
    CHECK(m->f != NULL);
}

static inline int maps_next(struct maps *m)
{
    if (fgets(m->line, sizeof m->line, m->f)) {
        CHECK(sscanf(m->line, "%lx-%lx", &m->lo, &m->hi) == 2);
        return 1;
    }
    fclose(m->f);
    m->f = NULL;
    return 0;
}

/* Is [a, a+len) covered by lines of /proc/self/maps? */
static inline int listed(uintptr_t a, size_t len)
{
    struct maps m;
    uintptr_t covered = a;
    maps_open(&m);
    while (maps_next(&m))
        if (m.lo <= covered && m.hi > covered)
            covered = m.hi;
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
