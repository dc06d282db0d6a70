/* readlink's size is the kernel's `int bufsiz` (fs/stat.c readlinkat): a size that is zero or
 * negative as an int is EINVAL, before the buffer is looked at; a small size truncates the
 * target without a NUL. */
#include "common.h"
#include <fcntl.h>
#include <sys/syscall.h>

static long readlink_sz(char *buf, size_t size)
{
    return syscall(SYS_readlinkat, AT_FDCWD, "link", buf, size);
}

int main(void)
{
    char buf[16];
    CHECK(symlink("target-of-twenty-one", "link") == 0);
    EXPECT_ERR("size 0", readlink_sz(buf, 0), EINVAL);
    EXPECT_ERR("size 2^31", readlink_sz(buf, (size_t)0x80000000u), EINVAL);
    EXPECT_ERR("size 2^32-1", readlink_sz(buf, (size_t)0xffffffffu), EINVAL);
    long n = readlink_sz(buf, 6);
    printf("size 6: %ld %.6s\n", n, buf);
    return 0;
}
