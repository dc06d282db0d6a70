/* The fault address of instructions whose operands do not spell out the address they touch:
 * Arm's register-list stores (STM increment-after and decrement-before, VSTM) and NEON
 * structure stores with an alignment qualifier (`vst1.8 {d0-d3}, [r0:64]`), and RISC-V's
 * atomics (AMOADD, AMOSWAP, LR), each at 8 bytes into a page the program may not touch:
 * SIGSEGV SEGV_ACCERR with si_addr the first byte the instruction touches there, as the CPU
 * reports it (Arm's FAR, RISC-V's stval; s390x reports the page). The other arches run one plain store or load at the
 * same place for each line, so every arch prints the same. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static void *volatile got_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(env, 1);
}

static void plain(char *p)
{
    *(volatile long *)p = 1;
}

#if defined(__arm__)
static void stm_ia(char *p)
{
    __asm__ volatile("mov r1, #1\n mov r2, #2\n mov r3, #3\n mov r4, #4\n stmia %0, {r1-r4}" : : "r"(p) : "r1", "r2", "r3", "r4", "memory");
}
static void stm_db(char *p)
{
    __asm__ volatile("mov r1, #1\n mov r2, #2\n mov r3, #3\n mov r4, #4\n stmdb %0, {r1-r4}" : : "r"(p + 16) : "r1", "r2", "r3", "r4", "memory");
}
static void vstm(char *p)
{
    __asm__ volatile("mov r1, #0\n vmov d0, r1, r1\n vmov d1, r1, r1\n vstmia %0, {d0-d1}" : : "r"(p) : "r1", "d0", "d1", "memory");
}
static void vst1_aligned(char *p)
{
    /* NEON, which Debian's armhf compiler does not assume: the directive is the asm's own. */
    __asm__ volatile(".fpu neon\n vst1.8 {d0-d3}, [%0:64]" : : "r"(p) : "memory");
}
#define STM_IA stm_ia
#define STM_DB stm_db
#define VSTM vstm
#define VST1 vst1_aligned
#else
#define STM_IA plain
#define STM_DB plain
#define VSTM plain
#define VST1 plain
#endif

#if defined(__riscv)
static void amoadd(char *p)
{
    long one = 1, old;
    __asm__ volatile("amoadd.d %0, %1, (%2)" : "=r"(old) : "r"(one), "r"(p) : "memory");
}
static void amoswap_w(char *p)
{
    int one = 1, old;
    __asm__ volatile("amoswap.w %0, %1, (%2)" : "=r"(old) : "r"(one), "r"(p) : "memory");
}
static void lr(char *p)
{
    long v;
    __asm__ volatile("lr.d %0, (%1)" : "=r"(v) : "r"(p) : "memory");
}
#define AMOADD amoadd
#define AMOSWAP amoswap_w
#define LR lr
#else
#define AMOADD plain
#define AMOSWAP plain
#define LR plain
#endif

static void try(const char *name, void (*f)(char *), char *page)
{
    got_sig = 0;
    got_addr = NULL;
    if (sigsetjmp(env, 1) == 0)
        f(page + 8);
#if defined(__s390x__)
    void *first = page; /* s390x's hardware reports only the page (arch/s390/mm/fault.c) */
#else
    void *first = page + 8;
#endif
    printf("%s: %s %s, si_addr %s\n", name, got_sig == SIGSEGV ? "SIGSEGV" : got_sig ? "other signal" : "no signal",
           got_code == SEGV_ACCERR ? "SEGV_ACCERR" : "?",
           got_addr == first ? "the first byte touched"
           : ((uintptr_t)got_addr & ~(uintptr_t)4095) == (uintptr_t)page ? "elsewhere in the page"
                                                                        : "outside the page");
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    try("multiple-register store, increment after", STM_IA, page);
    try("multiple-register store, decrement before", STM_DB, page);
    try("vector register-list store", VSTM, page);
    try("structure store with an alignment", VST1, page);
    try("atomic add", AMOADD, page);
    try("atomic swap", AMOSWAP, page);
    try("load-reserved", LR, page);
    printf("done\n");
    return 0;
}
