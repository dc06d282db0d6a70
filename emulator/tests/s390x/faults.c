/* One CPU exception per run, chosen by argv[1]; each must end the process with the
 * signal Linux raises for it. Exits 0 (and prints "survived") if nothing happened. */
#define _GNU_SOURCE
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    printf("fault: %s\n", what);
    fflush(stdout);
    if (!strcmp(what, "segv")) {
        *(volatile int *)0 = 1;                     /* store to an unmapped page */
    } else if (!strcmp(what, "segv-high")) {
        *(volatile long *)0x3ff00000123UL = 1;     /* unmapped, far from the image */
    } else if (!strcmp(what, "ill")) {
        asm volatile(".short 0x0000");              /* operation exception */
    } else if (!strcmp(what, "priv")) {
        asm volatile("ptlb");                       /* privileged: user mode may not */
    } else if (!strcmp(what, "div")) {
        volatile long a = 5, b = 0;
        printf("%ld\n", a / b);                     /* dsgr by zero: fixed-point divide */
    } else if (!strcmp(what, "fdiv")) {
        volatile double one = 1.0, zero = 0.0;
        feenableexcept(FE_DIVBYZERO);
        printf("%f\n", one / zero);                /* IEEE trap: data exception, DXC set */
    } else if (!strcmp(what, "cmptrap")) {
        long v = 0;
        asm volatile("cgite %0,0" : : "d"(v));      /* compare and trap: DXC 0xff */
    } else if (!strcmp(what, "trap")) {
        __builtin_trap();
    } else if (!strcmp(what, "exit")) {
        exit(atoi(argv[2]));
    }
    printf("survived\n");
    return 0;
}
