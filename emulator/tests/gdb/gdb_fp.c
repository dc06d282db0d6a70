/* The guest of emulator/tests/gdb.rs's floating-point register test: main passes A and B
 * (-DA=…, -DB=…) to fp_mark, which the calling convention puts in the first two
 * floating-point argument registers (arm d0/d1, riscv64 fa0/fa1, aarch64 v0/v1, x86_64 and
 * i386 (sseregparm) xmm0/xmm1, s390x f0/f2, mips64el f12/f13). GDB stops at fp_mark's first
 * instruction, reads the first, writes the second; the program prints what fp_mark got. */
#include <stdio.h>

#ifdef __i386__
#define FP_ARGS __attribute__((sseregparm))
#else
#define FP_ARGS
#endif

FP_ARGS __attribute__((noinline)) double fp_mark(double a, double b) {
    return a * 1000 + b;
}

int main(void) {
    volatile double a = A, b = B;
    printf("%.3f\n", fp_mark(a, b));
    return 0;
}
