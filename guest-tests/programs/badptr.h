/* Shared by the badptr_* tests (issue 15 part 3, "bad pointers everywhere").
 *
 * Four kinds of bad pointer are handed to system calls through raw syscall(2):
 *   NULL  address 0;
 *   UNM   a page that was mapped and then unmapped (nothing is mapped there);
 *   RO    a page mapped PROT_READ, filled with 0x5a (for buffers the kernel writes);
 *   E8/E4 8 or 4 bytes before EDGE, the end of a readable and writable mapping whose next page
 *         (UNM) is unmapped, so a buffer there straddles the end of the mapping.
 * Each case prints one line, "<call> <what> -> -ERRNO" or "-> <return value>", so the expected
 * output, made by running the x86_64 build natively, records what Linux answers.  At the end
 * the read-only page must still hold 0x5a everywhere and the unmapped pages must still be
 * unmapped. */
#ifndef GUEST_TESTS_BADPTR_H
#define GUEST_TESTS_BADPTR_H

#include "common.h"
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static long pg;
static char *UNM, *RO, *EDGE;
#define NUL ((void *)0)
#define E8 (EDGE - 8)
#define E4 (EDGE - 4)

/* The kernel's sigset_t: 128 signals on MIPS, 64 elsewhere. */
#ifdef __mips__
#define KSIGSET 16
#else
#define KSIGSET 8
#endif

static void badptr_show(const char *what, long r, int e)
{
    if (r == -1)
        printf("%s -> -%s\n", what, errname(e));
    else
        printf("%s -> %ld\n", what, r);
    fflush(stdout);
}

/* One case: the call's result, or -ERRNO. */
#define T(what, call)                                                                   \
    do {                                                                                \
        errno = 0;                                                                      \
        long r_ = (long)(call);                                                         \
        badptr_show(what, r_, errno);                                                   \
    } while (0)

/* One case whose successful result is not a fixed number (a pid, a time): "ok". */
#define TOK(what, call)                                                                 \
    do {                                                                                \
        errno = 0;                                                                      \
        long r_ = (long)(call);                                                         \
        if (r_ == -1)                                                                   \
            badptr_show(what, r_, errno);                                               \
        else                                                                            \
            printf("%s -> ok\n", what);                                                 \
        fflush(stdout);                                                                 \
    } while (0)

/* One mapping of three pages: [read-write, 'e'][unmapped: UNM = EDGE][read-only, 0x5a]. */
static void badptr_setup(void)
{
    pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    memset(m, 'e', pg);
    memset(m + 2 * pg, 0x5a, pg);
    CHECK(munmap(m + pg, pg) == 0);
    CHECK(mprotect(m + 2 * pg, pg, PROT_READ) == 0);
    UNM = EDGE = m + pg;
    RO = m + 2 * pg;
}

/* Fills the bytes before EDGE with c (a path there then has no NUL before the end). */
static inline void edge_fill(char c)
{
    memset(EDGE - 64, c, 64);
}

/* A path that runs into the unmapped page with no NUL: the bytes before the edge are filled
 * again first (a native call that failed on a struct there may have written part of it). */
#define PE8 (edge_fill('a'), E8)

/* Puts n bytes at the start of the read-only page (made writable for the copy only). */
static inline void ro_put(const void *src, size_t n)
{
    CHECK(mprotect(RO, pg, PROT_READ | PROT_WRITE) == 0);
    memcpy(RO, src, n);
    CHECK(mprotect(RO, pg, PROT_READ) == 0);
}

/* Fills the read-only page with 0x5a again. */
static inline void ro_reset(void)
{
    CHECK(mprotect(RO, pg, PROT_READ | PROT_WRITE) == 0);
    memset(RO, 0x5a, pg);
    CHECK(mprotect(RO, pg, PROT_READ) == 0);
}

/* The read-only page is untouched and the unmapped pages are still unmapped. */
static void badptr_finish(void)
{
    int same = 1;
    for (long i = 0; i < pg; i++)
        same &= RO[i] == 0x5a;
    unsigned char v;
    printf("read-only page unchanged: %d\n", same);
    printf("unmapped page still unmapped: %d\n", mincore(UNM, pg, &v) == -1 && errno == ENOMEM);
    printf("still running\n");
}

#endif
