/* x86 `rep movs` and `rep stos`, as the CPU runs them: every element size, across pages,
 * forward over an overlap (each element reads what an earlier one wrote), backward with the
 * direction flag, a count of 0, 32-bit addressing in 64-bit code, a fault in the middle
 * (RCX, RSI and RDI count the elements done, the handler fixes the page and the instruction
 * goes on), a copy into code that then runs, copies between pages 16 MiB apart, and copies
 * that a timer's signals interrupt.
 * Expected output from native runs of the x86_64 and the i386 build (expected/<arch>/: the
 * 32-bit addressing part is x86_64's alone). */
#define _GNU_SOURCE 1
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include "common.h"

#ifdef __x86_64__
#define RCX REG_RCX
#define RSI REG_RSI
#define RDI REG_RDI
#else
#define RCX REG_ECX
#define RSI REG_ESI
#define RDI REG_EDI
#endif

#define PAGE 4096L

typedef unsigned long ulong;

/* The registers after the instruction: rcx, rsi, rdi. */
struct regs {
    ulong c, s, d;
};

#define REP_MOVS(sfx)                                                                              \
    static struct regs movs##sfx(void *dst, const void *src, ulong n)                              \
    {                                                                                              \
        struct regs r = {n, (ulong)src, (ulong)dst};                                               \
        __asm__ volatile("rep movs" #sfx : "+c"(r.c), "+S"(r.s), "+D"(r.d) : : "memory");          \
        return r;                                                                                  \
    }
REP_MOVS(b)
REP_MOVS(w)
REP_MOVS(l)
#ifdef __x86_64__
REP_MOVS(q)
#endif

#define REP_STOS(sfx, type)                                                                        \
    static struct regs stos##sfx(void *dst, type v, ulong n)                                       \
    {                                                                                              \
        struct regs r = {n, 0, (ulong)dst};                                                        \
        __asm__ volatile("rep stos" #sfx : "+c"(r.c), "+D"(r.d) : "a"(v) : "memory");              \
        return r;                                                                                  \
    }
REP_STOS(b, uint8_t)
REP_STOS(w, uint16_t)
REP_STOS(l, uint32_t)
#ifdef __x86_64__
REP_STOS(q, uint64_t)
#endif

/* The copy and the fill of element size 1 << shift. */
static struct regs movs_n(int shift, void *d, const void *s, ulong n)
{
    switch (shift) {
    case 0:
        return movsb(d, s, n);
    case 1:
        return movsw(d, s, n);
    case 2:
        return movsl(d, s, n);
#ifdef __x86_64__
    default:
        return movsq(d, s, n);
#else
    default:
        abort();
#endif
    }
}

static struct regs stos_n(int shift, void *d, uint64_t v, ulong n)
{
    switch (shift) {
    case 0:
        return stosb(d, (uint8_t)v, n);
    case 1:
        return stosw(d, (uint16_t)v, n);
    case 2:
        return stosl(d, (uint32_t)v, n);
#ifdef __x86_64__
    default:
        return stosq(d, v, n);
#else
    default:
        abort();
#endif
    }
}

static struct regs movsb_back(void *dst_last, const void *src_last, ulong n)
{
    struct regs r = {n, (ulong)src_last, (ulong)dst_last};
    __asm__ volatile("std\n\trep movsb\n\tcld" : "+c"(r.c), "+S"(r.s), "+D"(r.d) : : "memory");
    return r;
}

static struct regs stosl_back(void *dst_last, uint32_t v, ulong n)
{
    struct regs r = {n, 0, (ulong)dst_last};
    __asm__ volatile("std\n\trep stosl\n\tcld" : "+c"(r.c), "+D"(r.d) : "a"(v) : "memory");
    return r;
}

/* FNV-1a of a buffer: one number stands for its bytes. */
static uint32_t sum(const void *p, ulong n)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (ulong i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static void fill(uint8_t *p, ulong n, unsigned seed)
{
    for (ulong i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 131 + seed + (i >> 8));
}

static uint8_t *map(ulong pages, int extra_flags)
{
    void *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
    CHECK(p != MAP_FAILED);
    return p;
}

/* The copy every size makes, checked against a byte loop, with what the registers moved by. */
static void sizes(void)
{
    uint8_t *src = map(8, 0), *dst = map(8, 0), *want = map(8, 0);
    static const ulong counts[] = {0, 1, 3, 64, 4095, 4097, 9000};
    static const ulong offs[] = {0, 1, 4093};
    printf("copy and fill, each size:\n");
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++)
        for (unsigned o = 0; o < sizeof offs / sizeof *offs; o++)
            for (int shift = 0; shift < (sizeof(long) == 8 ? 4 : 3); shift++) {
                ulong n = counts[k], size = 1UL << shift, bytes = n << shift;
                uint8_t *s = src + offs[o], *d = dst + 2 * offs[o] + 5;
                if (d + bytes > dst + 8 * PAGE || s + bytes > src + 8 * PAGE)
                    continue;
                fill(src, 8 * PAGE, (unsigned)(k * 7 + o + shift));
                memset(dst, 0xee, 8 * PAGE);
                memcpy(want, dst, 8 * PAGE);
                memcpy(want + (d - dst), s, bytes);
                struct regs r = movs_n(shift, d, s, n);
                int ok = !memcmp(dst, want, 8 * PAGE) && r.c == 0 && r.s == (ulong)s + bytes && r.d == (ulong)d + bytes;
                /* fill: the pattern of the element's size */
                uint64_t v = 0x8877665544332211ULL ^ (n * 0x0101010101010101ULL);
                memset(dst, 0xee, 8 * PAGE);
                memcpy(want, dst, 8 * PAGE);
                for (ulong i = 0; i < n; i++)
                    memcpy(want + (d - dst) + i * size, &v, size);
                struct regs f = stos_n(shift, d, v, n);
                ok = ok && !memcmp(dst, want, 8 * PAGE) && f.c == 0 && f.d == (ulong)d + bytes;
                if (!ok)
                    printf("  FAIL count %lu offset %lu size %lu\n", n, offs[o], size);
            }
    printf("  done\n");
}

static void overlaps(void)
{
    uint8_t *b = map(4, 0);
    printf("overlaps:\n");
    /* dst = src + 1: the first byte spreads over all (each byte reads the one just written) */
    fill(b, 4 * PAGE, 1);
    movsb(b + 1, b, 3 * PAGE);
    printf("  movsb to src+1: %08x\n", sum(b, 4 * PAGE));
    /* dst = src + 3, 1-byte elements: a 3-byte pattern repeats */
    fill(b, 4 * PAGE, 2);
    movsb(b + 3, b, 5000);
    printf("  movsb to src+3: %08x\n", sum(b, 4 * PAGE));
    /* dst = src + 2, 4-byte elements: each element reads half of the one before it */
    fill(b, 4 * PAGE, 3);
    movsl(b + 2, b, 2000);
    printf("  movsl to src+2: %08x\n", sum(b, 4 * PAGE));
    /* dst = src + 6, 4-byte elements, across pages */
    fill(b, 4 * PAGE, 4);
    movsl(b + PAGE - 9, b + PAGE - 15, 1500);
    printf("  movsl to src+6 across pages: %08x\n", sum(b, 4 * PAGE));
    /* dst < src: as memmove */
    fill(b, 4 * PAGE, 5);
    movsb(b, b + 7, 3 * PAGE);
    printf("  movsb to src-7: %08x\n", sum(b, 4 * PAGE));
    /* backward (DF = 1) over an overlap, and a backward fill */
    fill(b, 4 * PAGE, 6);
    struct regs r = movsb_back(b + 3 * PAGE + 10, b + 3 * PAGE, 2 * PAGE);
    printf("  std; movsb back: %08x, rcx %lu, rsi -%lu, rdi -%lu\n", sum(b, 4 * PAGE), r.c,
           (ulong)(b + 3 * PAGE) - r.s, (ulong)(b + 3 * PAGE + 10) - r.d);
    r = stosl_back(b + 2 * PAGE, 0xa1b2c3d4, 1100);
    printf("  std; stosl back: %08x, rdi -%lu\n", sum(b, 4 * PAGE), (ulong)(b + 2 * PAGE) - r.d);
    munmap(b, 4 * PAGE);
}

/* A fault in the middle: the handler prints where the registers stand and makes the page
 * accessible, and the instruction goes on from there. */
static uint8_t *volatile fix_page;
static int fix_prot, fix_movs;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    greg_t *g = uc->uc_mcontext.gregs;
    (void)sig;
    printf("  SIGSEGV at page%+ld, rcx %lu, rdi at page%+ld", (long)((uint8_t *)si->si_addr - fix_page), (ulong)g[RCX],
           (long)((uint8_t *)g[RDI] - fix_page));
    if (fix_movs)
        printf(", rsi at page%+ld", (long)((uint8_t *)g[RSI] - fix_page));
    printf("\n");
    CHECK(mprotect(fix_page, PAGE, fix_prot) == 0);
}

static void faults(void)
{
    struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    uint8_t *b = map(6, 0);
    printf("faults:\n");
    /* source runs into a PROT_NONE page */
    fill(b, 6 * PAGE, 7);
    fix_page = b + 2 * PAGE;
    fix_prot = PROT_READ | PROT_WRITE;
    fix_movs = 1;
    CHECK(mprotect(fix_page, PAGE, PROT_NONE) == 0);
    struct regs r = movsb(b + 4 * PAGE, b + 2 * PAGE - 100, 300);
    printf("  read fault done: rcx %lu, sum %08x\n", r.c, sum(b, 6 * PAGE));
    /* destination runs into a read-only page, 4-byte elements */
    fix_page = b + 5 * PAGE;
    CHECK(mprotect(fix_page, PAGE, PROT_READ) == 0);
    r = movsl(b + 5 * PAGE - 40, b, 64);
    printf("  write fault done: rcx %lu, sum %08x\n", r.c, sum(b, 6 * PAGE));
    /* a fill runs into a PROT_NONE page */
    fix_page = b + 3 * PAGE;
    fix_movs = 0;
    CHECK(mprotect(fix_page, PAGE, PROT_NONE) == 0);
    r = stosb(b + 3 * PAGE - 1000, 0x5a, 2000);
    printf("  fill fault done: rcx %lu, sum %08x\n", r.c, sum(b, 6 * PAGE));
    munmap(b, 6 * PAGE);
    signal(SIGSEGV, SIG_DFL);
}

#ifdef __x86_64__
/* 32-bit addressing in 64-bit code: ESI, EDI and ECX, written back zero-extended. */
static void addr32(void)
{
    uint8_t *b = map(2, MAP_32BIT);
    CHECK((ulong)b < (1UL << 32));
    fill(b, 2 * PAGE, 8);
    ulong c = 0xabcd000000000000UL | 100, s = 0x1234000000000000UL | (ulong)b, d = 0x5678000000000000UL | (ulong)(b + PAGE);
    __asm__ volatile("addr32 rep movsb" : "+c"(c), "+S"(s), "+D"(d) : : "memory");
    printf("addr32 rep movsb: rcx %#lx, rsi at b+%#lx (high %#lx), rdi at b+%#lx, copied %d\n", c, (s & 0xffffffff) - (ulong)b,
           s >> 32, (d & 0xffffffff) - (ulong)b, !memcmp(b, b + PAGE, 100));
    /* ECX 0 with the high half of RCX set: nothing moves, nothing is written. (Whether the
     * high halves of RCX and RDI are then kept or cleared differs between CPUs: Intel Xeons
     * of this project's machines have done both, so only the low halves are printed.) */
    c = 0x100000000UL;
    s = 0x1234000000000000UL | (ulong)b;
    d = 0x5678000000000000UL | (ulong)(b + PAGE);
    b[PAGE] = 0x5a;
    __asm__ volatile("addr32 rep stosb" : "+c"(c), "+D"(d) : "a"(0) : "memory");
    printf("addr32 rep stosb, ecx 0: ecx %#lx, edi at b+%#lx, written %d\n", c & 0xffffffff,
           (d & 0xffffffff) - (ulong)b, b[PAGE] != 0x5a);
    munmap(b, 2 * PAGE);
}
#endif

/* Code copied with rep movsb into a page that ran before, then run: the new code runs. */
static void code(void)
{
    /* mov $imm32, %eax; ret */
    uint8_t one[6] = {0xb8, 1, 0, 0, 0, 0xc3}, two[6] = {0xb8, 2, 0, 0, 0, 0xc3};
    uint8_t *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    int total = 0;
    for (int i = 0; i < 50; i++) {
        movsb(p + 64, i % 2 ? two : one, 6);
        total = total * 3 + ((int (*)(void))(p + 64))();
        total %= 1000003;
    }
    printf("code copied and run: %d\n", total);
    munmap(p, PAGE);
}

/* Copies between pages 16 MiB apart, whose entries share a slot of a 4096-entry TLB. */
static void far_apart(void)
{
    ulong far = 16UL << 20, n = 1UL << 20;
    uint8_t *r = map((far + n) / PAGE, 0);
    fill(r, n, 10);
    uint32_t want = sum(r, n);
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        memset(r + far, 0, n);
        struct regs x = i == 1 ? movsl(r + far, r, n / 4) : movsb(r + far, r, n);
        ok = ok && x.c == 0 && sum(r + far, n) == want;
    }
    printf("copies 16 MiB apart right: %d\n", ok);
    munmap(r, far + n);
}

/* Big copies and fills with a 1 ms timer's signals arriving during them. */
static volatile sig_atomic_t ticks;
static void on_alarm(int sig)
{
    (void)sig;
    ticks++;
}

static void interrupted(void)
{
    ulong n = 8 << 20;
    uint8_t *a = map(n / PAGE, 0), *b = map(n / PAGE, 0);
    struct sigaction sa = {.sa_handler = on_alarm};
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    fill(a, n, 9);
    uint32_t want = sum(a, n);
    int ok = 1;
    for (int i = 0; i < 4; i++) {
        struct regs r = i % 2 ? movsl(b, a, n / 4) : movsb(b, a, n);
        ok = ok && r.c == 0 && sum(b, n) == want;
        r = stosl(b, 0x01020304, n / 4);
        ok = ok && r.c == 0 && b[n - 1] == 1 && b[n / 2] == 4;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    printf("interrupted copies right: %d\n", ok);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    sizes();
    overlaps();
    faults();
#ifdef __x86_64__
    addr32();
#endif
    code();
    far_apart();
    interrupted();
    return 0;
}
