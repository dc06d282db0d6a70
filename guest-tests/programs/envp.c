/* The environment: envp follows argv, equals environ, and holds the runner's fixed variables. */
#include "common.h"

extern char **environ;

int main(int argc, char **argv, char **envp)
{
    CHECK(envp == environ);
    CHECK(envp == argv + argc + 1);
    int n = 0;
    for (char **e = envp; *e; e++, n++)
        CHECK(strchr(*e, '=') != NULL);
    CHECK(n >= 1);
    const char *t = getenv("TEST");
    printf("TEST=%s\n", t ? t : "(unset)");
    printf("NOT_SET=%s\n", getenv("ENDGATE_SURELY_NOT_SET") ? "set" : "(unset)");
    CHECK(setenv("ADDED", "value", 1) == 0);
    printf("ADDED=%s\n", getenv("ADDED"));
    CHECK(unsetenv("ADDED") == 0);
    printf("ADDED after unsetenv=%s\n", getenv("ADDED") ? "set" : "(unset)");
    return 0;
}
