/* Linux native AIO through raw system calls (the interface libaio wraps; uapi
 * linux/aio_abi.h): io_setup's ring header and its limits, io_submit of PREAD/PWRITE/PREADV/
 * PWRITEV/FSYNC/FDSYNC/POLL with the errors io_submit_one gives in its order, events read with
 * io_getevents and io_pgetevents (min_nr, timeouts, EFAULT, EINTR), events reaped from the ring
 * in user space as libaio may, IOCB_FLAG_RESFD, io_cancel of a waiting poll, io_destroy, and a
 * forked child, which has no contexts. */
#include "common.h"
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

struct ring {
    unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
    struct io_event events[];
};

static long io_setup(unsigned n, aio_context_t *c) { return syscall(SYS_io_setup, n, c); }
static long io_destroy(aio_context_t c) { return syscall(SYS_io_destroy, c); }
static long io_submit(aio_context_t c, long n, struct iocb **v) { return syscall(SYS_io_submit, c, n, v); }
static long io_cancel(aio_context_t c, struct iocb *cb, struct io_event *r) { return syscall(SYS_io_cancel, c, cb, r); }
static long io_getevents(aio_context_t c, long min, long n, struct io_event *e, struct timespec *ts)
{
    return syscall(SYS_io_getevents, c, min, n, e, ts);
}

/* io_pgetevents with a 64-bit timespec (io_pgetevents_time64 on the 32-bit arches). */
struct kts { long long sec, nsec; };
struct aio_sigset { const sigset_t *mask; size_t size; };
static long io_pgetevents(aio_context_t c, long min, long n, struct io_event *e, struct kts *ts,
                          struct aio_sigset *s)
{
#ifdef SYS_io_pgetevents_time64
    return syscall(SYS_io_pgetevents_time64, c, min, n, e, ts, s);
#else
    return syscall(SYS_io_pgetevents, c, min, n, e, ts, s);
#endif
}

static aio_context_t ctx;
static struct timespec zero;

static long submit1(struct iocb *cb) { struct iocb *v[1] = { cb }; return io_submit(ctx, 1, v); }

static void fresh(struct iocb *cb, int op, int fd, void *buf, unsigned long long n, long long off)
{
    memset(cb, 0, sizeof *cb);
    cb->aio_data = 0x1234567890abcdefULL;
    cb->aio_key = 77;
    cb->aio_lio_opcode = op;
    cb->aio_fildes = fd;
    cb->aio_buf = (uintptr_t)buf;
    cb->aio_nbytes = n;
    cb->aio_offset = off;
}

/* Waits for exactly one event and checks it belongs to cb; returns its res. */
static long long one_event(struct iocb *cb)
{
    struct io_event ev[2];
    long n = io_getevents(ctx, 1, 2, ev, NULL);
    CHECK(n == 1);
    CHECK(ev[0].obj == (uintptr_t)cb);
    CHECK(ev[0].data == cb->aio_data);
    CHECK(ev[0].res2 == 0);
    return ev[0].res;
}

static void on_alarm(int s) { (void)s; }

