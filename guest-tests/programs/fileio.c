/* File I/O in a mkdtemp directory: open/read/write/lseek (SET, CUR, END, holes),
 * pread/pwrite leave the offset alone, O_APPEND, ftruncate shrink/grow, O_EXCL, fsync. */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>

int main(void)
{
    char dir[] = "fioXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);

    int fd = open("f", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, "hello world\n", 12) == 12);
    CHECK(lseek(fd, 0, SEEK_CUR) == 12);
    CHECK(lseek(fd, 6, SEEK_SET) == 6);
    char buf[64] = {0};
    CHECK(read(fd, buf, sizeof buf) == 6);
    printf("read after seek: <%.5s>\n", buf);
    CHECK(read(fd, buf, sizeof buf) == 0);
    printf("read at EOF: 0\n");

    CHECK(pwrite(fd, "HELLO", 5, 0) == 5);
    CHECK(lseek(fd, 0, SEEK_CUR) == 12);
    memset(buf, 0, sizeof buf);
    CHECK(pread(fd, buf, 11, 0) == 11);
    CHECK(lseek(fd, 0, SEEK_CUR) == 12);
    printf("pread/pwrite keep the offset: <%s>\n", buf);

    CHECK(lseek(fd, 100, SEEK_END) == 112);
    CHECK(write(fd, "!", 1) == 1);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size == 113);
    CHECK(pread(fd, buf, 4, 50) == 4 && memcmp(buf, "\0\0\0\0", 4) == 0);
    printf("write past the end: size %lld, hole reads zeroes\n", (long long)st.st_size);

    CHECK(ftruncate(fd, 5) == 0);
    CHECK(fstat(fd, &st) == 0 && st.st_size == 5);
    CHECK(ftruncate(fd, 8) == 0);
    memset(buf, 'x', sizeof buf);
    CHECK(pread(fd, buf, sizeof buf, 0) == 8);
    CHECK(memcmp(buf, "HELLO\0\0\0", 8) == 0);
    printf("ftruncate shrink then grow: ok\n");
    CHECK(fsync(fd) == 0 && fdatasync(fd) == 0);
    CHECK(close(fd) == 0);

    fd = open("f", O_WRONLY | O_APPEND);
    CHECK(fd >= 0);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    CHECK(write(fd, "tail", 4) == 4);
    CHECK(lseek(fd, 0, SEEK_CUR) == 12);
    close(fd);
    printf("O_APPEND writes at the end: ok\n");

    EXPECT_ERR("O_CREAT|O_EXCL on existing", open("f", O_RDWR | O_CREAT | O_EXCL, 0600), EEXIST);
    EXPECT_ERR("read on O_WRONLY", ({ int w = open("f", O_WRONLY); long r = read(w, buf, 1); int e = errno; close(w); errno = e; r; }), EBADF);
    EXPECT_ERR("lseek negative", ({ int w = open("f", O_RDONLY); long r = lseek(w, -1, SEEK_SET); int e = errno; close(w); errno = e; r; }), EINVAL);

    fd = open("f", O_RDONLY);
    FILE *fp = fdopen(fd, "r");
    CHECK(fp != NULL);
    char line[64];
    CHECK(fread(line, 1, sizeof line, fp) == 12);
    fclose(fp);
    printf("final contents: <%.5s> + 3 NULs + <%.4s>\n", line, line + 8);

    CHECK(unlink("f") == 0);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
