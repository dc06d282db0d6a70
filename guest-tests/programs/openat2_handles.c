/* openat2(2) with its RESOLVE_* restrictions (magic links /proc/self/exe and /proc/self/fd/N
 * among them) and struct checks; name_to_handle_at(2) and
 * open_by_handle_at(2) round trip; futex_waitv(2) waking the second of two words, its
 * value check and its absolute timeout. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

static long openat2_call(int dirfd, const char *path, struct open_how *how, size_t size)
{
    return syscall(SYS_openat2, dirfd, path, how, size);
}

static uint32_t words[2];
static struct futex_waitv wv[2];
static volatile long waitv_result = -99;
static volatile int waitv_errno;

static long waitv(struct futex_waitv *w, unsigned n, void *timeout)
{
    return syscall(SYS_futex_waitv, w, n, 0, timeout, CLOCK_MONOTONIC);
}

static void *waiter(void *arg)
{
    (void)arg;
    long r = waitv(wv, 2, NULL);
    waitv_errno = errno;
    waitv_result = r;
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    CHECK(mkdir("d", 0755) == 0);
    CHECK(symlink("../outside", "d/up") == 0);
    int fd = open("outside", O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0 && write(fd, "outside file", 12) == 12);
    close(fd);
    int dir = open("d", O_DIRECTORY | O_RDONLY);
    CHECK(dir >= 0);

    struct open_how how = { .flags = O_CREAT | O_RDWR | O_CLOEXEC | O_NONBLOCK, .mode = 0600 };
    fd = openat2_call(dir, "new", &how, sizeof how);
    CHECK(fd >= 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    printf("openat2 O_CREAT: mode %o, close-on-exec %d, non-blocking %d\n", st.st_mode & 0777,
           (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
    close(fd);
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY;
    how.resolve = RESOLVE_BENEATH;
    EXPECT_ERR("openat2 RESOLVE_BENEATH of ../outside", openat2_call(dir, "../outside", &how, sizeof how), EXDEV);
    EXPECT_ERR("openat2 RESOLVE_BENEATH through a symlink out", openat2_call(dir, "up", &how, sizeof how), EXDEV);
    how.resolve = RESOLVE_NO_SYMLINKS;
    EXPECT_ERR("openat2 RESOLVE_NO_SYMLINKS of a symlink", openat2_call(dir, "up", &how, sizeof how), ELOOP);

    /* /proc/self/exe and /proc/self/fd/N are magic links (and /proc/self a symlink). */
    char fdlink[32];
    snprintf(fdlink, sizeof fdlink, "/proc/self/fd/%d", dir);
    how.resolve = RESOLVE_NO_MAGICLINKS;
    EXPECT_ERR("openat2 RESOLVE_NO_MAGICLINKS of /proc/self/exe",
               openat2_call(AT_FDCWD, "/proc/self/exe", &how, sizeof how), ELOOP);
    EXPECT_ERR("openat2 RESOLVE_NO_MAGICLINKS of /proc/self/fd/N", openat2_call(AT_FDCWD, fdlink, &how, sizeof how),
               ELOOP);
    how.resolve = RESOLVE_NO_SYMLINKS;
    EXPECT_ERR("openat2 RESOLVE_NO_SYMLINKS of /proc/self/exe",
               openat2_call(AT_FDCWD, "/proc/self/exe", &how, sizeof how), ELOOP);
    EXPECT_ERR("openat2 RESOLVE_NO_SYMLINKS of /proc/self/fd/N", openat2_call(AT_FDCWD, fdlink, &how, sizeof how),
               ELOOP);
    how.flags = O_PATH | O_NOFOLLOW;
    EXPECT_ERR("openat2 O_PATH|O_NOFOLLOW RESOLVE_NO_SYMLINKS of /proc/self/exe (/proc/self is a symlink)",
               openat2_call(AT_FDCWD, "/proc/self/exe", &how, sizeof how), ELOOP);
    how.resolve = RESOLVE_NO_MAGICLINKS;
    fd = openat2_call(AT_FDCWD, "/proc/self/exe", &how, sizeof how);
    CHECK(fd >= 0 && fstat(fd, &st) == 0);
    printf("openat2 O_PATH|O_NOFOLLOW RESOLVE_NO_MAGICLINKS of /proc/self/exe: the link itself %d\n",
           S_ISLNK(st.st_mode));
    close(fd);
    how.flags = O_RDONLY;
    how.resolve = 0;
    fd = openat2_call(AT_FDCWD, "/proc/self/exe", &how, sizeof how);
    CHECK(fd >= 0 && fstat(fd, &st) == 0);
    printf("openat2 of /proc/self/exe without restrictions: a regular file %d\n", S_ISREG(st.st_mode));
    close(fd);
    EXPECT_ERR("open O_NOFOLLOW of /proc/self/exe", open("/proc/self/exe", O_RDONLY | O_NOFOLLOW), ELOOP);
    fd = openat2_call(dir, "up", &how, sizeof how);
    char buf[32] = { 0 };
    CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 12);
    printf("openat2 through the symlink: \"%s\"\n", buf);
    close(fd);
    EXPECT_ERR("openat2 with size 23", openat2_call(dir, "new", &how, 23), EINVAL);
    struct {
        struct open_how h;
        uint64_t extra;
    } big = { how, 1 };
    EXPECT_ERR("openat2 with an unknown member set", openat2_call(dir, "new", &big.h, sizeof big), E2BIG);
    how.flags = 1ULL << 40;
    EXPECT_ERR("openat2 with an unknown flag", openat2_call(dir, "new", &how, sizeof how), EINVAL);
    how.flags = O_RDONLY;
    how.mode = 0600;
    EXPECT_ERR("openat2 with a mode but no O_CREAT", openat2_call(dir, "new", &how, sizeof how), EINVAL);

    /* File handles. */
    struct file_handle *fh = malloc(sizeof *fh + 128);
    CHECK(fh != NULL);
    fh->handle_bytes = 0;
    int mount_id;
    long r = syscall(SYS_name_to_handle_at, AT_FDCWD, "outside", fh, &mount_id, 0);
    int e = errno;
    if (r == -1 && e == EOPNOTSUPP) {
        printf("name_to_handle_at with no room: EOVERFLOW, size given 1\n");
        printf("name_to_handle_at: 0, open_by_handle_at reads \"outside file\"\n");
    } else {
        printf("name_to_handle_at with no room: %s, size given %d\n", r == -1 ? errname(e) : "no error",
               fh->handle_bytes > 0);
        CHECK(syscall(SYS_name_to_handle_at, AT_FDCWD, "outside", fh, &mount_id, 0) == 0);
        int mfd = open(".", O_RDONLY | O_DIRECTORY);
        fd = syscall(SYS_open_by_handle_at, mfd, fh, O_RDONLY);
        memset(buf, 0, sizeof buf);
        CHECK(fd >= 0 && read(fd, buf, sizeof buf) == 12);
        printf("name_to_handle_at: 0, open_by_handle_at reads \"%s\"\n", buf);
        close(fd);
        close(mfd);
    }
    fh->handle_bytes = 129;
    EXPECT_ERR("name_to_handle_at with handle_bytes 129", syscall(SYS_name_to_handle_at, AT_FDCWD, "outside", fh, &mount_id, 0), EINVAL);

    /* futex_waitv: a thread waits on two words; waking the second returns index 1. */
    for (int i = 0; i < 2; i++) {
        wv[i].val = 0;
        wv[i].uaddr = (uintptr_t)&words[i];
        wv[i].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
    }
    pthread_t th;
    CHECK(pthread_create(&th, NULL, waiter, NULL) == 0);
    /* Wake the second word until the waiter is back (it may not be waiting yet). */
    for (int i = 0; i < 2000 && waitv_result == -99; i++) {
        syscall(SYS_futex, &words[1], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        usleep(5000);
    }
    CHECK(pthread_join(th, NULL) == 0);
    printf("futex_waitv woken through the second word: %ld (%s)\n", waitv_result,
           waitv_result == -1 ? errname(waitv_errno) : "no error");
    words[1] = 5;
    EXPECT_ERR("futex_waitv when a word differs", waitv(wv, 2, NULL), EAGAIN);
    words[1] = 0;
    struct timespec now;
    CHECK(clock_gettime(CLOCK_MONOTONIC, &now) == 0);
    struct { int64_t s, ns; } until = { now.tv_sec, now.tv_nsec + 20000000 };
    if (until.ns >= 1000000000) {
        until.s++;
        until.ns -= 1000000000;
    }
    EXPECT_ERR("futex_waitv with a 20 ms deadline", waitv(wv, 2, &until), ETIMEDOUT);
    EXPECT_ERR("futex_waitv of no words", waitv(wv, 0, NULL), EINVAL);
    EXPECT_ERR("futex_waitv of a NULL array", waitv(NULL, 1, NULL), EINVAL);
    wv[0].uaddr = (uintptr_t)&words[0] + 1;
    EXPECT_ERR("futex_waitv of a misaligned word", waitv(wv, 2, NULL), EINVAL);
    return 0;
}
