/* stat/fstat/lstat/fstatat fields for a regular file, a hard link, a symlink and a directory. */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static void show(const char *label, const struct stat *st)
{
    const char *type = S_ISREG(st->st_mode) ? "regular" : S_ISDIR(st->st_mode) ? "directory"
                       : S_ISLNK(st->st_mode) ? "symlink" : "other";
    /* A directory's nlink and size depend on the file system: not printed. */
    if (S_ISDIR(st->st_mode))
        printf("%s: %s mode=%04o\n", label, type, (unsigned)(st->st_mode & 07777));
    else
        printf("%s: %s mode=%04o nlink=%lu size=%lld\n", label, type, (unsigned)(st->st_mode & 07777),
               (unsigned long)st->st_nlink, (long long)st->st_size);
}

int main(void)
{
    umask(022);
    char dir[] = "statXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);

    int fd = open("file", O_WRONLY | O_CREAT | O_TRUNC, 0664);
    CHECK(fd >= 0);
    CHECK(write(fd, "0123456789", 10) == 10);
    struct stat st, st2;
    CHECK(fstat(fd, &st) == 0);
    show("fstat file", &st);
    CHECK(st.st_uid == getuid() && st.st_gid == getgid());
    CHECK(st.st_blksize > 0);
    close(fd);

    CHECK(stat("file", &st2) == 0);
    CHECK(st.st_ino == st2.st_ino && st.st_dev == st2.st_dev);
    printf("stat and fstat agree on dev/ino: ok\n");

    CHECK(link("file", "hard") == 0);
    CHECK(stat("file", &st) == 0);
    show("stat file after link", &st);
    CHECK(lstat("hard", &st2) == 0 && st2.st_ino == st.st_ino);

    CHECK(symlink("file", "sym") == 0);
    CHECK(lstat("sym", &st) == 0);
    show("lstat sym", &st);
    CHECK(stat("sym", &st) == 0);
    show("stat sym", &st);

    CHECK(fstatat(AT_FDCWD, "sym", &st, AT_SYMLINK_NOFOLLOW) == 0);
    show("fstatat sym nofollow", &st);
    int dfd = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    CHECK(fstatat(dfd, "file", &st, 0) == 0);
    show("fstatat dirfd file", &st);
    CHECK(fstatat(dfd, "", &st, AT_EMPTY_PATH) == 0);
    show("fstatat AT_EMPTY_PATH dir", &st);
    CHECK(mkdir("sub", 0750) == 0);
    CHECK(stat("sub", &st) == 0);
    show("stat sub", &st);

    struct timespec ts[2] = {{1000000000, 0}, {1234567890, 500}};
    CHECK(utimensat(AT_FDCWD, "file", ts, 0) == 0);
    CHECK(stat("file", &st) == 0);
    printf("utimensat: atime=%lld mtime=%lld.%09ld\n", (long long)st.st_atim.tv_sec,
           (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    CHECK(chmod("file", 0600) == 0);
    CHECK(stat("file", &st) == 0);
    show("after chmod 0600", &st);

    EXPECT_ERR("stat missing", stat("missing", &st), ENOENT);
    EXPECT_ERR("fstat bad fd", fstat(999, &st), EBADF);
    unlink("sym");
    unlink("hard");
    unlink("file");
    rmdir("sub");
    close(dfd);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    /* With AT_EMPTY_PATH a NULL path is the empty one (Linux 6.11, fs/stat.c). */
    {
        int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        struct stat st;
        printf("fstatat(fd, NULL, AT_EMPTY_PATH): %d\n", fstatat(fd, NULL, &st, AT_EMPTY_PATH));
        struct statx stx;
        long r = syscall(SYS_statx, fd, NULL, AT_EMPTY_PATH, STATX_BASIC_STATS, &stx);
        printf("statx(fd, NULL, AT_EMPTY_PATH): %ld, a regular file: %s\n", r, r == 0 && S_ISREG(stx.stx_mode) ? "yes" : "no");
        CHECK(close(fd) == 0);
    }
    return 0;
}
