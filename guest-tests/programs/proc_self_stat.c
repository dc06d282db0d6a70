/* /proc/self/stat describes the guest: pid and parent, the program's name, state R, and a
 * start stack inside the [stack] mapping of /proc/self/maps; start_brk at or below the
 * current break. */
#include "common.h"
#include <stdint.h>

int main(void)
{
    char buf[4096];
    FILE *f = fopen("/proc/self/stat", "r");
    CHECK(f != NULL);
    CHECK(fgets(buf, sizeof buf, f) != NULL);
    fclose(f);
    int pid = 0, ppid = 0;
    char comm[64] = "", state = 0;
    CHECK(sscanf(buf, "%d (%63[^)]) %c %d", &pid, comm, &state, &ppid) == 4);
    printf("pid matches getpid: %d, ppid matches getppid: %d\n", pid == getpid(), ppid == getppid());
    printf("comm: %s, state: %c\n", comm, state);
    /* Fields after the comm: field 3 is state; split the rest. */
    char *p = strrchr(buf, ')') + 2;
    unsigned long long fld[64] = {0};
    int n = 3;
    for (char *tok = strtok(p, " \n"); tok && n < 64; tok = strtok(NULL, " \n"), n++)
        fld[n] = strtoull(tok, NULL, 10);
    unsigned long long startstack = fld[28], start_brk = fld[47];
    /* The [stack] mapping. */
    unsigned long long lo = 0, hi = 0;
    f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    while (fgets(buf, sizeof buf, f)) {
        if (strstr(buf, "[stack]"))
            CHECK(sscanf(buf, "%llx-%llx", &lo, &hi) == 2);
    }
    fclose(f);
    printf("startstack inside [stack]: %d\n", startstack >= lo && startstack < hi);
    printf("start_brk at or below the break: %d\n", start_brk != 0 && start_brk <= (uintptr_t)sbrk(0));
    return 0;
}
