/* What a signal frame must carry: floating-point, integer and vector (string function)
 * state of code interrupted by asynchronous SIGALRMs whose handler does its own FP and
 * string work; uc_sigmask holding the interrupted mask and a handler's change to it taking
 * effect on return; nested handlers; SA_NODEFER recursion; handlers with and without
 * SA_SIGINFO. */
#include "common.h"
#include <signal.h>
#include <sys/time.h>
#include <ucontext.h>

static volatile sig_atomic_t ticks;
/* The handler re-arms a one-shot timer while this is set: the next SIGALRM comes 1 ms after
 * a handler ends, so the interrupted code always runs between two handlers however long a
 * handler takes (a periodic 1 ms timer starves it when the machine is loaded). */
static volatile sig_atomic_t rearm;
static const struct itimerval one_shot = {{0, 0}, {0, 1000}};
static volatile double handler_fp;
static volatile size_t handler_len;
static char hbuf[4096];

static void on_alarm(int sig)
{
    (void)sig;
    ticks++;
    double x = 1.0 + ticks;
    for (int j = 0; j < 50; j++)
        x = x * 1.0001 + 0.5 / (j + 1);
    handler_fp = x;
    memset(hbuf, 'a' + ticks % 26, sizeof hbuf - 1);
    hbuf[sizeof hbuf - 1] = 0;
    handler_len = strlen(hbuf);
    if (rearm)
        setitimer(ITIMER_REAL, &one_shot, NULL);
#if defined(__s390x__)
    /* Vector work as glibc's vector string functions do it (gcc inlines the calls above). */
#define VREP(n) "vrepib %%v" #n ",0x55\n\t"
#define VALL(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)
    __asm__ volatile(".machine push\n\t.machine \"z13\"\n\t" VALL(VREP) ".machine pop"
                     :
                     :
                     : "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13", "f14",
                       "f15");
#endif
}

static char text[4096];

/* Many live FP and integer values, and string calls that use vector registers where the
 * CPU has them. */
static double compute(int seed, unsigned long *ints)
{
    double a = seed * 0.5 + 1, b = 1.0 / (seed + 3), c = 0.25, d = 1.5, e = seed, f = 2.0 / (seed + 7);
    unsigned long h = 1469598103934665603UL ^ (unsigned long)seed, n = 0, m = seed;
    for (int k = 0; k < 400; k++) {
        a = a * 0.999 + b;
        b = b * 1.001 - c * 0.5;
        c = c + d * 0.001;
        d = d * 0.9999 + e * 1e-6;
        e = e + f;
        f = f * 1.0001 - a * 1e-7;
        h = (h ^ (unsigned long)k) * 1099511628211UL;
        n += strlen(text + (k & 1023));
        m += memchr(text + (k & 511), 'z', 2048) != NULL;
    }
    *ints = h ^ n ^ (m << 40);
    return a + b + c + d + e + f;
}

/* Register-level check where C cannot reach the registers: fills registers with known
 * values, spins until three more SIGALRMs have been handled, and compares. s390x: the 32
 * vector registers whole (v0-v15 hold f0-f15 in their left halves); mips64: the 32 FP
 * registers and hi/lo. Other arches rely on the C loop above. Returns 1 if all survived. */
static unsigned long vin[32][2] __attribute__((aligned(16))), vout[32][2] __attribute__((aligned(16)));

static int registers_survive(void)
{
    for (int i = 0; i < 32; i++) {
        vin[i][0] = 0x0123456789abcdefUL * (unsigned long)(i + 1);
        vin[i][1] = 0xfedcba9876543210UL ^ ((unsigned long)i << 48);
    }
    memset(vout, 0, sizeof vout);
    int target = ticks + 3;
#if defined(__s390x__)
#define VL(n) "vl %%v" #n "," #n "*16(%[in])\n\t"
#define VST(n) "vst %%v" #n "," #n "*16(%[out])\n\t"
#define ALL(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)
    __asm__ volatile(".machine push\n\t.machine \"z13\"\n\t" ALL(VL)
                     "0: l %%r1,0(%[t])\n\t"
                     "cr %%r1,%[target]\n\t"
                     "jl 0b\n\t" ALL(VST) ".machine pop"
                     :
                     : [in] "a"(vin), [out] "a"(vout), [t] "a"(&ticks), [target] "r"(target)
                     : "r1", "cc", "memory", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10",
                       "f11", "f12", "f13", "f14", "f15");
    return memcmp(vin, vout, sizeof vin) == 0;
#elif defined(__mips__) && _MIPS_SIM == _ABI64
#define LD(n) "ldc1 $f" #n "," #n "*16(%[in])\n\t"
#define SD(n) "sdc1 $f" #n "," #n "*16(%[out])\n\t"
#define ALL(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)
    __asm__ volatile(ALL(LD) "ld $8,8(%[in])\n\t"
                     "ld $9,24(%[in])\n\t"
                     "mthi $8\n\t"
                     "mtlo $9\n\t"
                     "0: lw $8,0(%[t])\n\t"
                     "slt $8,$8,%[target]\n\t"
                     "bnez $8,0b\n\t" ALL(SD) "mfhi $8\n\t"
                     "mflo $9\n\t"
                     "sd $8,8(%[out])\n\t"
                     "sd $9,24(%[out])\n\t"
                     :
                     : [in] "r"(vin), [out] "r"(vout), [t] "r"(&ticks), [target] "r"(target)
                     : "$8", "$9", "hi", "lo", "memory", "$f0", "$f1", "$f2", "$f3", "$f4", "$f5", "$f6", "$f7",
                       "$f8", "$f9", "$f10", "$f11", "$f12", "$f13", "$f14", "$f15", "$f16", "$f17", "$f18", "$f19",
                       "$f20", "$f21", "$f22", "$f23", "$f24", "$f25", "$f26", "$f27", "$f28", "$f29", "$f30",
                       "$f31");
    for (int i = 0; i < 32; i++)
        if (vout[i][0] != vin[i][0] || (i < 2 && vout[i][1] != vin[i][1]))
            return 0;
    return 1;
#else
    while (ticks < target)
        ;
    return 1;
#endif
}

