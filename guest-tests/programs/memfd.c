/* memfd_create (memfd_create(2)): an anonymous file that reads back what was written, is
 * mapped shared, takes seals, is named "memfd:NAME" in /proc/self/fd, and the errors. */
#include "common.h"
#include <fcntl.h>
#include <sys/mman.h>

int main(void)
{
    int fd = memfd_create("guest-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    CHECK(fd >= 0);
    printf("cloexec: %s\n", fcntl(fd, F_GETFD) & FD_CLOEXEC ? "yes" : "no");
    CHECK(write(fd, "hello memfd", 11) == 11);
    char buf[32] = { 0 };
    CHECK(pread(fd, buf, sizeof buf - 1, 0) == 11);
    printf("read back: %s\n", buf);
    char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    printf("mapped: %.11s\n", m);
    m[0] = 'J';
    CHECK(pread(fd, buf, 5, 0) == 5);
    printf("store through the mapping: %.5s\n", buf);
    CHECK(munmap(m, 4096) == 0);
    char link[64] = { 0 }, path[32];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    CHECK(readlink(path, link, sizeof link - 1) > 0);
    printf("link: %s\n", link);
    CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK) == 0);
    printf("seals: %s\n", fcntl(fd, F_GET_SEALS) == (F_SEAL_WRITE | F_SEAL_SHRINK) ? "write|shrink" : "other");
    EXPECT_ERR("write after F_SEAL_WRITE", write(fd, "x", 1), EPERM);
    EXPECT_ERR("shrink after F_SEAL_SHRINK", ftruncate(fd, 1), EPERM);
    int plain = memfd_create("plain", 0);
    CHECK(plain >= 0);
    EXPECT_ERR("seal without MFD_ALLOW_SEALING", fcntl(plain, F_ADD_SEALS, F_SEAL_WRITE), EPERM);
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    EXPECT_ERR("name too long", memfd_create(longname, 0), EINVAL);
    EXPECT_ERR("unknown flag", memfd_create("x", 0x100), EINVAL);
    EXPECT_ERR("bad name pointer", memfd_create((const char *)16, 0), EFAULT);
    return 0;
}
