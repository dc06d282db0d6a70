/* Misuse of x86_64's vsyscall page as Linux (vsyscall=xonly) answers it: a call to an address
 * that is no entry gets SIGSEGV with si_code SI_KERNEL, and reading the page gets SIGSEGV. */
#include <signal.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
static sigjmp_buf env; static volatile int code, sig;
static void h(int s, siginfo_t *si, void *u) { sig = s; code = si->si_code; siglongjmp(env, 1); }
int main(void) {
    struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_sigaction = h; sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, 0); sigaction(SIGTRAP, &sa, 0); sigaction(SIGILL, &sa, 0);
    if (!sigsetjmp(env, 1)) { ((void (*)(void))0xffffffffff600010UL)(); puts("returned"); }
    else printf("misaligned call: signal %d code %#x\n", sig, code);
    if (!sigsetjmp(env, 1)) { volatile unsigned char c = *(volatile unsigned char *)0xffffffffff600000UL; printf("read %d\n", c); }
    else printf("read: signal %d\n", sig);
    return 0;
}
