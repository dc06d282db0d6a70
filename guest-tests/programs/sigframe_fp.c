/* Signal frames keep the interrupted floating-point state: a periodic SIGALRM handler that
 * does scalar and vector floating-point work in another rounding mode (and leaves that mode
 * set) interrupts a loop of scalar, vector and integer arithmetic many times. Every run of
 * the loop must give the same bits as a run without signals, and the rounding mode the main
 * program chose must still be in force afterwards: rt_sigreturn restores the FP/SIMD
 * registers and the FP control/status register from the frame. */
#include "common.h"
#include <fenv.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

/* 16-byte vectors: full SIMD registers where the arch has them (SSE2, NEON), pairs of
 * scalars elsewhere. */
typedef double v2d __attribute__((vector_size(16)));

struct result {
    double s[8];
    v2d v[4];
    unsigned long hash;
};

static volatile sig_atomic_t ticks;
static volatile double sink;

static void on_alarm(int sig)
{
    (void)sig;
    /* Clobber the FP registers and the rounding mode; the mode is deliberately not restored. */
    fesetround(FE_UPWARD);
    volatile double one = 1.0;
    double x = one, y = one * 3.0;
    v2d a = {one, -one}, b = {one / 3.0, one / 7.0};
    for (int i = 0; i < 64; i++) {
        x = x / 3.0 + y;
        y = y * 1.0000001 - x / 11.0;
        a = a * b + (v2d){x, y};
        b = b / (v2d){3.0, 5.0} + a;
    }
    sink = x + y + a[0] + a[1] + b[0] + b[1];
    ticks++;
}

/* Many values live in registers across the loop; every operation rounds, so a wrong
 * rounding mode changes the low bits. */
static void __attribute__((noinline)) work(struct result *r, long n)
{
    double a = 1.0, b = 2.0, c = 3.0, d = 4.0, e = 5.0, f = 6.0, g = 7.0, h = 8.0;
    v2d p = {1.0, 2.0}, q = {3.0, 4.0}, s = {5.0, 6.0}, t = {7.0, 8.0};
    const v2d k = {0.9999991, 0.9999993}, m = {0.1, 0.3};
    unsigned long hash = 2166136261UL;
    for (long i = 0; i < n; i++) {
        a = a * 0.9999997 + 0.1;
        b = b * 0.9999995 + a / 7.0;
        c = c * 0.9999993 + b / 9.0;
        d = d * 0.9999991 + c / 11.0;
        e = e * 0.9999989 + d / 13.0;
        f = f * 0.9999987 + e / 17.0;
        g = g * 0.9999985 + f / 19.0;
        h = h * 0.9999983 + g / 23.0;
        p = p * k + m;
        q = q * k + p / (v2d){3.0, 7.0};
        s = s * k + q / (v2d){11.0, 13.0};
        t = t * k + s / (v2d){17.0, 19.0};
        hash = (hash ^ (unsigned long)i) * 16777619UL;
    }
    double out[8] = {a, b, c, d, e, f, g, h};
    memcpy(r->s, out, sizeof out);
    r->v[0] = p;
    r->v[1] = q;
    r->v[2] = s;
    r->v[3] = t;
    r->hash = hash;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum { N = 20000, TICKS = 20 };

int main(void)
{
    static struct result ref, up, got;

    CHECK(fesetround(FE_UPWARD) == 0);
    work(&up, N);
    CHECK(fesetround(FE_DOWNWARD) == 0);
    work(&ref, N);
    printf("the loop's result depends on the rounding mode: %d\n", memcmp(&up, &ref, sizeof ref) != 0);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);

    long rounds = 0, bad = 0;
    double deadline = now() + 20.0;
    while (ticks < TICKS && now() < deadline) {
        memset(&got, 0, sizeof got);
        work(&got, N);
        bad += memcmp(&got, &ref, sizeof ref) != 0;
        rounds++;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    int mode = fegetround();

    printf("handler ran at least %d times: %d\n", TICKS, ticks >= TICKS);
    printf("every run matched the run without signals: %d\n", bad == 0);
    if (bad)
        printf("  %ld of %ld runs differed\n", bad, rounds);
    printf("rounding mode still FE_DOWNWARD: %d\n", mode == FE_DOWNWARD);
    return 0;
}
