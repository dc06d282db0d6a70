/* A straight run of thousands of instructions with no branch: a function of 3000 increments
 * (and one of 20000, across pages), assembled at run time, called, and its result checked.
 * An emulator translates such a run in blocks as long as it allows; each instruction's
 * bookkeeping must not outgrow what a block can hold (unicorn's MIPS translator kept one TCG
 * temporary per instruction and overran them at about 365). */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

/* Appends one instruction (given as bytes) `n` times. */
static unsigned char *put(unsigned char *p, const void *insn, size_t len, unsigned n)
{
    for (unsigned i = 0; i < n; i++, p += len)
        memcpy(p, insn, len);
    return p;
}

/* `int f(void)`: zero, `n` increments of the return register, return. */
static size_t assemble_run(unsigned char *code, unsigned n)
{
    unsigned char *p = code;
#if defined(__x86_64__)
    static const unsigned char zero[] = {0x31, 0xc0}, inc[] = {0xff, 0xc0}, ret[] = {0xc3};
#elif defined(__i386__)
    static const unsigned char zero[] = {0x31, 0xc0}, inc[] = {0x40}, ret[] = {0xc3};
#elif defined(__aarch64__)
    static const uint32_t zero[] = {0x52800000u}, inc[] = {0x11000400u}, ret[] = {0xd65f03c0u};
#elif defined(__arm__)
    static const uint32_t zero[] = {0xe3a00000u}, inc[] = {0xe2800001u}, ret[] = {0xe12fff1eu};
#elif defined(__riscv)
    static const uint32_t zero[] = {0x00000513u}, inc[] = {0x00150513u}, ret[] = {0x00008067u};
#elif defined(__s390x__)
    static const unsigned char zero[] = {0xa7, 0x29, 0, 0}, inc[] = {0xa7, 0x2a, 0, 1}, ret[] = {0x07, 0xfe};
#elif defined(__mips__)
    /* move $v0,$zero; addiu $v0,$v0,1; jr $ra with a nop in its delay slot */
    static const uint32_t zero[] = {0x24020000u}, inc[] = {0x24420001u}, ret[] = {0x03e00008u, 0};
#else
#error "no encoding for this architecture"
#endif
    p = put(p, zero, sizeof zero, 1);
    p = put(p, inc, sizeof inc, n);
    p = put(p, ret, sizeof ret, 1);
    return (size_t)(p - code);
}

int main(void)
{
    static const unsigned counts[] = {3000, 20000};
    long page = sysconf(_SC_PAGESIZE);
    for (unsigned i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        unsigned n = counts[i];
        size_t len = ((size_t)n * 4 + 64 + (size_t)page - 1) / (size_t)page * (size_t)page;
        unsigned char *code = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(code != MAP_FAILED);
        size_t size = assemble_run(code, n);
        CHECK(size <= len);
        CHECK(mprotect(code, len, PROT_READ | PROT_EXEC) == 0);
        __builtin___clear_cache((char *)code, (char *)code + size);
        int (*f)(void) = (int (*)(void))(uintptr_t)code;
        int r = f();
        printf("%u straight-line increments: %d\n", n, r);
        CHECK(r == (int)n);
        CHECK(munmap(code, len) == 0);
    }
    return 0;
}
