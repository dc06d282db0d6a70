/* get_robust_list (the caller, another thread of the process, another process, errors),
 * restart_syscall with no restart pending, and the struct timex calls (adjtimex,
 * clock_adjtime and on 32-bit arches clock_adjtime64): reads that any process may make, and
 * a change refused with EPERM once CAP_SYS_TIME is dropped. */
#include "common.h"
#include <linux/capability.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>

static long get_robust(int pid, void **head, size_t *len)
{
    return syscall(SYS_get_robust_list, pid, head, len);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage;
static pid_t thread_tid;
static void *thread_head;

static void *thread_main(void *arg)
{
    (void)arg;
    size_t len;
    CHECK(get_robust(0, &thread_head, &len) == 0);
    pthread_mutex_lock(&mu);
    thread_tid = gettid();
    stage = 1;
    pthread_cond_broadcast(&cv);
    while (stage != 2)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void robust_lists(void)
{
    void *head = (void *)1;
    size_t len = 0;
    /* glibc registers each thread's list when it starts. */
    CHECK(get_robust(0, &head, &len) == 0);
    printf("own list set by libc: %s, len is three pointers: %s\n", head ? "yes" : "no",
           len == 3 * sizeof(void *) ? "yes" : "no");
    void *glibc_head = head;
    static struct {
        void *next;
        long offset;
        void *pending;
    } mine = { &mine, 0, NULL };
    CHECK(syscall(SYS_set_robust_list, &mine, sizeof mine) == 0);
    CHECK(get_robust(0, &head, &len) == 0 && head == &mine);
    CHECK(get_robust(gettid(), &head, &len) == 0 && head == &mine);
    CHECK(get_robust(getpid(), &head, &len) == 0 && head == &mine);
    printf("set_robust_list then get_robust_list: same head\n");
    CHECK(syscall(SYS_set_robust_list, glibc_head, sizeof mine) == 0);

    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_main, NULL) == 0);
    pthread_mutex_lock(&mu);
    while (stage != 1)
        pthread_cond_wait(&cv, &mu);
    CHECK(get_robust(thread_tid, &head, &len) == 0);
    printf("another thread's head: %s\n", head == thread_head && head != glibc_head ? "its own" : "wrong");
    stage = 2;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    CHECK(pthread_join(th, NULL) == 0);

    printf("parent process: %ld\n", get_robust(getppid(), &head, &len));
    EXPECT_ERR("no such thread", get_robust(0x7fffffff, &head, &len), ESRCH);
    EXPECT_ERR("negative pid", get_robust(-1, &head, &len), ESRCH);
    EXPECT_ERR("bad head pointer", get_robust(0, (void *)16, &len), EFAULT);
    EXPECT_ERR("bad len pointer", get_robust(0, &head, (void *)16), EFAULT);

    /* A process that may not ptrace the target gets EPERM: a child without privileges asks
     * about its non-dumpable parent. */
    CHECK(prctl(PR_SET_DUMPABLE, 0) == 0);
    pid_t parent = getpid();
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        if (geteuid() == 0)
            CHECK(setresgid(65534, 65534, 65534) == 0 && setresuid(65534, 65534, 65534) == 0);
        errno = 0;
        long r = get_robust(parent, &head, &len);
        printf("unprivileged child about its parent: %s\n", r == -1 ? errname(errno) : "allowed");
        fflush(stdout);
        _exit(0);
    }
    int st;
    CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK(prctl(PR_SET_DUMPABLE, 1) == 0);
}

static void restart(void)
{
    EXPECT_ERR("restart_syscall with nothing to restart", syscall(SYS_restart_syscall), EINTR);
}

/* Drops CAP_SYS_TIME from the effective set, so that a clock change is refused natively too. */
static void drop_sys_time(void)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    CHECK(syscall(SYS_capget, &h, d) == 0);
    d[CAP_SYS_TIME / 32].effective &= ~(1u << (CAP_SYS_TIME % 32));
    CHECK(syscall(SYS_capset, &h, d) == 0);
}

