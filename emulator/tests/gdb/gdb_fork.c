/* The guest of emulator/tests/gdb.rs's fork tests: the child calls mark(1) and exits with
 * CHILD_STATUS; the parent waits, calls mark(2) and exits with the child's status plus one.
 * `heap` points at memory allocated after GDB connected ("heap text"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CHILD_STATUS
#define CHILD_STATUS 5
#endif

void mark(int who) {
    printf("mark %d\n", who);
    fflush(stdout);
}

char *heap;

int main(void) {
    heap = malloc(4096);
    if (!heap)
        return 101;
    strcpy(heap, "heap text");
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
