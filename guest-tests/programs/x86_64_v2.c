// A program built for the x86-64-v2 level (-march=x86-64-v2: SSE3, SSSE3, SSE4.1, SSE4.2,
// POPCNT, CMPXCHG16B, LAHF/SAHF), as distributions now build theirs: the CPU must report those
// features (gcc's __builtin_cpu_supports reads CPUID) and run their instructions. Each result
// is checked against plain C.
#include <nmmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t crc32c_plain(uint32_t crc, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        crc ^= (uint8_t)(v >> (8 * i));
        for (int k = 0; k < 8; k++) crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
    }
    return crc;
}

int main(int argc, char **argv) {
    (void)argv;
    __builtin_cpu_init();
    printf("cpu supports sse3 %d ssse3 %d sse4.1 %d sse4.2 %d popcnt %d\n", !!__builtin_cpu_supports("sse3"),
           !!__builtin_cpu_supports("ssse3"), !!__builtin_cpu_supports("sse4.1"), !!__builtin_cpu_supports("sse4.2"),
           !!__builtin_cpu_supports("popcnt"));

    volatile uint64_t x = 0xf0f0f0f0f0f0f0f1ull + (uint64_t)argc;  // argc is 1
    int pop = __builtin_popcountll(x), pop_plain = 0;
    for (uint64_t v = x; v; v >>= 1) pop_plain += v & 1;
    printf("popcnt: %s\n", pop == pop_plain ? "ok" : "FAILED");

    uint32_t crc = (uint32_t)_mm_crc32_u64(0xffffffffu, x);
    printf("crc32: %s\n", crc == crc32c_plain(0xffffffffu, x) ? "ok" : "FAILED");

    // pcmpistri: index of the first byte of `hay` that is one of "xyz".
    char hay[16] = "abcdefgyhijklmn", set[16] = "xyz";
    __m128i h, s;
    memcpy(&h, hay, 16);
    memcpy(&s, set, 16);
    int at = _mm_cmpistri(s, h, _SIDD_UBYTE_OPS | _SIDD_CMP_EQUAL_ANY | _SIDD_LEAST_SIGNIFICANT);
    printf("pcmpistri: %s\n", at == (int)(strpbrk(hay, "xyz") - hay) ? "ok" : "FAILED");

    // SSSE3 pshufb: reverse 16 bytes. SSE4.1 pmulld and pblendw.
    __m128i rev = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    char out[16];
    _mm_storeu_si128((__m128i *)out, _mm_shuffle_epi8(h, rev));
    int ok = 1;
    for (int i = 0; i < 16; i++) ok &= out[i] == hay[15 - i];
    printf("pshufb: %s\n", ok ? "ok" : "FAILED");
    __m128i m = _mm_mullo_epi32(_mm_setr_epi32(3, -4, 5, 100000), _mm_setr_epi32(7, 8, -9, 100000));
    int32_t mo[4];
    _mm_storeu_si128((__m128i *)mo, m);
    printf("pmulld: %s\n", mo[0] == 21 && mo[1] == -32 && mo[2] == -45 && mo[3] == (int32_t)(100000u * 100000u) ? "ok" : "FAILED");

    // CMPXCHG16B.
    unsigned __int128 word __attribute__((aligned(16))) = 5, expect = 5, want = ((unsigned __int128)1 << 100) | 9;
    int swapped = __sync_bool_compare_and_swap(&word, expect, want);
    printf("cmpxchg16b: %s\n", swapped && word == want ? "ok" : "FAILED");
    return 0;
}
