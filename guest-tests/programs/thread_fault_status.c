/* A process whose second thread faults dies by the fault's signal, whatever its other threads
 * do: its parent's wait sees WIFSIGNALED with the signal the fault raises, never an exit
 * status. Two faults: a write to address 0 (SIGSEGV) and __builtin_trap (SIGILL or SIGTRAP,
 * by arch: the signal a child that traps in its only thread dies by). 24 children of each,
 * so that a race between the signal and an exit shows. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include "common.h"

static int kind;

static void *fault(void *arg)
{
    if (kind == 0)
        *(volatile int *)0 = 1;
    else
        __builtin_trap();
    return arg;
}

/* Runs a child that faults in a second thread (`threaded`) or in its only one; returns its
 * wait status. */
static int child_status(int threaded)
{
    fflush(stdout);
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0) {
        if (threaded) {
            pthread_t t;
            CHECK(pthread_create(&t, NULL, fault, NULL) == 0);
            pthread_join(t, NULL);
        } else {
            fault(NULL);
        }
        _exit(0);
    }
    int st;
    CHECK(waitpid(p, &st, 0) == p);
    return st;
}

int main(void)
{
    for (kind = 0; kind < 2; kind++) {
        int alone = child_status(0);
        CHECK(WIFSIGNALED(alone));
        int same = 0, exited = 0, status = 0;
        for (int i = 0; i < 24; i++) {
            int st = child_status(1);
            if (WIFSIGNALED(st) && WTERMSIG(st) == WTERMSIG(alone)) {
                same++;
            } else if (WIFEXITED(st)) {
                exited++;
                status = WEXITSTATUS(st);
            }
        }
        printf("%s: %d of 24 children died by %s", kind == 0 ? "write to address 0" : "__builtin_trap", same,
               kind == 0 ? (WTERMSIG(alone) == SIGSEGV ? "SIGSEGV" : "another signal") : "the signal of a lone thread's trap");
        if (exited)
            printf(", %d exited (last status %d)", exited, status);
        printf("\n");
    }
    return 0;
}
