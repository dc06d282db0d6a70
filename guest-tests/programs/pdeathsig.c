/* prctl(PR_SET_PDEATHSIG): the signal a child gets when the thread that forked it ends
 * (prctl(2): "the parent thread"), given and read back (PR_GET_PDEATHSIG) in the guest's own
 * signal numbers, which are not the host's on MIPS (SIGUSR1 is 16 there, 10 on the others).
 * A thread forks the child, the child sets the signal and reports it back, the thread ends,
 * and the child dies by that signal; a signal number above the arch's last is EINVAL. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "common.h"

static pid_t child;
static int pfd[2];
static int sig;

static void *fork_child(void *arg)
{
    (void)arg;
    child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        CHECK(prctl(PR_SET_PDEATHSIG, sig) == 0);
        int got = -1;
        CHECK(prctl(PR_GET_PDEATHSIG, &got) == 0);
        char c = got == sig;
        CHECK(write(pfd[1], &c, 1) == 1);
        sleep(10);
        _exit(44);
    }
    char c;
    CHECK(read(pfd[0], &c, 1) == 1);
    printf("%s: PR_GET_PDEATHSIG gives it back: %s\n", strsignal(sig), c ? "yes" : "no");
    return NULL;
}

int main(void)
{
    int sigs[] = {SIGUSR1, SIGUSR2, SIGTERM, SIGKILL};
    CHECK(pipe(pfd) == 0);
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        sig = sigs[i];
        pthread_t t;
        CHECK(pthread_create(&t, NULL, fork_child, NULL) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        int st;
        CHECK(waitpid(child, &st, 0) == child);
        if (WIFSIGNALED(st))
            printf("  the child died by %s\n", WTERMSIG(st) == sig ? "that signal" : strsignal(WTERMSIG(st)));
        else
            printf("  the child exited with %d\n", WEXITSTATUS(st));
        fflush(stdout);
    }
    int none = -1;
    CHECK(prctl(PR_GET_PDEATHSIG, &none) == 0);
    printf("own parent-death signal: %d\n", none);
    EXPECT_ERR("PR_SET_PDEATHSIG 200", prctl(PR_SET_PDEATHSIG, 200), EINVAL);
    return 0;
}
