/* Privileged x86 instructions in a user process: Linux runs user code at CPL 3, where `hlt`,
 * `cli`, `sti`, `lgdt`, moves to and from control registers, `rdmsr`, `wbinvd`, `invd` and
 * `clts`, and `rdpmc` without CR4.PCE (which Linux sets only for a task with a perf event
 * mapped), raise a general-protection fault (Intel SDM vol. 3, 2.8 and 5.9), which the kernel
 * reports as SIGSEGV `SI_KERNEL` (0x80) with si_addr 0, trapno 13 and error code 0, the PC
 * on the instruction (arch/x86/kernel/traps.c `exc_general_protection`). The handler moves
 * the PC past each instruction and the program goes on. x86_64 and i386. */
#define _GNU_SOURCE 1
#include "common.h"
#include "x86_fault.h"

int main(void)
{
    install_fault_handler();
    RUN("hlt", "hlt");
    RUN("cli", "cli");
    RUN("sti", "sti");
    RUN("lgdt", LGDT);
    RUN("mov from cr0", MOV_CR0);
    RUN("rdmsr", "rdmsr");
    RUN("wbinvd", "wbinvd");
    RUN("invd", "invd");
    RUN("clts", "clts");
    RUN("rdpmc", "rdpmc");
    printf("went on after each\n");
    return 0;
}
