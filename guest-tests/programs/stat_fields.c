/* One file seen through stat, lstat, fstat, fstatat and statx: every field printed or
 * cross-checked (times with nanoseconds; none past 2038, which 32-bit struct stat cannot
 * hold), plus the device numbers of /dev/null (1:3 on every Linux). struct stat's layout
 * differs per arch (stat vs stat64, field order, padding, byte order), so this checks an
 * emulator's translation of each field. */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static void same(const char *label, const struct stat *a, const struct stat *b)
{
    int ok = a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_mode == b->st_mode &&
             a->st_nlink == b->st_nlink && a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
             a->st_rdev == b->st_rdev && a->st_size == b->st_size && a->st_blksize == b->st_blksize &&
             a->st_blocks == b->st_blocks && a->st_atim.tv_sec == b->st_atim.tv_sec &&
             a->st_atim.tv_nsec == b->st_atim.tv_nsec && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
             a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
             a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
    printf("%s agrees with stat on every field: %s\n", label, ok ? "yes" : "NO");
    CHECK(ok);
}

int main(void)
{
    umask(022);
    char dir[] = "sfXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0640);
    CHECK(fd >= 0);
    static char block[12345];
    memset(block, 'z', sizeof block);
    CHECK(write(fd, block, sizeof block) == (ssize_t)sizeof block);
    CHECK(link("f", "f2") == 0);
    CHECK(fsync(fd) == 0);
    /* atime 2001-09-09T01:46:40.000000123, mtime 2009-02-13T23:31:30.987654321 */
    struct timespec ts[2] = {{1000000000, 123}, {1234567890, 987654321}};
    CHECK(futimens(fd, ts) == 0);

    struct stat st;
    CHECK(stat("f", &st) == 0);
    printf("type regular: %d\n", S_ISREG(st.st_mode));
    printf("mode: %04o\n", (unsigned)(st.st_mode & 07777));
    printf("nlink: %lu\n", (unsigned long)st.st_nlink);
    printf("uid is getuid: %d, gid is getgid: %d\n", st.st_uid == getuid(), st.st_gid == getgid());
    printf("size: %lld\n", (long long)st.st_size);
    printf("rdev: %u:%u\n", major(st.st_rdev), minor(st.st_rdev));
    printf("blksize positive: %d\n", st.st_blksize > 0);
    printf("blocks cover the size: %d\n", (long long)st.st_blocks * 512 >= (long long)st.st_size);
    printf("ino non-zero: %d, dev non-zero: %d\n", st.st_ino != 0, st.st_dev != 0);
    printf("atime: %lld.%09ld\n", (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec);
    printf("mtime: %lld.%09ld\n", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    printf("ctime after 2020: %d, nsec in range: %d\n", st.st_ctim.tv_sec > 1577836800,
           st.st_ctim.tv_nsec >= 0 && st.st_ctim.tv_nsec < 1000000000);
    printf("st_atime macro matches st_atim: %d\n", st.st_atime == st.st_atim.tv_sec);

    struct stat other;
    CHECK(fstat(fd, &other) == 0);
    same("fstat", &st, &other);
    CHECK(lstat("f", &other) == 0);
    same("lstat", &st, &other);
    CHECK(fstatat(AT_FDCWD, "f2", &other, AT_SYMLINK_NOFOLLOW) == 0);
    same("fstatat of the hard link", &st, &other);
    int dfd = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    CHECK(fstatat(dfd, "f", &other, 0) == 0);
    same("fstatat with a dirfd", &st, &other);
    CHECK(fstatat(fd, "", &other, AT_EMPTY_PATH) == 0);
    same("fstatat AT_EMPTY_PATH", &st, &other);

    struct statx sx;
    memset(&sx, 0xa5, sizeof sx);
    CHECK(statx(AT_FDCWD, "f", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &sx) == 0);
    CHECK((sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS);
    int sx_ok = sx.stx_ino == (unsigned long long)st.st_ino && sx.stx_mode == st.st_mode &&
                sx.stx_nlink == st.st_nlink && sx.stx_uid == st.st_uid && sx.stx_gid == st.st_gid &&
                sx.stx_size == (unsigned long long)st.st_size && sx.stx_blksize == (unsigned)st.st_blksize &&
                sx.stx_blocks == (unsigned long long)st.st_blocks &&
                makedev(sx.stx_dev_major, sx.stx_dev_minor) == st.st_dev &&
                makedev(sx.stx_rdev_major, sx.stx_rdev_minor) == st.st_rdev &&
                sx.stx_atime.tv_sec == st.st_atim.tv_sec && sx.stx_atime.tv_nsec == st.st_atim.tv_nsec &&
                sx.stx_mtime.tv_sec == st.st_mtim.tv_sec && sx.stx_mtime.tv_nsec == st.st_mtim.tv_nsec &&
                sx.stx_ctime.tv_sec == st.st_ctim.tv_sec && sx.stx_ctime.tv_nsec == st.st_ctim.tv_nsec;
    printf("statx agrees with stat on every field: %s\n", sx_ok ? "yes" : "NO");
    CHECK(sx_ok);

    CHECK(stat("/dev/null", &other) == 0);
    printf("/dev/null: chardev %d rdev %u:%u\n", S_ISCHR(other.st_mode), major(other.st_rdev),
           minor(other.st_rdev));
    CHECK(statx(AT_FDCWD, "/dev/null", 0, STATX_TYPE, &sx) == 0);
    printf("/dev/null statx rdev %u:%u\n", sx.stx_rdev_major, sx.stx_rdev_minor);

    close(dfd);
    close(fd);
    CHECK(unlink("f2") == 0 && unlink("f") == 0);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