static volatile int in_usr1_uc_has_usr2, in_usr1_uc_has_usr1;
static void on_usr1_info(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ucv;
    in_usr1_uc_has_usr2 = sigismember(&uc->uc_sigmask, SIGUSR2);
    in_usr1_uc_has_usr1 = sigismember(&uc->uc_sigmask, SIGUSR1);
    /* Block SIGHUP after the return. */
    sigaddset(&uc->uc_sigmask, SIGHUP);
}

static volatile char order[16];
static volatile int order_len;
static void on_usr2_plain(int sig)
{
    (void)sig;
    order[order_len++] = '2';
}
static void on_term_plain(int sig)
{
    (void)sig;
    order[order_len++] = 'T';
    raise(SIGUSR2);
    order[order_len++] = 't';
}

static volatile int depth, max_depth;
static void on_nodefer(int sig)
{
    depth++;
    if (depth > max_depth)
        max_depth = depth;
    if (depth == 1)
        raise(sig);
    depth--;
}

int main(void)
{
    for (size_t i = 0; i < sizeof text - 1; i++)
        text[i] = 'a' + (char)(i * 7 % 25);
    text[sizeof text - 1] = 0;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    sigset_t alrm, none;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    sigemptyset(&none);

    rearm = 1;
    CHECK(setitimer(ITIMER_REAL, &one_shot, NULL) == 0);
    int rounds = 0, mismatches = 0;
    int regs_ok = registers_survive();
    while ((ticks < 20 || rounds < 20) && rounds < 100000) {
        unsigned long want_i, got_i;
        CHECK(sigprocmask(SIG_BLOCK, &alrm, NULL) == 0);
        /* volatile: compared as doubles, not as x87 80-bit temporaries (i386). */
        volatile double want = compute(rounds, &want_i);
        CHECK(sigprocmask(SIG_UNBLOCK, &alrm, NULL) == 0);
        volatile double got = compute(rounds, &got_i);
        mismatches += want != got || want_i != got_i;
        rounds++;
    }
    rearm = 0;
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    printf("state of interrupted code intact: %d (at least 20 ticks: %d)\n", mismatches == 0, ticks >= 20);
    printf("registers intact across handlers: %d\n", regs_ok);
    printf("handler's own work: fp %d, strlen %d\n", handler_fp > 1.0, handler_len == sizeof hbuf - 1);

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_usr1_info;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    sigset_t usr2, cur;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    CHECK(sigprocmask(SIG_SETMASK, &usr2, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    CHECK(sigprocmask(SIG_SETMASK, NULL, &cur) == 0);
    printf("uc_sigmask: has the blocked SIGUSR2 %d, not the delivered SIGUSR1 %d\n", in_usr1_uc_has_usr2,
           !in_usr1_uc_has_usr1);
    printf("after return: SIGHUP blocked as the handler wrote %d, SIGUSR2 still %d, SIGUSR1 not %d\n",
           sigismember(&cur, SIGHUP), sigismember(&cur, SIGUSR2), !sigismember(&cur, SIGUSR1));
    CHECK(sigprocmask(SIG_SETMASK, &none, NULL) == 0);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr2_plain;
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    sa.sa_handler = on_term_plain;
    CHECK(sigaction(SIGTERM, &sa, NULL) == 0);
    CHECK(raise(SIGTERM) == 0);
    char seen[16] = {0};
    for (int i = 0; i < order_len && i < 15; i++)
        seen[i] = order[i];
    printf("nested handlers ran in order: %s\n", seen);

    sa.sa_handler = on_nodefer;
    sa.sa_flags = SA_NODEFER;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    printf("SA_NODEFER handler re-entered: depth %d, back to %d\n", max_depth, depth);
    return 0;
}
