/* The system-call number is an int on x86_64 and aarch64: the kernel reads the low 32 bits of
 * rax (arch/x86/entry/syscall_64.c, do_syscall_64(regs, int nr)) or of x8
 * (arch/arm64/kernel/syscall.c, el0_svc_common(regs, int scno, ...)), so bits above them
 * change nothing: getpid with bit 32 or bit 63 set is getpid, and a number whose low 32 bits
 * are no call is ENOSYS. */
#include "common.h"
#include <sys/syscall.h>

int main(void)
{
    long pid = getpid();
    printf("getpid with bit 32 set: %s\n", syscall(SYS_getpid | 1L << 32) == pid ? "the pid" : "not the pid");
    printf("getpid with bit 63 set: %s\n", syscall(SYS_getpid | 1L << 62 << 1) == pid ? "the pid" : "not the pid");
    EXPECT_ERR("number 0xffffffff with bit 40 set", syscall(0xffffffffL | 1L << 40), ENOSYS);
    return 0;
}
