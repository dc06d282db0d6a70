/* Vector and socket transfers made by four threads while the main thread changes the mapping
 * some of their buffers lie in: readv(2)/writev(2) on pipes and sockets, preadv(2)/pwritev(2)
 * on a file, send(2)/recv(2) (and sendto/recvfrom without an address) on AF_UNIX stream and
 * datagram socketpairs. Each round a worker
 * - moves data between private buffers and checks every byte: iovecs of several lengths with
 *   zero-length entries (NULL and non-NULL bases) between them, datagram boundaries kept;
 * - asks for iovcnt 0 (0 bytes moved) and 1025 (EINVAL, above UIO_MAXIOV);
 * - uses an iovec array that runs into an unmapped page (EFAULT: the kernel reads the array
 *   whole first) and a buffer that does (a file's read or write stops at the bad byte with a
 *   short count; a pipe's or a socket's fails with EFAULT);
 * - transfers through a slot of the page whose state the main thread changes (page_states.h):
 *   read-write, read-only (mprotect), unmapped (munmap), mapped again read-only (a new zero
 *   page), recording the results seen in each state.
 * Then a thread waits in readv of an empty pipe, recv of an empty stream socket and send to a
 * full datagram socket while another thread exists, and gets SIGUSR1 every 10 ms (signal(7)):
 * with SA_RESTART the call goes on waiting and returns what the other end gives, except on a
 * socket with a receive or send timeout (SO_RCVTIMEO/SO_SNDTIMEO), where it fails with EINTR
 * as it does without SA_RESTART.
 *
 * What Linux guarantees (readv(2), send(2), recv(2), pipe(7), mprotect(2), munmap(2)): a
 * transfer into a buffer the caller cannot write copies nothing there and fails with EFAULT
 * (a file's read: a short count of what came before); a pipe and a stream socket keep the
 * data an EFAULT did not deliver; once mprotect(PROT_READ) or munmap has returned, no call
 * stores into the page (checked here for the new page only: see the end of main). An emulator
 * that serves these calls without its own locks must keep all of this while the mappings
 * change under it. */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { WORKERS = 4, ROUNDS = 60, SLOT = 512, REGION = 65536 };
#include "page_states.h"

/* The page-state calls, in the order they are printed. */
enum { WRITEV, READV, PWRITEV, PREADV, SEND, RECV, DGRAM_RECV, CALLS };
static const char *const call_name[CALLS] = { "writev", "readv", "pwritev", "preadv", "send", "recv", "recv(dgram)" };
enum { OK_BIT = 1, SHORT_BIT = 2, EFAULT_BIT = 4, OTHER_BIT = 8 };
static int seen[STATES][CALLS];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

/* The calls with a fixed answer (bad iovec arrays, buffers into the unmapped page). */
enum { ARR_READV, ARR_WRITEV, EDGE_PWRITEV, EDGE_PREADV, EDGE_PIPE_WRITEV, EDGE_PIPE_READV, EDGE_SEND, EDGE_RECV, FIXED };
static const char *const fixed_name[FIXED] = {
    "readv, array into unmapped page",  "writev, array into unmapped page", "pwritev, buffer into unmapped page",
    "preadv, buffer into unmapped page", "writev pipe, buffer into unmapped page",
    "readv pipe, buffer into unmapped page", "send, buffer into unmapped page",
    "recv, buffer into unmapped page",
};
static long fixed[WORKERS][FIXED];

static char path[64];
static int file;
/* Read-write pages each followed by an unmapped one: the iovec arrays' and the buffers'. */
static char *edge_arr, *edge;

/* A call's result: the count, or minus its errno. */
static long result(long r)
{
    return r < 0 ? -errno : r;
}

static int result_bit(long r, long want)
{
    if (r == want)
        return OK_BIT;
    if (r >= 0 && r < want)
        return SHORT_BIT;
    return r == -EFAULT ? EFAULT_BIT : OTHER_BIT;
}

/* Reads whatever `fd` (non-blocking) holds and returns how many bytes. */
static long drain(int fd)
{
    char junk[4096];
    long n = 0, r;
    while ((r = read(fd, junk, sizeof junk)) > 0)
        n += r;
    CHECK(r == -1 && errno == EAGAIN);
    return n;
}

