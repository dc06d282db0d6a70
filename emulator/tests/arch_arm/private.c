/* The ARM-private system calls (0xf0000 + n) and code written at run time: cacheflush makes
   new code visible, set_tls/get_tls reach TPIDRURO, unknown private numbers give ENOSYS. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#define ARM_NR(n) (0x0f0000 + (n))
typedef int (*fn_t)(void);
int main(void) {
    unsigned *p = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 0xe3a0002a; /* mov r0, #42 */
    p[1] = 0xe12fff1e; /* bx lr */
    printf("cacheflush: %ld\n", syscall(ARM_NR(2), p, p + 2, 0));
    printf("call: %d\n", ((fn_t)p)());
    p[0] = 0xe3a00007; /* mov r0, #7 */
    __builtin___clear_cache((char *)p, (char *)(p + 2));
    printf("call after rewrite: %d\n", ((fn_t)p)());
    long r = syscall(ARM_NR(2), p + 2, p, 0);
    printf("cacheflush end<start: %ld %s\n", r, r ? strerror(errno) : "");
    void *old = __builtin_thread_pointer();
    printf("get_tls == thread pointer: %d\n", (void *)syscall(ARM_NR(6)) == old);
    /* Raw svc: nothing may use TLS (errno, the stack guard) while it holds a test value. */
    register long r0 __asm__("r0") = 0x12345678;
    register long r7 __asm__("r7") = ARM_NR(5);
    __asm__ volatile("svc #0" : "+r"(r0) : "r"(r7) : "memory");
    long set = r0;
    long now;
    __asm__ volatile("mrc p15, 0, %0, c13, c0, 3" : "=r"(now));
    r7 = ARM_NR(6);
    __asm__ volatile("svc #0" : "=r"(r0) : "r"(r7) : "memory");
    long got = r0;
    r0 = (long)old;
    r7 = ARM_NR(5);
    __asm__ volatile("svc #0" : "+r"(r0) : "r"(r7) : "memory");
    printf("set_tls: %ld, then mrc %lx get_tls %lx\n", set, now, got);
    r = syscall(ARM_NR(0x10));
    printf("unknown private call: %ld %s\n", r, strerror(errno));
    return 0;
}
