/* Machine code assembled at run time for the build's own architecture, for the tests that run
 * code they write (code_rewrite, thread_jit). Encodings from each architecture's manual. */
#ifndef GUEST_TESTS_JIT_H
#define GUEST_TESTS_JIT_H

#include <stdint.h>
#include <string.h>

/* Writes the machine code of `int f(void) { return k; }` (0 <= k < 128) to `p`; returns its
 * length in bytes. */
static inline size_t assemble(unsigned char *p, unsigned k)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned char c[] = {0xb8, (unsigned char)k, 0, 0, 0, 0xc3}; /* mov $k,%eax; ret */
#elif defined(__aarch64__)
    uint32_t c[] = {0x52800000u | k << 5, 0xd65f03c0u}; /* movz w0,#k; ret */
#elif defined(__arm__)
    uint32_t c[] = {0xe3a00000u | k, 0xe12fff1eu}; /* mov r0,#k; bx lr */
#elif defined(__riscv)
    uint32_t c[] = {k << 20 | 10u << 7 | 0x13u, 0x00008067u}; /* li a0,k; ret */
#elif defined(__s390x__)
    unsigned char c[] = {0xa7, 0x29, 0, (unsigned char)k, 0x07, 0xfe}; /* lghi %r2,k; br %r14 */
#elif defined(__mips__)
    uint32_t c[] = {0x03e00008u, 0x24020000u | k}; /* jr $ra; addiu $v0,$zero,k (delay slot) */
#else
#error "no encoding for this architecture"
#endif
    memcpy(p, c, sizeof c);
    return sizeof c;
}

#endif
