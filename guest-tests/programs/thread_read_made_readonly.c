/* A read(2) waiting on an empty pipe while another thread takes its buffer's write permission
 * away (mprotect(2) to PROT_READ or PROT_NONE, or munmap(2)): once data arrives the kernel's copy
 * into the buffer faults, and read fails with EFAULT without changing the buffer (the data
 * stays in the pipe). The buffer is private anonymous memory (a malloc'ed block, a thread
 * stack's neighbour). 10 rounds of each. An emulator that serves the wait without a lock and
 * stores through its own writable view of the page changes the read-only bytes instead. */
#include "common.h"
#include <pthread.h>
#include <sys/mman.h>

enum { ROUNDS = 10 };

static int fds[2];
static char *buf;
static long got;
static int got_errno;
static int started;

static void *reader(void *arg)
{
    (void)arg;
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    got = read(fds[0], buf, 8);
    got_errno = errno;
    return NULL;
}

/* One round: `take` takes the write permission away while the reader waits. Returns 1 if read
 * failed with EFAULT and left the buffer (when still readable) as it was, and the 8 bytes are
 * still in the pipe. */
static int round_with(int (*take)(void), int readable_after)
{
    CHECK(pipe(fds) == 0);
    buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(buf != MAP_FAILED);
    memset(buf, 'x', 8);
    started = 0;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, reader, NULL) == 0);
    while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
        ;
    usleep(20000); /* into the wait (a read that had not begun yet fails the same way) */
    CHECK(take() == 0);
    CHECK(write(fds[1], "abcdefgh", 8) == 8);
    CHECK(pthread_join(t, NULL) == 0);
    int ok = got == -1 && got_errno == EFAULT;
    if (readable_after)
        ok = ok && memcmp(buf, "xxxxxxxx", 8) == 0;
    char back[8];
    ok = ok && read(fds[0], back, 8) == 8 && memcmp(back, "abcdefgh", 8) == 0;
    munmap(buf, 4096);
    close(fds[0]);
    close(fds[1]);
    return ok;
}

static int to_read_only(void)
{
    return mprotect(buf, 4096, PROT_READ);
}

static int to_none(void)
{
    return mprotect(buf, 4096, PROT_NONE);
}

static int unmapped(void)
{
    return munmap(buf, 4096);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int a = 0, b = 0, c = 0;
    for (int i = 0; i < ROUNDS; i++) {
        a += round_with(to_read_only, 1);
        b += round_with(to_none, 0);
        c += round_with(unmapped, 0);
    }
    printf("made read-only while read waits: EFAULT, buffer unchanged, data kept: %d of %d\n", a, ROUNDS);
    printf("made PROT_NONE while read waits: EFAULT, data kept: %d of %d\n", b, ROUNDS);
    printf("unmapped while read waits: EFAULT, data kept: %d of %d\n", c, ROUNDS);
    return 0;
}
