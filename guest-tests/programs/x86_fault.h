/* x86 guest tests of instructions that fault: RUN(name, insn) prints `name`, runs the
 * instruction with a handler for SIGSEGV, SIGILL and SIGTRAP installed by
 * install_fault_handler(), which prints the signal, si_code, si_addr, trapno, error code and
 * whether the PC is on the instruction or after it, then resumes after it. x86_64 and i386. */
#include <signal.h>
#include <ucontext.h>

#ifdef __x86_64__
#define PC REG_RIP
#define MOV_CR0 "mov %%cr0, %%rax"
#define LGDT "lgdt (%%rsp)"
#else
#define PC REG_EIP
#define MOV_CR0 "mov %%cr0, %%eax"
#define LGDT "lgdt (%%esp)"
#endif

static char *volatile at, *volatile after;

static void fault_handler(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    char *pc = (char *)uc->uc_mcontext.gregs[PC];
    char addr[32];
    if (si->si_addr == (void *)at || si->si_addr == (void *)after)
        snprintf(addr, sizeof addr, "%s", si->si_addr == (void *)at ? "the instruction" : "after it");
    else
        snprintf(addr, sizeof addr, "%p", si->si_addr);
    printf("  %s, si_code %#x, si_addr %s, trapno %ld, err %#lx, pc %s\n", strsignal(sig), si->si_code, addr,
           (long)uc->uc_mcontext.gregs[REG_TRAPNO], (long)uc->uc_mcontext.gregs[REG_ERR],
           pc == at ? "on the instruction" : pc == after ? "after it" : "elsewhere");
    uc->uc_mcontext.gregs[PC] = (greg_t)after;
    uc->uc_mcontext.gregs[REG_EFL] &= ~0x100L; /* the trap flag, if a test set it */
}

#ifdef __x86_64__
#define ADDR(lbl) "lea " lbl "(%%rip), %%rax\n\t"
#define TMP "%%rax"
#else
#define ADDR(lbl) "lea " lbl ", %%eax\n\t"
#define TMP "%%eax"
#endif

/* Runs `insn` with `at` set to its address and `after` to the address after it (labels 1 and
 * 2 in one asm statement, so nothing comes between). */
#define RUN(name, insn)                                                                            \
    do {                                                                                           \
        printf("%s\n", name);                                                                      \
        fflush(stdout);                                                                            \
        __asm__ volatile(ADDR("1f") "mov " TMP ", (%0)\n\t" ADDR("2f") "mov " TMP ", (%1)\n\t"      \
                         "1: " insn "\n2:"                                                         \
                         :                                                                         \
                         : "r"(&at), "r"(&after)                                                   \
                         : "memory", "eax", "ecx", "edx");                                         \
    } while (0)

static void install_fault_handler(void)
{
    struct sigaction sa = {.sa_sigaction = fault_handler, .sa_flags = SA_SIGINFO | SA_NODEFER};
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0 && sigaction(SIGILL, &sa, NULL) == 0 && sigaction(SIGTRAP, &sa, NULL) == 0);
}
