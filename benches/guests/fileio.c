/* Threads reading a file as Go's os.ReadFile does, for the fileio workload: `fileio [T [K]]`
 * writes a 4 KiB file in /tmp, starts T threads (default 4) that wait at a barrier until all
 * of them run, then each opens the file, fstat()s it, reads it whole, reads again for the
 * end of file and closes it, K times (default 10000), checking every byte count; main
 * unlinks the file, joins them and prints `fileio T x K` if every round read the whole
 * file, which the harness checks. Under an emulator with a global guest lock every one of
 * these calls queues for it (endgate took the lock for each until session 29). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SIZE = 4096 };
static long rounds = 10000;
static char path[64];
static pthread_barrier_t start;

static void *work(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start);
    char buf[SIZE + 512];
    long ok = 0;
    for (long i = 0; i < rounds; i++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_size == SIZE && read(fd, buf, sizeof buf) == SIZE && read(fd, buf, sizeof buf) == 0)
            ok++;
        close(fd);
    }
    return (void *)ok;
}

int main(int argc, char **argv)
{
    if (argc > 3)
        return 2;
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2)
        rounds = atol(argv[2]);
    if (n < 1 || n > 256 || rounds < 1)
        return 2;
    snprintf(path, sizeof path, "/tmp/endgate-bench-fileio-%d", (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return 1;
    static char data[SIZE];
    for (int i = 0; i < SIZE; i++)
        data[i] = (char)('a' + i % 26);
    if (write(fd, data, SIZE) != SIZE || close(fd) != 0)
        return 1;
    if (pthread_barrier_init(&start, NULL, (unsigned)n) != 0)
        return 1;
    pthread_t t[256];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, work, NULL) != 0)
            return 1;
    long ok = 0;
    for (int i = 0; i < n; i++) {
        void *r;
        if (pthread_join(t[i], &r) != 0)
            return 1;
        ok += (long)r;
    }
    unlink(path);
    if (ok != n * rounds) {
        fprintf(stderr, "%ld of %ld rounds failed\n", n * rounds - ok, n * rounds);
        return 1;
    }
    printf("fileio %d x %ld\n", n, rounds);
    return 0;
}
