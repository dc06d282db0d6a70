/* Descriptors the program never opened are not open: calls on them fail with EBADF
 * (fcntl(2), fstat(2), fstatat(2) with AT_EMPTY_PATH, readlinkat(2) of "", fchdir(2), read(2)),
 * whatever an emulator keeps open for itself at the top of the descriptor range, while an
 * *at call with an absolute path ignores its directory descriptor (openat(2)). Checked for
 * descriptors 1000-1023, below the usual limit of 1024. */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
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
    printf("calls on descriptors never opened that did not fail with EBADF: %d\n", bad);
    printf("fstatat of \"/\" from each descriptor: %d of 24\n", absolute);
    return 0;
}
