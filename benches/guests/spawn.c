/* Process creation for the spawn workload, the C equivalent of a loop of Python's
 * subprocess.run(["/bin/true"]): `spawn N [INTERP]` forks N times, one child at a time; each
 * child execve()s this same program with the argument 0, which exits 0 at once, and the parent
 * waits for it and checks that it exited with status 0. At the end it prints `spawned N`, which
 * the harness checks. `spawn 0` only starts and exits (the 0-iteration run the harness
 * subtracts).
 *
 * The program execs itself by its argv[0] (made absolute), never by /proc/self/exe: under an
 * emulator that names the emulator. With INTERP, a child execs `INTERP <self> 0` instead: what
 * the kernel does for a foreign binary registered with binfmt_misc, given to a qemu-user run on
 * a host without that registration (where exec'ing the guest itself would fail with ENOEXEC, or
 * run natively on x86). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3)
        return 2;
    char *end;
    long n = strtol(argv[1], &end, 10);
    if (*end != '\0' || n < 0)
        return 2;
    if (n == 0)
        return 0;

    static char self[PATH_MAX];
    if (argv[0][0] == '/') {
        if (strlen(argv[0]) >= sizeof self)
            return 2;
        strcpy(self, argv[0]);
    } else {
        if (getcwd(self, sizeof self) == NULL)
            return 2;
        size_t len = strlen(self);
        if (len + 1 + strlen(argv[0]) >= sizeof self)
            return 2;
        self[len] = '/';
        strcpy(self + len + 1, argv[0]);
    }
    char *interp = argc == 3 ? argv[2] : NULL;
    char zero[] = "0";
    char *child_argv[4];
    if (interp) {
        child_argv[0] = interp;
        child_argv[1] = self;
        child_argv[2] = zero;
        child_argv[3] = NULL;
    } else {
        child_argv[0] = self;
        child_argv[1] = zero;
        child_argv[2] = NULL;
    }
    const char *path = interp ? interp : self;

    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            extern char **environ;
            execve(path, child_argv, environ);
            perror("execve");
            _exit(127);
        }
        int status;
        pid_t got;
        do
            got = waitpid(pid, &status, 0);
        while (got < 0 && errno == EINTR);
        if (got != pid) {
            perror("waitpid");
            return 1;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child %ld: status %#x\n", i, status);
            return 1;
        }
    }
    printf("spawned %ld\n", n);
    return 0;
}
