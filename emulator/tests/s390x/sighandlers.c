/* What s390 signal frames hold and how the kernel returns from them, one case per run
 * (argv[1]):
 * - ill, div: a SIGILL (operation exception) or SIGFPE (fixed-point divide) handler that
 *   returns resumes *after* the instruction (s390 program checks of these kinds complete
 *   or suppress it), with si_addr on the instruction;
 * - old: a handler without SA_SIGINFO gets r3 = &struct sigcontext, whose oldmask is the
 *   interrupted mask and whose sregs points at the _sigregs right after it;
 * - rt: an SA_SIGINFO handler sees the interrupted registers in uc_mcontext, and the
 *   register and PSW address it writes there are the ones the thread resumes with;
 * - tls: the access registers (the thread pointer) survive a handler;
 * - round: the FPC, rounding mode included, is the interrupted code's again after a handler
 *   that changed the rounding mode (qemu-s390x 7.2 keeps the handler's mode). */
#define _GNU_SOURCE
#include <asm/sigcontext.h>
#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static volatile unsigned long fault_addr;
static volatile int handled;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    handled = sig;
    fault_addr = (unsigned long)si->si_addr;
}

static void old_style(int sig, struct sigcontext *sc)
{
    handled = sig;
    printf("old: oldmask has SIGUSR2 %d, not SIGUSR1 %d; sregs follows the sigcontext %d\n",
           !!(sc->oldmask[0] & (1UL << (SIGUSR2 - 1))), !(sc->oldmask[0] & (1UL << (SIGUSR1 - 1))),
           (char *)sc->sregs == (char *)sc + sizeof *sc);
    printf("old: psw mask without cc and program mask %#lx, r15 in the frame is the interrupted stack %d\n",
           sc->sregs->regs.psw.mask & ~0x00003f0000000000UL, sc->sregs->regs.gprs[15] > (unsigned long)sc);
}

static void rt_redirect(int sig, siginfo_t *si, void *ucv)
{
    (void)si;
    ucontext_t *uc = ucv;
    handled = sig;
    /* Resume at the address r9 holds, with r8 = 1234 (see the asm in main). */
    uc->uc_mcontext.gregs[8] = 1234;
    uc->uc_mcontext.psw.addr = uc->uc_mcontext.gregs[9];
}

static __thread int tls_value = 77;
static void touch_tls(int sig)
{
    handled = sig;
    tls_value++;
}

static void round_up(int sig)
{
    handled = sig;
    fesetround(FE_UPWARD);
}

static void install(int sig, void *fn, int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_flags = flags;
    sigaction(sig, &sa, NULL);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    unsigned long at;
    if (!strcmp(what, "ill")) {
        install(SIGILL, on_fault, SA_SIGINFO);
        asm volatile("larl %0,0f\n"
                     "0:\t.short 0x0000\n"
                     : "=&a"(at));
        printf("ill: handled %d, si_addr on the instruction %d, resumed after it\n", handled == SIGILL,
               fault_addr == at);
    } else if (!strcmp(what, "div")) {
        install(SIGFPE, on_fault, SA_SIGINFO);
        register long r2 asm("r2") = 0;
        register long r3 asm("r3") = 5;
        long zero = 0;
        asm volatile("larl %0,0f\n"
                     "0:\tdsgr %1,%4\n"
                     : "=&a"(at), "+d"(r2), "+d"(r3)
                     : "d"(r3), "d"(zero));
        (void)r2;
        printf("div: handled %d, si_addr on the instruction %d, resumed after it\n", handled == SIGFPE,
               fault_addr == at);
    } else if (!strcmp(what, "old")) {
        install(SIGUSR1, old_style, 0);
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGUSR2);
        sigprocmask(SIG_BLOCK, &s, NULL);
        raise(SIGUSR1);
        printf("old: handled %d\n", handled == SIGUSR1);
    } else if (!strcmp(what, "rt")) {
        install(SIGUSR1, rt_redirect, SA_SIGINFO);
        register long r8 asm("r8") = 1;
        unsigned long target;
        /* kill(getpid(), SIGUSR1) by svc; the handler sends the thread to label 1 with r8 = 1234,
         * skipping the store of 99 into r8. */
        long pid = getpid();
        asm volatile("larl %%r9,1f\n\t"
                     "lgr %%r2,%[pid]\n\t"
                     "lghi %%r3,%[sig]\n\t"
                     "svc 37\n\t"
                     "lghi %[r8],99\n"
                     "1:\tlgr %[t],%%r9\n"
                     : [r8] "+d"(r8), [t] "=d"(target)
                     : [pid] "d"(pid), [sig] "K"(SIGUSR1)
                     : "r2", "r3", "r9", "memory");
        printf("rt: handled %d, r8 %ld, resumed at the handler's address %d\n", handled == SIGUSR1, (long)r8,
               target != 0);
    } else if (!strcmp(what, "tls")) {
        install(SIGUSR1, touch_tls, 0);
        raise(SIGUSR1);
        raise(SIGUSR1);
        printf("tls: handled %d, value %d\n", handled == SIGUSR1, tls_value);
    } else if (!strcmp(what, "round")) {
        install(SIGUSR1, round_up, 0);
        volatile double a = 1.0, b = 3.0;
        double before = a / b;
        raise(SIGUSR1);
        double after = a / b;
        printf("round: handled %d, mode to nearest again %d, same quotient %d\n", handled == SIGUSR1,
               fegetround() == FE_TONEAREST, before == after);
    }
    return 0;
}
