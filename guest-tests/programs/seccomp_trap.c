/* SECCOMP_RET_TRAP and the kill actions: a trapped getppid raises SIGSYS with si_code
 * SYS_SECCOMP, si_syscall the call's number, si_arch the arch's AUDIT_ARCH_*, si_errno the
 * filter's data and si_call_addr the address the handler's frame returns to; with SIGSYS
 * blocked the trap kills. SECCOMP_RET_KILL_PROCESS kills by SIGSYS whatever the handler;
 * SECCOMP_RET_KILL_THREAD ends only the thread while another lives, and the process when it
 * is the last. */
#include "common.h"
#include "seccomp_filter.h"
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

static volatile int trapped, code, errno_field, nr_ok, arch_ok, addr_ok;

static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    (void)sig;
    trapped++;
    code = si->si_code;
    errno_field = si->si_errno;
    nr_ok = si->si_syscall == SYS_getppid;
    arch_ok = si->si_arch == TEST_AUDIT_ARCH;
    addr_ok = (unsigned long)si->si_call_addr == (unsigned long)FRAME_PC(uc);
}

static void report(const char *what, int st)
{
    if (WIFSIGNALED(st))
        printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(st)));
    else
        printf("%s: exit status %d\n", what, WEXITSTATUS(st));
}

/* Runs fn in a child and reports how the child ended. */
static void in_child(const char *what, void (*fn)(void))
{
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        fn();
        fflush(stdout);
        _exit(0);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    report(what, st);
}

static void trap_blocked(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGSYS);
    CHECK(sigprocmask(SIG_BLOCK, &s, NULL) == 0);
    syscall(SYS_getppid);
    printf("not reached\n");
}

static void kill_process(void)
{
    struct sock_filter f[] = {CHECK_ARCH, ON_NR(SYS_getuid, SECCOMP_RET_KILL_PROCESS), ALLOW};
    CHECK(INSTALL(f, 0) == 0);
    syscall(SYS_getuid);
    printf("not reached\n");
}

static void *thread_getuid(void *arg)
{
    syscall(SYS_getuid);
    printf("not reached in the thread\n");
    return arg;
}

static void kill_thread(void)
{
    struct sock_filter f[] = {CHECK_ARCH, ON_NR(SYS_getuid, SECCOMP_RET_KILL_THREAD), ALLOW};
    CHECK(INSTALL(f, 0) == 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread_getuid, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    printf("  the thread ended, the process lives on\n");
    syscall(SYS_getuid);
    printf("not reached\n");
}

int main(void)
{
    struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
    CHECK(sigaction(SIGSYS, &sa, NULL) == 0);
    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    struct sock_filter f[] = {CHECK_ARCH, ON_NR(SYS_getppid, SECCOMP_RET_TRAP | 42), ALLOW};
    CHECK(INSTALL(f, 0) == 0);
    syscall(SYS_getppid);
    printf("trapped %d time(s): si_code SYS_SECCOMP %s, si_errno %d, si_syscall %s, si_arch %s, "
           "si_call_addr %s\n",
           trapped, code == 1 /* SYS_SECCOMP */ ? "yes" : "no", errno_field, nr_ok ? "ok" : "wrong", arch_ok ? "ok" : "wrong",
           addr_ok ? "ok" : "wrong");
    in_child("getppid with SIGSYS blocked", trap_blocked);
    in_child("RET_KILL_PROCESS with a SIGSYS handler", kill_process);
    in_child("RET_KILL_THREAD", kill_thread);
    return 0;
}
