/* A 64-bit process's read(2) and write(2) with a count that takes the buffer past the top of
 * user space fail with EFAULT before anything is copied (the kernel's access_ok of the whole
 * range), whatever the file holds: the stack's buffer plus 2^46 bytes or SSIZE_MAX bytes lies
 * above every arch's user space (x86_64's 47 bits, aarch64's 48...). A count that stays
 * inside user space is served: it reads what the file has. (32-bit processes on 64-bit
 * kernels are range-checked against the 64-bit top, so their huge counts pass.) */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>

static void show(const char *what, long r)
{
    printf("%s: %s\n", what, r == -1 ? errname(errno) : r > 0 ? "bytes" : "0");
}

int main(void)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    static char big[1 << 16];
    char small[64];
    volatile size_t huge = (size_t)1 << 46, max = SIZE_MAX >> 1;
    show("read into the stack, 2^46 bytes", read(fd, small, huge));
    show("read into the stack, SSIZE_MAX bytes", read(fd, small, max));
    show("write from the stack, 2^46 bytes", write(1, small, huge));
    show("read of 64 KiB", read(fd, big, sizeof big));
    CHECK(close(fd) == 0);
    return 0;
}
