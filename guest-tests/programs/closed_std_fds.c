/* A program started with descriptors 0 and 1 closed finds them closed (execve(2) keeps the
 * descriptor table as it is; nothing reopens them), and the first file it opens gets the
 * lowest free number, 0. The child reports on descriptor 9, a pipe to its parent. SIGPIPE ignored
 * by the parent stays ignored across the exec. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        char buf[256];
        int closed0 = fcntl(0, F_GETFD) == -1 && errno == EBADF;
        int closed1 = fcntl(1, F_GETFD) == -1 && errno == EBADF;
        int fd = open("/dev/zero", O_RDONLY);
        struct sigaction sa;
        sigaction(SIGPIPE, NULL, &sa);
        int n = snprintf(buf, sizeof buf, "fd 0 closed %d, fd 1 closed %d, first open gets %d, SIGPIPE ignored as inherited %d\n",
                         closed0, closed1, fd, sa.sa_handler == SIG_IGN);
        CHECK(write(9, buf, n) == n);
        return 0;
    }
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        close(p[0]);
        CHECK(dup2(p[1], 9) == 9);
        close(0);
        close(1);
        signal(SIGPIPE, SIG_IGN);
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char buf[256] = { 0 };
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    printf("child: %s", n > 0 ? buf : "(nothing)\n");
    printf("child exit status %d\n", WEXITSTATUS(st));
    return 0;
}
