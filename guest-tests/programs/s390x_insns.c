/* s390x instructions whose results unicorn's QEMU 5.0 base got wrong, checked against the
 * Principles of Operation (z/Architecture, SA22-7832): each line prints ok or what it got.
 * - ADD/SUBTRACT: a signed overflow whose wrapped result is 0 (0x80000000 + 0x80000000,
 *   0 - 0x80000000 and the 64-bit forms) sets condition code 3.
 * - DIVIDE (dr) of 0x80000000_00000000 by -1: the quotient does not fit, a fixed-point-divide
 *   exception: SIGFPE for the process (qemu-user 10.0.2 dies of its own SIGFPE here).
 * - INSERT CHARACTERS UNDER MASK with a mask that is not contiguous: cc 1 when the leftmost
 *   inserted bit is one, 2 when it is zero and others are not.
 * - ROTATE THEN INSERT SELECTED BITS HIGH/LOW: bits 0-31 of risbhg are the register's high
 *   word, of risblg its low word.
 * - LOAD HIGH ON CONDITION (locfhr): loads r2's high word.
 * - VECTOR ISOLATE STRING (vistr) with halfword elements (M3 = 1): no zero halfword in
 *   "hello\0world12345", so the vector stays and cc is 3.
 * - COMPARE HALFWORD RELATIVE LONG (chrl, cghrl) compare with a halfword (unicorn patch 0052).
 * Built for s390x only (-march=z13 for the vector and high-word instructions). */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>

static unsigned cc_of(unsigned ipm) { return (ipm >> 28) & 3; }

static void check(const char *what, int ok, unsigned long got)
{
    if (ok)
        printf("%s: ok\n", what);
    else
        printf("%s: got %#lx\n", what, got);
}

static sigjmp_buf fpe_jump;
static volatile int fpe_code;

static void on_fpe(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    fpe_code = si->si_code;
    siglongjmp(fpe_jump, 1);
}

short halves[4] = {24, (short)0xfffb, -5, 7};

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsigned ipm;
    int32_t a = INT32_MIN, b = INT32_MIN;
    __asm__ volatile("ar %0,%2\n ipm %1" : "+d"(a), "=d"(ipm) : "d"(b) : "cc");
    check("ar 0x80000000 + 0x80000000: cc 3", cc_of(ipm) == 3, cc_of(ipm));
    int32_t z = 0;
    __asm__ volatile("sr %0,%2\n ipm %1" : "+d"(z), "=d"(ipm) : "d"(b) : "cc");
    check("sr 0 - 0x80000000: cc 3", cc_of(ipm) == 3, cc_of(ipm));
    int64_t ga = INT64_MIN, gb = INT64_MIN, gz = 0;
    __asm__ volatile("agr %0,%2\n ipm %1" : "+d"(ga), "=d"(ipm) : "d"(gb) : "cc");
    check("agr 2^63 + 2^63: cc 3", cc_of(ipm) == 3, cc_of(ipm));
    __asm__ volatile("sgr %0,%2\n ipm %1" : "+d"(gz), "=d"(ipm) : "d"(gb) : "cc");
    check("sgr 0 - 2^63: cc 3", cc_of(ipm) == 3, cc_of(ipm));

    static const unsigned char bytes[2] = {0x80, 0x00};
    unsigned long r = 0;
    __asm__ volatile("icm %0,9,%2\n ipm %1" : "+d"(r), "=d"(ipm) : "Q"(bytes) : "cc");
    check("icm mask 9 of 80 00: cc 1", cc_of(ipm) == 1, cc_of(ipm));
    static const unsigned char bytes2[2] = {0x12, 0x00};
    r = 0;
    __asm__ volatile("icmh %0,5,%2\n ipm %1" : "+d"(r), "=d"(ipm) : "S"(bytes2) : "cc");
    check("icmh mask 5 of 12 00: cc 2", cc_of(ipm) == 2, cc_of(ipm));

    unsigned long src = 0x1122334455667788ul, h = 0, l = 0;
    __asm__ volatile("risbhg %0,%1,0,31,0" : "+d"(h) : "d"(src));
    check("risbhg 0,31,0: the high word", h == 0x1122334400000000ul, h);
    __asm__ volatile("risblg %0,%1,0,31,0" : "+d"(l) : "d"(src));
    check("risblg 0,31,0: the low word", l == 0x55667788ul, l);

    unsigned long r1 = 0x3333333311111111ul, r2 = 0x2222222244444444ul;
    __asm__ volatile("cr %%r0,%%r0\n locfhr %0,%1,8" : "+d"(r1) : "d"(r2) : "cc");
    check("locfhr: r2's high word", r1 == 0x2222222211111111ul, r1);

    typedef unsigned char v16 __attribute__((vector_size(16)));
    v16 in, out;
    memcpy(&in, "hello\0world12345", 16);
    __asm__ volatile("vistr %0,%2,1,1\n ipm %1" : "=v"(out), "=d"(ipm) : "v"(in) : "cc");
    check("vistr halfwords: cc 3, unchanged", cc_of(ipm) == 3 && memcmp(&out, &in, 16) == 0, cc_of(ipm));

    int v = 24;
    __asm__ volatile("chrl %1,halves\n ipm %0" : "=d"(ipm) : "d"(v) : "cc");
    check("chrl 24 with the halfword 24: cc 0", cc_of(ipm) == 0, cc_of(ipm));
    long gv = -5;
    __asm__ volatile("cghrl %1,halves+4\n ipm %0" : "=d"(ipm) : "d"(gv) : "cc");
    check("cghrl -5 with the halfword -5: cc 0", cc_of(ipm) == 0, cc_of(ipm));
    struct sigaction sa = {.sa_sigaction = on_fpe, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGFPE, &sa, NULL) == 0);
    if (sigsetjmp(fpe_jump, 1) == 0) {
        register unsigned long hi __asm__("r2") = 0x80000000ul, lo __asm__("r3") = 0;
        int m1 = -1;
        __asm__ volatile("dr %0,%2" : "+d"(hi), "+d"(lo) : "d"(m1) : "cc");
        check("dr 0x80000000_00000000 / -1: SIGFPE", 0, lo);
    } else {
        check("dr 0x80000000_00000000 / -1: SIGFPE", fpe_code == FPE_INTDIV, (unsigned long)fpe_code);
    }
    return 0;
}
