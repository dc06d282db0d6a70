/* Process start on s390x: argv, envp, the auxiliary vector, TLS in a0/a1, and the
 * AT_HWCAP bits, each checked by running an instruction of its facility (STFLE is no
 * reference here: unicorn 2.1.5's STFLE stores no facility bits). Prints only what is the
 * same under any correct s390x Linux (AT_PLATFORM only with --platform); exits with 7. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

static __thread long tls_value = 41;

int main(int argc, char **argv, char **envp) {
    printf("argc=%d\n", argc);
    for (int i = 1; i < argc; i++) printf("argv[%d]=<%s>\n", i, argv[i]);
    int envs = 0;
    for (char **e = envp; *e; e++) envs++;
    printf("envp entries=%d S390X_TEST=%s\n", envs, getenv("S390X_TEST"));

    printf("AT_PAGESZ=%lu\n", getauxval(AT_PAGESZ));
    printf("AT_EXECFN is argv[0]: %d\n", strcmp((const char *)getauxval(AT_EXECFN), argv[0]) == 0);
    printf("AT_RANDOM present: %d\n", getauxval(AT_RANDOM) != 0);
    printf("AT_ENTRY set: %d\n", getauxval(AT_ENTRY) != 0);

    /* AT_HWCAP bits, each checked by running an instruction of its facility. */
    unsigned long hwcap = getauxval(AT_HWCAP);
    printf("hwcap esan3=%d zarch=%d highgprs=%d eimm=%d ldisp=%d\n", !!(hwcap & 1), !!(hwcap & 2),
           !!(hwcap & 512), !!(hwcap & 32), !!(hwcap & 16));
    long x = 0x12345678;
    asm("afi %0,0x11111111" : "+d"(x) : : "cc"); /* extended immediate */
    printf("afi: %lx\n", x);
    long y = 3, z;
    asm("ark %0,%1,%2" : "=d"(z) : "d"(x), "d"(y) : "cc"); /* z196: distinct operands */
    unsigned long pc, bits = 0x0101010101010101UL;
    asm("popcnt %0,%1" : "=d"(pc) : "d"(bits) : "cc"); /* z196: population count */
    printf("z196 ark=%lx popcnt=%lx\n", z, pc);
    if (hwcap & 2048) { /* HWCAP_S390_VXRS: vector facility */
        unsigned long out;
        asm(".machine push\n\t.machine \"z13\"\n\t"
            "vzero %%v16\n\tvlvgg %%v16,%1,1\n\tvaq %%v17,%%v16,%%v16\n\tvlgvg %0,%%v17,1\n\t"
            ".machine pop"
            : "=d"(out) : "d"(21UL) : "v16", "v17");
        printf("vector add: %lu\n", out);
    }
    if (argc > 1 && !strcmp(argv[argc - 1], "--platform"))
        printf("AT_PLATFORM=%s\n", (const char *)getauxval(AT_PLATFORM));

    /* The thread pointer lives in a0 (high half) and a1 (low half). */
    unsigned long tp = (unsigned long)__builtin_thread_pointer();
    unsigned int a0, a1;
    asm volatile("ear %0,%%a0\n\tear %1,%%a1" : "=d"(a0), "=d"(a1));
    printf("thread pointer in a0:a1: %d\n", tp == (((unsigned long)a0 << 32) | a1) && tp != 0);
    tls_value++;
    printf("tls=%ld\n", tls_value);
    return 7;
}
