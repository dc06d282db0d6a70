/* Process file descriptors and clone3 (pidfd_open(2), pidfd_send_signal(2),
 * pidfd_getfd(2), clone(2) CLONE_PIDFD, clone3(2), waitid(2) P_PIDFD, kcmp(2)): a child made
 * by clone3 with a pidfd, waited for through it; a signal sent through a pidfd; a descriptor
 * copied out of a child; threads (which glibc starts with clone3); clone3's errors. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static long clone3_call(struct clone_args *a, size_t size)
{
    return syscall(SYS_clone3, a, size);
}

static void *thread_main(void *arg)
{
    return (void *)((intptr_t)arg * 2);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);

    /* clone3 with CLONE_PIDFD: a process whose pidfd the parent waits on. */
    int pidfd = -1;
    struct clone_args ca = { 0 };
    ca.flags = CLONE_PIDFD;
    ca.pidfd = (uintptr_t)&pidfd;
    ca.exit_signal = SIGCHLD;
    long pid = clone3_call(&ca, sizeof ca);
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(42);
    printf("clone3: child pid positive %d, pidfd %d, close-on-exec %d\n", pid > 0, pidfd >= 0,
           (fcntl(pidfd, F_GETFD) & FD_CLOEXEC) != 0);
    struct pollfd p = { pidfd, POLLIN, 0 };
    CHECK(poll(&p, 1, 5000) == 1);
    siginfo_t si = { 0 };
    CHECK(waitid(P_PIDFD, pidfd, &si, WEXITED) == 0);
    printf("waitid(P_PIDFD): pid matches %d, CLD_EXITED %d, status %d\n", si.si_pid == pid, si.si_code == CLD_EXITED,
           si.si_status);
    close(pidfd);

    /* pidfd_open + pidfd_send_signal: a child killed through its pidfd. */
    int pipefd[2];
    CHECK(pipe(pipefd) == 0);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        close(pipefd[0]);
        int fd = open("/dev/null", O_RDONLY);
        char fdnum = (char)fd;
        CHECK(write(pipefd[1], &fdnum, 1) == 1);
        for (;;)
            pause();
    }
    close(pipefd[1]);
    char childfd;
    CHECK(read(pipefd[0], &childfd, 1) == 1);
    int pfd = syscall(SYS_pidfd_open, c, 0);
    CHECK(pfd >= 0);
    int copy = syscall(SYS_pidfd_getfd, pfd, childfd, 0);
    printf("pidfd_getfd: got a descriptor %d, close-on-exec %d\n", copy >= 0, (fcntl(copy, F_GETFD) & FD_CLOEXEC) != 0);
    struct stat st1, st2;
    CHECK(fstat(copy, &st1) == 0 && stat("/dev/null", &st2) == 0);
    printf("pidfd_getfd: it is the child's /dev/null %d\n", st1.st_rdev == st2.st_rdev);
    printf("kcmp: the copy and the child's descriptor are one file: %ld\n",
           syscall(SYS_kcmp, getpid(), c, KCMP_FILE, copy, childfd));
    CHECK(syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0) == 0);
    int status;
    CHECK(waitpid(c, &status, 0) == c);
    printf("pidfd_send_signal: child killed by SIGTERM %d\n", WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    EXPECT_ERR("pidfd_send_signal to a reaped child", syscall(SYS_pidfd_send_signal, pfd, SIGTERM, NULL, 0), ESRCH);
    close(pfd);
    int nb = syscall(SYS_pidfd_open, getpid(), O_NONBLOCK);
    printf("pidfd_open(PIDFD_NONBLOCK): nonblocking %d\n", nb >= 0 && (fcntl(nb, F_GETFL) & O_NONBLOCK) != 0);
    EXPECT_ERR("pidfd_open with a bad flag", syscall(SYS_pidfd_open, getpid(), 1), EINVAL);
    EXPECT_ERR("pidfd_open of no process", syscall(SYS_pidfd_open, 0x3fffffff, 0), ESRCH);

    /* clone3's checks. */
    int pidfd2 = -1;
    pid = syscall(SYS_clone3, NULL, 0); /* EINVAL: size 0 */
    printf("clone3 with size 0: %s\n", pid == -1 ? errname(errno) : "no error");
    memset(&ca, 0, sizeof ca);
    ca.flags = CLONE_PIDFD;
    ca.pidfd = (uintptr_t)&pidfd2;
    ca.exit_signal = SIGCHLD;
    EXPECT_ERR("clone3 with size 63", clone3_call(&ca, 63), EINVAL);
    struct {
        struct clone_args a;
        uint64_t extra;
    } big = { ca, 1 };
    EXPECT_ERR("clone3 with an unknown member set", clone3_call(&big.a, sizeof big), E2BIG);
    ca.stack_size = 4096;
    EXPECT_ERR("clone3 with a stack size but no stack", clone3_call(&ca, sizeof ca), EINVAL);
    ca.stack_size = 0;
    ca.exit_signal = 0x1000;
    EXPECT_ERR("clone3 with a bad exit signal", clone3_call(&ca, sizeof ca), EINVAL);
    EXPECT_ERR("clone3 from a bad pointer", clone3_call((struct clone_args *)8, sizeof ca), EFAULT);

    /* Threads: glibc's pthread_create tries clone3 first. */
    pthread_t th[4];
    for (intptr_t i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, thread_main, (void *)(i + 1)) == 0);
    long sum = 0;
    for (int i = 0; i < 4; i++) {
        void *r;
        CHECK(pthread_join(th[i], &r) == 0);
        sum += (intptr_t)r;
    }
    printf("threads: results sum to %ld\n", sum);
    return 0;
}
