/* Descriptors the program never opened are not open: calls on them fail with EBADF
 * (fcntl(2), fstat(2), fstatat(2) with AT_EMPTY_PATH, readlinkat(2) of "", fchdir(2), read(2)),
 * whatever an emulator keeps open for itself at the top of the descriptor range, while an
 * *at call with an absolute path ignores its directory descriptor (openat(2)); and their
 * entries in the process's /proc directory are missing (proc(5): /proc/PID/fd/N and
 * /proc/PID/fdinfo/N exist only for open descriptors), however the directory is named and
 * reached: readlink(2), stat(2) and open(2) fail with ENOENT. Checked for descriptors
 * 1000-1023, below the usual limit of 1024. */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

int main(void)
{
    int bad = 0, absolute = 0;
    for (int fd = 1000; fd < 1024; fd++) {
        struct stat st;
        char buf[64];
        errno = 0;
        bad += !(fcntl(fd, F_GETFD) == -1 && errno == EBADF);
        errno = 0;
        bad += !(fstat(fd, &st) == -1 && errno == EBADF);
        errno = 0;
        bad += !(fstatat(fd, "", &st, AT_EMPTY_PATH) == -1 && errno == EBADF);
        errno = 0;
        bad += !(readlinkat(fd, "", buf, sizeof buf) == -1 && errno == EBADF);
        errno = 0;
        bad += !(fchdir(fd) == -1 && errno == EBADF);
        errno = 0;
        bad += !(read(fd, buf, 1) == -1 && errno == EBADF);
        absolute += fstatat(fd, "/", &st, 0) == 0 && S_ISDIR(st.st_mode);
    }
    int present = 0;
    for (int fd = 1000; fd < 1024; fd++) {
        char p[10][96], buf[256];
        struct stat st;
        snprintf(p[0], sizeof p[0], "/proc/self/fd/%d", fd);
        snprintf(p[1], sizeof p[1], "/proc/thread-self/fd/%d", fd);
        snprintf(p[2], sizeof p[2], "/proc/%d/fd/%d", (int)getpid(), fd);
        snprintf(p[3], sizeof p[3], "/proc/self/task/%d/fd/%d", (int)getpid(), fd);
        snprintf(p[4], sizeof p[4], "//proc/./self/../self/fd/%d", fd);
        snprintf(p[5], sizeof p[5], "/proc/self/fdinfo/%d", fd);
        snprintf(p[6], sizeof p[6], "/proc/self/fd/%d/etc", fd);
        snprintf(p[7], sizeof p[7], "/proc/self/fd/%d/", fd);
        snprintf(p[8], sizeof p[8], "/proc/self/fd//%d/", fd);
        snprintf(p[9], sizeof p[9], "/proc//self/./fd/./%d", fd);
        for (int k = 0; k < 10; k++) {
            errno = 0;
            present += !(readlink(p[k], buf, sizeof buf) == -1 && errno == ENOENT);
            errno = 0;
            present += !(stat(p[k], &st) == -1 && errno == ENOENT);
            errno = 0;
            int f = open(p[k], O_RDONLY);
            present += !(f == -1 && errno == ENOENT);
        }
        /* Relative to the process's fd directory, and to its /proc directory. */
        int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
        int self = open("/proc/self", O_RDONLY | O_DIRECTORY);
        char rel[32];
        snprintf(rel, sizeof rel, "%d", fd);
        errno = 0;
        present += !(readlinkat(dir, rel, buf, sizeof buf) == -1 && errno == ENOENT);
        snprintf(rel, sizeof rel, "fd/%d", fd);
        errno = 0;
        present += !(fstatat(self, rel, &st, 0) == -1 && errno == ENOENT);
        close(dir);
        close(self);
    }
    printf("calls on descriptors never opened that did not fail with EBADF: %d\n", bad);
    printf("their /proc/self/fd and fdinfo paths that were not missing (ENOENT): %d\n", present);
    printf("fstatat of \"/\" from each descriptor: %d of 24\n", absolute);
    return 0;
}
