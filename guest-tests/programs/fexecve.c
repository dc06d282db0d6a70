/* fexecve (execveat with AT_EMPTY_PATH) of a file no path names: a memfd holding the program
 * and a copy opened and then unlinked. The new program runs, and its /proc/self/exe names the
 * file as the kernel does ("/memfd:NAME (deleted)", "PATH (deleted)"). */
#include "common.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void copy(int from, int to)
{
    char buf[65536];
    ssize_t n;
    CHECK(lseek(from, 0, SEEK_SET) == 0);
    while ((n = read(from, buf, sizeof buf)) > 0)
        CHECK(write(to, buf, n) == n);
    CHECK(n == 0);
}

static void run(const char *label, int fd)
{
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        char *args[] = {"child", (char *)label, NULL};
        syscall(SYS_execveat, fd, "", args, environ, AT_EMPTY_PATH);
        printf("%s: execveat: %s\n", label, errname(errno));
        _exit(1);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    printf("%s: exit status %d\n", label, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1) {
        char exe[4096] = {0};
        CHECK(readlink("/proc/self/exe", exe, sizeof exe - 1) > 0);
        size_t n = strlen(exe);
        int deleted = n > 10 && strcmp(exe + n - 10, " (deleted)") == 0;
        printf("%s: ran; exe is a memfd %d, deleted %d\n", argv[1], strncmp(exe, "/memfd:prog", 11) == 0, deleted);
        return 3;
    }
    int self = open("/proc/self/exe", O_RDONLY);
    CHECK(self >= 0);
    int m = memfd_create("prog", MFD_CLOEXEC);
    CHECK(m >= 0);
    copy(self, m);
    CHECK(fchmod(m, 0755) == 0);
    run("memfd", m);

    char path[] = "/tmp/fexecve.XXXXXX";
    int w = mkstemp(path);
    CHECK(w >= 0);
    copy(self, w);
    CHECK(fchmod(w, 0755) == 0);
    close(w);
    int r = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(r >= 0);
    CHECK(unlink(path) == 0);
    run("unlinked file", r);
    return 0;
}
