/* System calls whose buffer lies in a shared file mapping's page that another process
 * truncated away fail with EFAULT (the kernel's copy_to_user/copy_from_user meet the missing
 * page and give up; no signal), the vDSO's clock_gettime into such a page raises SIGBUS
 * BUS_ADRERR (its store is the program's own), and on mips64el a misaligned store there, which
 * Linux's unaligned-access fix-up completes with its own user access, gets the fix-up's
 * SIGSEGV (arch/mips/kernel/unaligned.c). An emulator that copies such buffers itself must
 * survive the host's SIGBUS on its own copy. The calls are raw system calls: some libcs copy a
 * converted struct themselves, which would fault in the program instead. */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

static sigjmp_buf env;
static volatile int got_sig;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    got_sig = sig;
    siglongjmp(env, 1);
}

/* The kernel's sigset_t, in bytes (rt_sigaction's last argument). */
#if defined(__mips__)
#define KSIGSET 16
#else
#define KSIGSET 8
#endif

static void show(const char *name, long r)
{
    printf("%s: %s\n", name, r == -1 && errno == EFAULT ? "EFAULT" : r == -1 ? "other error" : "succeeded");
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

    int fd = open("h", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(unlink("h") == 0); /* no file left behind, wherever the test runs */
    CHECK(ftruncate(fd, 4 * pg) == 0);
    char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    memset(m, 'a', 4 * pg); /* every page touched while the file reaches it */
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0)
        _exit(ftruncate(fd, pg) == 0 ? 0 : 1);
    int status;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *past = m + 2 * pg + 64, *past2 = m + 3 * pg + 64;

    int p[2];
    CHECK(pipe(p) == 0);
    errno = 0;
    show("write from past the end", write(p[1], past, 100));
    CHECK(write(p[1], "xyz", 3) == 3);
    errno = 0;
    show("read into past the end", read(p[0], past, 3));
    errno = 0;
    show("uname into past the end", syscall(SYS_uname, past));
    errno = 0;
    show("fstat into past the end", syscall(SYS_fstat, fd, past));
    errno = 0;
    show("clock_gettime system call into past the end", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, past));
    errno = 0;
    show("pipe2 into past the end", syscall(SYS_pipe2, past, 0));
    errno = 0;
    show("nanosleep from past the end", syscall(SYS_nanosleep, past2, NULL));
    errno = 0;
    show("rt_sigaction old action into past the end", syscall(SYS_rt_sigaction, SIGUSR1, NULL, past, KSIGSET));
    errno = 0;
    show("rt_sigaction new action from past the end", syscall(SYS_rt_sigaction, SIGUSR1, past2, NULL, KSIGSET));

    got_sig = 0;
    if (sigsetjmp(env, 1) == 0)
        clock_gettime(CLOCK_MONOTONIC, (struct timespec *)past);
    printf("clock_gettime (vDSO or libc) into past the end: %s\n",
           got_sig == SIGBUS ? "SIGBUS" : got_sig ? "other signal" : "no signal");

#if defined(__mips__)
    got_sig = 0;
    if (sigsetjmp(env, 1) == 0) {
        int v = 7;
        __asm__ volatile(".set push\n.set noreorder\nsw %0, 1(%1)\n.set pop" : : "r"(v), "r"(past) : "memory");
    }
    printf("misaligned store past the end: %s\n", got_sig == SIGSEGV ? "SIGSEGV" : got_sig ? "other signal" : "no signal");
#else
    printf("misaligned store past the end: SIGSEGV\n");
#endif

    /* Before the end the same calls work. */
    errno = 0;
    show("uname before the end", syscall(SYS_uname, m + 64));
    errno = 0;
    show("clock_gettime system call before the end", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, m + 2048));
    CHECK(munmap(m, 4 * pg) == 0);
    CHECK(close(fd) == 0);
    printf("done\n");
    return 0;
}
