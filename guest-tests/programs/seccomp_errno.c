/* seccomp filters with SECCOMP_RET_ERRNO: getpid fails with EPERM, getppid "succeeds" with 0
 * without running; a second filter's EACCES wins over the first's EPERM (the newest runs first
 * and keeps an equal action); the errno is the arch's number (ENOSYS and ECONNREFUSED differ
 * on MIPS); SECCOMP_RET_TRACE with no tracer is ENOSYS and SECCOMP_RET_LOG
 * lets the call run. The filters are inherited by a thread, a forked child and the program
 * execve runs. */
#include "common.h"
#include "seccomp_filter.h"
#include <pthread.h>
#include <sys/wait.h>

static void show(const char *label, long r)
{
    printf("%s: %s\n", label, r == -1 ? errname(errno) : r == 0 ? "0" : "a value");
}

static void *in_thread(void *arg)
{
    (void)arg;
    errno = 0;
    show("in a thread: getpid", syscall(SYS_getpid));
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--exec") == 0) {
        errno = 0;
        show("after execve: getpid", syscall(SYS_getpid));
        printf("after execve: PR_GET_SECCOMP %d\n", prctl(PR_GET_SECCOMP));
        return 0;
    }
    printf("PR_GET_SECCOMP before: %d\n", prctl(PR_GET_SECCOMP));
    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    struct sock_filter first[] = {
        CHECK_ARCH,
        ON_NR(SYS_getpid, SECCOMP_RET_ERRNO | EPERM),
        ON_NR(SYS_getppid, SECCOMP_RET_ERRNO | 0),
        ON_NR(SYS_getuid, SECCOMP_RET_TRACE),
        ON_NR(SYS_getgid, SECCOMP_RET_LOG),
        ON_NR(SYS_getsid, SECCOMP_RET_ERRNO | ENOSYS),
        ON_NR(SYS_getpgid, SECCOMP_RET_ERRNO | ECONNREFUSED),
        ALLOW,
    };
    CHECK(INSTALL(first, 0) == 0);
    printf("PR_GET_SECCOMP after: %d\n", prctl(PR_GET_SECCOMP));
    show("getpid", syscall(SYS_getpid));
    show("getppid", syscall(SYS_getppid));
    show("getuid (RET_TRACE, no tracer)", syscall(SYS_getuid));
    errno = 0;
    long g = syscall(SYS_getgid);
    printf("getgid (RET_LOG): %s\n", g >= 0 ? "runs" : errname(errno));
    /* The errno is the guest's number for it (MIPS numbers these two its own way). */
    show("getsid (RET_ERRNO ENOSYS)", syscall(SYS_getsid, 0));
    show("getpgid (RET_ERRNO ECONNREFUSED)", syscall(SYS_getpgid, 0));

    struct sock_filter second[] = {CHECK_ARCH, ON_NR(SYS_getpid, SECCOMP_RET_ERRNO | EACCES), ALLOW};
    struct sock_fprog prog = {.len = sizeof second / sizeof second[0], .filter = second};
    CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0);
    show("getpid with a second filter", syscall(SYS_getpid));

    pthread_t t;
    CHECK(pthread_create(&t, NULL, in_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);

    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        show("in a forked child: getpid", syscall(SYS_getpid));
        fflush(stdout);
        char *args[] = {argv[0], "--exec", NULL};
        char *env[] = {NULL};
        execve(argv[0], args, env);
        printf("execve: %s\n", errname(errno));
        fflush(stdout);
        _exit(127);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    printf("child exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
