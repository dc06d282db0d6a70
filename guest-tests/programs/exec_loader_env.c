/* Variables the host's dynamic loader and C library read (ld.so(8): LD_TRACE_LOADED_OBJECTS,
 * LD_DEBUG, LD_PRELOAD, LD_SHOW_AUXV; GLIBC_TUNABLES; MALLOC_*) in the environment of an
 * execve reach the new program as they are and in their places, and act on nothing else: this
 * program (static, so no loader of its own reads them) runs again with them set between two
 * other variables and prints its environment; entries without '=' or with an empty name are
 * passed on as they are too. Under an emulator that runs itself again for
 * the guest's execve, they must not reach its own loader (`ldd` under it listed the emulator's
 * libraries), nor take more room than natively (a variable of MAX_ARG_STRLEN bytes). */
#include "common.h"

extern char **environ;

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "long") == 0) {
        const char *v = getenv("LD_LONG");
        printf("LD_LONG: %zu bytes\n", v ? strlen(v) : (size_t)0);
        return 0;
    }
    if (argc > 1) {
        printf("child ran\n");
        for (char **e = environ; *e; e++)
            printf("%s\n", *e);
        /* One such variable as long as an entry may be (MAX_ARG_STRLEN, 32 pages of 4 KiB,
         * with its NUL) reaches the program; one byte more is E2BIG. */
        static char entry[131072 + 1];
        memcpy(entry, "LD_LONG=", 8);
        memset(entry + 8, 'x', sizeof entry - 9);
        char *longenv[] = {entry, NULL};
        char *longargs[] = {argv[0], "long", NULL};
        fflush(stdout);
        execve("/proc/self/exe", longargs, longenv);
        printf("execve of the longest entry + 1: %s\n", strerror(errno));
        fflush(stdout);
        entry[sizeof entry - 2] = 0;
        execve("/proc/self/exe", longargs, longenv);
        printf("execve of the longest entry: %s\n", strerror(errno));
        return 1;
    }
    char *env[] = {
        "FIRST=1",
        "NOEQ",
        "LD_TRACE_LOADED_OBJECTS=1",
        "=x",
        "MIDDLE=2",
        "LD_NOEQ",
        "LD_DEBUG=files",
        "LD_SHOW_AUXV=1",
        "LD_PRELOAD=/nonexistent/libnothing.so",
        "LD_LIBRARY_PATH=/nonexistent",
        "GLIBC_TUNABLES=glibc.malloc.check=3",
        "MALLOC_PERTURB_=85",
        "LAST=3",
        NULL,
    };
    char *args[] = {argv[0], "child", NULL};
    execve("/proc/self/exe", args, env);
    printf("execve: %s\n", strerror(errno));
    return 1;
}