static void timex_calls(void)
{
    struct timex a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    long r = syscall(SYS_adjtimex, &a);
    printf("adjtimex read: %s\n", r >= TIME_OK && r <= TIME_ERROR ? "a clock state" : "wrong");
    struct timeval now;
    gettimeofday(&now, NULL);
    long diff = (long)now.tv_sec - (long)a.time.tv_sec;
    printf("  its time is now: %s\n", diff >= 0 && diff < 60 ? "yes" : "no");
    r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &b);
    printf("clock_adjtime(CLOCK_REALTIME) read: %s\n", r >= TIME_OK && r <= TIME_ERROR ? "a clock state" : "wrong");
    printf("  same tick, tolerance and status bits: %s\n",
           a.tick == b.tick && a.tolerance == b.tolerance && a.status == b.status ? "yes" : "no");
    printf("  tick is 1/USER_HZ in us: %s\n", a.tick == 1000000 / sysconf(_SC_CLK_TCK) ? "yes" : "no");
#if defined(SYS_clock_adjtime64) && SYS_clock_adjtime64 != SYS_clock_adjtime
    /* struct __kernel_timex: the members of struct timex, 64 bits wide. */
    struct {
        unsigned modes;
        int : 32;
        long long offset, freq, maxerror, esterror;
        int status;
        int : 32;
        long long constant, precision, tolerance, tv_sec, tv_usec, tick, ppsfreq, jitter;
        int shift;
        int : 32;
        long long stabil, jitcnt, calcnt, errcnt, stbcnt;
        int tai;
        int pad[11];
    } k;
    memset(&k, 0, sizeof k);
    r = syscall(SYS_clock_adjtime64, CLOCK_REALTIME, &k);
    CHECK(r >= TIME_OK && r <= TIME_ERROR && sizeof k == 208);
    CHECK(k.tick == a.tick && k.tolerance == a.tolerance && k.status == a.status);
    CHECK(k.tv_sec - (long long)now.tv_sec < 60 && k.tv_sec >= (long long)a.time.tv_sec);
#endif
    printf("clock_adjtime64 where it exists: the same\n");
    memset(&b, 0, sizeof b);
    b.modes = ADJ_OFFSET_SS_READ;
    r = syscall(SYS_adjtimex, &b);
    printf("ADJ_OFFSET_SS_READ: %s\n", r >= TIME_OK && r <= TIME_ERROR ? "a clock state" : "wrong");
    memset(&b, 0, sizeof b);
    EXPECT_ERR("clock_adjtime(CLOCK_MONOTONIC)", syscall(SYS_clock_adjtime, CLOCK_MONOTONIC, &b), EOPNOTSUPP);
    EXPECT_ERR("clock_adjtime(no such clock)", syscall(SYS_clock_adjtime, 12345, &b), EINVAL);
    EXPECT_ERR("adjtimex(bad pointer)", syscall(SYS_adjtimex, (void *)16), EFAULT);
    drop_sys_time();
    b = a;
    b.modes = ADJ_FREQUENCY;
    EXPECT_ERR("adjtimex(ADJ_FREQUENCY) without CAP_SYS_TIME", syscall(SYS_adjtimex, &b), EPERM);
    b = a;
    b.modes = ADJ_OFFSET_SINGLESHOT;
    b.offset = 0;
    EXPECT_ERR("adjtimex(ADJ_OFFSET_SINGLESHOT) without CAP_SYS_TIME", syscall(SYS_adjtimex, &b), EPERM);
    b = a;
    b.modes = ADJ_STATUS;
    EXPECT_ERR("clock_adjtime(CLOCK_REALTIME, ADJ_STATUS) without CAP_SYS_TIME",
               syscall(SYS_clock_adjtime, CLOCK_REALTIME, &b), EPERM);
    b.modes = ADJ_STATUS;
    EXPECT_ERR("clock_adjtime(CLOCK_MONOTONIC, ADJ_STATUS)", syscall(SYS_clock_adjtime, CLOCK_MONOTONIC, &b),
               EOPNOTSUPP);
}

int main(void)
{
    robust_lists();
    restart();
    timex_calls();
    return 0;
}
