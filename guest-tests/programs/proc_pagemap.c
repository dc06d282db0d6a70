/* /proc/self/pagemap: 8 bytes per page of the program's address space at offset
 * vaddr / pagesize * 8 (Documentation/admin-guide/mm/pagemap.rst): bit 63 for a page in
 * memory, bit 56 for a page mapped only here, frame numbers only for CAP_SYS_ADMIN, nothing
 * for unmapped pages, EINVAL for a position or size that is not a multiple of 8. */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/uio.h>

#define PRESENT (1ULL << 63)
#define EXCLUSIVE (1ULL << 56)
#define PFN_MASK ((1ULL << 55) - 1)

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *base = mmap(NULL, 8 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(base != MAP_FAILED);
    char *p = mmap(base + 2 * pg, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(p == base + 2 * pg);
    p[0] = 1;
    p[2 * pg] = 1;
    CHECK(munmap(base + 7 * pg, pg) == 0);

    int fd = open("/proc/self/pagemap", O_RDONLY);
    CHECK(fd >= 0);
    uint64_t e[4];
    off_t at = (off_t)((uintptr_t)p / (uintptr_t)pg * 8);
    CHECK(pread(fd, e, sizeof e, at) == (ssize_t)sizeof e);
    printf("present: %d %d %d %d\n", !!(e[0] & PRESENT), !!(e[1] & PRESENT), !!(e[2] & PRESENT),
           !!(e[3] & PRESENT));
    printf("exclusive: %d %d\n", !!(e[0] & EXCLUSIVE), !!(e[2] & EXCLUSIVE));
    int privileged = geteuid() == 0;
    printf("frame numbers as the kernel gives them: %s\n",
           ((e[0] & PFN_MASK) != 0) == privileged ? "ok" : "no");

    /* Touch page 1 now: the next read sees it (entries are made at read time). */
    p[pg] = 1;
    CHECK(pread(fd, e, 8, at + 8) == 8);
    printf("present after touch: %d\n", !!(e[0] & PRESENT));

    /* read() from the file position after lseek. */
    CHECK(lseek(fd, at + 16, SEEK_SET) == at + 16);
    CHECK(read(fd, e, 16) == 16);
    printf("read at position: %d %d\n", !!(e[0] & PRESENT), !!(e[1] & PRESENT));

    /* readv and preadv too. */
    uint64_t v0 = 0, v1 = 0;
    struct iovec iov[2] = {{&v0, 8}, {&v1, 8}};
    CHECK(preadv(fd, iov, 2, at) == 16);
    printf("preadv: %d %d\n", !!(v0 & PRESENT), !!(v1 & PRESENT));
    CHECK(lseek(fd, at + 16, SEEK_SET) == at + 16);
    CHECK(readv(fd, iov, 2) == 16);
    printf("readv: %d %d\n", !!(v0 & PRESENT), !!(v1 & PRESENT));

    /* An unmapped page reads as 0. */
    uint64_t u = 1;
    CHECK(pread(fd, &u, 8, (off_t)((uintptr_t)(base + 7 * pg) / (uintptr_t)pg * 8)) == 8);
    printf("unmapped page entry: %llu\n", (unsigned long long)u);

    EXPECT_ERR("unaligned position", pread(fd, e, 8, at + 4), EINVAL);
    EXPECT_ERR("unaligned size", pread(fd, e, 12, at), EINVAL);

    /* munmap'd pages read as 0 too. */
    CHECK(munmap(p, 4 * pg) == 0);
    CHECK(pread(fd, e, sizeof e, at) == (ssize_t)sizeof e);
    printf("after munmap: %llu %llu\n", (unsigned long long)e[0], (unsigned long long)e[2]);
    close(fd);
    return 0;
}
