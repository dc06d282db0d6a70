/* /proc/self describes the program itself: comm is its name, cmdline its argv, maps lists its
 * stack and its own file, auxv holds AT_PAGESZ, and pthread_getattr_np (which reads maps)
 * finds the main thread's stack. */
#include "common.h"
#include <elf.h>
#include <pthread.h>
#include <stdint.h>

int main(int argc, char **argv)
{
    char buf[4096];
    FILE *f = fopen("/proc/self/comm", "r");
    CHECK(f && fgets(buf, sizeof buf, f));
    fclose(f);
    printf("comm: %s", buf);
    f = fopen("/proc/self/cmdline", "r");
    CHECK(f);
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t want = 0;
    for (int i = 0; i < argc; i++) want += strlen(argv[i]) + 1;
    printf("cmdline length matches argv: %d\n", n == want);
    printf("cmdline second word: %s\n", buf + strlen(buf) + 1);
    f = fopen("/proc/self/maps", "r");
    CHECK(f);
    int stack = 0, self = 0;
    uintptr_t here = (uintptr_t)&buf, in_stack = 0;
    while (fgets(buf, sizeof buf, f)) {
        unsigned long lo, hi;
        if (sscanf(buf, "%lx-%lx", &lo, &hi) == 2 && lo <= here && here < hi) in_stack = strstr(buf, "[stack]") != NULL;
        if (strstr(buf, "[stack]")) stack = 1;
        if (strstr(buf, "proc_self")) self = 1;
    }
    fclose(f);
    printf("maps: [stack] %d, own file %d, locals inside [stack] %d\n", stack, self, (int)in_stack);
    f = fopen("/proc/self/auxv", "r");
    CHECK(f);
    unsigned long pair[2], pagesz = 0;
    while (fread(pair, sizeof pair, 1, f) == 1 && pair[0] != AT_NULL)
        if (pair[0] == AT_PAGESZ) pagesz = pair[1];
    fclose(f);
    printf("auxv AT_PAGESZ: %lu\n", pagesz);
    pthread_attr_t attr;
    void *addr;
    size_t size;
    CHECK(pthread_getattr_np(pthread_self(), &attr) == 0);
    CHECK(pthread_attr_getstack(&attr, &addr, &size) == 0);
    printf("pthread stack holds locals: %d\n", (char *)addr < (char *)&attr && (char *)&attr < (char *)addr + size);
    return 0;
}
