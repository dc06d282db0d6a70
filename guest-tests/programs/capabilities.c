/* capget/capset (capget(2)): the version probe libcap makes, the version-3 sets read and set
 * back unchanged, version 1, and the errors. The structs are three 32-bit words per set, in
 * the guest's byte order. Only privilege-independent facts are printed. */
#include "common.h"
#include <sys/syscall.h>

struct cap_header { unsigned version; int pid; };
struct cap_data { unsigned effective, permitted, inheritable; };

int main(void)
{
    struct cap_header h = { 0x12345678, 0 };
    struct cap_data d[2], again[2], v1[1];
    long r = syscall(SYS_capget, &h, NULL);
    printf("probe: %ld, version %#x\n", r, h.version);
    h.version = 0x12345678;
    EXPECT_ERR("bad version", syscall(SYS_capget, &h, d), EINVAL);
    printf("kernel's version written back: %#x\n", h.version);

    h.version = 0x20080522;
    CHECK(syscall(SYS_capget, &h, d) == 0);
    printf("v3 capget: ok, effective within permitted: %s\n",
           (d[0].effective & ~d[0].permitted) == 0 && (d[1].effective & ~d[1].permitted) == 0 ? "yes" : "no");
    printf("v3 capset of the same sets: %ld\n", syscall(SYS_capset, &h, d));
    CHECK(syscall(SYS_capget, &h, again) == 0);
    printf("unchanged: %s\n", memcmp(d, again, sizeof d) == 0 ? "yes" : "no");

    h.version = 0x19980330;
    CHECK(syscall(SYS_capget, &h, v1) == 0);
    printf("v1 gives the low words: %s\n", memcmp(&v1[0], &d[0], sizeof v1[0]) == 0 ? "yes" : "no");

    h.version = 0x20080522;
    h.pid = getpid();
    CHECK(syscall(SYS_capget, &h, again) == 0);
    printf("own pid: %s\n", memcmp(d, again, sizeof d) == 0 ? "same sets" : "differ");
    h.pid = 0x3ffffff0;
    EXPECT_ERR("no such pid", syscall(SYS_capget, &h, d), ESRCH);
    EXPECT_ERR("bad header", syscall(SYS_capget, (void *)16, d), EFAULT);
    h.pid = 0;
    EXPECT_ERR("bad data", syscall(SYS_capget, &h, (void *)16), EFAULT);
    return 0;
}
