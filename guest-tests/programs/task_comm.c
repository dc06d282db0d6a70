/* The task name (comm) and the command line others see, as Linux gives them:
 * - comm is the last component of the path given to execve, cut to 15 bytes (fs/exec.c
 *   begin_new_exec): "exe" after execve("/proc/self/exe"), a symlink's own name, not its
 *   target's; the initial program's from the path it was started by;
 * - prctl(PR_SET_NAME) renames the thread (cut to 15 bytes), PR_GET_NAME, /proc/self/comm,
 *   /proc/self/stat field 2 and /proc/self/task/TID/comm show it, and a new thread inherits it;
 * - a parent reads its child's /proc/PID/comm and /proc/PID/cmdline (the child's argv, each
 *   string NUL-terminated). */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static void read_file(const char *path, char *buf, size_t cap, size_t *len)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    size_t n = 0;
    ssize_t r;
    while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
        n += (size_t)r;
    close(fd);
    *len = n;
}

/* A file's text without its final newline. */
static const char *text(const char *path)
{
    static char buf[4096];
    size_t n;
    read_file(path, buf, sizeof buf - 1, &n);
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n] = 0;
    return buf;
}

/* Prints bytes with NUL as '|'. */
static void print_nuls(const char *label, const char *path)
{
    char buf[4096];
    size_t n;
    read_file(path, buf, sizeof buf, &n);
    printf("%s (%zu bytes): ", label, n);
    for (size_t i = 0; i < n; i++)
        putchar(buf[i] ? buf[i] : '|');
    putchar('\n');
}

/* Field 2 of a stat file, with its parentheses. */
static void print_stat_name(const char *label, const char *path)
{
    const char *s = text(path);
    const char *open_p = strchr(s, '(');
    const char *close_p = strrchr(s, ')');
    CHECK(open_p && close_p && close_p > open_p);
    printf("%s: %.*s\n", label, (int)(close_p - open_p + 1), open_p);
}

static void report_self(const char *who)
{
    char name[32] = {0};
    CHECK(prctl(PR_GET_NAME, name) == 0);
    printf("%s: PR_GET_NAME=%s comm=%s\n", who, name, text("/proc/self/comm"));
    print_stat_name("  stat", "/proc/self/stat");
}

static void *thread_main(void *arg)
{
    (void)arg;
    report_self("new thread");
    return NULL;
}

/* The child image: reports itself, then waits for its parent to read its /proc files. */
static int child(void)
{
    report_self("child");
    print_nuls("  own cmdline", "/proc/self/cmdline");
    fflush(stdout);
    char c = 'r';
    CHECK(write(4, &c, 1) == 1);
    CHECK(read(3, &c, 1) == 0);
    return 0;
}

/* Runs `path` in a child with `args`, the child image reporting itself; the parent then reads
 * the child's comm and cmdline. */
static void run_child(const char *label, const char *path, char *const args[])
{
    int go[2], ready[2];
    printf("-- execve(%s)\n", label);
    fflush(stdout);
    CHECK(pipe(go) == 0 && pipe(ready) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        CHECK(dup2(go[0], 3) == 3 && dup2(ready[1], 4) == 4);
        char *env[] = {"TASK_COMM_CHILD=1", NULL};
        execve(path, args, env);
        printf("execve failed: %s\n", errname(errno));
        fflush(stdout);
        _exit(127);
    }
    close(go[0]);
    close(ready[1]);
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/comm", (int)pid);
    printf("  parent sees comm=%s\n", text(p));
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    print_stat_name("  parent sees stat", p);
    snprintf(p, sizeof p, "/proc/%d/cmdline", (int)pid);
    print_nuls("  parent sees cmdline", p);
    close(go[1]);
    close(ready[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(int argc, char **argv)
{
    (void)argc;
    if (getenv("TASK_COMM_CHILD"))
        return child();

    report_self("start");
    printf("  argv[0] base=%s\n", base_name(argv[0]));

    /* prctl(PR_SET_NAME): cut to 15 bytes. */
    CHECK(prctl(PR_SET_NAME, "renamed-with-a-long-name") == 0);
    report_self("after PR_SET_NAME");
    char p[64];
    snprintf(p, sizeof p, "/proc/self/task/%d/comm", (int)gettid());
    printf("  task comm=%s\n", text(p));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_main, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    fflush(stdout);

    char *one[] = {"only-argv0", NULL};
    run_child("/proc/self/exe, one argument", "/proc/self/exe", one);
    char *three[] = {"first", "second arg", "third", NULL};
    run_child("/proc/self/exe, three arguments", "/proc/self/exe", three);

    /* Symlinks to this program: the link's name, cut to 15 bytes. */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0);
    self[n] = 0;
    CHECK(symlink(self, "short-link") == 0);
    CHECK(symlink(self, "a-link-with-a-very-long-name") == 0);
    char *args[] = {"prog", "x", NULL};
    run_child("./short-link", "./short-link", args);
    run_child("a-link-with-a-very-long-name", "a-link-with-a-very-long-name", args);
    return 0;
}
