/* Loads and stores of 2, 4 and 8 bytes through pointers that are not aligned to their size
 * (built as the plain lh/lw/ld/sh/sw/sd, not the unaligned forms, as the compiler cannot
 * tell). On x86 the CPU does them; on MIPS Linux completes them (arch/mips/kernel/
 * unaligned.c, do_ade): the program sees the same values either way. Each value is checked
 * against the same bytes read with memcpy, so the output is the same in either byte order.
 *
 * Then float and double loads and stores. On mips64el these are the FPU's lwc1/ldc1/swc1/sdc1
 * and the indexed lwxc1/ldxc1/swxc1/sdxc1, written out in asm, also in the delay slots of a
 * taken and an untaken beq/bne and bc1t/bc1f: Linux hands them to its FPU emulator
 * (arch/mips/math-emu/cp1emu.c), which completes them, clears the upper half of the FPR a
 * word load fills (SITOREG, 64-bit FPU registers) and, for an access it cannot make, sends
 * SIGSEGV with the access's address, SEGV_MAPERR for an unmapped one and SEGV_ACCERR for one
 * inside a mapping. Elsewhere they are the arch's own misaligned float accesses (a packed
 * struct's member), which give the same values and the same signals. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
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


static double dvals[2] = {-1.5e300, 3.25};
static float fvals[2] = {-2.5e30f, 7.125f};

#if defined(__mips__)
/* The FPR's 64 bits after each access, its upper half all ones before a word load. */
static uint64_t m_lwc1(const void *a)
{
    uint64_t r;
    __asm__ volatile("dli $12, -1\n\tdmtc1 $12, $f4\n\tlwc1 $f4, 0(%1)\n\tdmfc1 %0, $f4"
                     : "=r"(r) : "r"(a) : "$12", "$f4", "memory");
    return r;
}
static uint64_t m_ldc1(const void *a)
{
    uint64_t r;
    __asm__ volatile("ldc1 $f4, 0(%1)\n\tdmfc1 %0, $f4" : "=r"(r) : "r"(a) : "$f4", "memory");
    return r;
}
static uint64_t m_lwxc1(const void *base, long index)
{
    uint64_t r;
    __asm__ volatile("dli $12, -1\n\tdmtc1 $12, $f4\n\tlwxc1 $f4, %2(%1)\n\tdmfc1 %0, $f4"
                     : "=r"(r) : "r"(base), "r"(index) : "$12", "$f4", "memory");
    return r;
}
static uint64_t m_ldxc1(const void *base, long index)
{
    uint64_t r;
    __asm__ volatile("ldxc1 $f4, %2(%1)\n\tdmfc1 %0, $f4" : "=r"(r) : "r"(base), "r"(index) : "$f4", "memory");
    return r;
}
static void m_swc1(void *a, uint64_t v)
{
    __asm__ volatile("dmtc1 %1, $f4\n\tswc1 $f4, 0(%0)" : : "r"(a), "r"(v) : "$f4", "memory");
}
static void m_sdc1(void *a, uint64_t v)
{
    __asm__ volatile("dmtc1 %1, $f4\n\tsdc1 $f4, 0(%0)" : : "r"(a), "r"(v) : "$f4", "memory");
}
static void m_swxc1(void *base, long index, uint64_t v)
{
    __asm__ volatile("dmtc1 %2, $f4\n\tswxc1 $f4, %1(%0)" : : "r"(base), "r"(index), "r"(v) : "$f4", "memory");
}
static void m_sdxc1(void *base, long index, uint64_t v)
{
    __asm__ volatile("dmtc1 %2, $f4\n\tsdxc1 $f4, %1(%0)" : : "r"(base), "r"(index), "r"(v) : "$f4", "memory");
}
/* An ldc1 in the delay slot of a taken beq and of an untaken bne: the load is done and the
 * branch goes where it should (the instruction after the slot is skipped when taken). */
static int m_slot_beq(const void *a, uint64_t want)
{
    uint64_t r1, r2;
    long skipped = 0, ran = 0;
    __asm__ volatile(".set push\n\t.set noreorder\n\t"
                     "beq $0, $0, 1f\n\t"
                     "ldc1 $f4, 0(%4)\n\t"
                     "li %2, 1\n"
                     "1:\tdmfc1 %0, $f4\n\t"
                     "bne $0, $0, 2f\n\t"
                     "ldc1 $f6, 0(%4)\n\t"
                     "li %3, 1\n"
                     "2:\tdmfc1 %1, $f6\n\t"
                     ".set pop"
                     : "=&r"(r1), "=&r"(r2), "+r"(skipped), "+r"(ran) : "r"(a) : "$f4", "$f6", "memory");
    return r1 == want && r2 == want && skipped == 0 && ran == 1;
}
/* The same after c.eq.d sets condition code 0: a taken bc1t, an untaken bc1f; word loads. */
static int m_slot_bc1(const void *a, uint32_t want)
{
    uint64_t r1, r2;
    long skipped = 0, ran = 0;
    __asm__ volatile(".set push\n\t.set noreorder\n\t"
                     "dmtc1 $0, $f8\n\t"
                     "c.eq.d $f8, $f8\n\t"
                     "nop\n\t"
                     "bc1t 1f\n\t"
                     "lwc1 $f4, 0(%4)\n\t"
                     "li %2, 1\n"
                     "1:\tmfc1 %0, $f4\n\t"
                     "bc1f 2f\n\t"
                     "lwc1 $f6, 0(%4)\n\t"
                     "li %3, 1\n"
                     "2:\tmfc1 %1, $f6\n\t"
                     ".set pop"
                     : "=&r"(r1), "=&r"(r2), "+r"(skipped), "+r"(ran) : "r"(a) : "$f4", "$f6", "$f8", "memory");
    return (uint32_t)r1 == want && (uint32_t)r2 == want && skipped == 0 && ran == 1;
}
static void touch_load(const void *a) { (void)m_ldc1(a); }
static void touch_store(void *a) { m_sdc1(a, 0); }
#else
struct __attribute__((packed)) pf { float v; };
struct __attribute__((packed)) pd { double v; };
static void touch_load(const void *a) { (void)((const volatile struct pd *)a)->v; }
static void touch_store(void *a) { ((volatile struct pd *)a)->v = 0; }
#endif

