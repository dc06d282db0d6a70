/* MIPS `add`/`dadd`/`sub` trap on signed overflow (the integer overflow exception): Linux
 * sends SIGFPE with si_code FPE_INTOVF and si_addr the instruction (arch/mips/kernel/traps.c
 * do_ov). The expected output comes from qemu-user 10.0.2. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>

static sigjmp_buf back;
static volatile int code;
static volatile uintptr_t addr;

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    code = si->si_code;
    addr = (uintptr_t)si->si_addr;
    siglongjmp(back, 1);
}

int main(void)
{
    struct sigaction sa = {.sa_sigaction = on_fpe, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGFPE, &sa, NULL) == 0);
    const char *names[] = {"add", "dadd", "sub"};
    for (int i = 0; i < 3; i++) {
        if (sigsetjmp(back, 1) == 0) {
            long r;
            if (i == 0) {
                int a = INT32_MAX, b = 1;
                __asm__ volatile("add %0,%1,%2" : "=r"(r) : "r"(a), "r"(b));
            } else if (i == 1) {
                long a = INT64_MAX, b = 1;
                __asm__ volatile("dadd %0,%1,%2" : "=r"(r) : "r"(a), "r"(b));
            } else {
                int a = INT32_MIN, b = 1;
                __asm__ volatile("sub %0,%1,%2" : "=r"(r) : "r"(a), "r"(b));
            }
            printf("%s: no signal (%ld)\n", names[i], r);
        } else {
            printf("%s: SIGFPE, si_code FPE_INTOVF %d, si_addr set %d\n", names[i], code == FPE_INTOVF, addr != 0);
        }
    }
    return 0;
}
