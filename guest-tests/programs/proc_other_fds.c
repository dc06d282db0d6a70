/* Another process's open descriptors as /proc/PID/fd lists them (proc(5)): a forked child that
 * keeps only 0, 1, 2 and a pipe's read end, listed by its parent (numbers, sorted), and its
 * fdinfo directory the same. An emulator's own descriptors in the child (under endgate, its
 * handle on its executable) are not the guest's and must not be listed. */
#include "common.h"
#include <dirent.h>
#include <sys/wait.h>

static int cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void list(pid_t pid, const char *dir)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, dir);
    DIR *d = opendir(path);
    CHECK(d != NULL);
    int fds[64], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && n < 64)
            fds[n++] = atoi(e->d_name);
    closedir(d);
    qsort(fds, (size_t)n, sizeof fds[0], cmp);
    printf("%s:", dir);
    for (int i = 0; i < n; i++)
        printf(" %d", fds[i]);
    printf("\n");
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int go[2], ready[2];
    CHECK(pipe(go) == 0 && pipe(ready) == 0);
    CHECK(go[0] == 3 && go[1] == 4 && ready[0] == 5 && ready[1] == 6);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(go[1]);
        close(ready[0]);
        /* Keep 0, 1, 2, 3 (go's read end); tell the parent on 6, then close it. */
        CHECK(write(ready[1], "r", 1) == 1);
        close(ready[1]);
        char c;
        _exit(read(go[0], &c, 1) == 1 ? 0 : 1);
    }
    close(go[0]);
    close(ready[1]);
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    /* The child closes 6 right after its write: wait until only 0-3 are left. */
    for (int tries = 0; tries < 1000; tries++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/6", (int)pid);
        if (access(path, F_OK) != 0)
            break;
        usleep(1000);
    }
    list(pid, "fd");
    list(pid, "fdinfo");
    CHECK(write(go[1], "g", 1) == 1);
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return 0;
}
