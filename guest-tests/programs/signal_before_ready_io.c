/* A signal that arrives just before a call on a descriptor that is ready does not fail the
 * call: Linux delivers the signal on the way back to user space, before the call's
 * instruction runs, and the call then finds its data (signal(7): only a call that blocks is
 * interrupted, and read(2), write(2), send(2), recv(2) on a pipe or socket with data or room
 * never block; poll(2), ppoll(2), select(2), pselect(2) with a zero timeout never wait). A
 * SIGALRM every 300 us, its handler without SA_RESTART, while the program moves one byte at a
 * time through a pipe and a socket pair and polls a pipe that holds a byte: no call may
 * answer EINTR. (An emulator that checks for a signal just before it makes the host call
 * must run the call after the handler, as QEMU's safe_syscall restarts it, not fail it.) */
#include "common.h"
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>

static volatile long hits;

static void on_alarm(int sig)
{
    (void)sig;
    hits++;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_alarm; /* no SA_RESTART */
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    int p[2], sv[2], q[2];
    CHECK(pipe(p) == 0 && pipe(q) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(write(q[1], "x", 1) == 1);
    struct itimerval it = {{0, 300}, {0, 300}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    long io_eintr = 0, io_other = 0, poll_bad = 0;
    /* At least 20,000 rounds, and on until the handler has run 20 times (at most 2,000,000). */
    for (long i = 0; i < 2000000 && (i < 20000 || hits < 20); i++) {
        char c;
        ssize_t n;
        while ((n = write(p[1], "a", 1)) < 0 && errno == EINTR)
            io_eintr++;
        io_other += n != 1;
        while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
            io_eintr++;
        io_other += n != 1;
        while ((n = send(sv[0], "b", 1, 0)) < 0 && errno == EINTR)
            io_eintr++;
        io_other += n != 1;
        while ((n = recv(sv[1], &c, 1, 0)) < 0 && errno == EINTR)
            io_eintr++;
        io_other += n != 1;
        struct pollfd pf = {q[0], POLLIN, 0};
        struct timespec zero = {0, 0};
        poll_bad += ppoll(&pf, 1, &zero, NULL) != 1;
        poll_bad += poll(&pf, 1, 0) != 1;
        fd_set rs;
        FD_ZERO(&rs);
        FD_SET(q[0], &rs);
        struct timeval tv = {0, 0};
        poll_bad += select(q[0] + 1, &rs, NULL, NULL, &tv) != 1;
        FD_ZERO(&rs);
        FD_SET(q[0], &rs);
        poll_bad += pselect(q[0] + 1, &rs, NULL, NULL, &zero, NULL) != 1;
    }
    it = (struct itimerval){{0, 0}, {0, 0}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    printf("reads, writes, sends and recvs of ready descriptors that failed with EINTR: %ld\n", io_eintr);
    printf("that moved no byte otherwise: %ld\n", io_other);
    printf("zero-timeout polls and selects of a ready pipe that did not answer 1: %ld\n", poll_bad);
    printf("the handler ran at least 20 times: %s\n", hits >= 20 ? "yes" : "no");
    return 0;
}
