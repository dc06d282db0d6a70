/* seccomp strict mode (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) and
 * seccomp(SECCOMP_SET_MODE_STRICT)): read and write still work, exit ends the thread with its
 * status, any other call (getpid, exit_group, seccomp itself) kills with SIGKILL. Strict mode
 * takes no flags and no filter pointer, and a thread with a filter cannot enter it. */
#include "common.h"
#include "seccomp_filter.h"
#include <signal.h>
#include <sys/wait.h>

static void say(const char *s)
{
    /* write(2) only: stdio would call fstat or other calls. */
    if (write(1, s, strlen(s)) < 0)
        syscall(SYS_exit, 9);
}

static void report(const char *what, int st)
{
    if (WIFSIGNALED(st))
        printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(st)));
    else
        printf("%s: exit status %d\n", what, WEXITSTATUS(st));
    fflush(stdout);
}

/* A child enters strict mode (through seccomp(2) when by_syscall), then makes `last`. */
static void run(const char *what, int by_syscall, long last)
{
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        long r = by_syscall ? syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL)
                            : prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
        if (r != 0)
            syscall(SYS_exit, 8);
        say("  in strict mode: write works\n");
        char b;
        if (syscall(SYS_read, 0, &b, 1) != 0) /* stdin is /dev/null */
            say("  read: unexpected\n");
        if (last == SYS_exit)
            syscall(SYS_exit, 3);
        syscall(last, 0);
        say("  not reached\n");
        syscall(SYS_exit, 4);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    report(what, st);
}

int main(void)
{
    EXPECT_ERR("SECCOMP_SET_MODE_STRICT with flags", syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 1, NULL), EINVAL);
    EXPECT_ERR("SECCOMP_SET_MODE_STRICT with a pointer",
               syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, (void *)&main), EINVAL);
    run("strict (prctl), then exit", 0, SYS_exit);
    run("strict (seccomp), then exit", 1, SYS_exit);
    run("strict, then getpid", 0, SYS_getpid);
    run("strict, then exit_group", 1, SYS_exit_group);

    /* Filter mode, then strict: EINVAL; strict, then the seccomp call itself: killed. */
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
        struct sock_filter f[] = {ALLOW};
        CHECK(INSTALL(f, 0) == 0);
        EXPECT_ERR("strict after a filter", prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0), EINVAL);
        fflush(stdout);
        _exit(0);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    fflush(stdout);
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
        struct sock_filter f[] = {ALLOW};
        struct sock_fprog p = {.len = 1, .filter = f};
        CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) == 0);
        /* seccomp is not one of the calls strict mode allows. */
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p);
        syscall(SYS_exit, 0);
    }
    CHECK(waitpid(c, &st, 0) == c);
    report("strict child calling seccomp for a filter", st);
    return 0;
}
