/* A heap growing page by page while other threads run, for the mapgrow workload:
 * `mapgrow [T [K]]` starts T threads (default 3) that wait at a barrier with main until all of
 * them run, then spin on a CPU loop (an LCG) until main tells them to stop; meanwhile main
 * reserves K pages (default 2000) of PROT_NONE anonymous memory and grows the usable part one
 * 4 KiB page at a time, mprotect(PROT_READ | PROT_WRITE) on the next page and a byte written
 * into it, as glibc's malloc grows a thread arena's heap. Then main stops and joins the
 * threads, checks that every page still holds its byte and prints `mapgrow T x K`, which the
 * harness checks. Under a multi-threaded emulator each mprotect changes the address space
 * while the other threads run translated code: endgate stopped every running thread for each
 * one before commit 93fbd92 (hundreds of microseconds to milliseconds a call with more threads
 * than cores). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { PAGE = 4096 };
static int stop;
static pthread_barrier_t start;

static unsigned char mark(long i) { return (unsigned char)(i * 131 + 7) | 1; }

static void *spin(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    unsigned long x = 1;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    return (void *)x;
}

int main(int argc, char **argv)
{
    if (argc > 3)
        return 2;
    int n = argc > 1 ? atoi(argv[1]) : 3;
    long pages = argc > 2 ? atol(argv[2]) : 2000;
    if (n < 0 || n > 256 || pages < 1)
        return 2;
    char *r = mmap(NULL, (size_t)pages * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED)
        return 1;
    if (pthread_barrier_init(&start, NULL, (unsigned)n + 1) != 0)
        return 1;
    pthread_t t[256];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, spin, NULL) != 0)
            return 1;
    pthread_barrier_wait(&start);
    long grown = 0;
    for (long i = 0; i < pages; i++) {
        if (mprotect(r + (size_t)i * PAGE, PAGE, PROT_READ | PROT_WRITE) != 0)
            break;
        r[(size_t)i * PAGE] = (char)mark(i);
        grown++;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++)
        if (pthread_join(t[i], NULL) != 0)
            return 1;
    if (grown != pages) {
        fprintf(stderr, "mprotect of page %ld of %ld failed\n", grown, pages);
        return 1;
    }
    long bad = 0;
    for (long i = 0; i < pages; i++)
        bad += (unsigned char)r[(size_t)i * PAGE] != mark(i);
    if (bad != 0) {
        fprintf(stderr, "%ld of %ld pages lost their byte\n", bad, pages);
        return 1;
    }
    printf("mapgrow %d x %ld\n", n, pages);
    return 0;
}
