/* Directories and names: mkdir/rmdir, link, rename (file, over a file, directory),
 * unlink, symlink/readlink (relative and dangling), and the errors each one gives. */
#include "common.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

static void touch(const char *p, const char *text)
{
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static void cat(const char *p)
{
    char buf[64] = {0};
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0);
    CHECK(read(fd, buf, sizeof buf - 1) >= 0);
    close(fd);
    printf("%s contains <%s>\n", p, buf);
}

int main(void)
{
    char dir[] = "dlXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);

    CHECK(mkdir("d", 0755) == 0);
    EXPECT_ERR("mkdir existing", mkdir("d", 0755), EEXIST);
    touch("d/inner", "inner");
    EXPECT_ERR("rmdir non-empty", rmdir("d"), ENOTEMPTY);
    EXPECT_ERR("unlink a directory", unlink("d"), EISDIR);
    EXPECT_ERR("rmdir a file", rmdir("d/inner"), ENOTDIR);

    touch("a", "first");
    CHECK(link("a", "b") == 0);
    EXPECT_ERR("link onto existing", link("a", "b"), EEXIST);
    CHECK(unlink("a") == 0);
    cat("b");

    touch("c", "second");
    CHECK(rename("b", "c") == 0);
    cat("c");
    EXPECT_ERR("access renamed-away", access("b", F_OK), ENOENT);

    CHECK(rename("d", "e") == 0);
    cat("e/inner");
    EXPECT_ERR("rename dir over file", rename("e", "c"), ENOTDIR);

    CHECK(symlink("c", "sl") == 0);
    CHECK(symlink("nowhere/at/all", "dangling") == 0);
    char buf[64];
    ssize_t n = readlink("sl", buf, sizeof buf);
    CHECK(n == 1);
    printf("readlink sl: <%.*s>\n", (int)n, buf);
    n = readlink("dangling", buf, sizeof buf);
    printf("readlink dangling: <%.*s>\n", (int)n, buf);
    n = readlink("dangling", buf, 3);
    printf("readlink truncated to 3: <%.*s> (%zd)\n", (int)n, buf, n);
    cat("sl");
    EXPECT_ERR("open dangling", open("dangling", O_RDONLY), ENOENT);
    EXPECT_ERR("readlink of a file", readlink("c", buf, sizeof buf), EINVAL);
    EXPECT_ERR("symlink onto existing", symlink("x", "sl"), EEXIST);

    CHECK(renameat2(AT_FDCWD, "c", AT_FDCWD, "sl", RENAME_NOREPLACE) == -1);
    printf("renameat2 NOREPLACE onto existing: %s\n", errname(errno));

    CHECK(unlink("sl") == 0 && unlink("dangling") == 0);
    CHECK(unlink("e/inner") == 0 && rmdir("e") == 0);
    CHECK(unlink("c") == 0);
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    printf("cleanup: ok\n");
    return 0;
}
