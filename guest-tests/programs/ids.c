/* Process and user ids: getpid/gettid/getppid/getpgrp/getsid agree with each other and with
 * the raw syscalls; uid/gid getters agree with getres*id. */
#include "common.h"
#include <sys/syscall.h>

int main(void)
{
    pid_t pid = getpid();
    CHECK(pid > 0);
    printf("getpid == syscall(SYS_getpid): %d\n", pid == (pid_t)syscall(SYS_getpid));
    printf("gettid == getpid (one thread): %d\n", gettid() == pid);
    printf("syscall(SYS_gettid) == getpid: %d\n", (pid_t)syscall(SYS_gettid) == pid);
    pid_t ppid = getppid();
    printf("getppid positive and not getpid: %d\n", ppid > 0 && ppid != pid);
    printf("getppid == syscall(SYS_getppid): %d\n", ppid == (pid_t)syscall(SYS_getppid));
    printf("getpgrp == getpgid(0): %d\n", getpgrp() == getpgid(0));
    printf("getsid(0) == getsid(getpid()): %d\n", getsid(0) == getsid(pid));
    uid_t r, e, s;
    CHECK(getresuid(&r, &e, &s) == 0);
    printf("getresuid matches getuid/geteuid: %d\n", r == getuid() && e == geteuid());
    gid_t gr, ge, gs;
    CHECK(getresgid(&gr, &ge, &gs) == 0);
    printf("getresgid matches getgid/getegid: %d\n", gr == getgid() && ge == getegid());
    int ng = getgroups(0, NULL);
    printf("getgroups count non-negative: %d\n", ng >= 0);
    EXPECT_ERR("getpgid of a missing process", getpgid(0x3ffffff0), ESRCH);
    return 0;
}
