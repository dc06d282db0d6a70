/* The calls signal(7) says a handler interrupts with EINTR even when it has SA_RESTART: System V
 * IPC waits (`msgrcv`, `semop`) and socket calls on a socket with a receive or send timeout
 * (`SO_RCVTIMEO`, the kernel's sock_intr_errno; `read` of such a socket too). Each call blocks until a timer's SIGALRM,
 * caught with SA_RESTART, interrupts it; it must fail with EINTR, not run again (and block for
 * good, or until its own timeout). */
#define _GNU_SOURCE 1
#include <netinet/in.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <time.h>

#include "common.h"

static volatile int caught;
static void on_alarm(int sig)
{
    (void)sig;
    caught++;
}

/* Arms SIGALRM every 100 ms (a signal that comes before the call blocks, on a loaded machine,
 * is followed by one that interrupts it). */
static void alarm_soon(void)
{
    struct itimerval t = {.it_value = {.tv_usec = 100000}, .it_interval = {.tv_usec = 100000}};
    CHECK(setitimer(ITIMER_REAL, &t, NULL) == 0);
}

static void report(const char *what, long r)
{
    int e = errno;
    struct itimerval off = {0};
    CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
    printf("%s: %ld %s, handler ran %d\n", what, r, r < 0 ? errname(e) : "-", caught > 0);
    caught = 0;
}

int main(void)
{
    struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);

    int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    CHECK(q >= 0);
    struct {
        long type;
        char text[8];
    } m;
    alarm_soon();
    report("msgrcv", msgrcv(q, &m, sizeof m.text, 0, 0));
    CHECK(msgctl(q, IPC_RMID, NULL) == 0);

    int s = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    CHECK(s >= 0);
    struct sembuf down = {.sem_num = 0, .sem_op = -1};
    alarm_soon();
    report("semop", semop(s, &down, 1));
    CHECK(semctl(s, 0, IPC_RMID) == 0);

    int u = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(u >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(bind(u, (struct sockaddr *)&a, sizeof a) == 0);
    struct timeval tv = {.tv_sec = 5};
    CHECK(setsockopt(u, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
    char b[8];
    alarm_soon();
    report("recv with SO_RCVTIMEO", recv(u, b, sizeof b, 0));
    /* read(2) of a socket is its recvmsg: the same timeout decides (net/socket.c). */
    alarm_soon();
    report("read with SO_RCVTIMEO", read(u, b, sizeof b));

    /* A futex wait with a timeout ends through the restart block, which a handler makes
     * EINTR (kernel/futex/waitwake.c); so does every epoll wait (fs/eventpoll.c). */
    static int word;
    struct timespec five = { .tv_sec = 5 };
    alarm_soon();
    report("futex wait with a timeout", syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &five, NULL, 0));
    struct timespec deadline;
    CHECK(clock_gettime(CLOCK_MONOTONIC, &deadline) == 0);
    deadline.tv_sec += 5;
    alarm_soon();
    report("futex bitset wait with a deadline", syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &deadline, NULL, ~0u));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    CHECK(ep >= 0);
    struct epoll_event ev;
    alarm_soon();
    report("epoll_pwait2 with a timeout", syscall(SYS_epoll_pwait2, ep, &ev, 1, &five, NULL, 8));
    return 0;
}
