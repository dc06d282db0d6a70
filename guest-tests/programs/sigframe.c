/* Signal frames: what a handler's frame must carry for the interrupted code to go on unharmed.
 * - FP and integer state: a timer interrupts floating-point loops at arbitrary instructions
 *   while the handler does floating-point work of its own; every round must give the result
 *   of an uninterrupted run. Both with a plain handler (the old, non-SA_SIGINFO frame on arm
 *   and i386) and with SA_SIGINFO.
 * - uc_sigmask: the ucontext shows the mask of the interrupted code, and a change to it is
 *   the mask after the handler returns.
 * - System call restart: a blocking read interrupted by a SA_RESTART handler is re-executed
 *   with its arguments (the handler writes the byte it then reads); without SA_RESTART it
 *   fails with EINTR.
 * - Handlers installed with the raw rt_sigaction call and no SA_RESTORER (as musl and
 *   hand-written code do) return through the kernel's own trampoline (arm and i386; other
 *   arches take the libc path). */
#include "common.h"
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>

static volatile sig_atomic_t hits;
static volatile double sink;
static int pipe_w = -1;

/* Floating-point work in the handler, to clobber the FP registers. */
static void fp_noise(void)
{
    double a = 1.0, b = 0.5;
    for (int i = 1; i < 300; i++) {
        a = a * 1.0001 + 1.0 / i;
        b = b * 0.75 + a / (i + 3);
    }
    sink = a + b;
}

static void on_alarm(int sig)
{
    (void)sig;
    fp_noise();
    hits++;
}

static void on_alarm_info(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    on_alarm(sig);
}

/* The loop a timer interrupts: floating-point and integer state live in registers across
 * many instructions (few enough values that i386 spills none: a memory operand updated in
 * place would test the engine's restart of such instructions, not the frame). */
static __attribute__((noinline)) double fp_work(int n, uint32_t *check)
{
    double s = 0.0, t = 1.0, u = 0.25;
    uint32_t x = 0x9e3779b9u;
    for (int i = 1; i <= n; i++) {
        t = t * 0.999999 + 1e-7;
        u = u * 1.0000001 - t * 1e-9;
        s += t / (double)i + u;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    *check = x;
    return s;
}

static void set_timer(long usec)
{
    struct itimerval it = {{0, usec}, {0, usec}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

/* Runs fp_work under a 1 ms timer until the handler ran at least `want` times (or enough
 * rounds passed); returns 1 if every round matched the uninterrupted result. */
static int interrupted_rounds(int want)
{
    uint32_t ref_x, x;
    double ref = fp_work(20000, &ref_x);
    int same = 1;
    hits = 0;
    set_timer(1000);
    for (int round = 0; round < 5000 && hits < want; round++) {
        double r = fp_work(20000, &x);
        if (memcmp(&r, &ref, sizeof r) != 0 || x != ref_x)
            same = 0;
    }
    set_timer(0);
    return same;
}

static void install(int sig, void (*h)(int), void (*hi)(int, siginfo_t *, void *), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    if (hi)
        sa.sa_sigaction = hi;
    else
        sa.sa_handler = h;
    sa.sa_flags = flags | (hi ? SA_SIGINFO : 0);
    CHECK(sigaction(sig, &sa, NULL) == 0);
}

#if defined(__arm__) || defined(__i386__)
/* The kernel's struct sigaction for rt_sigaction on arm and i386. */
struct k_sigaction {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};
#endif

/* Installs a handler without SA_RESTORER where the raw call allows it. */
static void install_raw(int sig, void (*h)(int), void (*hi)(int, siginfo_t *, void *))
{
#if defined(__arm__) || defined(__i386__)
    struct k_sigaction k;
    memset(&k, 0, sizeof k);
    k.handler = hi ? (void *)hi : (void *)h;
    k.flags = hi ? SA_SIGINFO : 0;
    CHECK(syscall(SYS_rt_sigaction, sig, &k, NULL, sizeof k.mask) == 0);
#else
    install(sig, h, hi, 0);
#endif
}

static volatile int mask_seen_usr2 = -1;

static void on_usr1_uc(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ucv;
    mask_seen_usr2 = sigismember(&uc->uc_sigmask, SIGUSR2);
    sigaddset(&uc->uc_sigmask, SIGINT);
}

static void on_alarm_write(int sig)
{
    (void)sig;
    hits++;
    char c = 'x';
    CHECK(write(pipe_w, &c, 1) == 1);
}

int main(void)
{
    install(SIGALRM, on_alarm, NULL, 0);
    int ok = interrupted_rounds(20);
    printf("plain handler: every interrupted round as the uninterrupted one %d, handler ran %d\n", ok, hits >= 20);

    install(SIGALRM, NULL, on_alarm_info, 0);
    ok = interrupted_rounds(20);
    printf("SA_SIGINFO handler: every interrupted round as the uninterrupted one %d, handler ran %d\n", ok,
           hits >= 20);

    install_raw(SIGALRM, on_alarm, NULL);
    ok = interrupted_rounds(10);
    printf("handler without SA_RESTORER: rounds equal %d, handler ran %d\n", ok, hits >= 10);
    install_raw(SIGALRM, NULL, on_alarm_info);
    ok = interrupted_rounds(10);
    printf("SA_SIGINFO handler without SA_RESTORER: rounds equal %d, handler ran %d\n", ok, hits >= 10);

    /* uc_sigmask: SIGUSR2 blocked before the signal shows in it; SIGINT added there stays
     * blocked after the handler returns. */
    sigset_t set, cur;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);
    install(SIGUSR1, NULL, on_usr1_uc, 0);
    CHECK(raise(SIGUSR1) == 0);
    CHECK(sigprocmask(SIG_SETMASK, NULL, &cur) == 0);
    printf("uc_sigmask has SIGUSR2 %d; after return SIGINT blocked %d, SIGUSR2 blocked %d, SIGUSR1 blocked %d\n",
           mask_seen_usr2, sigismember(&cur, SIGINT), sigismember(&cur, SIGUSR2), sigismember(&cur, SIGUSR1));
    sigemptyset(&set);
    CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);

    /* Restart: the handler writes the byte the restarted read returns. */
    int p[2];
    CHECK(pipe(p) == 0);
    pipe_w = p[1];
    install(SIGALRM, on_alarm_write, NULL, SA_RESTART);
    hits = 0;
    struct itimerval once = {{0, 0}, {0, 30000}};
    CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
    char c = 0;
    errno = 0;
    ssize_t n = read(p[0], &c, 1);
    printf("SA_RESTART read: %zd byte '%c', handler ran %d\n", n, c, hits);

    install(SIGALRM, on_alarm_write, NULL, 0);
    hits = 0;
    CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
    errno = 0;
    n = read(p[0], &c, 1);
    int e = errno;
    char c2 = 0;
    ssize_t n2 = read(p[0], &c2, 1);
    printf("read without SA_RESTART: %zd %s, handler ran %d, byte left '%c' (%zd)\n", n, errname(e), hits, c2, n2);
    return 0;
}
