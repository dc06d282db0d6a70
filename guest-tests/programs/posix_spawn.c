/* glibc runs other programs with clone(CLONE_VM | CLONE_VFORK) on a stack of its own:
 * system(), posix_spawn with file actions (the child's stdout into a pipe) and popen/pclose,
 * with the children's exit statuses. */
#include "common.h"
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

int main(void)
{
    fflush(stdout);
    int st = system("exit 3");
    printf("system: exited %d, status %d\n", WIFEXITED(st), WEXITSTATUS(st));

    int fds[2];
    CHECK(pipe(fds) == 0);
    posix_spawn_file_actions_t fa;
    CHECK(posix_spawn_file_actions_init(&fa) == 0);
    CHECK(posix_spawn_file_actions_adddup2(&fa, fds[1], 1) == 0);
    CHECK(posix_spawn_file_actions_addclose(&fa, fds[0]) == 0);
    char *argv[] = {"/bin/sh", "-c", "echo written by the spawned child; exit 4", NULL};
    pid_t pid;
    int e = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
    printf("posix_spawn: %s\n", e ? errname(e) : "ok");
    close(fds[1]);
    char buf[128] = {0};
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    printf("read from the child: %zd bytes: %s", n, buf);
    CHECK(waitpid(pid, &st, 0) == pid);
    printf("posix_spawn child: status %d\n", WEXITSTATUS(st));
    close(fds[0]);

    FILE *p = popen("echo through popen; exit 5", "r");
    CHECK(p != NULL);
    char line[64] = {0};
    CHECK(fgets(line, sizeof line, p) != NULL);
    printf("popen read: %s", line);
    st = pclose(p);
    printf("pclose: status %d\n", WEXITSTATUS(st));
    return 0;
}
