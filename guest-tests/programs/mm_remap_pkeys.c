/* remap_file_pages (Linux's emulation: a MAP_FIXED re-mmap of the shared file mapping),
 * cachestat, the protection-key calls on a CPU that may lack keys (pkey -1 is mprotect), and
 * map_shadow_stack on a CPU without shadow stacks. */
#include "common.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

/* Numbers newer than some toolchains' headers: asm-generic's, plus the n64 base on MIPS. */
#ifdef __mips__
#define NR_BASE 5000
#else
#define NR_BASE 0
#endif
#ifndef SYS_cachestat
#define SYS_cachestat (NR_BASE + 451)
#endif
#ifndef SYS_map_shadow_stack
#define SYS_map_shadow_stack (NR_BASE + 453)
#endif

struct range {
    unsigned long long off, len;
};
struct cstat {
    unsigned long long nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

static long rfp(void *addr, unsigned long size, unsigned long prot, unsigned long pgoff, unsigned long flags)
{
    return syscall(SYS_remap_file_pages, addr, size, prot, pgoff, flags);
}

static void letters(const char *label, const char *p, long page, int n)
{
    printf("%s: ", label);
    for (int i = 0; i < n; i++)
        putchar(p[i * page]);
    putchar('\n');
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char path[] = "/tmp/mm_remap_pkeysXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    char *buf = malloc(page);
    for (int i = 0; i < 4; i++) {
        memset(buf, 'A' + i, page);
        CHECK(write(fd, buf, page) == page);
    }

    /* remap_file_pages */
    char *s = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(s != MAP_FAILED);
    CHECK(rfp(s, page, 0, 2, 0) == 0);
    letters("page 2 at 0", s, page, 4);
    CHECK(rfp(s + 1, page + 1, 0, 3, 0) == 0);
    letters("unaligned start and size round down", s, page, 4);
    CHECK(rfp(s + page, page, 0, 0, 0xffff) == 0);
    letters("flags ignored", s, page, 4);
    s[page] = 'a';
    CHECK(pread(fd, buf, 1, 0) == 1);
    printf("a write reaches file page 0: %c\n", buf[0]);
    EXPECT_ERR("prot not 0", rfp(s, page, PROT_READ, 1, 0), EINVAL);
    EXPECT_ERR("size 0", rfp(s, 0, 0, 1, 0), EINVAL);
    EXPECT_ERR("size under a page", rfp(s, 100, 0, 1, 0), EINVAL);
    EXPECT_ERR("past the mapping", rfp(s, 5 * page, 0, 0, 0), EINVAL);
    char *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, fd, 0);
    CHECK(p != MAP_FAILED);
    EXPECT_ERR("private mapping", rfp(p, page, 0, 1, 0), EINVAL);
    CHECK(munmap(p, page) == 0);
    EXPECT_ERR("unmapped", rfp(p, page, 0, 1, 0), EINVAL);
    char *a = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(a != MAP_FAILED);
    a[0] = 'x';
    a[page] = 'y';
    CHECK(rfp(a, page, 0, 1, 0) == 0);
    letters("shared anonymous", a, page, 2);
    char *n = mmap(NULL, page, PROT_NONE, MAP_SHARED, fd, 0);
    CHECK(n != MAP_FAILED);
    CHECK(rfp(n, page, 0, 3, 0) == 0);
    CHECK(mprotect(n, page, PROT_READ) == 0);
    letters("PROT_NONE mapping, then readable", n, page, 1);

