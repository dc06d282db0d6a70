/* A store that crosses from a page the file still reaches into one that another process
 * truncated away: SIGBUS BUS_ADRERR at the second page's start, and the store has no effect,
 * not even on the bytes of the first page (a faulting instruction changes nothing; on s390x,
 * whose hardware reports only the page, the page as well). The store runs in rounds, 0 to 4
 * times before the truncation, so that an emulator's cached translation of it and its TLB's
 * entry for the second page are both there the last time. An emulator that splits the store
 * into its bytes must find the second page gone before it writes the first. (Not on mips64el:
 * there a misaligned store traps, and Linux's fix-up writes what it can.) */
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

/* One 8-byte store instruction (or the arch's pair for it), misaligned. */
__attribute__((noinline)) static void put(char *p)
{
    *(volatile uint64_t *)p = 0x1111111111111111ULL;
}

static int fd;

static void truncate_in_child(long len)
{
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0)
        _exit(ftruncate(fd, len) == 0 ? 0 : 1);
    int st;
    CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
    fd = open("k", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(unlink("k") == 0); /* no file left behind, wherever the test runs */
    CHECK(ftruncate(fd, 4 * pg) == 0);
    char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    char *second = m + 2 * pg;
    for (int round = 0; round < 5; round++) {
        truncate_in_child(4 * pg);
        for (int i = 0; i < round; i++)
            put(second - 3);
        memset(second - 16, 0x55, 16);
        truncate_in_child(2 * pg);
        got_sig = 0;
        if (sigsetjmp(env, 1) == 0)
            put(second - 3);
        int changed = 0;
        for (int k = 0; k < 16; k++)
            changed += second[-16 + k] != 0x55;
        printf("round %d: %s %s at %s, %d bytes of the first page changed\n", round,
               got_sig == SIGBUS ? "SIGBUS" : got_sig ? "other signal" : "no signal",
               got_code == BUS_ADRERR ? "BUS_ADRERR" : "?", got_addr == (void *)second ? "the second page" : "elsewhere",
               changed);
    }
    CHECK(munmap(m, 4 * pg) == 0);
    CHECK(close(fd) == 0);
    printf("done\n");
    return 0;
}
