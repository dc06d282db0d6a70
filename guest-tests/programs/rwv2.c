/* preadv2/pwritev2 (offsets, -1 for the file position, RWF_APPEND, an unknown flag) and
 * fchmodat2 (Linux 6.6: AT_SYMLINK_NOFOLLOW on a symlink is EOPNOTSUPP). */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

/* fchmodat2 is 452 in every table (5452 in MIPS n64's); Debian 12's headers predate it. */
#ifndef SYS_fchmodat2
#if defined(__mips__)
#define SYS_fchmodat2 5452
#else
#define SYS_fchmodat2 452
#endif
#endif
int main(void)
{
    int fd = open("f", O_CREAT | O_RDWR, 0600);
    CHECK(fd >= 0);
    char a[] = "hello ", b[] = "world";
    struct iovec w[2] = { { a, 6 }, { b, 5 } };
    printf("pwritev2 at 0: %zd\n", pwritev2(fd, w, 2, 0, 0));
    printf("pwritev2 at the position (-1), RWF_APPEND: %zd\n", pwritev2(fd, w, 1, -1, RWF_APPEND));
    char r1[6] = {0}, r2[11] = {0};
    struct iovec rv[2] = { { r1, 5 }, { r2, 10 } };
    printf("preadv2 at 0: %zd: %s|%s\n", preadv2(fd, rv, 2, 0, 0), r1, r2);
    EXPECT_ERR("preadv2 unknown flag", preadv2(fd, rv, 2, 0, 0x1000), EOPNOTSUPP);
    printf("fchmodat2: %ld\n", syscall(SYS_fchmodat2, AT_FDCWD, "f", 0640, 0));
    struct stat st;
    CHECK(stat("f", &st) == 0);
    printf("mode: %o\n", st.st_mode & 0777);
    CHECK(symlink("f", "l") == 0);
    EXPECT_ERR("fchmodat2 of a symlink, nofollow", syscall(SYS_fchmodat2, AT_FDCWD, "l", 0600, AT_SYMLINK_NOFOLLOW), EOPNOTSUPP);
    EXPECT_ERR("fchmodat2 bad flags", syscall(SYS_fchmodat2, AT_FDCWD, "f", 0600, 0x1), EINVAL);
    return 0;
}
