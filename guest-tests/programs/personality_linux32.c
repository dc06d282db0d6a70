/* `linux32 uname -m` (setarch(8)): in the PER_LINUX32 personality a 64-bit kernel's uname
 * gives its 32-bit machine name (kernel/sys.c override_architecture, each arch's
 * COMPAT_UTS_MACHINE), a 32-bit kernel its own; the personality survives execve(2) but for
 * READ_IMPLIES_EXEC, which the ELF loader sets from the program's headers. */
#define _GNU_SOURCE 1
#include "common.h"
#include <sys/personality.h>
#include <sys/utsname.h>
#include <sys/wait.h>

/* The arch's 32-bit machine name under PER_LINUX32; NULL where the name does not change. */
static const char *compat_name(void)
{
#if defined(__x86_64__)
    return "i686";
#elif defined(__aarch64__)
    return "armv8l";
#elif defined(__s390x__)
    return "s390";
#elif defined(__mips__) && _MIPS_SIM == _ABI64
    return "mips";
#elif defined(__riscv) && __riscv_xlen == 64
    return "riscv32";
#else
    return NULL;
#endif
}

static const char *judge(const char *native, const char *now)
{
    const char *want = compat_name() ? compat_name() : native;
    return strcmp(now, want) == 0 ? "as the arch's kernel gives it" : "wrong";
}

int main(int argc, char **argv)
{
    struct utsname u;
    if (argc == 3 && strcmp(argv[1], "child") == 0) {
        CHECK(uname(&u) == 0);
        printf("after execve: personality %#x, machine %s\n", personality(0xffffffff) & 0xff, judge(argv[2], u.machine));
        printf("READ_IMPLIES_EXEC after execve: %s\n", personality(0xffffffff) & READ_IMPLIES_EXEC ? "kept" : "cleared");
        return 0;
    }
    CHECK(uname(&u) == 0);
    char native[sizeof u.machine];
    strcpy(native, u.machine);
    printf("PER_LINUX32 set, was %#x\n", personality(PER_LINUX32 | READ_IMPLIES_EXEC));
    CHECK(uname(&u) == 0);
    printf("uname machine: %s\n", judge(native, u.machine));
    fflush(stdout);
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0) {
        execl("/proc/self/exe", argv[0], "child", native, (char *)NULL);
        _exit(127);
    }
    int st;
    CHECK(waitpid(p, &st, 0) == p);
    printf("child exit: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    personality(PER_LINUX);
    CHECK(uname(&u) == 0);
    printf("back to PER_LINUX: machine %s\n", strcmp(u.machine, native) == 0 ? "the native name" : "wrong");
    return 0;
}
