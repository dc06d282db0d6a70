/* Port I/O in a user process without `ioperm`/`iopl`: at CPL 3 with IOPL 0 the CPU looks up
 * the port in the TSS's I/O permission bitmap (Intel SDM vol. 1, 19.5), which Linux leaves
 * without the process's ports, so `in` and `out` raise a general-protection fault: SIGSEGV
 * `SI_KERNEL`, si_addr 0, trapno 13, error code 0, the PC on the instruction
 * (arch/x86/kernel/traps.c `exc_general_protection`). x86_64 and i386. */
#define _GNU_SOURCE 1
#include "common.h"
#include "x86_fault.h"

int main(void)
{
    install_fault_handler();
    RUN("in al, dx", "in %%dx, %%al");
    RUN("out dx, al", "out %%al, %%dx");
    RUN("in al, 0x80", "in $0x80, %%al");
    RUN("in eax, dx", "in %%dx, %%eax");
    printf("went on after each\n");
    return 0;
}
