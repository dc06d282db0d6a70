/* Reads into writable and executable memory while other threads run: a thread's stack (which
 * mips64el's toolchain marks RWE, so glibc maps thread stacks executable), a JIT's buffer.
 *
 * Data: four threads pread(2) a file into a buffer on their stack and into their own page of
 * an RWX mapping, and fstat(2) into a struct on their stack, checking every byte.
 * Code: a thread read(2)s a function into an RWX page from a pipe; the page starts as
 * `return 5`, and the main thread calls it while the reader waits for the pipe (so the page
 * holds code by the time the read stores into it), then writes `return 6` into the pipe,
 * joins the reader, synchronizes the instruction cache and calls the page again: it must
 * return 6. Each round uses a page of its own mapping that no code was fetched from before.
 * Last, a page that ran while executable and read-only is made writable and executable and
 * read into the same way. An emulator that stores into RWX pages without its lock must still
 * drop what any thread translated from the bytes it replaced (read(2): the data is in the
 * buffer when the call returns). */
#include "common.h"
#include "jit.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>

enum { WORKERS = 4, DATA_ROUNDS = 1500, CODE_ROUNDS = 12, PAGE = 65536 };
static int data_fd;
static unsigned char *data_pages; /* one RWX page per worker */
static int bad_data;

static void *data_worker(void *arg)
{
    long id = (long)arg;
    unsigned char stack_buf[512];
    unsigned char *rwx = data_pages + id * PAGE;
    for (int i = 0; i < DATA_ROUNDS; i++) {
        off_t off = (off_t)((i * 7 + id * 13) % 256) * 16;
        CHECK(pread(data_fd, stack_buf, sizeof stack_buf, off) == (long)sizeof stack_buf);
        CHECK(pread(data_fd, rwx + 100, 300, off) == 300);
        for (int j = 0; j < 512; j++)
            if (stack_buf[j] != (unsigned char)((off + j) * 31 + 7))
                __atomic_add_fetch(&bad_data, 1, __ATOMIC_SEQ_CST);
        for (int j = 0; j < 300; j++)
            if (rwx[100 + j] != (unsigned char)((off + j) * 31 + 7))
                __atomic_add_fetch(&bad_data, 1, __ATOMIC_SEQ_CST);
        struct stat st;
        CHECK(fstat(data_fd, &st) == 0);
        if (st.st_size != 8192 || !S_ISREG(st.st_mode))
            __atomic_add_fetch(&bad_data, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

struct reader {
    int fd;
    unsigned char *page;
    size_t len;
};

static void *code_reader(void *arg)
{
    struct reader *r = arg;
    CHECK(read(r->fd, r->page, r->len) == (long)r->len);
    return NULL;
}

/* Calls the code at `p` (jit.h's encodings are ARM, not Thumb, on arm: bit 0 stays clear). */
static int call(void *p)
{
    return ((int (*)(void))p)();
}

/* One round: `page` holds `return 5`; a thread reads `return 6` into it from a pipe while
 * this thread runs it (the pipe is written only after that call: it returns 5); afterwards
 * it must return 6. */
static int round_trip(unsigned char *page)
{
    unsigned char six[64];
    size_t len = assemble(six, 6);
    int p[2];
    CHECK(pipe(p) == 0);
    struct reader r = {p[0], page, len};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, code_reader, &r) == 0);
    usleep(2000); /* the reader usually waits in read(2) by now; either order is correct */
    int stale = 0;
    if (call(page) != 5)
        stale++;
    CHECK(write(p[1], six, len) == (long)len);
    CHECK(pthread_join(t, NULL) == 0);
    __builtin___clear_cache((char *)page, (char *)page + len);
    if (call(page) != 6)
        stale++;
    close(p[0]);
    close(p[1]);
    return stale;
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/eg_rwx_read_%d", (int)getpid());
    data_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    CHECK(data_fd >= 0);
    CHECK(unlink(path) == 0);
    unsigned char content[8192];
    for (int i = 0; i < 8192; i++)
        content[i] = (unsigned char)(i * 31 + 7);
    CHECK(write(data_fd, content, sizeof content) == (long)sizeof content);

    int rwx = PROT_READ | PROT_WRITE | PROT_EXEC;
    data_pages = mmap(NULL, WORKERS * PAGE, rwx, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(data_pages != MAP_FAILED);
    pthread_t w[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        CHECK(pthread_create(&w[i], NULL, data_worker, (void *)i) == 0);
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_join(w[i], NULL) == 0);
    printf("%d threads x %d reads into stack and RWX buffers, fstat on the stack\n", WORKERS, DATA_ROUNDS);
    printf("wrong bytes or stat fields: %d\n", bad_data);

    /* Every other page made inaccessible, so each round's page is a mapping of its own. */
    unsigned char *code = mmap(NULL, 2 * CODE_ROUNDS * PAGE, rwx, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(code != MAP_FAILED);
    for (int i = 0; i < CODE_ROUNDS; i++)
        CHECK(mprotect(code + (2 * i + 1) * PAGE, PAGE, PROT_NONE) == 0);
    int stale = 0;
    for (int i = 0; i < CODE_ROUNDS; i++) {
        unsigned char *page = code + 2 * i * PAGE;
        size_t len = assemble(page, 5);
        __builtin___clear_cache((char *)page, (char *)page + len);
        stale += round_trip(page);
        /* Again on the same page, which now holds code. */
        assemble(page, 5);
        __builtin___clear_cache((char *)page, (char *)page + len);
        CHECK(call(page) == 5);
        stale += round_trip(page);
    }
    printf("%d rounds of code read into RWX pages while running them\n", CODE_ROUNDS);
    printf("old code after the read returned: %d\n", stale);

    /* Executable and read-only when it ran, then writable and executable. */
    unsigned char *rx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(rx != MAP_FAILED);
    size_t len = assemble(rx, 5);
    __builtin___clear_cache((char *)rx, (char *)rx + len);
    CHECK(mprotect(rx, PAGE, PROT_READ | PROT_EXEC) == 0);
    CHECK(call(rx) == 5);
    CHECK(mprotect(rx, PAGE, rwx) == 0);
    int stale_rx = round_trip(rx);
    printf("old code in a page made writable after it ran: %d\n", stale_rx);
    return 0;
}