static void fill(char *p, long n, unsigned seed)
{
    for (long i = 0; i < n; i++)
        p[i] = (char)(seed * 131 + i * 7 + (i >> 3));
}

/* Private transfers whose every byte is checked. */
static void checked_round(long w, unsigned round, int pipefd[2], int ss[2], int ds[2])
{
    char out[256], in[256];
    char z;
    fill(out, sizeof out, round * 4 + (unsigned)w);
    memset(in, 0, sizeof in);
    /* writev/readv on the pipe with zero-length entries, split differently. */
    struct iovec wv[5] = { { out, 3 }, { NULL, 0 }, { out + 3, 50 }, { &z, 0 }, { out + 53, 77 } };
    CHECK(writev(pipefd[1], wv, 5) == 130);
    struct iovec rv[4] = { { in, 64 }, { NULL, 0 }, { in + 64, 1 }, { in + 65, 100 } };
    CHECK(readv(pipefd[0], rv, 4) == 130);
    CHECK(memcmp(in, out, 130) == 0);
    /* iovcnt 0 moves nothing; 1025 is EINVAL (checked before the array is read). */
    volatile int too_many = 1025;
    CHECK(writev(pipefd[1], wv, 0) == 0 && readv(pipefd[0], rv, 0) == 0);
    errno = 0;
    CHECK(writev(pipefd[1], wv, too_many) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(readv(pipefd[0], rv, too_many) == -1 && errno == EINVAL);
    /* pwritev/preadv at the worker's region of the file. */
    off_t at = (off_t)w * REGION + (off_t)(round % 32) * 256;
    fill(out, sizeof out, round * 8 + (unsigned)w);
    struct iovec pw[3] = { { out, 100 }, { &z, 0 }, { out + 100, 156 } };
    CHECK(pwritev(file, pw, 3, at) == 256);
    memset(in, 0, sizeof in);
    struct iovec pr[3] = { { in, 7 }, { in + 7, 200 }, { in + 207, 49 } };
    CHECK(preadv(file, pr, 3, at) == 256);
    CHECK(memcmp(in, out, 256) == 0);
    /* Stream socket: send/sendto, writev; recv/recvfrom, readv. */
    fill(out, sizeof out, round * 16 + (unsigned)w);
    memset(in, 0, sizeof in);
    CHECK(send(ss[0], out, 40, 0) == 40);
    CHECK(sendto(ss[0], out + 40, 60, 0, NULL, 0) == 60);
    struct iovec sv[2] = { { out + 100, 56 }, { out + 156, 100 } };
    CHECK(writev(ss[0], sv, 2) == 156);
    CHECK(recv(ss[1], in, 10, 0) == 10);
    CHECK(recvfrom(ss[1], in + 10, 90, MSG_WAITALL, NULL, NULL) == 90);
    struct iovec sr[3] = { { in + 100, 6 }, { NULL, 0 }, { in + 106, 150 } };
    long got = 0;
    while (got < 156) {
        struct iovec part[3] = { sr[0], sr[1], sr[2] };
        long r = readv(ss[1], part, 3);
        CHECK(r > 0);
        got += r;
        /* Advance the iovecs past what arrived. */
        for (int i = 0; i < 3; i++) {
            size_t take = r < (long)sr[i].iov_len ? (size_t)r : sr[i].iov_len;
            sr[i].iov_base = (char *)sr[i].iov_base + take;
            sr[i].iov_len -= take;
            r -= (long)take;
        }
    }
    CHECK(memcmp(in, out, 256) == 0);
    /* Datagram socket: boundaries kept, a longer datagram cut at the buffer. */
    fill(out, sizeof out, round * 32 + (unsigned)w);
    memset(in, 0, sizeof in);
    CHECK(send(ds[0], out, 33, 0) == 33);
    struct iovec dv[3] = { { out + 33, 10 }, { NULL, 0 }, { out + 43, 20 } };
    CHECK(writev(ds[0], dv, 3) == 30);
    CHECK(sendto(ds[0], out + 63, 100, 0, NULL, 0) == 100);
    CHECK(recv(ds[1], in, 64, 0) == 33);
    struct iovec dr[2] = { { in + 33, 5 }, { in + 38, 100 } };
    CHECK(readv(ds[1], dr, 2) == 30);
    CHECK(recvfrom(ds[1], in + 63, 50, 0, NULL, NULL) == 50);
    CHECK(memcmp(in, out, 113) == 0);
    CHECK(recv(ds[1], in, 1, MSG_DONTWAIT) == -1 && errno == EAGAIN);
}

/* Calls with a fixed answer: an iovec array that runs into the unmapped page, and a buffer
 * that does. */
static void fixed_round(long w, int pipefd[2], int ss[2])
{
    char priv[64];
    fill(priv, sizeof priv, (unsigned)w);
    /* The array: its first entry readable, the second in the unmapped page. */
    struct iovec *arr = (struct iovec *)(edge_arr + pagesize - sizeof(struct iovec));
    long *f = fixed[w];
    f[ARR_READV] = result(readv(pipefd[0], arr, 2));
    f[ARR_WRITEV] = result(writev(pipefd[1], arr, 2));
    /* The buffer: 8 bytes before the unmapped page, then 8 in it. */
    char *b = edge + pagesize - 8;
    struct iovec v[2] = { { priv, 8 }, { b, 16 } };
    off_t at = (off_t)w * REGION + 32 * 256;
    f[EDGE_PWRITEV] = result(pwritev(file, v, 2, at));
    f[EDGE_PREADV] = result(preadv(file, v, 2, at));
    f[EDGE_PIPE_WRITEV] = result(writev(pipefd[1], v, 2));
    drain(pipefd[0]);
    CHECK(write(pipefd[1], priv, 40) == 40);
    f[EDGE_PIPE_READV] = result(readv(pipefd[0], v, 2));
    CHECK(drain(pipefd[0]) == (f[EDGE_PIPE_READV] == -EFAULT ? 40 : 40 - f[EDGE_PIPE_READV]));
    f[EDGE_SEND] = result(send(ss[0], b, 16, MSG_DONTWAIT));
    drain(ss[1]);
    CHECK(send(ss[0], priv, 24, 0) == 24);
    f[EDGE_RECV] = result(recv(ss[1], b, 16, 0));
    CHECK(drain(ss[1]) == (f[EDGE_RECV] == -EFAULT ? 24 : 24 - f[EDGE_RECV]));
}

static void *worker(void *arg)
{
    long w = (long)arg;
    int pipefd[2], ss[2], ds[2];
    CHECK(pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ss) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, ds) == 0);
    /* Stream reads of leftovers are drained with read() on a non-blocking descriptor. */
    CHECK(fcntl(ss[1], F_SETFL, O_NONBLOCK) == 0 && fcntl(ds[1], F_SETFL, O_NONBLOCK) == 0);
    char priv[64];
    for (unsigned round = 0; !stop; round++) {
        int s = state;
        checked_round(w, round, pipefd, ss, ds);
        if (round == 0)
            fixed_round(w, pipefd, ss);
        char *slot = page + SLOT * w;
        fill(priv, sizeof priv, round + 99);
        int bits[CALLS];
        /* writev from [private 4, slot 16] into the pipe, read back. */
        struct iovec v[2] = { { priv, 4 }, { slot, 16 } };
        long r = result(writev(pipefd[1], v, 2));
        bits[WRITEV] = result_bit(r, 20);
        CHECK(drain(pipefd[0]) == (r > 0 ? r : 0));
        /* readv from the pipe into [private 4, slot 16]. */
        char data[20];
        fill(data, 20, round + 7);
        CHECK(write(pipefd[1], data, 20) == 20);
        r = result(readv(pipefd[0], v, 2));
        bits[READV] = result_bit(r, 20);
        if (r == 20 && s == RW)
            CHECK(memcmp(priv, data, 4) == 0 && memcmp(slot, data + 4, 16) == 0);
        if (r == -EFAULT)
            CHECK(drain(pipefd[0]) == 20); /* a pipe keeps what it could not deliver */
        else
            CHECK(drain(pipefd[0]) == (r >= 0 ? 20 - r : 0));
        /* pwritev from and preadv into [private 4, slot 16] at the worker's region. */
        off_t at = (off_t)w * REGION + 40 * 256;
        fill(priv, sizeof priv, round + 3);
        r = result(pwritev(file, v, 2, at));
        bits[PWRITEV] = result_bit(r, 20);
        r = result(preadv(file, v, 2, at));
        bits[PREADV] = result_bit(r, 20);
        /* send from the slot on the stream socket; recv into it. */
        r = result(send(ss[0], slot, 16, MSG_DONTWAIT));
        bits[SEND] = result_bit(r, 16);
        CHECK(drain(ss[1]) == (r > 0 ? r : 0));
        CHECK(send(ss[0], data, 16, 0) == 16);
        r = result(recv(ss[1], slot, 16, 0));
        bits[RECV] = result_bit(r, 16);
        if (r == 16 && s == RW)
            CHECK(memcmp(slot, data, 16) == 0);
        CHECK(drain(ss[1]) == (r == -EFAULT ? 16 : 16 - (r > 0 ? r : 0)));
        /* recv a datagram into the slot: an EFAULT loses it (it was dequeued). */
        CHECK(sendto(ds[0], data, 12, 0, NULL, 0) == 12);
        r = result(recvfrom(ds[1], slot, 16, 0, NULL, NULL));
        bits[DGRAM_RECV] = result_bit(r, 12);
        if (r == 12 && s == RW)
            CHECK(memcmp(slot, data, 12) == 0);
        CHECK(recv(ds[1], priv, 1, 0) == -1 && errno == EAGAIN);
        int s2 = state;
        if (s == s2 && s != CHANGING) {
            pthread_mutex_lock(&seen_lock);
            for (int c = 0; c < CALLS; c++)
                seen[s][c] |= bits[c];
            pthread_mutex_unlock(&seen_lock);
        }
        __atomic_add_fetch(&calls[w], 1, __ATOMIC_SEQ_CST);
    }
    CHECK(close(pipefd[0]) == 0 && close(pipefd[1]) == 0);
    CHECK(close(ss[0]) == 0 && close(ss[1]) == 0 && close(ds[0]) == 0 && close(ds[1]) == 0);
    return NULL;
}