static sigjmp_buf env;
static volatile int got_code;
static void *volatile got_addr;
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(env, 1);
}

/* Runs f(a), which must fault with SIGSEGV; prints the code and whether si_addr is the
 * access's address (its page on the arches that report only the page, like s390x). */
static void segv(const char *what, void (*f)(void *), void *a)
{
    got_code = 0;
    if (sigsetjmp(env, 1) == 0) {
        f(a);
        printf("%s: no fault\n", what);
        return;
    }
    uintptr_t x = (uintptr_t)got_addr, y = (uintptr_t)a;
#if defined(__s390x__)
    int ok = x >> 12 == y >> 12;
#else
    int ok = x == y;
#endif
    printf("%s: SIGSEGV %s, si_addr %s\n", what,
           got_code == SEGV_MAPERR ? "SEGV_MAPERR" : got_code == SEGV_ACCERR ? "SEGV_ACCERR" : "other",
           ok ? "ok" : "wrong");
}
static void load_fn(void *a) { touch_load(a); }
static void store_fn(void *a) { touch_store(a); }

static void fpu(unsigned char *q)
{
    /* q is misaligned; the values are placed at q+8 (float) and q+16 (double). */
    uint32_t fw;
    uint64_t dw;
    memcpy(q + 8, &fvals[0], 4);
    memcpy(q + 16, &dvals[0], 8);
    memcpy(&fw, &fvals[0], 4);
    memcpy(&dw, &dvals[0], 8);
#if defined(__mips__)
    uint64_t w = m_lwc1(q + 8), x = m_lwxc1(q, 8);
    printf("fpu loads: lwc1 %d, ldc1 %d, lwxc1 %d, ldxc1 %d\n", (uint32_t)w == fw, m_ldc1(q + 16) == dw,
           (uint32_t)x == fw, m_ldxc1(q, 16) == dw);
    printf("fpu word loads clear the upper half: %d\n", w >> 32 == 0 && x >> 32 == 0);
    uint32_t f1;
    uint64_t d1;
    memcpy(&f1, &fvals[1], 4);
    memcpy(&d1, &dvals[1], 8);
    memset(q + 24, 0x55, 40);
    m_swc1(q + 25, 0xdeadbeef00000000ull | f1);
    m_sdc1(q + 30, d1);
    m_swxc1(q, 39, 0xdeadbeef00000000ull | f1);
    m_sdxc1(q, 44, d1);
#else
    printf("fpu loads: lwc1 %d, ldc1 %d, lwxc1 %d, ldxc1 %d\n", ((struct pf *)(q + 8))->v == fvals[0],
           ((struct pd *)(q + 16))->v == dvals[0], ((struct pf *)(q + 8))->v == fvals[0],
           ((struct pd *)(q + 16))->v == dvals[0]);
    printf("fpu word loads clear the upper half: %d\n", 1);
    memset(q + 24, 0x55, 40);
    ((volatile struct pf *)(q + 25))->v = fvals[1];
    ((volatile struct pd *)(q + 30))->v = dvals[1];
    ((volatile struct pf *)(q + 39))->v = fvals[1];
    ((volatile struct pd *)(q + 44))->v = dvals[1];
#endif
    float fr;
    double dr;
    int sw, sd, swx, sdx;
    memcpy(&fr, q + 25, 4);
    sw = fr == fvals[1] && q[24] == 0x55 && q[29] == 0x55;
    memcpy(&dr, q + 30, 8);
    sd = dr == dvals[1] && q[38] == 0x55;
    memcpy(&fr, q + 39, 4);
    swx = fr == fvals[1] && q[43] == 0x55;
    memcpy(&dr, q + 44, 8);
    sdx = dr == dvals[1] && q[52] == 0x55;
    printf("fpu stores: swc1 %d, sdc1 %d, swxc1 %d, sdxc1 %d\n", sw, sd, swx, sdx);
#if defined(__mips__)
    printf("fpu in delay slots: beq/bne %d, bc1t/bc1f %d\n", m_slot_beq(q + 16, dw), m_slot_bc1(q + 8, fw));
#else
    printf("fpu in delay slots: beq/bne %d, bc1t/bc1f %d\n", 1, 1);
#endif

    /* A page with nothing after it, and a read-only one. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    unsigned char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return;
    munmap(m + 4096, 4096);
    mprotect(m, 4096, PROT_READ);
    segv("fpu load, unmapped", load_fn, m + 4096 + 1);
    segv("fpu store, read-only", store_fn, m + 1);
    munmap(m, 4096);
}

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
    static unsigned char fbuf[80] __attribute__((aligned(16)));
    fpu(fbuf + offset);
    return 0;
}
