/* POSIX message queues (mq_overview(7)): a round trip with priorities between a parent and a
 * forked child, mq_getattr/mq_setattr, timed receive and send, mq_notify with a signal (and
 * its si_value) and with SIGEV_THREAD, and the errors. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

static char qname[64];

static volatile sig_atomic_t got_signo, got_code, got_value;
static void on_usr1(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_signo = sig;
    got_code = si->si_code;
    got_value = si->si_value.sival_int;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int thread_value;
static void on_message(union sigval v)
{
    pthread_mutex_lock(&mu);
    thread_value = v.sival_int;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static struct timespec in_ms(long ms)
{
    struct timespec ts;
    CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0);
    ts.tv_nsec += ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    snprintf(qname, sizeof qname, "/endgate-guest-test-%d", getpid());
    struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 64 };
    mqd_t q = mq_open(qname, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
    CHECK(q != (mqd_t)-1);
    EXPECT_ERR("mq_open O_EXCL of an existing queue", mq_open(qname, O_CREAT | O_EXCL | O_RDWR, 0600, &attr), EEXIST);
    struct mq_attr got;
    CHECK(mq_getattr(q, &got) == 0);
    printf("attr: maxmsg %ld msgsize %ld curmsgs %ld nonblock %d\n", got.mq_maxmsg, got.mq_msgsize, got.mq_curmsgs,
           (got.mq_flags & O_NONBLOCK) != 0);

    CHECK(mq_send(q, "low", 4, 1) == 0);
    CHECK(mq_send(q, "high", 5, 9) == 0);
    CHECK(mq_send(q, "middle", 7, 5) == 0);
    CHECK(mq_getattr(q, &got) == 0);
    printf("after three sends: curmsgs %ld\n", got.mq_curmsgs);
    char buf[64];
    unsigned prio;
    for (int i = 0; i < 3; i++) {
        ssize_t n = mq_receive(q, buf, sizeof buf, &prio);
        printf("receive: %zd bytes \"%s\" priority %u\n", n, buf, prio);
    }
    EXPECT_ERR("mq_receive into a buffer smaller than msgsize", mq_receive(q, buf, 10, &prio), EMSGSIZE);
    struct timespec ts = in_ms(30);
    EXPECT_ERR("mq_timedreceive on an empty queue", mq_timedreceive(q, buf, sizeof buf, &prio, &ts), ETIMEDOUT);
    struct timespec bad = { 0, 2000000000L };
    EXPECT_ERR("mq_timedreceive with tv_nsec 2e9", mq_timedreceive(q, buf, sizeof buf, &prio, &bad), EINVAL);
    EXPECT_ERR("mq_send of more than msgsize", mq_send(q, buf, 65, 0), EMSGSIZE);
    EXPECT_ERR("mq_send from a bad pointer", mq_send(q, (const char *)8, 4, 0), EFAULT);

    struct mq_attr nb = { .mq_flags = O_NONBLOCK }, old;
    CHECK(mq_setattr(q, &nb, &old) == 0);
    printf("setattr: old nonblock %d\n", (old.mq_flags & O_NONBLOCK) != 0);
    EXPECT_ERR("mq_receive non-blocking on an empty queue", mq_receive(q, buf, sizeof buf, &prio), EAGAIN);
    for (int i = 0; i < 4; i++)
        CHECK(mq_send(q, "fill", 5, 0) == 0);
    EXPECT_ERR("mq_send non-blocking to a full queue", mq_send(q, "more", 5, 0), EAGAIN);
    for (int i = 0; i < 4; i++)
        CHECK(mq_receive(q, buf, sizeof buf, &prio) == 5);
    nb.mq_flags = 0;
    CHECK(mq_setattr(q, &nb, NULL) == 0);

    /* A round trip with a forked child. */
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        char b[64];
        unsigned p;
        if (mq_receive(q, b, sizeof b, &p) != 5 || strcmp(b, "ping") != 0 || p != 3)
            _exit(2);
        _exit(mq_send(q, "pong", 5, 4) == 0 ? 0 : 3);
    }
    CHECK(mq_send(q, "ping", 5, 3) == 0);
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    ssize_t n = mq_receive(q, buf, sizeof buf, &prio);
    printf("round trip with a child: status %d, %zd bytes \"%s\" priority %u\n", WEXITSTATUS(st), n, buf, prio);

    /* mq_notify with a signal: delivered once a message reaches the empty queue. */
    struct sigaction sa = { 0 };
    sa.sa_sigaction = on_usr1;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    struct sigevent sev = { 0 };
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGUSR1;
    sev.sigev_value.sival_int = 4242;
    CHECK(mq_notify(q, &sev) == 0);
    EXPECT_ERR("a second mq_notify registration", mq_notify(q, &sev), EBUSY);
    CHECK(mq_send(q, "wake", 5, 0) == 0);
    for (int i = 0; i < 200 && !got_signo; i++)
        usleep(5000);
    printf("notify by signal: SIGUSR1 %d, SI_MESGQ %d, value %d\n", got_signo == SIGUSR1, got_code == SI_MESGQ,
           (int)got_value);
    CHECK(mq_receive(q, buf, sizeof buf, &prio) == 5);

    /* mq_notify with SIGEV_THREAD: the libc's helper thread runs the function. */
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD;
    sev.sigev_notify_function = on_message;
    sev.sigev_value.sival_int = 77;
    CHECK(mq_notify(q, &sev) == 0);
    CHECK(mq_send(q, "thread", 7, 0) == 0);
    pthread_mutex_lock(&mu);
    struct timespec until = in_ms(5000);
    while (thread_value == 0)
        if (pthread_cond_timedwait(&cv, &mu, &until) != 0)
            break;
    pthread_mutex_unlock(&mu);
    printf("notify by thread: value %d\n", thread_value);

    /* The system call itself: glibc's mq_notify reads the sigevent first. */
    EXPECT_ERR("mq_notify with a bad pointer", syscall(SYS_mq_notify, q, 8L), EFAULT);
    CHECK(mq_close(q) == 0);
    EXPECT_ERR("mq_send to a closed descriptor", mq_send(q, "x", 1, 0), EBADF);
    CHECK(mq_unlink(qname) == 0);
    EXPECT_ERR("mq_unlink again", mq_unlink(qname), ENOENT);
    EXPECT_ERR("mq_open of a missing queue", mq_open(qname, O_RDONLY), ENOENT);
    return 0;
}
