/* madvise(2) from four threads at once while the main thread maps and unmaps other memory:
 * each worker fills its own private anonymous buffer, discards it with MADV_DONTNEED and
 * checks that it reads back as zero; discards a private mapping of a file it wrote into and
 * checks that it reads back as the file; gives MADV_FREE, MADV_WILLNEED and MADV_NORMAL
 * advice (0, pages kept). A misaligned address is EINVAL and an unmapped range ENOMEM,
 * whatever the threads (madvise(2)). An emulator that serves madvise without its own lock
 * must keep each thread's discard to its own pages and every answer as the kernel's. */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { WORKERS = 4, ROUNDS = 2000, PAGES = 16 };
static long pagesize;
static volatile int stop;
static int fd;
static long bad[WORKERS], zero_failed[WORKERS], file_failed[WORKERS], kept_failed[WORKERS];

static void *worker(void *arg)
{
    long w = (long)arg;
    size_t len = (size_t)(PAGES * pagesize);
    unsigned char *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(b != MAP_FAILED);
    unsigned char *f = mmap(NULL, (size_t)pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(f != MAP_FAILED);
    for (int r = 0; r < ROUNDS; r++) {
        memset(b, 0x40 + (int)w, len);
        if (madvise(b, len, MADV_DONTNEED) != 0)
            bad[w]++;
        for (size_t i = 0; i < len; i += 97)
            if (b[i] != 0) {
                zero_failed[w]++;
                break;
            }
        f[5] = 'X'; /* a private copy of the page */
        if (madvise(f, (size_t)pagesize, MADV_DONTNEED) != 0)
            bad[w]++;
        if (f[5] != 'f')
            file_failed[w]++;
        b[3] = 7;
        if (madvise(b, len, MADV_WILLNEED) != 0 || madvise(b, len, MADV_NORMAL) != 0)
            bad[w]++;
        if (b[3] != 7)
            kept_failed[w]++;
        if (madvise(b + 1, (size_t)pagesize, MADV_DONTNEED) != -1 || errno != EINVAL)
            bad[w]++;
    }
    CHECK(munmap(b, len) == 0 && munmap(f, (size_t)pagesize) == 0);
    return NULL;
}

int main(void)
{
    pagesize = sysconf(_SC_PAGESIZE);
    char path[] = "/tmp/eg_madvise_XXXXXX";
    fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(unlink(path) == 0);
    char *page = malloc((size_t)pagesize);
    CHECK(page != NULL);
    memset(page, 'f', (size_t)pagesize);
    CHECK(write(fd, page, (size_t)pagesize) == pagesize);
    /* An unmapped range: page 1, below vm.mmap_min_addr, where nothing is ever mapped. */
    void *gone = (void *)(unsigned long)pagesize;
    pthread_t t[WORKERS];
    for (long w = 0; w < WORKERS; w++)
        CHECK(pthread_create(&t[w], NULL, worker, (void *)w) == 0);
    long enomem = 0, changes = 0;
    for (int left = WORKERS; left > 0;) {
        /* Other memory comes and goes: every thread's copy of the mappings goes stale. */
        void *m = mmap(NULL, (size_t)pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(m != MAP_FAILED && munmap(m, (size_t)pagesize) == 0);
        changes++;
        if (madvise(gone, (size_t)pagesize, MADV_DONTNEED) == -1 && errno == ENOMEM)
            enomem++;
        usleep(100);
        for (int w = 0; w < WORKERS; w++)
            if (t[w] != 0 && pthread_tryjoin_np(t[w], NULL) == 0) {
                t[w] = 0;
                left--;
            }
    }
    long sums[4] = { 0, 0, 0, 0 };
    for (int w = 0; w < WORKERS; w++) {
        sums[0] += bad[w];
        sums[1] += zero_failed[w];
        sums[2] += file_failed[w];
        sums[3] += kept_failed[w];
    }
    printf("%d workers x %d rounds\n", WORKERS, ROUNDS);
    printf("unexpected results: %ld\n", sums[0]);
    printf("discarded anonymous pages not zero: %ld\n", sums[1]);
    printf("discarded file pages not the file's: %ld\n", sums[2]);
    printf("pages changed by other advice: %ld\n", sums[3]);
    printf("unmapped range ENOMEM every time: %s\n", enomem == changes ? "yes" : "no");
    return 0;
}
