/* arch_prctl's CPUID-faulting query (arch_prctl(2)): ARCH_GET_CPUID answers 1 (cpuid runs);
 * i386 has the code too. (ARCH_SET_CPUID depends on the CPU: ENODEV without CPUID faulting, as
 * endgate's emulated CPU answers, so it is not compared with a native run.) */
#include "common.h"
#include <sys/syscall.h>

int main(void)
{
    printf("ARCH_GET_CPUID: %ld\n", syscall(SYS_arch_prctl, 0x1011, 0));
    EXPECT_ERR("unknown code", syscall(SYS_arch_prctl, 0x9999, 0), EINVAL);
    return 0;
}
