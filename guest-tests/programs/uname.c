/* uname: sysname is Linux and machine is the architecture this program was compiled for. */
#include "common.h"
#include <sys/utsname.h>

#if defined(__x86_64__)
#define ARCH "x86_64"
#elif defined(__aarch64__)
#define ARCH "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH "riscv64"
#elif defined(__s390x__)
#define ARCH "s390x"
#elif defined(__mips64)
#define ARCH "mips64"
#elif defined(__i386__)
#define ARCH "i686"
#elif defined(__arm__)
#define ARCH "armv7l"
#else
#error "unknown architecture"
#endif

int main(void)
{
    struct utsname u;
    CHECK(uname(&u) == 0);
    printf("sysname: %s\n", u.sysname);
    /* i386 reports i386..i686; arm reports armv5l..armv8l: compare the prefix family. */
    int ok = strcmp(u.machine, ARCH) == 0;
#if defined(__i386__)
    ok = u.machine[0] == 'i' && strcmp(u.machine + 2, "86") == 0;
#elif defined(__arm__)
    ok = strncmp(u.machine, "armv", 4) == 0;
#endif
    printf("machine matches the compile-time arch: %s\n", ok ? "ok" : u.machine);
    printf("release non-empty and starts with a digit: %s\n", u.release[0] >= '0' && u.release[0] <= '9' ? "ok" : "no");
    printf("nodename non-empty: %s\n", u.nodename[0] ? "ok" : "no");
    return 0;
}
