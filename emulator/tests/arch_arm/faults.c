/* Exit statuses and the signals CPU exceptions raise: argv[1] picks one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    const char *m = argc > 1 ? argv[1] : "exit";
    fflush(stdout);
    if (!strcmp(m, "exit")) exit(42);
    if (!strcmp(m, "segv")) { *(volatile int *)8 = 1; }
    if (!strcmp(m, "ill")) __builtin_trap();
    if (!strcmp(m, "bkpt")) __asm__ volatile("bkpt #0");
    return 7;
}
