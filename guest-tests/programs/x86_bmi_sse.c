/* x86_64 instructions whose results unicorn's QEMU 5.0 base got wrong (unicorn patch 0054),
 * checked against this machine's CPU (the expected output is the native run's):
 * - BLSI sets CF when the source is nonzero (Intel SDM, BLSI).
 * - BZHI with index N: bits N and up cleared when N is below the operand size, the source
 *   unchanged otherwise; CF set only when N is past the last bit (SDM, BZHI).
 * - PCMPESTRI's lengths in EAX/EDX are taken as absolute values saturated to 16: 0x80000000
 *   (no absolute value) is 16 (it ended the emulator with a host SIGSEGV).
 * - MXCSR.FZ flushes a tiny SSE result to zero and sets UE and PE; SSE operations set
 *   MXCSR's exception flags (ZE for 1/0, PE for an inexact result), which stmxcsr and
 *   fetestexcept report. */
#include "common.h"
#include <fenv.h>
#include <immintrin.h>
#include <stdint.h>

static unsigned flags_cf(uint64_t rflags) { return (unsigned)(rflags & 1); }

int main(void)
{
    uint64_t r, fl;
    for (uint64_t src = 0; src < 3; src++) {
        __asm__ volatile("blsi %2,%0\n pushfq\n popq %1" : "=r"(r), "=r"(fl) : "r"(src) : "cc");
        printf("blsi %lu: %#lx CF %u\n", (unsigned long)src, (unsigned long)r, flags_cf(fl));
    }
    static const unsigned idx[] = {0, 1, 31, 32, 33, 63, 64, 200, 256 + 4};
    for (unsigned i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        uint32_t r32, s32 = 0x80000001u;
        __asm__ volatile("bzhi %3,%2,%0\n pushfq\n popq %1" : "=r"(r32), "=r"(fl) : "r"(s32), "r"(idx[i]) : "cc");
        printf("bzhi32 %#x, %u: %#x CF %u\n", s32, idx[i], r32, flags_cf(fl));
        uint64_t s64 = 0x8000000000000001ull, i64 = idx[i];
        __asm__ volatile("bzhi %3,%2,%0\n pushfq\n popq %1" : "=r"(r), "=r"(fl) : "r"(s64), "r"(i64) : "cc");
        printf("bzhi64 %#lx, %u: %#lx CF %u\n", (unsigned long)s64, idx[i], (unsigned long)r, flags_cf(fl));
    }
    __m128i a = _mm_setzero_si128(), b = _mm_setzero_si128();
    int32_t lens[] = {16, -16, INT32_MIN, 17, -17};
    for (unsigned i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        int idx_ = _mm_cmpestri(a, lens[i], b, lens[i], _SIDD_UBYTE_OPS | _SIDD_CMP_EQUAL_EACH);
        printf("pcmpestri lengths %d: index %d\n", lens[i], idx_);
    }

    unsigned saved = _mm_getcsr();
    _mm_setcsr((saved | 0x8000) & ~0x3fu);
    volatile double tiny = 0x1p-149;
    volatile float f = (float)tiny;
    printf("cvtsd2ss 2^-149 with FZ: %a, MXCSR flags %#x\n", (double)f, _mm_getcsr() & 0x3f);
    _mm_setcsr(saved & ~0x3fu);
    volatile float one = 1.0f, zero = 0.0f, three = 3.0f;
    volatile float q = one / zero;
    printf("divss 1/0: %f, MXCSR flags %#x\n", (double)q, _mm_getcsr() & 0x3f);
    feclearexcept(FE_ALL_EXCEPT);
    q = one / three;
    printf("divss 1/3: fetestexcept inexact %d, divbyzero %d\n", !!fetestexcept(FE_INEXACT), !!fetestexcept(FE_DIVBYZERO));
    feclearexcept(FE_ALL_EXCEPT);
    q = one / zero;
    printf("divss 1/0: fetestexcept divbyzero %d, inexact %d\n", !!fetestexcept(FE_DIVBYZERO), !!fetestexcept(FE_INEXACT));
    return 0;
}
