/* Threads mapping, filling, write-protecting and freeing small blocks at once, for the
 * mapchurn workload: `mapchurn [T [N]]` starts T threads (default 4) that wait at a barrier
 * until all of them run, then each does N rounds (default 5000) of: mmap 16 KiB of private
 * anonymous read-write memory, write one byte into each of its four 4 KiB pages (a value
 * derived from the round and the page), mprotect the 16 KiB to PROT_READ, read the bytes back
 * and check them, munmap. Main joins the threads and prints `mapchurn T x N` if every call
 * succeeded and every byte read back matched, which the harness checks. It models threaded
 * programs that map, fill, write-protect and free memory: malloc's mmap-backed large blocks,
 * a garbage collector write-protecting pages for its write barrier. Under an emulator that
 * gives each guest thread a software TLB, each munmap and each mprotect that takes a
 * permission away may need a shootdown of the other threads' cached translations of those
 * pages while they are running translated code (and making such changes themselves), so this
 * measures what address-space changes cost when every thread makes them at once. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { PAGE = 4096, PAGES = 4, BLOCK = PAGES * PAGE };
static long rounds = 5000;
static pthread_barrier_t start;

/* What one thread found wrong. */
struct result {
    long bad;    /* bytes that did not read back as written */
    long failed; /* mmap, mprotect or munmap calls that failed */
};

static unsigned char mark(long round, int page) { return (unsigned char)(round * 131 + page * 37 + 7) | 1; }

static void *churn(void *arg)
{
    struct result *res = arg;
    long bad = 0, failed = 0; /* local, so threads do not share a cache line each round */
    pthread_barrier_wait(&start);
    for (long i = 0; i < rounds; i++) {
        unsigned char *p = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            failed++;
            continue;
        }
        for (int j = 0; j < PAGES; j++)
            p[(size_t)j * PAGE] = mark(i, j);
        if (mprotect(p, BLOCK, PROT_READ) != 0)
            failed++;
        for (int j = 0; j < PAGES; j++)
            bad += p[(size_t)j * PAGE] != mark(i, j);
        if (munmap(p, BLOCK) != 0)
            failed++;
    }
    res->bad = bad;
    res->failed = failed;
    return NULL;
}

/* A whole decimal argument in [lo, hi], or -1. */
static long arg(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    return v;
}

int main(int argc, char **argv)
{
    if (argc > 3)
        return 2;
    int n = 4;
    if (argc > 1) {
        long v = arg(argv[1], 1, 256);
        if (v < 0)
            return 2;
        n = (int)v;
    }
    if (argc > 2 && (rounds = arg(argv[2], 1, 1000000000L)) < 0)
        return 2;
    if (pthread_barrier_init(&start, NULL, (unsigned)n) != 0)
        return 1;
    pthread_t t[256];
    static struct result res[256];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, churn, &res[i]) != 0)
            return 1;
    long bad = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        if (pthread_join(t[i], NULL) != 0)
            return 1;
        bad += res[i].bad;
        failed += res[i].failed;
    }
    if (bad != 0 || failed != 0) {
        printf("mapchurn failed: %ld bytes read back wrong, %ld mmap/mprotect/munmap calls failed\n", bad, failed);
        return 1;
    }
    printf("mapchurn %d x %ld\n", n, rounds);
    return 0;
}