/* A thread that waits in io_getevents for one event of wctx. */
static aio_context_t wctx;
static long wres;
static int werr;
static void *waiter(void *arg)
{
    (void)arg;
    struct io_event e[1];
    errno = 0;
    wres = io_getevents(wctx, 1, 1, e, NULL);
    werr = errno;
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    aio_context_t c = 0;
    EXPECT_ERR("io_setup 0", io_setup(0, &c), EINVAL);
    c = 1;
    EXPECT_ERR("io_setup ctx not 0", io_setup(4, &c), EINVAL);
    c = 0;
    EXPECT_ERR("io_setup over aio-max-nr", io_setup(65537, &c), EAGAIN);
    EXPECT_ERR("io_setup too many", io_setup(0xffffffffu, &c), EINVAL);
    EXPECT_ERR("io_setup bad pointer", io_setup(4, (aio_context_t *)8), EFAULT);

    CHECK(io_setup(4, &ctx) == 0 && ctx != 0);
    struct ring *r = (struct ring *)(uintptr_t)ctx;
    printf("ring: id %u magic %#x features %u/%u header %u head %u tail %u nr>=4 %d\n", r->id, r->magic,
           r->compat_features, r->incompat_features, r->header_length, r->head, r->tail, r->nr >= 4);
    aio_context_t ctx2 = 0;
    CHECK(io_setup(1, &ctx2) == 0);
    printf("second ring id %u\n", ((struct ring *)(uintptr_t)ctx2)->id);
    CHECK(io_destroy(ctx2) == 0);
    EXPECT_ERR("io_destroy twice", io_destroy(ctx2), EINVAL);
    EXPECT_ERR("io_destroy 0", io_destroy(0), EINVAL);

    char path[] = "aio.tmp";
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    struct iocb cb;
    char buf[64] = "abcdefgh";
    fresh(&cb, IOCB_CMD_PWRITE, fd, buf, 8, 4);
    long sub = submit1(&cb);
    printf("pwrite submitted %ld, key now %u\n", sub, cb.aio_key);
    printf("pwrite res %lld\n", one_event(&cb));
    memset(buf, 0, sizeof buf);
    fresh(&cb, IOCB_CMD_PREAD, fd, buf, sizeof buf, 2);
    CHECK(submit1(&cb) == 1);
    printf("pread res %lld data [%c%c%c%s]\n", one_event(&cb), buf[0] ? buf[0] : '.', buf[1] ? buf[1] : '.',
           buf[2], buf + 3);

    char b1[3], b2[6] = { 0 };
    struct iovec iov[2] = { { b1, 3 }, { b2, 5 } };
    fresh(&cb, IOCB_CMD_PREADV, fd, iov, 2, 4);
    CHECK(submit1(&cb) == 1);
    printf("preadv res %lld [%.3s|%s]\n", one_event(&cb), b1, b2);
    struct iovec wv[2] = { { "XY", 2 }, { "Z", 1 } };
    fresh(&cb, IOCB_CMD_PWRITEV, fd, wv, 2, 0);
    CHECK(submit1(&cb) == 1);
    printf("pwritev res %lld\n", one_event(&cb));
    CHECK(pread(fd, buf, 12, 0) == 12);
    printf("file now [%.3s%c%.8s]\n", buf, buf[3] ? buf[3] : '.', buf + 4);

    /* A transfer whose buffer faults completes with -EFAULT. */
    fresh(&cb, IOCB_CMD_PREAD, fd, NULL, 8, 0);
    CHECK(submit1(&cb) == 1);
    printf("NULL buffer res %s\n", errname((int)-one_event(&cb)));

    /* Errors at submission, in io_submit_one's order. */
    fresh(&cb, IOCB_CMD_PREAD, fd, buf, 8, 0);
    cb.aio_reserved2 = 1;
    EXPECT_ERR("aio_reserved2", submit1(&cb), EINVAL);
    fresh(&cb, IOCB_CMD_PREAD, 999, buf, 8, 0);
    EXPECT_ERR("bad fd", submit1(&cb), EBADF);
    cb.aio_flags = IOCB_FLAG_RESFD;
    cb.aio_resfd = 998;
    EXPECT_ERR("bad fd before bad resfd", submit1(&cb), EBADF);
    cb.aio_fildes = fd;
    EXPECT_ERR("bad resfd", submit1(&cb), EBADF);
    cb.aio_resfd = fd;
    EXPECT_ERR("resfd not an eventfd", submit1(&cb), EINVAL);
    fresh(&cb, 99, fd, buf, 8, 0);
    EXPECT_ERR("unknown opcode", submit1(&cb), EINVAL);
    fresh(&cb, IOCB_CMD_PREAD, fd, buf, 8, -1);
    EXPECT_ERR("negative offset", submit1(&cb), EINVAL);
    fresh(&cb, IOCB_CMD_PREAD, fd, buf, 8, 0);
    cb.aio_rw_flags = 0x10000;
    EXPECT_ERR("unknown rw flags", submit1(&cb), EOPNOTSUPP);
    int ro = open(path, O_RDONLY), wo = open(path, O_WRONLY);
    fresh(&cb, IOCB_CMD_PREAD, wo, buf, 8, 0);
    EXPECT_ERR("read of O_WRONLY", submit1(&cb), EBADF);
    fresh(&cb, IOCB_CMD_PWRITE, ro, buf, 8, 0);
    EXPECT_ERR("write of O_RDONLY", submit1(&cb), EBADF);
    int dir = open(".", O_RDONLY | O_DIRECTORY);
    fresh(&cb, IOCB_CMD_PREAD, dir, buf, 8, 0);
    EXPECT_ERR("read of a directory", submit1(&cb), EINVAL);
    fresh(&cb, IOCB_CMD_PREADV, fd, iov, 1025, 0);
    EXPECT_ERR("preadv 1025 iovecs", submit1(&cb), EINVAL);
    fresh(&cb, IOCB_CMD_PREADV, fd, (void *)8, 2, 0);
    EXPECT_ERR("preadv bad iovec array", submit1(&cb), EFAULT);
    fresh(&cb, IOCB_CMD_FSYNC, fd, buf, 0, 0);
    EXPECT_ERR("fsync with a buffer", submit1(&cb), EINVAL);
    int p[2];
    CHECK(pipe(p) == 0);
    fresh(&cb, IOCB_CMD_FSYNC, p[0], NULL, 0, 0);
    EXPECT_ERR("fsync of a pipe", submit1(&cb), EINVAL);
    fresh(&cb, IOCB_CMD_POLL, p[0], (void *)0x10000, 0, 0);
    EXPECT_ERR("poll events above 16 bits", submit1(&cb), EINVAL);
    fresh(&cb, IOCB_CMD_POLL, p[0], (void *)POLLIN, 1, 0);
    EXPECT_ERR("poll with a length", submit1(&cb), EINVAL);

    /* fsync and fdatasync. */
    fresh(&cb, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
    CHECK(submit1(&cb) == 1);
    printf("fsync res %lld\n", one_event(&cb));
    fresh(&cb, IOCB_CMD_FDSYNC, fd, NULL, 0, 0);
    CHECK(submit1(&cb) == 1);
    printf("fdsync res %lld\n", one_event(&cb));

    /* io_submit's own errors, and a stop at the first bad iocb. */
    struct iocb *v[3] = { &cb, (struct iocb *)8, &cb };
    EXPECT_ERR("io_submit nr -1", io_submit(ctx, -1, v), EINVAL);
    printf("io_submit nr 0: %ld\n", io_submit(ctx, 0, v));
    EXPECT_ERR("io_submit bad ctx", io_submit(ctx + 1, 1, v), EINVAL);
    EXPECT_ERR("io_submit bad array", io_submit(ctx, 1, (struct iocb **)8), EFAULT);
    EXPECT_ERR("io_submit bad iocb", io_submit(ctx, 1, v + 1), EFAULT);
    printf("io_submit good, bad, good: %ld\n", io_submit(ctx, 3, v));
    printf("its res %lld\n", one_event(&cb));

    /* The eventfd of IOCB_FLAG_RESFD counts completions. */
    int efd = eventfd(0, 0);
    fresh(&cb, IOCB_CMD_PREAD, fd, buf, 4, 0);
    cb.aio_flags = IOCB_FLAG_RESFD;
    cb.aio_resfd = efd;
    CHECK(submit1(&cb) == 1);
    uint64_t count = 0;
    CHECK(read(efd, &count, 8) == 8);
    printf("resfd count %llu, res %lld\n", (unsigned long long)count, one_event(&cb));

    /* A pipe read reads at the pipe's position, whatever the offset. */
    CHECK(write(p[1], "pipe!", 5) == 5);
    memset(buf, 0, sizeof buf);
    fresh(&cb, IOCB_CMD_PREAD, p[0], buf, sizeof buf, 12345);
    CHECK(submit1(&cb) == 1);
    printf("pipe read res %lld [%s]\n", one_event(&cb), buf);

    /* Polls: one waits until the pipe has data, one is ready at once, one is cancelled. */
    struct io_event ev[8];
    fresh(&cb, IOCB_CMD_POLL, p[0], (void *)POLLIN, 0, 0);
    CHECK(submit1(&cb) == 1);
    printf("waiting poll: events now %ld\n", io_getevents(ctx, 0, 8, ev, &zero));
    CHECK(write(p[1], "x", 1) == 1);
    printf("poll res has POLLIN %d\n", (one_event(&cb) & POLLIN) != 0);
    CHECK(read(p[0], buf, 1) == 1);
    struct iocb out;
    fresh(&out, IOCB_CMD_POLL, p[1], (void *)POLLOUT, 0, 0);
    CHECK(submit1(&out) == 1);
    printf("ready poll res %lld\n", one_event(&out));
    /* POLLWRNORM and POLLWRBAND are the arch's numbers (MIPS: POLLOUT and 0x100): a pipe with
     * room is POLLOUT|POLLWRNORM and never POLLWRBAND. */
    fresh(&out, IOCB_CMD_POLL, p[1], (void *)(POLLOUT | POLLWRNORM | POLLWRBAND), 0, 0);
    CHECK(submit1(&out) == 1);
    printf("POLLOUT|POLLWRNORM|POLLWRBAND poll res is POLLOUT|POLLWRNORM: %d\n",
           one_event(&out) == (POLLOUT | POLLWRNORM));
    fresh(&cb, IOCB_CMD_POLL, p[0], (void *)POLLIN, 0, 0);
    CHECK(submit1(&cb) == 1);
    EXPECT_ERR("io_cancel waiting poll", io_cancel(ctx, &cb, ev), EINPROGRESS);
    printf("cancelled poll res %lld\n", one_event(&cb));
    EXPECT_ERR("io_cancel again", io_cancel(ctx, &cb, ev), EINVAL);
    /* A waiting poll completes when its fd is ready, with no aio call: its eventfd says so. */
    int pefd = eventfd(0, 0);
    fresh(&cb, IOCB_CMD_POLL, p[0], (void *)POLLIN, 0, 0);
    cb.aio_flags = IOCB_FLAG_RESFD;
    cb.aio_resfd = pefd;
    CHECK(submit1(&cb) == 1);
    CHECK(write(p[1], "y", 1) == 1);
    count = 0;
    CHECK(read(pefd, &count, 8) == 8);
    printf("poll's eventfd count %llu; in the ring: %d\n", (unsigned long long)count, r->head != r->tail);
    printf("poll res has POLLIN %d\n", (one_event(&cb) & POLLIN) != 0);
    CHECK(read(p[0], buf, 1) == 1);
    close(pefd);
    EXPECT_ERR("io_cancel completed read", io_cancel(ctx, &out, ev), EINVAL);
    out.aio_key = 5;
    EXPECT_ERR("io_cancel wrong key", io_cancel(ctx, &out, ev), EINVAL);
    EXPECT_ERR("io_cancel bad iocb", io_cancel(ctx, (struct iocb *)8, ev), EFAULT);

    /* io_getevents' arguments and timeouts. */
    EXPECT_ERR("io_getevents min > nr", io_getevents(ctx, 2, 1, ev, &zero), EINVAL);
    EXPECT_ERR("io_getevents min < 0", io_getevents(ctx, -1, 1, ev, &zero), EINVAL);
    EXPECT_ERR("io_getevents bad ctx", io_getevents(ctx + 8, 0, 1, ev, &zero), EINVAL);
    EXPECT_ERR("io_getevents bad timeout", io_getevents(ctx, 0, 1, ev, (struct timespec *)8), EFAULT);
    struct timespec short_wait = { 0, 20 * 1000 * 1000 };
    printf("timed out with %ld events\n", io_getevents(ctx, 1, 1, ev, &short_wait));
    fresh(&cb, IOCB_CMD_FDSYNC, fd, NULL, 0, 0);
    CHECK(submit1(&cb) == 1);
    struct timespec t1 = { 1, 0 };
    while (r->head == r->tail) /* fdsync may complete in a kernel worker */
        io_getevents(ctx, 0, 0, ev, &t1);
    EXPECT_ERR("io_getevents bad events", io_getevents(ctx, 1, 1, (struct io_event *)8, &zero), EFAULT);
    printf("event kept: %ld\n", io_getevents(ctx, 1, 8, ev, &zero));
    printf("nr 0: %ld\n", io_getevents(ctx, 0, 0, ev, NULL));

    /* io_pgetevents and its signal set. */
    sigset_t none;
    sigemptyset(&none);
    struct aio_sigset ss = { &none, 7 };
    struct kts kz = { 0, 0 };
    EXPECT_ERR("io_pgetevents sigsetsize 7", io_pgetevents(ctx, 0, 1, ev, &kz, &ss), EINVAL);
    ss.size = _NSIG / 8; /* the kernel's sigset_t: 8 bytes, 16 on mips */
    fresh(&cb, IOCB_CMD_PWRITE, fd, "q", 1, 20);
    CHECK(submit1(&cb) == 1);
    printf("io_pgetevents: %ld\n", io_pgetevents(ctx, 1, 8, ev, NULL, &ss));
    printf("io_pgetevents NULL set: %ld\n", io_pgetevents(ctx, 0, 8, ev, &kz, NULL));

    /* Events reaped from the ring by user space, as libaio's callers may. */
    fresh(&cb, IOCB_CMD_PWRITE, fd, "r", 1, 21);
    CHECK(submit1(&cb) == 1);
    while (r->head == r->tail)
        io_getevents(ctx, 0, 0, ev, &t1);
    struct io_event got = r->events[r->head % r->nr];
    r->head = (r->head + 1) % r->nr;
    printf("reaped from ring: obj ok %d res %lld; then %ld events\n", got.obj == (uintptr_t)&cb, (long long)got.res,
           io_getevents(ctx, 0, 8, ev, &zero));

    /* A signal ends a wait with EINTR. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 0 }, { 0, 50 * 1000 } };
    setitimer(ITIMER_REAL, &it, NULL);
    EXPECT_ERR("io_getevents interrupted", io_getevents(ctx, 1, 1, ev, NULL), EINTR);

    /* The ring has room for the requests asked for, then EAGAIN. */
    long n = 0, rr;
    fresh(&cb, IOCB_CMD_PWRITE, fd, "s", 1, 22);
    while ((rr = submit1(&cb)) == 1)
        n++;
    printf("full after at least 4: %d (%s)\n", n >= 4, rr < 0 ? errname(errno) : "?");
    long drained = 0;
    while ((rr = io_getevents(ctx, 0, 8, ev, &zero)) > 0)
        drained += rr;
    printf("drained all: %d\n", drained == n);

    /* A thread waiting in io_getevents gets another thread's completion; one waiting on a
     * context that is destroyed (or already was) gets EINVAL. */
    pthread_t th;
    wctx = ctx;
    CHECK(pthread_create(&th, NULL, waiter, NULL) == 0);
    fresh(&cb, IOCB_CMD_PWRITE, fd, "t", 1, 23);
    CHECK(submit1(&cb) == 1);
    CHECK(pthread_join(th, NULL) == 0);
    printf("waiting thread got %ld\n", wres);
    wctx = 0;
    CHECK(io_setup(2, &wctx) == 0);
    CHECK(pthread_create(&th, NULL, waiter, NULL) == 0);
    CHECK(io_destroy(wctx) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    printf("waiting on a destroyed context: %ld %s\n", wres, errname(werr));

    /* A forked child has no contexts. */
    pid_t pid = fork();
    if (pid == 0) {
        int bad = io_getevents(ctx, 0, 1, ev, &zero) == -1 && errno == EINVAL;
        bad &= io_destroy(ctx) == -1 && errno == EINVAL;
        aio_context_t own = 0;
        bad &= io_setup(2, &own) == 0 && io_destroy(own) == 0;
        _exit(bad ? 0 : 1);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    printf("child: %d, parent's context still works %ld\n", WEXITSTATUS(st), io_getevents(ctx, 0, 1, ev, &zero));

    CHECK(io_destroy(ctx) == 0);
    EXPECT_ERR("ring unmapped", msync((void *)(uintptr_t)ctx, 4096, MS_ASYNC), ENOMEM);
    unlink(path);
    printf("done\n");
    return 0;
}
