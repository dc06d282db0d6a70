/* mremap(2) with MREMAP_DONTUNMAP (Linux 5.7; any mapping since 5.13): the pages move to the
 * new address and the old range stays mapped with its permissions, its pages empty (anonymous
 * memory reads back as zero, a private file mapping as the file). It needs MREMAP_MAYMOVE and
 * equal sizes (EINVAL otherwise); with MREMAP_FIXED the pages go exactly where asked. The
 * new address is passed as NULL where it is not used: Linux 6.18 refuses a misaligned one even
 * without MREMAP_FIXED. */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static int mapped(void *a)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= (uintptr_t)a && (uintptr_t)a < hi)
            found = 1;
    }
    fclose(f);
    return found;
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t len = 4 * pg;
    char *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED);
    for (size_t i = 0; i < len; i++)
        a[i] = (char)(i * 7 + 1);

    errno = 0;
    void *r = mremap(a, len, len, MREMAP_DONTUNMAP, NULL);
    printf("without MREMAP_MAYMOVE: %s\n", r == MAP_FAILED ? strerror(errno) : "moved");
    errno = 0;
    r = mremap(a, len, 2 * len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
    printf("another size: %s\n", r == MAP_FAILED ? strerror(errno) : "moved");

    char *b = mremap(a, len, len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
    CHECK(b != MAP_FAILED);
    int same = 1, zero = 1;
    for (size_t i = 0; i < len; i++) {
        same &= b[i] == (char)(i * 7 + 1);
        zero &= a[i] == 0;
    }
    printf("moved elsewhere %d, contents moved %d, old range mapped %d, reads zero %d\n", b != a, same,
           mapped(a), zero);
    a[5] = 9;
    printf("old range writable: %d, new untouched by it: %d\n", a[5] == 9, b[5] == (char)(5 * 7 + 1));

    /* With MREMAP_FIXED, to an address of our choosing (a range we unmapped). */
    char *c = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(c != MAP_FAILED && munmap(c, len) == 0);
    char *d = mremap(b, len, len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, c);
    printf("fixed: at the address asked %d, contents %d, old range reads zero %d\n", d == c,
           d != MAP_FAILED && d[len - 1] == (char)((len - 1) * 7 + 1), d != MAP_FAILED && b[len - 1] == 0);

    /* A private file mapping: the old range reads the file again. */
    char path[] = "/tmp/mremap_dontunmapXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    char page[4096];
    memset(page, 'f', sizeof page);
    CHECK(write(fd, page, sizeof page) == (ssize_t)sizeof page);
    char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(m != MAP_FAILED);
    m[0] = 'x';
    char *n = mremap(m, 4096, 4096, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
    printf("file mapping: moved %d, the copy moved %d, old range reads the file %d\n", n != MAP_FAILED,
           n != MAP_FAILED && n[0] == 'x', m[0] == 'f');
    return 0;
}