/* The waits interrupted by signals. */
enum { W_READV, W_RECV, W_SEND };
static const char *const wait_name[] = { "readv of a pipe", "recv of a stream socket", "send to a full datagram socket" };
static int wait_kind, wait_fd[2];
static volatile int handled, done;
static long wait_result;
static int wait_errno;

static void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

static void *waiter(void *arg)
{
    (void)arg;
    char c = 0, d = 0;
    struct iovec v[2] = { { &d, 0 }, { &c, 1 } };
    if (wait_kind == W_READV)
        wait_result = readv(wait_fd[0], v, 2);
    else if (wait_kind == W_RECV)
        wait_result = recv(wait_fd[0], &c, 1, 0);
    else
        wait_result = send(wait_fd[0], "z", 1, 0);
    wait_errno = errno;
    if (wait_result == 1 && wait_kind != W_SEND)
        wait_result = c;
    __atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void sleep_ms(int ms)
{
    struct timespec t = { 0, ms * 1000000L };
    nanosleep(&t, NULL);
}

/* One wait: `restart` for SA_RESTART, `timeout` for a 10 s SO_RCVTIMEO/SO_SNDTIMEO. */
static void interrupted_wait(int kind, int restart, int timeout)
{
    wait_kind = kind;
    handled = 0;
    done = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = restart ? SA_RESTART : 0;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    if (kind == W_READV)
        CHECK(pipe2(wait_fd, O_CLOEXEC) == 0);
    else
        CHECK(socketpair(AF_UNIX, (kind == W_SEND ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0, wait_fd) == 0);
    if (timeout) {
        struct timeval tv = { 10, 0 };
        CHECK(setsockopt(wait_fd[0], SOL_SOCKET, kind == W_SEND ? SO_SNDTIMEO : SO_RCVTIMEO, &tv, sizeof tv) == 0);
    }
    if (kind == W_SEND)
        while (send(wait_fd[0], "f", 1, MSG_DONTWAIT) == 1)
            ;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, waiter, NULL) == 0);
    if (restart && !timeout) {
        while (handled < 2) {
            CHECK(pthread_kill(t, SIGUSR1) == 0);
            sleep_ms(10);
        }
        sleep_ms(10);
        CHECK(!__atomic_load_n(&done, __ATOMIC_SEQ_CST));
        char c;
        if (kind == W_SEND)
            while (recv(wait_fd[1], &c, 1, MSG_DONTWAIT) == 1) /* room for the waiter's */
                CHECK(c == 'f' || c == 'z');
        else
            CHECK(write(wait_fd[1], "z", 1) == 1);
    } else {
        while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST)) {
            CHECK(pthread_kill(t, SIGUSR1) == 0);
            sleep_ms(10);
        }
    }
    CHECK(pthread_join(t, NULL) == 0);
    printf("%s, %s%s: ", wait_name[kind], restart ? "SA_RESTART" : "no SA_RESTART", timeout ? ", timeout" : "");
    if (wait_result < 0)
        printf("%s\n", errname(wait_errno));
    else if (kind == W_SEND)
        printf("sent %ld\n", wait_result);
    else
        printf("got '%c'\n", (char)wait_result);
    CHECK(close(wait_fd[0]) == 0 && close(wait_fd[1]) == 0);
}

