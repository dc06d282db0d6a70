/* AT_EXECFN (getauxval) is the name the caller gave execve (fs/exec.c bprm->filename): the path
 * as passed, /proc/self/exe included; a #! script's own path, not its interpreter's; for
 * execveat, /dev/fd/N/NAME, and /dev/fd/N for fexecve (AT_EMPTY_PATH). */
#include "common.h"
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static char self[4096];

/* Runs `fn` in a child that execs; the child prints its AT_EXECFN compared with `want`. */
static void run(const char *label, void (*fn)(const char *), const char *want)
{
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        setenv("EXECFN_LABEL", label, 1);
        setenv("EXECFN_WANT", want, 1);
        fn(label);
        printf("%s: exec failed: %s\n", label, errname(errno));
        _exit(1);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static char *args[] = {"child", "--child", NULL};
static char script[4096], dir[4096];
static int dirfd_, progfd;

static void by_proc_self_exe(const char *l) { (void)l; execv("/proc/self/exe", args); }
static void by_path(const char *l) { (void)l; execv(self, args); }
static void by_script(const char *l) { (void)l; execv(script, args); }
static void by_execveat(const char *l) { (void)l; syscall(SYS_execveat, dirfd_, "s.sh", args, environ, 0); }
static void by_fexecve(const char *l) { (void)l; syscall(SYS_execveat, progfd, "", args, environ, AT_EMPTY_PATH); }

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[argc - 1], "--child") == 0) {
        const char *fn = (const char *)getauxval(AT_EXECFN);
        printf("%s: AT_EXECFN as given: %d\n", getenv("EXECFN_LABEL"), fn && strcmp(fn, getenv("EXECFN_WANT")) == 0);
        if (fn && strcmp(fn, getenv("EXECFN_WANT")) != 0)
            printf("  (%s, wanted %s)\n", fn, getenv("EXECFN_WANT"));
        return 0;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0);
    strcpy(dir, "/tmp/execfn.XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(script, sizeof script, "%s/s.sh", dir);
    FILE *f = fopen(script, "w");
    CHECK(f != NULL);
    fprintf(f, "#!%s\n", self);
    fclose(f);
    CHECK(chmod(script, 0755) == 0);
    dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(dirfd_ >= 0);
    progfd = open(self, O_RDONLY);
    CHECK(progfd >= 0);

    run("/proc/self/exe", by_proc_self_exe, "/proc/self/exe");
    run("the program's path", by_path, self);
    run("a #! script", by_script, script);
    char at[64];
    snprintf(at, sizeof at, "/dev/fd/%d/s.sh", dirfd_);
    run("execveat of a script by name", by_execveat, at);
    snprintf(at, sizeof at, "/dev/fd/%d", progfd);
    run("fexecve", by_fexecve, at);
    unlink(script);
    rmdir(dir);
    return 0;
}
