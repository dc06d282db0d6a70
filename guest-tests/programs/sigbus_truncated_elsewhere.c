/* A store into a shared file mapping after another process truncated the file: the pages
 * past the new end raise SIGBUS BUS_ADRERR with si_addr the address stored to (on s390x, whose
 * hardware reports only the page, the page: arch/s390/mm/fault.c), and nothing is written;
 * pages before the end still take stores. The stores come from one store instruction, before
 * and after the truncation, so an emulator that caches a store's permission per instruction
 * (endgate's store slots, unicorn patch 0045) must still see the host's verdict. */
#include "common.h"
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static void *volatile got_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(env, 1);
}

static void *fault_addr(volatile char *p)
{
#if defined(__s390x__)
    return (void *)((unsigned long)p & ~4095UL);
#else
    return (void *)p;
#endif
}

__attribute__((noinline)) static void put(volatile long *p, long v)
{
    *p = v;
}

/* Stores v at p through put(); returns the signal (0: none). */
static int try_put(volatile long *p, long v)
{
    got_sig = 0;
    got_addr = NULL;
    if (sigsetjmp(env, 1) == 0)
        put(p, v);
    return got_sig;
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0);

    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(unlink("f") == 0); /* no file left behind, wherever the test runs */
    CHECK(ftruncate(fd, 4 * pg) == 0);
    char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    for (int round = 0; round < 2; round++) {
        CHECK(ftruncate(fd, 4 * pg) == 0);
        int bad = 0;
        for (long i = 0; i < 4 * pg / 8; i++)
            bad |= try_put((volatile long *)m + i, i + 1) != 0;
        printf("round %d: stores into 4 pages: %s\n", round, bad ? "faulted" : "ok");
        fflush(stdout);
        pid_t child = fork();
        CHECK(child >= 0);
        if (child == 0)
            _exit(ftruncate(fd, pg) == 0 ? 0 : 1);
        int status;
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        volatile char *past = m + 2 * pg + 8;
        int sig = try_put((volatile long *)past, -1);
        printf("round %d: store past the new end: %s %s, si_addr %s\n", round,
               sig == SIGBUS ? "SIGBUS" : sig ? "other" : "none",
               got_code == BUS_ADRERR ? "BUS_ADRERR" : "?",
               got_addr == fault_addr(past) ? "ok" : "wrong");
        sig = try_put((volatile long *)(m + 16), 77);
        long v = 0;
        CHECK(pread(fd, &v, sizeof v, 16) == (ssize_t)sizeof v);
        printf("round %d: store before the end: %s, the file reads %ld\n", round, sig ? "faulted" : "ok", v);
    }
    CHECK(munmap(m, 4 * pg) == 0);
    CHECK(close(fd) == 0);
    printf("done\n");
    return 0;
}
