/* statx: basic fields for a file and a symlink (with and without AT_SYMLINK_NOFOLLOW),
 * AT_EMPTY_PATH on an fd, and agreement with fstat. */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>

int main(void)
{
    umask(022);
    char dir[] = "stxXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int fd = open("file", O_RDWR | O_CREAT | O_TRUNC, 0640);
    CHECK(fd >= 0);
    CHECK(write(fd, "statx!", 6) == 6);
    CHECK(symlink("file", "link") == 0);

    struct statx sx;
    memset(&sx, 0xff, sizeof sx);
    CHECK(statx(AT_FDCWD, "file", 0, STATX_BASIC_STATS, &sx) == 0);
    CHECK((sx.stx_mask & (STATX_TYPE | STATX_MODE | STATX_SIZE | STATX_NLINK)) ==
          (STATX_TYPE | STATX_MODE | STATX_SIZE | STATX_NLINK));
    printf("file: regular=%d mode=%04o size=%llu nlink=%u\n", S_ISREG(sx.stx_mode),
           sx.stx_mode & 07777, (unsigned long long)sx.stx_size, sx.stx_nlink);
    CHECK(sx.stx_uid == getuid() && sx.stx_gid == getgid());

    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    CHECK(st.st_ino == sx.stx_ino);
    CHECK(st.st_mtim.tv_sec == sx.stx_mtime.tv_sec && st.st_mtim.tv_nsec == (long)sx.stx_mtime.tv_nsec);
    printf("ino and mtime agree with fstat: ok\n");

    CHECK(statx(AT_FDCWD, "link", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) == 0);
    printf("link nofollow: symlink=%d size=%llu\n", S_ISLNK(sx.stx_mode), (unsigned long long)sx.stx_size);
    CHECK(statx(AT_FDCWD, "link", 0, STATX_BASIC_STATS, &sx) == 0);
    printf("link follow: regular=%d size=%llu\n", S_ISREG(sx.stx_mode), (unsigned long long)sx.stx_size);

    CHECK(statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, &sx) == 0);
    printf("AT_EMPTY_PATH on fd: size=%llu\n", (unsigned long long)sx.stx_size);

    errno = 0;
    CHECK(statx(AT_FDCWD, "nope", 0, STATX_BASIC_STATS, &sx) == -1);
    printf("missing: %s\n", errname(errno));
    close(fd);
    unlink("link");
    unlink("file");
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