int main(void)
{
    pagesize = sysconf(_SC_PAGESIZE);
    strcpy(path, "/tmp/eg_unlocked_vec_XXXXXX");
    file = mkstemp(path);
    CHECK(file >= 0);
    CHECK(unlink(path) == 0);
    page = mmap(NULL, pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    edge_arr = mmap(NULL, 4 * pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(edge_arr != MAP_FAILED);
    edge = edge_arr + 2 * pagesize;
    CHECK(munmap(edge_arr + pagesize, pagesize) == 0 && munmap(edge + pagesize, pagesize) == 0);
    /* The array's readable first entry: 8 bytes of a private buffer. */
    static char first[8] = "abcdefgh";
    struct iovec one = { first, 8 };
    memcpy(edge_arr + pagesize - sizeof one, &one, sizeof one);
    struct page_rounds seen_rounds = run_page_rounds(worker, ROUNDS, NULL);
    printf("%d rounds of %d states, %d workers, every byte checked\n", ROUNDS, STATES, WORKERS);
    for (int s = 0; s < STATES; s++) {
        printf("%s:", state_name[s]);
        for (int c = 0; c < CALLS; c++) {
            static const char *const outcome_name[] = { "ok", "short", "EFAULT", "other", NULL };
            printf("%s ", c ? "," : "");
            print_outcomes(call_name[c], seen[s][c], outcome_name);
        }
        printf("\n");
    }
    for (int i = 0; i < FIXED; i++) {
        for (int w = 1; w < WORKERS; w++)
            CHECK(fixed[w][i] == fixed[0][i]);
        long r = fixed[0][i];
        printf("%s: %ld%s%s\n", fixed_name[i], r < 0 ? 0 : r, r < 0 ? " " : "", r < 0 ? errname((int)-r) : "");
    }
    /* Not printed: rounds whose read-only page changed. A transfer into the page that is in
     * flight when mprotect(PROT_READ) returns may still store there under endgate (locked
     * or not: the host call runs as a thread not running guest code, and private pages stay
     * writable to the host), where Linux's TLB shootdown makes it fault; about one run in 30
     * on a loaded host. */
    (void)seen_rounds.changed_ro;
    printf("new page stored to: %ld rounds\n", seen_rounds.changed_fresh);
    printf("remap failed: %ld\n", seen_rounds.remap_failed);
    for (int kind = W_READV; kind <= W_SEND; kind++) {
        interrupted_wait(kind, 1, 0);
        interrupted_wait(kind, 0, 0);
        if (kind != W_READV)
            interrupted_wait(kind, 1, 1);
    }
    CHECK(close(file) == 0);
    return 0;
}
