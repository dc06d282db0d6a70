/* x86 traps as Linux reports them to a handler: `int3` is SIGTRAP `SI_KERNEL` with the PC after
 * it and trapno 3; `ud2` is SIGILL `ILL_ILLOPN` at the instruction, trapno 6; `int $0x42` (a
 * vector the IDT does not open to user space) is a general-protection fault on the
 * instruction: SIGSEGV `SI_KERNEL`, trapno 13, error code 0x42 << 3 | 2 (the IDT entry). The
 * handler moves the PC past `ud2` and `int $0x42` and the program goes on. x86_64 and i386. */
#define _GNU_SOURCE
#include <signal.h>
#include <ucontext.h>

#include "common.h"

#ifdef __x86_64__
#define PC REG_RIP
#else
#define PC REG_EIP
#endif

extern char at_int3[], at_ud2[], at_int42[];

static void handler(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    char *pc = (char *)uc->uc_mcontext.gregs[PC];
    char *want = sig == SIGTRAP ? at_int3 + 1 : sig == SIGILL ? at_ud2 : at_int42;
    const char *where = pc == want ? "where Linux puts it" : pc == want + 2 ? "2 bytes on" : "elsewhere";
    printf("%s: si_code %d, pc %s, trapno %ld, err %#lx\n", strsignal(sig), si->si_code, where,
           (long)uc->uc_mcontext.gregs[REG_TRAPNO], (long)uc->uc_mcontext.gregs[REG_ERR]);
    if (sig != SIGTRAP) {
        uc->uc_mcontext.gregs[PC] += 2;
    }
}

int main(void)
{
    struct sigaction sa = {.sa_sigaction = handler, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGTRAP, &sa, NULL) == 0 && sigaction(SIGILL, &sa, NULL) == 0 && sigaction(SIGSEGV, &sa, NULL) == 0);
    __asm__ volatile("at_int3: int3");
    __asm__ volatile("at_ud2: ud2");
    __asm__ volatile("at_int42: int $0x42");
    printf("went on after the three traps\n");
    return 0;
}
