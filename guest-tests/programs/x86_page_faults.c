/* x86 page faults as a SIGSEGV or SIGBUS handler sees them: si_code, and in the signal frame
 * `trapno` 14 and the page-fault error code `err` (user mode 4, write 2, instruction fetch
 * 0x10, and 1 when the page had a present entry: a protection fault on a page that was
 * touched), and `cr2` the fault address; a non-canonical address on x86_64 is a
 * general-protection fault (trapno 13, err 0, SI_KERNEL). Expected output from native runs of
 * the x86_64 and the i386 build (expected/<arch>/: i386 has no non-canonical addresses). */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>
#include "common.h"

#ifdef __x86_64__
#define CR2(uc) ((unsigned long)(uc)->uc_mcontext.gregs[REG_CR2])
#else
#define CR2(uc) ((unsigned long)(uc)->uc_mcontext.cr2)
#endif

static sigjmp_buf jb;
static volatile char *expect_addr;

static void handler(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    printf("  %s, si_code %d, trapno %ld, err %#lx, si_addr %s, cr2 %s\n", sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : "SIGUSR1", si->si_code,
           (long)uc->uc_mcontext.gregs[REG_TRAPNO], (long)uc->uc_mcontext.gregs[REG_ERR],
           sig == SIGUSR1 ? "-" : si->si_addr == (void *)expect_addr ? "the address" : si->si_addr ? "elsewhere" : "0",
           CR2(uc) == (unsigned long)expect_addr ? "the address" : CR2(uc) ? "elsewhere" : "0");
    siglongjmp(jb, 1);
}

#define TRY(name, addr, stmt)                                                                      \
    do {                                                                                           \
        printf("%s\n", name);                                                                      \
        expect_addr = (volatile char *)(addr);                                                     \
        if (!sigsetjmp(jb, 1)) {                                                                   \
            stmt;                                                                                  \
            printf("  no fault\n");                                                                \
        }                                                                                          \
    } while (0)

static char *map(int prot)
{
    char *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    return p;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sigaction sa = {.sa_sigaction = handler, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0 && sigaction(SIGBUS, &sa, NULL) == 0);
    volatile char *v;
    char *ro = map(PROT_READ), *ro_read = map(PROT_READ), *none = map(PROT_NONE), *rw = map(PROT_READ | PROT_WRITE);
    char *gone = map(PROT_READ);
    CHECK(munmap(gone, 4096) == 0);

    TRY("write to a read-only page never touched", ro + 8, v = ro + 8; *v = 1);
    v = ro_read + 16;
    (void)*v;
    TRY("write to a read-only page read before", ro_read + 16, v = ro_read + 16; *v = 1);
    TRY("read of a PROT_NONE page", none + 24, v = none + 24; (void)*v);
    TRY("write to a PROT_NONE page", none + 32, v = none + 32; *v = 1);
    TRY("read of an unmapped page", gone + 40, v = gone + 40; (void)*v);
    TRY("write to an unmapped page", gone + 48, v = gone + 48; *v = 1);
    TRY("read at address 0", 0, v = 0; (void)*v);
    rw[64] = (char)0xc3; /* ret */
    TRY("call into a written non-executable page", rw + 64, ((void (*)(void))(rw + 64))());
    TRY("call into a read-only page never touched", ro + 128, ((void (*)(void))(ro + 128))());
    TRY("call into a PROT_NONE page", none + 128, ((void (*)(void))(none + 128))());
    TRY("call into an unmapped page", gone + 128, ((void (*)(void))(gone + 128))());

    /* a file mapping's page past the end of the file */
    char path[] = "/tmp/x86_page_faults.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && unlink(path) == 0 && write(fd, "x", 1) == 1);
    char *f = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(f != MAP_FAILED);
    TRY("read past the end of a mapped file", f + 4096 + 8, v = f + 4096 + 8; (void)*v);
    TRY("write past the end of a mapped file", f + 4096 + 16, v = f + 4096 + 16; *v = 1);
    close(fd);

    /* a read-only file mapping's page no access brought in yet */
    char rpath[] = "/tmp/x86_page_faults_ro.XXXXXX";
    int rfd = mkstemp(rpath);
    CHECK(rfd >= 0 && unlink(rpath) == 0 && ftruncate(rfd, 8192) == 0);
    char *rf = mmap(NULL, 8192, PROT_READ, MAP_SHARED, rfd, 0);
    CHECK(rf != MAP_FAILED);
    TRY("write to a read-only file page never touched", rf + 4096 + 24, v = rf + 4096 + 24; *v = 1);
    close(rfd);

    /* the top of the 32-bit space, and beyond user space */
#ifdef __x86_64__
    TRY("read of a kernel address", 0xffffffff81000000UL, v = (volatile char *)0xffffffff81000000UL; (void)*v);
    TRY("write to the page below the top of user space", 0x7ffffffff010UL, v = (volatile char *)0x7ffffffff010UL; *v = 1);
    TRY("read at a non-canonical address", 0, v = (volatile char *)0x8000000000000000UL; (void)*v);
#else
    TRY("write at 0xffffffff", 0xffffffffUL, v = (volatile char *)0xffffffffUL; *v = 1);
    TRY("read at 0xc0000010", 0xc0000010UL, v = (volatile char *)0xc0000010UL; (void)*v);
#endif

    /* a signal no exception raised: the frame repeats the last exception's trapno, err
       and cr2 (the thread's, as Linux keeps them) */
    printf("SIGUSR1 after the faults\n");
    struct sigaction su = {.sa_sigaction = handler, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGUSR1, &su, NULL) == 0);
#ifdef __x86_64__
    expect_addr = (volatile char *)0x7ffffffff010UL; /* the last page fault's */
#else
    expect_addr = (volatile char *)0xc0000010UL;
#endif
    if (!sigsetjmp(jb, 1))
        raise(SIGUSR1);
    return 0;
}
