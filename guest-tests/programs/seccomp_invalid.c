/* What seccomp(2) refuses: programs the kernel's checker rejects (EINVAL: empty, longer than
 * 4096, no final return, a jump past the end, an unaligned or out-of-range load, a byte load,
 * BPF_MOD, a division by a constant 0, a scratch word read before it is stored), unknown
 * operations and flags (EINVAL), a bad pointer (EFAULT), a filter without no_new_privs or
 * CAP_SYS_ADMIN (EACCES); SECCOMP_GET_ACTION_AVAIL for the actions; prctl(PR_SET_SECCOMP)
 * with an unknown mode; TSYNC with a thread whose filter is not an ancestor gives its id. */
#include "common.h"
#include "seccomp_filter.h"
#include <linux/capability.h>
#include <pthread.h>
#include <sys/wait.h>

static struct sock_filter big[4097];

static void try(const char *what, struct sock_filter *f, unsigned short n)
{
    errno = 0;
    long r = install(f, n, 0);
    printf("%s: %s\n", what, r == -1 ? errname(errno) : "accepted");
}

static void action(const char *name, unsigned a)
{
    errno = 0;
    long r = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &a);
    printf("SECCOMP_GET_ACTION_AVAIL %s: %s\n", name, r == 0 ? "available" : errname(errno));
}

static volatile int go_on;
static void *wait_thread(void *arg)
{
    struct sock_filter f[] = {ALLOW};
    if (install(f, 1, 0) != 0)
        return (void *)1;
    go_on = 1;
    while (go_on != 2)
        usleep(1000);
    return arg;
}

int main(void)
{
    /* Without no_new_privs and without CAP_SYS_ADMIN: EACCES (a child drops the capability). */
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct d[2];
        CHECK(syscall(SYS_capget, &h, d) == 0);
        d[0].effective &= ~(1u << CAP_SYS_ADMIN);
        CHECK(syscall(SYS_capset, &h, d) == 0);
        struct sock_filter f[] = {ALLOW};
        try("no no_new_privs, no CAP_SYS_ADMIN", f, 1);
        fflush(stdout);
        _exit(0);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c);

    CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
    struct sock_filter ok[] = {ALLOW};
    try("length 0", ok, 0);
    for (int i = 0; i < 4097; i++)
        big[i] = (struct sock_filter)ALLOW;
    try("length 4097", big, 4097);
    struct sock_filter no_ret[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0)};
    try("no final return", no_ret, 1);
    struct sock_filter jump_out[] = {BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0), ALLOW};
    try("a jump past the end", jump_out, 2);
    struct sock_filter unaligned[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2), ALLOW};
    try("an unaligned load", unaligned, 2);
    struct sock_filter beyond[] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64), ALLOW};
    try("a load beyond seccomp_data", beyond, 2);
    struct sock_filter byte[] = {BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), ALLOW};
    try("a byte load", byte, 2);
    struct sock_filter mod[] = {BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, 3), ALLOW};
    try("BPF_MOD", mod, 2);
    struct sock_filter div0[] = {BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0), ALLOW};
    try("a division by a constant 0", div0, 2);
    struct sock_filter scratch[] = {BPF_STMT(BPF_LD | BPF_MEM, 3), ALLOW};
    try("a scratch word read before a store", scratch, 2);

    struct sock_fprog p = {.len = 1, .filter = ok};
    EXPECT_ERR("unknown flag", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0x400, &p), EINVAL);
    EXPECT_ERR("unknown operation", syscall(SYS_seccomp, 99, 0, &p), EINVAL);
    EXPECT_ERR("a bad sock_fprog pointer", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, (void *)8), EFAULT);
    struct sock_fprog badf = {.len = 1, .filter = (struct sock_filter *)8};
    EXPECT_ERR("a bad filter pointer", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &badf), EFAULT);
    EXPECT_ERR("prctl PR_SET_SECCOMP mode 3", prctl(PR_SET_SECCOMP, 3, 0, 0, 0), EINVAL);
    EXPECT_ERR("GET_ACTION_AVAIL with flags", syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 1, &p), EINVAL);

    action("KILL_PROCESS", SECCOMP_RET_KILL_PROCESS);
    action("KILL_THREAD", SECCOMP_RET_KILL_THREAD);
    action("TRAP", SECCOMP_RET_TRAP);
    action("ERRNO", SECCOMP_RET_ERRNO);
    action("TRACE", SECCOMP_RET_TRACE);
    action("LOG", SECCOMP_RET_LOG);
    action("ALLOW", SECCOMP_RET_ALLOW);
    action("0x12340000", 0x12340000);

    /* TSYNC while another thread has a filter of its own: the call returns that thread's id. */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, wait_thread, NULL) == 0);
    while (!go_on)
        usleep(1000);
    long r = install(ok, 1, SECCOMP_FILTER_FLAG_TSYNC);
    printf("TSYNC against a thread with its own filter: %s\n", r > 0 ? "its thread id" : r == 0 ? "0" : errname(errno));
    errno = 0;
    r = install(ok, 1, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH);
    printf("the same with TSYNC_ESRCH: %s\n", r == -1 ? errname(errno) : "no error");
    go_on = 2;
    CHECK(pthread_join(t, NULL) == 0);
    printf("valid filter: %s\n", install(ok, 1, SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG) == 0 ? "installed" : errname(errno));
    return 0;
}
