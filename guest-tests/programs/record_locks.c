/* POSIX record locks through fcntl with `struct flock`: a lock held through one open file
 * description (F_OFD_SETLK) conflicts with a classic F_SETLK/F_GETLK through another in the
 * same process, so one process sees both sides. Built twice: with the default off_t (32-bit
 * `struct flock` and fcntl's F_GETLK/F_SETLK on the 32-bit arches) and as record_locks_lfs
 * with -D_FILE_OFFSET_BITS=64 (`struct flock64`, F_GETLK64/F_SETLK64). */
#include "common.h"
#include <fcntl.h>

static void show(const char *label, const struct flock *fl)
{
    const char *t = fl->l_type == F_WRLCK ? "F_WRLCK" : fl->l_type == F_RDLCK ? "F_RDLCK" : "F_UNLCK";
    printf("%s: %s start %lld len %lld whence %d\n", label, t, (long long)fl->l_start, (long long)fl->l_len,
           fl->l_whence);
}

int main(void)
{
    char path[] = "record_locks.XXXXXX";
    int fd1 = mkstemp(path);
    CHECK(fd1 >= 0);
    int fd2 = open(path, O_RDWR);
    CHECK(fd2 >= 0);
    CHECK(unlink(path) == 0);
    CHECK(ftruncate(fd1, 100) == 0);

    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 10, .l_len = 20};
    CHECK(fcntl(fd1, F_OFD_SETLK, &fl) == 0);
    printf("OFD write lock on [10, 30): ok\n");

    struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100};
    CHECK(fcntl(fd2, F_GETLK, &q) == 0);
    show("F_GETLK over [0, 100)", &q);
    printf("l_pid of an OFD lock: %d\n", q.l_pid);

    struct flock in = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 15, .l_len = 1};
    EXPECT_ERR("F_SETLK inside the OFD lock", fcntl(fd2, F_SETLK, &in), EAGAIN);

    struct flock out = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 40, .l_len = 10};
    CHECK(fcntl(fd2, F_SETLK, &out) == 0);
    printf("F_SETLK read lock on [40, 50): ok\n");

    struct flock q2 = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 35, .l_len = 0};
    CHECK(fcntl(fd1, F_OFD_GETLK, &q2) == 0);
    show("F_OFD_GETLK from 35 to EOF", &q2);
    printf("l_pid is ours: %d\n", q2.l_pid == getpid());

    struct flock un = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 40, .l_len = 10};
    CHECK(fcntl(fd2, F_SETLKW, &un) == 0);
    q2.l_type = F_WRLCK;
    q2.l_start = 35;
    q2.l_len = 0;
    q2.l_pid = 0; /* F_OFD_GETLK wants 0 here (EINVAL otherwise) */
    CHECK(fcntl(fd1, F_OFD_GETLK, &q2) == 0);
    show("after F_SETLKW unlock", &q2);
    EXPECT_ERR("F_SETLK with a bad pointer", fcntl(fd2, F_SETLK, (struct flock *)16), EFAULT);
    return 0;
}
