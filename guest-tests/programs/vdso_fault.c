/* A clock read into memory the caller may not write faults, as the store inside Linux's vDSO
 * does: SIGSEGV with si_code SEGV_ACCERR and si_addr the buffer for a read-only page, and
 * SEGV_MAPERR in page 0 for address 0x10 (s390x reports only the page), SIGBUS with
 * BUS_ADRERR for a page of a shared file mapping past the end of the file; a handler can
 * longjmp out and clock_gettime keeps working. (qemu-user without a vDSO returns EFAULT.) */
#include <signal.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
static sigjmp_buf env; static volatile void *addr; static volatile int code, sig;
static void h(int s, siginfo_t *si, void *u) { sig = s; addr = si->si_addr; code = si->si_code; siglongjmp(env, 1); }
int main(void) {
    struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_sigaction = h; sa.sa_flags = SA_SIGINFO; sigaction(SIGSEGV, &sa, 0); sigaction(SIGBUS, &sa, 0);
    char *ro = mmap(0, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    if (!sigsetjmp(env, 1)) { int r = clock_gettime(CLOCK_MONOTONIC, (struct timespec *)ro); printf("ro: returned %d\n", r); }
    else printf("ro: SIGSEGV code %d at buffer %d\n", code, addr == ro);
    if (!sigsetjmp(env, 1)) { int r = clock_gettime(CLOCK_MONOTONIC, (struct timespec *)16); printf("16: returned %d\n", r); }
    else printf("16: SIGSEGV code %d in page 0: %d\n", code, ((unsigned long)addr & ~4095UL) == 0);
    char path[] = "/tmp/vdso_fault.XXXXXX"; int fd = mkstemp(path); unlink(path);
    if (fd < 0 || ftruncate(fd, 4096) != 0) return 1;
    char *f = mmap(0, 8192, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
    if (f == MAP_FAILED) return 1;
    char *past = f + 4096 + 16;
    if (!sigsetjmp(env, 1)) { int r = clock_gettime(CLOCK_MONOTONIC, (struct timespec *)past); printf("past EOF: returned %d\n", r); }
    else printf("past EOF: SIGBUS %d code %d in the page %d\n", sig == SIGBUS, code, ((unsigned long)addr & ~4095UL) == (unsigned long)(f + 4096));
    struct timespec ts; printf("ok after: %d\n", clock_gettime(CLOCK_MONOTONIC, &ts));
    return 0;
}
