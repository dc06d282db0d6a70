// A load that touches a page for the first time from inside conditionally run code, and the
// code after it. On arm (Thumb-2) the load sits in an IT block, on mips64el in a branch delay
// slot: the engine fills its TLB in the middle of that state, and the state must be the one
// of the instruction that follows, not the load's (the next block used to start inside a
// stale IT block, with its first instructions skipped or run conditionally, or as a delay
// slot). On the other arches it is a plain first-touch load. Expected output: the C
// semantics below, as run natively.
#include <stdio.h>
#include <sys/mman.h>

// Reads *p if `cond` is nonzero (else 7), then runs four unconditional moves in the next
// block; returns what was read plus 10 times the last move's value (5).
static int probe(const volatile char *p, int cond) {
    int r = 0, x = 0;
#if defined(__thumb2__)
    __asm__ volatile("cmp %[c], #0\n\t"
                     "ittte ne\n\t"
                     "ldrbne %[r], [%[p]]\n\t"
                     "addne %[r], %[r], #1\n\t"
                     "subne %[r], %[r], #1\n\t"
                     "moveq %[r], #7\n\t"
                     "b 1f\n"
                     "1:\n\t"
                     "mov.w %[x], #1\n\t"
                     "mov.w %[x], #2\n\t"
                     "mov.w %[x], #3\n\t"
                     "mov.w %[x], #5\n\t"
                     : [r] "=&r"(r), [x] "=&r"(x)
                     : [p] "r"(p), [c] "r"(cond)
                     : "cc", "memory");
#elif defined(__mips__)
    if (cond) {
        __asm__ volatile(".set push\n\t"
                         ".set noreorder\n\t"
                         "b 1f\n\t"
                         "lb %[r], 0(%[p])\n"
                         "1:\n\t"
                         "b 2f\n\t"
                         "li %[x], 4\n\t"
                         "li %[x], 9\n"
                         "2:\n\t"
                         "addiu %[x], %[x], 1\n\t"
                         ".set pop\n\t"
                         : [r] "=&r"(r), [x] "=&r"(x)
                         : [p] "r"(p)
                         : "memory");
    } else {
        r = 7;
        x = 5;
    }
#else
    r = cond ? *p : 7;
    x = 5;
#endif
    return r + 10 * x;
}

int main(void) {
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        // A new page each time (a hint far from the program, as a fixed buffer would be).
        void *want = (void *)(0x50000000UL + (unsigned long)i * 0x10000UL);
        char *p = mmap(want, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        int got = probe(p, 1), want_got = 0 + 10 * 5;
        if (got != want_got) {
            if (bad++ < 5) printf("round %d: got %d, want %d\n", i, got, want_got);
        }
        if (probe(p, 0) != 7 + 10 * 5) bad++;
        munmap(p, 4096);
    }
    printf("fill_in_conditional: %s\n", bad ? "FAILED" : "ok");
    return bad != 0;
}
