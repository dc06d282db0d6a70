#include <stdio.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <string.h>
int main(int argc, char **argv, char **envp) {
    printf("argc %d\n", argc);
    for (int i = 1; i < argc; i++) printf("argv[%d]=%s\n", i, argv[i]);
    for (char **e = envp; *e; e++) if (!strncmp(*e, "ARMTEST", 7)) printf("env %s\n", *e);
    unsigned long hw = getauxval(AT_HWCAP);
    printf("platform %s\n", (const char *)getauxval(AT_PLATFORM));
    printf("pagesz %lu\n", getauxval(AT_PAGESZ));
    printf("hwcap neon=%d vfpv3=%d tls=%d vfpv4=%d idiva=%d thumb=%d\n", !!(hw & 4096), !!(hw & 8192),
           !!(hw & 32768), !!(hw & 65536), !!(hw & 131072), !!(hw & 4));
    struct utsname u; uname(&u); printf("machine %s\n", u.machine);
    printf("sizeof(long)=%zu sizeof(void*)=%zu\n", sizeof(long), sizeof(void *));
    return 0;
}
