// System calls that copy out into a buffer whose tail is not writable (unmapped, or read-only):
// the kernel copies until the first bad byte and returns what it copied, EFAULT only when
// nothing could be copied (read(2), pread(2), getrandom(2), getdents64: fs/readdir.c keeps
// the records written before the one whose copy faults). The file position and the pipe keep
// only what was consumed.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *what, long r) {
    if (r < 0)
        printf("%s: -1 %s\n", what, errno == EFAULT ? "EFAULT" : strerror(errno));
    else
        printf("%s: %ld\n", what, r);
}

int main(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char dir[] = "/tmp/partial_buffer.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[64];
    snprintf(path, sizeof path, "%s/data", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    char text[1000];
    for (int i = 0; i < 1000; i++) text[i] = (char)('a' + i % 26);
    if (fd < 0 || write(fd, text, sizeof text) != 1000) return 1;

    for (int tail = 0; tail < 2; tail++) {
        // Two pages; the second unmapped (tail 0) or read-only (tail 1).
        char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 1;
        if (tail == 0)
            munmap(p + pg, pg);
        else
            mprotect(p + pg, pg, PROT_READ);
        printf("tail %s\n", tail == 0 ? "unmapped" : "read-only");
        char *buf = p + pg - 100;

        lseek(fd, 0, SEEK_SET);
        show("read", read(fd, buf, 1000));
        printf("  copied right: %d, position %ld\n", memcmp(buf, text, 100) == 0, (long)lseek(fd, 0, SEEK_CUR));
        memset(buf, 0, 100);
        show("pread", pread(fd, buf, 1000, 26));
        printf("  copied right: %d\n", memcmp(buf, text + 26, 100) == 0);
        show("read, first byte bad", read(fd, p + pg, 10));

        int pfd[2];
        if (pipe(pfd)) return 1;
        if (write(pfd[1], text, 300) != 300) return 1;
        show("read from a pipe", read(pfd[0], buf, 300));
        char rest[300];
        show("  the rest stays in the pipe", read(pfd[0], rest, sizeof rest));
        close(pfd[0]);
        close(pfd[1]);

        show("getrandom", syscall(SYS_getrandom, buf, 1000, 0));

        // Records of one- to four-letter names take 24 bytes each.
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        show("getdents64, room for two records", syscall(SYS_getdents64, dfd, p + pg - 60, 4096));
        lseek(dfd, 0, SEEK_SET);
        show("getdents64, room for none", syscall(SYS_getdents64, dfd, p + pg - 10, 4096));
        close(dfd);
        munmap(p, 2 * pg);
    }
    close(fd);
    unlink(path);
    rmdir(dir);
    return 0;
}
