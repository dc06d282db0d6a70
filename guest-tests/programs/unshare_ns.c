/* unshare(2) and setns(2): a new UTS namespace keeps a host name to itself and setns goes back
 * to the old one; CLONE_NEWPID makes the next child pid 1; CLONE_FS and CLONE_FILES apply to
 * the calling thread only; CLONE_NEWUSER works in a process whose second thread has ended and
 * is EINVAL while it lives; unknown flags are EINVAL. Each namespace change happens in a
 * forked child. Without the privilege (EPERM for CLONE_NEWUTS), it says so and stops, as
 * natively. */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void wait_child(pid_t c)
{
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int fd_in_thread = -1;
static volatile int stop_thread;

static void *unshare_fs_and_files(void *arg)
{
    (void)arg;
    CHECK(unshare(CLONE_FS | CLONE_FILES) == 0);
    CHECK(chdir("sub") == 0);
    close(fd_in_thread);
    return NULL;
}

static void *nothing(void *arg)
{
    return arg;
}

static void *spin(void *arg)
{
    while (!stop_thread)
        usleep(1000);
    return arg;
}

int main(void)
{
    char before[256], inside[256], after[256];
    CHECK(gethostname(before, sizeof before) == 0);
    int old_uts = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
    CHECK(old_uts >= 0);
    EXPECT_ERR("unshare with an unknown flag", unshare(0x1), EINVAL);

    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        if (unshare(CLONE_NEWUTS) != 0) {
            printf("unshare(CLONE_NEWUTS): %s: namespace tests skipped\n", errname(errno));
            fflush(stdout);
            _exit(0);
        }
        CHECK(sethostname("endgate-uts-test", 16) == 0);
        CHECK(gethostname(inside, sizeof inside) == 0);
        printf("new UTS namespace: host name %s\n", inside);
        CHECK(setns(old_uts, CLONE_NEWUTS) == 0);
        CHECK(gethostname(after, sizeof after) == 0);
        printf("setns back: the old host name again: %s\n", strcmp(after, before) == 0 ? "yes" : "no");
        EXPECT_ERR("setns with the wrong type", setns(old_uts, CLONE_NEWNET), EINVAL);
        fflush(stdout);
        _exit(0);
    }
    wait_child(c);
    CHECK(gethostname(after, sizeof after) == 0);
    if (strcmp(after, before) != 0) {
        printf("FAIL: the parent's host name changed\n");
        return 1;
    }
    /* Without the privilege the child said "skipped": nothing more to do. */
    if (geteuid() != 0)
        return 0;

    fflush(stdout);
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(unshare(CLONE_NEWPID) == 0);
        printf("after unshare(CLONE_NEWPID) the caller keeps its pid: %s\n", getpid() > 1 ? "yes" : "no");
        fflush(stdout);
        pid_t g = fork();
        CHECK(g >= 0);
        if (g == 0) {
            printf("its child: pid %d, parent %d\n", (int)getpid(), (int)getppid());
            fflush(stdout);
            _exit(0);
        }
        wait_child(g);
        _exit(0);
    }
    wait_child(c);

    CHECK(mkdir("sub", 0755) == 0);
    fd_in_thread = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(fd_in_thread >= 0);
    char cwd0[512], cwd1[512];
    CHECK(getcwd(cwd0, sizeof cwd0) != NULL);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, unshare_fs_and_files, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(getcwd(cwd1, sizeof cwd1) != NULL);
    printf("CLONE_FS in a thread: its chdir stays its own: %s\n", strcmp(cwd0, cwd1) == 0 ? "yes" : "no");
    printf("CLONE_FILES in a thread: its close stays its own: %s\n",
           fcntl(fd_in_thread, F_GETFD) >= 0 ? "yes" : "no");

    fflush(stdout);
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        stop_thread = 0;
        CHECK(pthread_create(&t, NULL, spin, NULL) == 0);
        EXPECT_ERR("unshare(CLONE_NEWUSER) with a second thread", unshare(CLONE_NEWUSER), EINVAL);
        stop_thread = 1;
        CHECK(pthread_join(t, NULL) == 0);
        CHECK(pthread_create(&t, NULL, nothing, NULL) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        /* The ended thread may still be leaving the kernel: a few tries. */
        int r = -1;
        for (int i = 0; i < 200; i++) {
            r = unshare(CLONE_NEWUSER);
            if (r == 0 || errno != EINVAL)
                break;
            usleep(5000);
        }
        printf("unshare(CLONE_NEWUSER) once the thread ended: %s\n", r == 0 ? "ok" : errname(errno));
        printf("in the new user namespace: uid %d\n", (int)getuid());
        fflush(stdout);
        _exit(0);
    }
    wait_child(c);

    fflush(stdout);
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        CHECK(unshare(CLONE_NEWIPC | CLONE_NEWNET | CLONE_SYSVSEM | CLONE_NEWNS) == 0);
        printf("unshare(CLONE_NEWIPC | CLONE_NEWNET | CLONE_SYSVSEM | CLONE_NEWNS): ok\n");
        fflush(stdout);
        _exit(0);
    }
    wait_child(c);
    return 0;
}
