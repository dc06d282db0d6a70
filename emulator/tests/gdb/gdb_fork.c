/* The guest of emulator/tests/gdb.rs's fork test: the child calls mark(1) and exits with
 * CHILD_STATUS; the parent waits, calls mark(2) and exits with the child's status plus one.
 * Under GDB (follow-fork-mode parent) only the parent's mark stops; the child runs free. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CHILD_STATUS
#define CHILD_STATUS 5
#endif

void mark(int who) {
    printf("mark %d\n", who);
    fflush(stdout);
}

int main(void) {
    pid_t p = fork();
    if (p == 0) {
        mark(1);
        _exit(CHILD_STATUS);
    }
    int st;
    if (waitpid(p, &st, 0) != p)
        return 100;
    mark(2);
    return WEXITSTATUS(st) + 1;
}
