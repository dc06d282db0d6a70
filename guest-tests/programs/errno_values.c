/* errno values for common failures: ENOENT, ENOTDIR, EISDIR, EBADF, EEXIST, ENAMETOOLONG,
 * ESPIPE, EINVAL, ENOSYS, ECHILD, ELOOP. */
#include "common.h"
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(void)
{
    char dir[] = "errXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int fd = open("file", O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0);
    close(fd);
    CHECK(mkdir("d", 0755) == 0);
    CHECK(symlink("loop1", "loop2") == 0 && symlink("loop2", "loop1") == 0);

    EXPECT_ERR("open missing file", open("missing", O_RDONLY), ENOENT);
    EXPECT_ERR("open in a missing dir", open("nodir/x", O_RDONLY), ENOENT);
    EXPECT_ERR("open through a file", open("file/x", O_RDONLY), ENOTDIR);
    EXPECT_ERR("O_DIRECTORY on a file", open("file", O_RDONLY | O_DIRECTORY), ENOTDIR);
    EXPECT_ERR("open a dir for writing", open("d", O_WRONLY), EISDIR);
    EXPECT_ERR("O_CREAT|O_EXCL existing", open("file", O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST);
    EXPECT_ERR("symlink loop", open("loop1", O_RDONLY), ELOOP);
    EXPECT_ERR("O_NOFOLLOW on a symlink", open("loop1", O_RDONLY | O_NOFOLLOW), ELOOP);
    char longname[NAME_MAX + 10];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    EXPECT_ERR("name too long", open(longname, O_RDONLY), ENAMETOOLONG);
    EXPECT_ERR("empty path", open("", O_RDONLY), ENOENT);
    EXPECT_ERR("close bad fd", close(-1), EBADF);
    EXPECT_ERR("read closed fd", read(77, longname, 1), EBADF);
    EXPECT_ERR("write to a dir fd", ({ int d = open("d", O_RDONLY); long r = write(d, "x", 1); int e = errno; close(d); errno = e; r; }), EBADF);
    EXPECT_ERR("read a dir fd", ({ int d = open("d", O_RDONLY); long r = read(d, longname, 1); int e = errno; close(d); errno = e; r; }), EISDIR);
    int p[2];
    CHECK(pipe(p) == 0);
    EXPECT_ERR("lseek on a pipe", lseek(p[0], 0, SEEK_SET), ESPIPE);
    EXPECT_ERR("pread on a pipe", pread(p[0], longname, 1, 0), ESPIPE);
    EXPECT_ERR("lseek bad whence", ({ int f = open("file", O_RDONLY); long r = lseek(f, 0, 42); int e = errno; close(f); errno = e; r; }), EINVAL);
    EXPECT_ERR("unknown syscall number", syscall(50000), ENOSYS);
    EXPECT_ERR("wait with no children", wait(NULL), ECHILD);
    EXPECT_ERR("kill bad signal", kill(getpid(), 1000), EINVAL);
    EXPECT_ERR("access missing", access("missing", R_OK), ENOENT);
    EXPECT_ERR("mkdir in a missing dir", mkdir("a/b/c", 0755), ENOENT);
    EXPECT_ERR("unlink missing", unlink("missing"), ENOENT);
    EXPECT_ERR("rename missing", rename("missing", "other"), ENOENT);
    EXPECT_ERR("chdir to a file", chdir("file"), ENOTDIR);
    EXPECT_ERR("readlink not a link", readlink("file", longname, 10), EINVAL);
    EXPECT_ERR("truncate a dir", truncate("d", 0), EISDIR);
    EXPECT_ERR("ftruncate a pipe", ftruncate(p[0], 0), EINVAL);

    unlink("loop1");
    unlink("loop2");
    unlink("file");
    rmdir("d");
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
