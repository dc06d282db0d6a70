/* Loads and stores of 2, 4 and 8 bytes through pointers that are not aligned to their size
 * (built as the plain lh/lw/ld/sh/sw/sd, not the unaligned forms, as the compiler cannot
 * tell). On x86 the CPU does them; on MIPS Linux completes them (arch/mips/kernel/
 * unaligned.c, do_ade): the program sees the same values either way. Each value is checked
 * against the same bytes read with memcpy, so the output is the same in either byte order. */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
static unsigned char buf[64] __attribute__((aligned(16)));
static volatile int offset = 1; /* unknown to the compiler */

#define LOAD(T, name, at)                                                                 \
    __attribute__((noinline)) static int name(unsigned char *p)                          \
    {                                                                                     \
        T v = *(volatile T *)(p + (at)), w;                                               \
        memcpy(&w, p + (at), sizeof w);                                                   \
        return v == w;                                                                    \
    }
LOAD(int16_t, load_h, 0)
LOAD(uint16_t, load_hu, 2)
LOAD(int32_t, load_w, 4)
LOAD(uint32_t, load_wu, 8)
LOAD(int64_t, load_d, 16)

#define STORE(T, name, at)                                                                \
    __attribute__((noinline)) static int name(unsigned char *p, T v)                     \
    {                                                                                     \
        *(volatile T *)(p + (at)) = v;                                                    \
        T w;                                                                              \
        memcpy(&w, p + (at), sizeof w);                                                   \
        return v == w && p[(at) - 1] == 0x55 && p[(at) + sizeof(T)] == 0x55;             \
    }
STORE(int16_t, store_h, 32)
STORE(int32_t, store_w, 40)
STORE(int64_t, store_d, 48)

int main(void)
{
    unsigned char *p = buf + offset;
    for (int i = 0; i < 32; i++) buf[i] = (unsigned char)(0x80 + i * 7);
    memset(buf + 32, 0x55, 32);
    printf("loads: lh %d, lhu %d, lw %d, lwu %d, ld %d\n", load_h(p), load_hu(p), load_w(p), load_wu(p), load_d(p));
    printf("stores: sh %d, sw %d, sd %d\n", store_h(p, -2), store_w(p, -300000), store_d(p, -5000000000LL));
    /* A sign-extending load of a negative value keeps its sign. */
    int16_t m = -12345;
    memcpy(p + 60 - offset, &m, 2);
    printf("lh of -12345: %d\n", *(volatile int16_t *)(p + 60 - offset) == -12345 ? -12345 : 0);
    return 0;
}
