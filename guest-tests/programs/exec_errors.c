/* execve failures come back to the caller with the kernel's errno, and a #! script runs its
 * interpreter with the kernel's arguments: interpreter, its one argument, the script path,
 * then the caller's argv[1..]. */
#include "common.h"
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char dir[64];

static void put(const char *name, const char *text, mode_t mode)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    CHECK(chmod(p, mode) == 0);
}

static int run(const char *name, char *const args[])
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        char *env[] = {"SCRIPT_ENV=1", NULL};
        execve(p, args, env);
        printf("%s: %s\n", name, errname(errno));
        fflush(stdout);
        _exit(127);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--as-interp") == 0) {
        printf("interpreter: argc=%d", argc);
        for (int i = 2; i < argc; i++) {
            const char *a = argv[i];
            const char *slash = strrchr(a, '/');
            printf(" [%s]", i == 2 && slash ? slash + 1 : a);
        }
        printf(" SCRIPT_ENV=%s\n", getenv("SCRIPT_ENV") ? getenv("SCRIPT_ENV") : "(unset)");
        return 9;
    }
    strcpy(dir, "/tmp/exec_errors_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    char *args[] = {"name", "x", "y z", NULL};
    put("script", "#!/proc/self/exe   --as-interp  \necho not a shell\n", 0755);
    put("plain", "echo plain\n", 0755);
    put("noexec", "#!/proc/self/exe --as-interp\n", 0644);
    char loop[128];
    snprintf(loop, sizeof loop, "#!%s/loop\n", dir);
    put("loop", loop, 0755);
    put("nointerp", "#!/nonexistent/interpreter\n", 0755);
    printf("script exited with %d\n", run("script", args));
    run("plain", args);
    run("noexec", args);
    run("missing", args);
    run("nointerp", args);
    run("loop", args);
    run("", args);
    char p[128];
    snprintf(p, sizeof p, "%s/script", dir);
    volatile uintptr_t bad = 8; /* an unmapped address the compiler cannot see through */
    EXPECT_ERR("bad argv", execve(p, (char *const *)bad, NULL), EFAULT);
    EXPECT_ERR("bad path", execve((const char *)bad, args, NULL), EFAULT);
    /* The kernel opens the file before it reads argv. */
    EXPECT_ERR("bad argv of a missing file", execve("/nonexistent/file", (char *const *)bad, NULL), ENOENT);
    const char *names[] = {"script", "plain", "noexec", "loop", "nointerp"};
    for (int i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    return 0;
}
