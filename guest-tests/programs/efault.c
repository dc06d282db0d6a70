/* Bad user pointers make system calls fail with EFAULT, and the program carries on:
 * write from an unmapped address, openat with an unmapped path, read into a read-only page,
 * stat into an unmapped buffer, and so on. */
#include "common.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

/* fstatat's raw syscall: newfstatat on 64-bit arches, fstatat64 (struct stat64) on 32-bit ones. */
#ifdef SYS_newfstatat
#define SYS_FSTATAT SYS_newfstatat
#else
#define SYS_FSTATAT SYS_fstatat64
#endif

int main(void)
{
    EXPECT_ERR("write from 0x10", syscall(SYS_write, 1, (void *)0x10, 5), EFAULT);
    EXPECT_ERR("openat unmapped path", syscall(SYS_openat, AT_FDCWD, (void *)0x10, O_RDONLY), EFAULT);

    long pg = sysconf(_SC_PAGESIZE);
    char *ro = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    CHECK(mprotect(ro, pg, PROT_READ) == 0);
    int fd = open("/dev/zero", O_RDONLY);
    CHECK(fd >= 0);
    EXPECT_ERR("read into a read-only page", syscall(SYS_read, fd, ro, 16), EFAULT);
    printf("read-only page still zero: %d\n", ro[0] == 0);

    int p[2];
    CHECK(pipe(p) == 0);
    CHECK(write(p[1], "abc", 3) == 3);
    EXPECT_ERR("read pipe into unmapped", syscall(SYS_read, p[0], (void *)0x10, 3), EFAULT);

    /* A buffer that runs off the end of a mapping into an unmapped page. */
    char *two = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(two != MAP_FAILED);
    CHECK(munmap(two + pg, pg) == 0);
    memset(two, 'q', pg);
    errno = 0;
    long n = syscall(SYS_write, p[1], two + pg - 8, 16);
    printf("write straddling into an unmapped page: %s\n", n == 8 ? "short write of 8" : n == -1 ? errname(errno) : "other");

    EXPECT_ERR("stat into unmapped", syscall(SYS_FSTATAT, AT_FDCWD, ".", (void *)0x10, 0), EFAULT);
    EXPECT_ERR("fstatat unmapped path", syscall(SYS_FSTATAT, AT_FDCWD, (void *)0x10, two, 0), EFAULT);
    EXPECT_ERR("clock_gettime unmapped", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (void *)0x10), EFAULT);
    EXPECT_ERR("pipe2 unmapped", syscall(SYS_pipe2, (void *)0x10, 0), EFAULT);
    struct iovec iov = {(void *)0x10, 4};
    EXPECT_ERR("writev unmapped iov base", syscall(SYS_writev, p[1], &iov, 1), EFAULT);
    EXPECT_ERR("writev unmapped iov array", syscall(SYS_writev, p[1], (void *)0x10, 1), EFAULT);
    EXPECT_ERR("uname unmapped", syscall(SYS_uname, (void *)0x10), EFAULT);
    EXPECT_ERR("getcwd into unmapped", syscall(SYS_getcwd, (void *)0x10, 100), EFAULT);
    EXPECT_ERR("readlinkat into read-only", syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", ro, 100), EFAULT);
    printf("still running\n");
    return 0;
}