    /* cachestat */
    struct range r = {0, 0};
    struct cstat cs;
    memset(&cs, 0x55, sizeof cs);
    errno = 0;
    long c = syscall(SYS_cachestat, fd, &r, &cs, 0);
    if (c != 0 && errno == ENOSYS) {
        printf("cachestat: not in this kernel\n");
    } else {
        CHECK(c == 0);
        printf("cachestat: %llu pages cached, evicted %llu\n", cs.nr_cache, cs.nr_evicted);
        r.off = page;
        r.len = page;
        CHECK(syscall(SYS_cachestat, fd, &r, &cs, 0) == 0);
        printf("one page of it: %llu cached\n", cs.nr_cache);
        EXPECT_ERR("cachestat flags", syscall(SYS_cachestat, fd, &r, &cs, 1), EINVAL);
        EXPECT_ERR("cachestat bad fd", syscall(SYS_cachestat, 999, &r, &cs, 0), EBADF);
        EXPECT_ERR("cachestat bad fd and range", syscall(SYS_cachestat, 999, (void *)8, &cs, 0), EBADF);
        EXPECT_ERR("cachestat bad range", syscall(SYS_cachestat, fd, (void *)8, &cs, 0), EFAULT);
        EXPECT_ERR("cachestat bad result", syscall(SYS_cachestat, fd, &r, (void *)8, 0), EFAULT);
        int opath = open("/", O_PATH);
        EXPECT_ERR("cachestat O_PATH", syscall(SYS_cachestat, opath, &r, &cs, 0), EBADF);
    }

    /* protection keys: a key if the CPU has them, else ENOSPC (x86's first call is EINVAL). */
    char *k = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(k != MAP_FAILED);
    errno = 0;
    long key = syscall(SYS_pkey_alloc, 0, 0);
    if (key < 0 && errno == EINVAL)
        key = syscall(SYS_pkey_alloc, 0, 0);
    if (key >= 0) {
        CHECK(syscall(SYS_pkey_mprotect, k, page, PROT_READ, key) == 0);
        CHECK(syscall(SYS_pkey_free, key) == 0);
        CHECK(syscall(SYS_pkey_free, key) == -1 && errno == EINVAL);
    } else {
        CHECK(errno == ENOSPC);
        CHECK(syscall(SYS_pkey_mprotect, k, page, PROT_READ, 1) == -1 && errno == EINVAL);
        CHECK(syscall(SYS_pkey_free, 1) == -1 && errno == EINVAL);
    }
    printf("pkey_alloc: a key that works, or ENOSPC and no key\n");
    EXPECT_ERR("pkey_alloc flags", syscall(SYS_pkey_alloc, 1, 0), EINVAL);
    EXPECT_ERR("pkey_alloc rights", syscall(SYS_pkey_alloc, 0, 0x10), EINVAL);
    EXPECT_ERR("pkey_free -1", syscall(SYS_pkey_free, -1), EINVAL);
    EXPECT_ERR("pkey_free 15", syscall(SYS_pkey_free, 15), EINVAL);
    CHECK(syscall(SYS_pkey_mprotect, k, page, PROT_READ, -1) == 0);
    CHECK(syscall(SYS_pkey_mprotect, k, page, PROT_READ | PROT_WRITE, -1) == 0);
    k[0] = 1;
    printf("pkey_mprotect -1: as mprotect\n");
    EXPECT_ERR("pkey_mprotect 15", syscall(SYS_pkey_mprotect, k, page, PROT_READ, 15), EINVAL);
    EXPECT_ERR("pkey_mprotect unaligned", syscall(SYS_pkey_mprotect, k + 1, page, PROT_READ, 15), EINVAL);
    CHECK(syscall(SYS_pkey_mprotect, k, 0, 0x80, 15) == 0);
    printf("pkey_mprotect of nothing: 0\n");
    EXPECT_ERR("pkey_mprotect bad prot", syscall(SYS_pkey_mprotect, k, page, 0x80, -1), EINVAL);
    CHECK(munmap(k + page, page) == 0);
    EXPECT_ERR("pkey_mprotect over a hole", syscall(SYS_pkey_mprotect, k, 2 * page, PROT_READ, -1), ENOMEM);
    /* PROT_SEM: arch/mips/include/uapi/asm/mman.h numbers it 0x10, asm-generic 0x8. */
#ifdef __mips__
    CHECK(mprotect(k, page, PROT_READ | 0x10) == 0);
#else
    CHECK(mprotect(k, page, PROT_READ | 0x8) == 0);
#endif
    printf("mprotect PROT_SEM: 0\n");

    /* map_shadow_stack: no shadow stack on these CPUs (EOPNOTSUPP), or none in the kernel. */
    errno = 0;
    long ss = syscall(SYS_map_shadow_stack, 0, page, 0);
    printf("map_shadow_stack: %s\n", ss == -1 && (errno == ENOSYS || errno == EOPNOTSUPP) ? "not supported" : "mapped");
    return 0;
}
