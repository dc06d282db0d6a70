/* Shared helpers for the guest test programs.
 *
 * Every program prints only values that are the same on every architecture, so that one
 * expected output (made by running the x86_64 build natively) judges all of them.  A failed
 * CHECK prints the line, the expression and errno's symbolic name, then exits 1. */
#ifndef GUEST_TESTS_COMMON_H
#define GUEST_TESTS_COMMON_H

#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* errno's symbolic name ("ENOENT"): the numbers differ between architectures (mips). */
static inline const char *errname(int e)
{
    const char *n = strerrorname_np(e);
    return n ? n : "E?";
}

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            printf("FAIL line %d: %s (errno %s)\n", __LINE__, #cond, errname(errno));   \
            fflush(stdout);                                                             \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* Expects a call to fail with the given errno; prints "<label>: <ERRNAME>". */
#define EXPECT_ERR(label, call, want)                                                   \
    do {                                                                                \
        errno = 0;                                                                      \
        long r_ = (long)(call);                                                         \
        int e_ = errno;                                                                 \
        printf("%s: %s\n", label, r_ == -1 ? errname(e_) : "no error");                 \
        if (r_ != -1 || e_ != (want)) {                                                 \
            printf("FAIL line %d: wanted %s\n", __LINE__, errname(want));               \
            fflush(stdout);                                                             \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

/* The last path component of p. */
static inline const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

#endif
