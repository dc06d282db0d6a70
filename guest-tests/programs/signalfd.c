/* signalfd (signalfd(2)): blocked signals read as struct signalfd_siginfo records in the
 * guest's numbering and byte order: a raise, a sigqueue with its value, a child's exit and a
 * child killed by a signal; the mask changed on the fd; the errors. */
#define _GNU_SOURCE 1
#include "common.h"
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static struct signalfd_siginfo next(int fd)
{
    struct signalfd_siginfo si;
    ssize_t n = read(fd, &si, sizeof si);
    CHECK(n == sizeof si);
    return si;
}

int main(void)
{
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigaddset(&m, SIGCHLD);
    CHECK(sigprocmask(SIG_BLOCK, &m, NULL) == 0);
    int fd = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
    CHECK(fd >= 0);
    struct signalfd_siginfo si;
    EXPECT_ERR("read with nothing pending", read(fd, &si, sizeof si), EAGAIN);

    CHECK(raise(SIGUSR1) == 0);
    si = next(fd);
    printf("raise: SIGUSR1 %d, SI_TKILL %d, own pid %d\n", si.ssi_signo == SIGUSR1, si.ssi_code == SI_TKILL,
           si.ssi_pid == (unsigned)getpid());
    union sigval v = { .sival_int = 42 };
    CHECK(sigqueue(getpid(), SIGUSR1, v) == 0);
    si = next(fd);
    printf("sigqueue: SIGUSR1 %d, SI_QUEUE %d, value %d\n", si.ssi_signo == SIGUSR1, si.ssi_code == SI_QUEUE, si.ssi_int);

    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0)
        _exit(3);
    siginfo_t wi;
    CHECK(waitid(P_PID, c, &wi, WEXITED | WNOWAIT) == 0);
    si = next(fd);
    printf("child exit: SIGCHLD %d, CLD_EXITED %d, status %d, pid %d\n", si.ssi_signo == SIGCHLD,
           si.ssi_code == CLD_EXITED, si.ssi_status, si.ssi_pid == (unsigned)c);
    CHECK(waitpid(c, NULL, 0) == c);
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        pause();
        _exit(0);
    }
    CHECK(kill(c, SIGTERM) == 0);
    CHECK(waitid(P_PID, c, &wi, WEXITED | WNOWAIT) == 0);
    si = next(fd);
    printf("child killed: CLD_KILLED %d, by SIGTERM %d\n", si.ssi_code == CLD_KILLED, si.ssi_status == SIGTERM);
    CHECK(waitpid(c, NULL, 0) == c);

    sigdelset(&m, SIGCHLD);
    printf("new mask on the fd: %s\n", signalfd(fd, &m, 0) == fd ? "same fd" : "other");
    EXPECT_ERR("bad mask size", syscall(SYS_signalfd4, -1, &m, 4, 0), EINVAL);
    EXPECT_ERR("bad flags", signalfd(-1, &m, 0x40000000), EINVAL);
    EXPECT_ERR("not a signalfd", signalfd(0, &m, 0), EINVAL);
    return 0;
}
