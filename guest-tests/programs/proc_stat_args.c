/* /proc/self/stat fields 48-51 (arg_start, arg_end, env_start, env_end) are the guest's own
 * argument and environment areas on its initial stack (a setproctitle-style writer uses
 * them), and /proc/self/cmdline reads that area as it is now. */
#include "common.h"
#include <stdint.h>
#include <stdlib.h>

extern char **environ;

int main(int argc, char **argv)
{
    (void)argc;
    FILE *f = fopen("/proc/self/stat", "r");
    CHECK(f != NULL);
    char b[4096];
    CHECK(fgets(b, sizeof b, f) != NULL);
    fclose(f);
    char *p = strrchr(b, ')');
    CHECK(p != NULL);
    unsigned long long v[64] = {0};
    int i = 3;
    for (char *t = strtok(p + 2, " "); t && i < 64; t = strtok(NULL, " "), i++)
        v[i] = strtoull(t, NULL, 10);
    CHECK(i > 51);
    char *last = argv[argc - 1];
    printf("arg_start is argv[0]: %d\n", v[48] == (unsigned long long)(uintptr_t)argv[0]);
    printf("arg_end is past the last argument: %d\n",
           v[49] == (unsigned long long)(uintptr_t)(last + strlen(last) + 1));
    printf("env_start is environ[0]: %d\n", environ[0] && v[50] == (unsigned long long)(uintptr_t)environ[0]);
    printf("env_end after env_start: %d\n", v[51] > v[50]);
    /* Rewrite the argument area in place, as setproctitle does. */
    char *area = (char *)(uintptr_t)v[48];
    size_t len = v[49] - v[48];
    memset(area, 0, len);
    memcpy(area, "renamed", 7);
    f = fopen("/proc/self/cmdline", "r");
    CHECK(f != NULL);
    char c[64] = {0};
    size_t n = fread(c, 1, sizeof c - 1, f);
    fclose(f);
    printf("cmdline after the rewrite starts with \"renamed\": %d\n", n >= 7 && memcmp(c, "renamed", 7) == 0);
    return 0;
}
