/* set*id calls in a process with threads: glibc applies each change to every thread (it
 * signals the others with its internal signal 33, whose handler makes the call again on that
 * thread). Every thread must see the new ids, the calls must not crash or hang the emulator,
 * and neither must setgroups in the child of a fork made while threads run. As root the ids
 * become nobody's (65534); otherwise they are set to what they already are. */
#include "common.h"
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#define NTHREADS 3

static pthread_barrier_t changed, checked;
static int ok[NTHREADS];
static uid_t want_uid;
static gid_t want_gid;

static void *worker(void *p)
{
    long i = (long)p;
    pthread_barrier_wait(&changed);
    gid_t g[4];
    int n = getgroups(4, g);
    ok[i] = getuid() == want_uid && geteuid() == want_uid && getgid() == want_gid && getegid() == want_gid &&
            (getuid() != 65534 || (n == 1 && g[0] == 65534));
    pthread_barrier_wait(&checked);
    return NULL;
}

int main(void)
{
    int root = geteuid() == 0;
    want_uid = root ? 65534 : getuid();
    want_gid = root ? 65534 : getgid();
    CHECK(pthread_barrier_init(&changed, NULL, NTHREADS + 1) == 0);
    CHECK(pthread_barrier_init(&checked, NULL, NTHREADS + 1) == 0);
    pthread_t t[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0);

    /* A fork child of this threaded process changes its groups and ids on its own. */
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(10);
        gid_t g = want_gid;
        int r = root ? setgroups(1, &g) : 0;
        int r2 = setresgid(want_gid, want_gid, want_gid);
        _exit(r == 0 && r2 == 0 && getgid() == want_gid ? 0 : 1);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    printf("fork child: %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ids changed" : "failed");

    gid_t g = 65534;
    printf("setgroups: %d\n", root ? setgroups(1, &g) : 0);
    printf("setresgid: %d\n", setresgid(want_gid, want_gid, want_gid));
    printf("setresuid: %d\n", setresuid(want_uid, want_uid, want_uid));
    printf("setuid again: %d\n", setuid(want_uid));
    pthread_barrier_wait(&changed);
    pthread_barrier_wait(&checked);
    for (int i = 0; i < NTHREADS; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        printf("thread %d sees the new ids: %s\n", i, ok[i] ? "yes" : "no");
    }
    printf("main sees the new ids: %s\n", getuid() == want_uid && getgid() == want_gid ? "yes" : "no");
    return 0;
}
