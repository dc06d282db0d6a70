// wait4's order of checks (kernel/exit.c kernel_wait4): with no child to wait for the answer is
// ECHILD whatever the status pointer; with a child, the child is reaped first and a status
// pointer the caller cannot write then gives EFAULT (the child is gone: the next wait is
// ECHILD).
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, long r) {
    if (r < 0)
        printf("%s: -1 %s\n", what, errno == ECHILD ? "ECHILD" : errno == EFAULT ? "EFAULT" : strerror(errno));
    else
        printf("%s: %s\n", what, r > 0 ? "a pid" : "0");
}

int main(void) {
    void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ro == MAP_FAILED) return 1;
    show("no child, bad status pointer", syscall(SYS_wait4, -1, (int *)8, 0, NULL));
    show("no child, read-only rusage", syscall(SYS_wait4, -1, NULL, 0, ro));

    pid_t c = fork();
    if (c == 0) _exit(3);
    show("child, read-only status", syscall(SYS_wait4, c, ro, 0, NULL));
    show("then", syscall(SYS_wait4, c, NULL, WNOHANG, NULL));

    c = fork();
    if (c == 0) _exit(4);
    int st = 0;
    show("child, good status", syscall(SYS_wait4, c, &st, 0, NULL));
    printf("  exit status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
