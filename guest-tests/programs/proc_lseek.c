// lseek on /proc/self files, as Linux answers: maps, status and stat are seq_files (SEEK_SET
// and SEEK_CUR only; SEEK_END is EINVAL), cmdline and auxv seek as files of size 0 (SEEK_END
// lands at the offset itself); reading after SEEK_SET back to 0 gives the contents again.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void seek(const char *path, int fd, long off, int whence, const char *name) {
    errno = 0;
    long r = (long)lseek(fd, off, whence);
    printf("%s %s %ld: %s\n", path, name, off, r < 0 ? (errno == EINVAL ? "EINVAL" : strerror(errno)) : r == off ? "at the offset" : "elsewhere");
}

int main(void) {
    const char *files[] = {"/proc/self/maps", "/proc/self/status", "/proc/self/stat", "/proc/self/cmdline", "/proc/self/auxv"};
    for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++) {
        int fd = open(files[i], O_RDONLY);
        if (fd < 0) {
            printf("%s: %s\n", files[i], strerror(errno));
            continue;
        }
        char c;
        seek(files[i], fd, 0, SEEK_END, "SEEK_END");
        seek(files[i], fd, 5, SEEK_END, "SEEK_END");
        seek(files[i], fd, 0, SEEK_SET, "SEEK_SET");
        printf("%s read after: %ld\n", files[i], (long)read(fd, &c, 1));
        seek(files[i], fd, 0, SEEK_CUR, "SEEK_CUR");
        close(fd);
    }
    return 0;
}
