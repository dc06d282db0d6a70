/* getcwd/chdir/fchdir: relative paths follow the working directory; getcwd's ERANGE. */
#include "common.h"
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

int main(void)
{
    char start[PATH_MAX], now[PATH_MAX];
    CHECK(getcwd(start, sizeof start) != NULL);
    CHECK(start[0] == '/');
    char dir[] = "cwdXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    CHECK(getcwd(now, sizeof now) != NULL);
    printf("after chdir: cwd = start + /%s: %s\n", "cwdXXXXXX",
           strncmp(now, start, strlen(start)) == 0 && strcmp(now + strlen(start) + 1, dir) == 0 ? "yes" : "no");

    CHECK(mkdir("sub", 0755) == 0);
    CHECK(chdir("sub") == 0);
    CHECK(getcwd(now, sizeof now) != NULL);
    printf("ends with /sub: %s\n", strcmp(base_name(now), "sub") == 0 ? "yes" : "no");
    int fd = open("here", O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0);
    close(fd);
    CHECK(chdir("..") == 0);
    printf("relative open went into sub: %s\n", access("sub/here", F_OK) == 0 ? "yes" : "no");

    int dfd = open("sub", O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    CHECK(fchdir(dfd) == 0);
    CHECK(getcwd(now, sizeof now) != NULL);
    printf("fchdir: %s\n", strcmp(base_name(now), "sub") == 0 ? "yes" : "no");
    close(dfd);
    CHECK(chdir(start) == 0);
    CHECK(getcwd(now, sizeof now) != NULL && strcmp(now, start) == 0);
    printf("back to start: yes\n");

    char tiny[2];
    EXPECT_ERR("getcwd into 2 bytes", (long)(getcwd(tiny, sizeof tiny) ? 0 : -1), ERANGE);
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/sub/here", dir);
    EXPECT_ERR("chdir to a file", chdir(file), ENOTDIR);
    EXPECT_ERR("chdir missing", chdir("no/such/dir"), ENOENT);
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/sub/here", dir);
    CHECK(unlink(sub) == 0);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK(rmdir(sub) == 0 && rmdir(dir) == 0);
    return 0;
}
