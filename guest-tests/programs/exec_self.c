/* execve: the program re-executes itself (argv[0]) with new arguments and environment;
 * the second image prints them and exits with a status the first image's parent sees. */
#include "common.h"
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--second") == 0) {
        printf("second image: argc=%d", argc);
        for (int i = 2; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf(" EXEC_VAR=%s TEST=%s\n", getenv("EXEC_VAR") ? getenv("EXEC_VAR") : "(unset)",
               getenv("TEST") ? getenv("TEST") : "(unset)");
        return 5;
    }
    printf("first image: forking and exec'ing myself\n");
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        char *args[] = {argv[0], "--second", "a b", "", "c", NULL};
        char *env[] = {"EXEC_VAR=yes", NULL};
        execve(argv[0], args, env);
        printf("execve failed: %s\n", errname(errno));
        fflush(stdout);
        _exit(127);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    printf("second image exited with %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);

    errno = 0;
    char *none[] = {"nothing", NULL};
    execve("/nonexistent/program", none, environ);
    printf("execve of a missing file: %s\n", errname(errno));

    /* Finally replace this process outright; the exec'd image's status is ours. */
    fflush(stdout);
    char *args[] = {argv[0], "--second", "last", NULL};
    execve(argv[0], args, environ);
    printf("not reached\n");
    return 1;
}
