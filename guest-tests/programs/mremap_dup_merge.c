/* mremap with a zero old size duplicates a shared mapping (mm/mremap.c: a second view of the
 * same pages; EINVAL for a private mapping, ENOMEM where it could only grow in place), and
 * mappings split by mprotect and given their permissions back are one mapping again, as
 * Linux merges the VMAs (so /proc/self/maps shows one line and an mremap of the whole range
 * works): private anonymous memory and a shared file mapping. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

static long page;

/* Lines of /proc/self/maps that overlap [p, p+len). */
static int maps_lines(const void *p, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    int n = 0;
    uintptr_t lo = (uintptr_t)p, hi = lo + len;
    while (fgets(line, sizeof line, f)) {
        unsigned long s, e;
        if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s < hi && e > lo)
            n++;
    }
    fclose(f);
    return n;
}

static void split_and_restore(unsigned char *m, int prot)
{
    CHECK(mprotect(m + page, (size_t)page, PROT_READ) == 0);
    CHECK(maps_lines(m, 3 * (size_t)page) == 3);
    CHECK(mprotect(m + page, (size_t)page, prot) == 0);
}

int main(void)
{
    page = sysconf(_SC_PAGESIZE);
    int rw = PROT_READ | PROT_WRITE;

    /* Duplicates of shared anonymous memory and of a memfd. */
    unsigned char *a = mmap(NULL, (size_t)page, rw, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED);
    a[0] = 7;
    unsigned char *b = mremap(a, 0, (size_t)page, MREMAP_MAYMOVE);
    CHECK(b != MAP_FAILED && b != a);
    b[1] = 9;
    printf("shared anonymous duplicate: b[0]=%d a[1]=%d\n", b[0], a[1]);
    int fd = memfd_create("mremap_dup", 0);
    CHECK(fd >= 0 && ftruncate(fd, 4 * page) == 0);
    unsigned char *f = mmap(NULL, 2 * (size_t)page, rw, MAP_SHARED, fd, 0);
    CHECK(f != MAP_FAILED);
    f[page] = 5;
    /* From the second page on, two pages: the second reaches into the file past the view. */
    unsigned char *g = mremap(f + page, 0, 2 * (size_t)page, MREMAP_MAYMOVE);
    CHECK(g != MAP_FAILED);
    g[page] = 6;
    unsigned char byte = 0;
    CHECK(pread(fd, &byte, 1, 2 * page) == 1);
    printf("memfd duplicate: g[0]=%d file[2 pages]=%d\n", g[0], byte);
    errno = 0;
    printf("without MREMAP_MAYMOVE: %s\n", mremap(a, 0, (size_t)page, 0) == MAP_FAILED && errno == ENOMEM ? "ENOMEM" : "?");
    unsigned char *p = mmap(NULL, (size_t)page, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    errno = 0;
    printf("a private mapping: %s\n", mremap(p, 0, (size_t)page, MREMAP_MAYMOVE) == MAP_FAILED && errno == EINVAL ? "EINVAL" : "?");

    /* Split and restored: one mapping again. The area after each is kept free to grow into. */
    unsigned char *area = mmap(NULL, 6 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(area != MAP_FAILED);
    CHECK(munmap(area + 3 * page, 3 * (size_t)page) == 0);
    unsigned char *m = mmap(area, 3 * (size_t)page, rw, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(m == area);
    m[0] = 1;
    split_and_restore(m, rw);
    printf("private anonymous, split and restored: %d line(s)", maps_lines(m, 3 * (size_t)page));
    unsigned char *grown = mremap(m, 3 * (size_t)page, 5 * (size_t)page, 0);
    printf(", grown in place: %s, m[0]=%d\n", grown == m ? "yes" : "no", grown == MAP_FAILED ? -1 : grown[0]);

    area = mmap(NULL, 6 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(area != MAP_FAILED);
    CHECK(munmap(area + 3 * page, 3 * (size_t)page) == 0);
    int fd2 = memfd_create("mremap_merge", 0);
    CHECK(fd2 >= 0 && ftruncate(fd2, 8 * page) == 0);
    m = mmap(area, 3 * (size_t)page, rw, MAP_SHARED | MAP_FIXED, fd2, 0);
    CHECK(m == area);
    m[2 * page] = 3;
    split_and_restore(m, rw);
    printf("shared file, split and restored: %d line(s)", maps_lines(m, 3 * (size_t)page));
    grown = mremap(m, 3 * (size_t)page, 5 * (size_t)page, 0);
    printf(", grown in place: %s, m[2 pages]=%d\n", grown == m ? "yes" : "no", grown == MAP_FAILED ? -1 : grown[2 * page]);
    return 0;
}
