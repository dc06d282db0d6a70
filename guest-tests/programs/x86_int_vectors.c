/* `int N` from user mode as Linux answers it: its IDT opens only vectors 3 (`int $3`: SIGTRAP
 * `SI_KERNEL`, trapno 3, the PC after it, `do_int3_user`), 4 (`int $4`: SIGSEGV `SI_KERNEL`,
 * trapno 4, the PC after it) and 0x80 (the i386 system call) to user code (DPL 3 gates,
 * arch/x86/kernel/idt.c); any other vector, the CPU's exception vectors below 32 included, is
 * a general-protection fault on the instruction: SIGSEGV `SI_KERNEL`, trapno 13, error code
 * `N << 3 | 2` (the IDT entry; Intel SDM vol. 3, 6.13). So `int $0` is not a divide error
 * and `int $1` not a debug trap. `int1` (`icebp`, 0xf1) is the CPU's debug trap: SIGTRAP
 * `TRAP_BRKPT`, trapno 1, si_addr and the PC after it (`exc_debug_user`); the trap flag's
 * single step is the same vector with `TRAP_TRACE`, after the instruction that follows the
 * `popf` that set it. x86_64 and i386. */
#define _GNU_SOURCE 1
#include "common.h"
#include "x86_fault.h"

#ifdef __x86_64__
#define SP "rsp"
#else
#define SP "esp"
#endif

int main(void)
{
    install_fault_handler();
    RUN("int $0", "int $0");
    RUN("int $1", "int $1");
    RUN("int $3", "int $3");
    RUN("int $4", "int $4");
    RUN("int $6", "int $6");
    RUN("int $13", "int $13");
    RUN("int $14", "int $14");
    RUN("int $31", "int $31");
    RUN("int $32", "int $32");
    RUN("int $0xff", "int $0xff");
    RUN("int1 (icebp)", ".byte 0xf1");
    RUN("int1 with an operand-size prefix", ".byte 0x66, 0xf1");
    RUN("single step: the trap flag set by popf", "pushf; orl $0x100, (%%" SP "); popf; nop");
    printf("went on after each\n");
    return 0;
}
