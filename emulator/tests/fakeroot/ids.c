/* Faked credentials under endgate --fakeroot (emulator/tests/fakeroot.rs): prints the ids,
 * groups and capability sets after each set*id call. */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *what) {
    uid_t r, e, s;
    gid_t gr, ge, gs;
    gid_t groups[16];
    getresuid(&r, &e, &s);
    getresgid(&gr, &ge, &gs);
    int n = getgroups(16, groups);
    printf("%s: uid %u euid %u res %u,%u,%u gid %u egid %u res %u,%u,%u groups", what, getuid(), geteuid(), r, e, s,
           getgid(), getegid(), gr, ge, gs);
    for (int i = 0; i < n; i++)
        printf(" %u", groups[i]);
    printf("\n");
}

int main(void) {
    show("start");
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2] = {{0}};
    long rc = syscall(SYS_capget, &hdr, data);
    printf("capget %ld: effective %s, permitted %s\n", rc, data[0].effective == 0xffffffffu ? "full" : "not full",
           data[0].permitted == 0xffffffffu ? "full" : "not full");
    gid_t g[2] = {4, 5};
    printf("setgroups %d\n", setgroups(2, g));
    printf("setresgid %d\n", setresgid(1, 2, 3));
    show("after setgroups, setresgid");
    printf("setuid(5) %d\n", setuid(5));
    show("after setuid(5)");
    printf("setuid(0) %d\n", setuid(0));
    show("after setuid(0)");
    printf("setresuid(7,8,9) %d\n", setresuid(7, 8, 9));
    printf("setfsuid(-1) %d\n", setfsuid(-1));
    printf("setreuid(-1,10) %d\n", setreuid(-1, 10));
    show("end");
    return 0;
}
