/* The old forms of calls that 32-bit libcs no longer make, made with syscall(): oldstat,
 * oldlstat, oldfstat (struct __old_kernel_stat), olduname, oldolduname, readdir (one struct
 * old_linux_dirent per call), waitpid, signal, sigaction (struct old_sigaction), sigpending,
 * sigprocmask, sigsuspend (the three-argument form), sgetmask, ssetmask, ulimit.
 *
 * Only some arches number them (i386 all; arm the sig* calls; s390x signal and the sig*
 * calls, its readdir being sys_ni_syscall). Each section checks its call where the arch's
 * headers define it, against what the current calls report (stat, uname, getdents64,
 * rt_sigprocmask...), and prints the same "<name>: ok" line everywhere, so that the x86_64
 * run, which has none of them, gives the expected output; a native i386 run gives the same. */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static volatile int usr1_hits, usr2_hits;
static volatile int usr1_blocked_inside, usr2_blocked_inside, rt_blocked_inside;

static int blocked(int sig)
{
    sigset_t s;
    CHECK(sigprocmask(SIG_BLOCK, NULL, &s) == 0);
    return sigismember(&s, sig);
}

static void on_usr1(int sig)
{
    (void)sig;
    usr1_hits++;
    usr1_blocked_inside = blocked(SIGUSR1);
    usr2_blocked_inside = blocked(SIGUSR2);
    rt_blocked_inside = blocked(SIGRTMIN + 6);
}

static void on_usr2(int sig)
{
    (void)sig;
    usr2_hits++;
    usr1_blocked_inside = blocked(SIGUSR1);
    usr2_blocked_inside = blocked(SIGUSR2);
}

static void set_rt_mask(int a, int b)
{
    sigset_t s;
    sigemptyset(&s);
    if (a)
        sigaddset(&s, a);
    if (b)
        sigaddset(&s, b);
    CHECK(sigprocmask(SIG_SETMASK, &s, NULL) == 0);
}

static void ok(const char *name)
{
    printf("%s: ok\n", name);
}

/* The bit of `sig` in an old_sigset_t (one unsigned long). */
#define OLDBIT(sig) (1UL << ((sig) - 1))

#ifdef __NR_oldstat
struct old_kernel_stat {
    unsigned short st_dev, st_ino, st_mode, st_nlink, st_uid, st_gid, st_rdev;
    unsigned long st_size, st_atime_, st_mtime_, st_ctime_;
};

static unsigned short low16(unsigned id)
{
    return id > 0xffff ? 65534 : id;
}

/* Checks one old stat call against stat64's view of the same file. */
static void check_old_stat(long r, int e, const struct old_kernel_stat *o, const struct stat *st)
{
    if (st->st_ino > 0xffff || st->st_nlink > 0xffff) {
        CHECK(r == -1 && e == EOVERFLOW);
        return;
    }
    CHECK(r == 0);
    CHECK(o->st_ino == st->st_ino);
    CHECK(o->st_mode == (unsigned short)st->st_mode);
    CHECK(o->st_nlink == st->st_nlink);
    CHECK(o->st_uid == low16(st->st_uid) && o->st_gid == low16(st->st_gid));
    CHECK(o->st_dev == (unsigned short)((major(st->st_dev) << 8) | minor(st->st_dev)));
    CHECK(o->st_size == (unsigned long)st->st_size);
    CHECK(o->st_mtime_ == (unsigned long)st->st_mtime);
}
#endif

static void old_stat_calls(void)
{
#ifdef __NR_oldstat
    struct stat st;
    struct old_kernel_stat o;
    long r;
    CHECK(close(open("f", O_CREAT | O_WRONLY, 0644)) == 0);
    CHECK(truncate("f", 12345) == 0);
    CHECK(symlink("f", "l") == 0);
    const char *paths[] = { "/", "f", "." };
    for (unsigned i = 0; i < 3; i++) {
        CHECK(stat(paths[i], &st) == 0);
        memset(&o, 0xa5, sizeof o);
        errno = 0;
        r = syscall(__NR_oldstat, paths[i], &o);
        check_old_stat(r, errno, &o, &st);
    }
    CHECK(lstat("l", &st) == 0);
    errno = 0;
    r = syscall(__NR_oldlstat, "l", &o);
    check_old_stat(r, errno, &o, &st);
    CHECK(r != 0 || S_ISLNK(o.st_mode));
    int fd = open("f", O_RDONLY);
    CHECK(fd >= 0 && fstat(fd, &st) == 0);
    errno = 0;
    r = syscall(__NR_oldfstat, fd, &o);
    check_old_stat(r, errno, &o, &st);
    close(fd);
    CHECK(syscall(__NR_oldstat, "missing", &o) == -1 && errno == ENOENT);
    CHECK(syscall(__NR_oldfstat, 999, &o) == -1 && errno == EBADF);
    CHECK(stat("/", &st) == 0);
    if (st.st_ino <= 0xffff)
        CHECK(syscall(__NR_oldstat, "/", (void *)16) == -1 && errno == EFAULT);
#endif
    ok("oldstat, oldlstat, oldfstat");
}

static void old_uname_calls(void)
{
#ifdef __NR_olduname
    struct utsname u;
    CHECK(uname(&u) == 0);
    char old[5][65];
    memset(old, 0x5a, sizeof old);
    CHECK(syscall(__NR_olduname, old) == 0);
    const char *want[5] = { u.sysname, u.nodename, u.release, u.version, u.machine };
    for (int i = 0; i < 5; i++)
        CHECK(strcmp(old[i], want[i]) == 0);
    unsigned char oo[5 * 9 + 4];
    memset(oo, 0x5a, sizeof oo);
    CHECK(syscall(__NR_oldolduname, oo) == 0);
    for (int i = 0; i < 5; i++) {
        CHECK(strncmp((char *)oo + 9 * i, want[i], 8) == 0);
        CHECK(oo[9 * i + 8] == 0);
    }
    CHECK(oo[45] == 0x5a);
    CHECK(syscall(__NR_olduname, (void *)16) == -1 && errno == EFAULT);
    CHECK(syscall(__NR_oldolduname, (void *)16) == -1 && errno == EFAULT);
#endif
    ok("olduname, oldolduname");
}

static void readdir_call(void)
{
#ifdef __NR_readdir
    CHECK(mkdir("d", 0755) == 0);
    const char *names[] = { "a", "bb", "a_rather_longer_name_than_the_others" };
    for (int i = 0; i < 3; i++) {
        char p[64];
        snprintf(p, sizeof p, "d/%s", names[i]);
        CHECK(close(open(p, O_CREAT | O_WRONLY, 0644)) == 0);
    }
    int fd = open("d", O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0);
    struct {
        unsigned long d_ino, d_offset;
        unsigned short d_namlen;
        char d_name[300];
    } e;
#ifdef __s390x__
    /* The 64-bit s390 kernel leaves readdir to sys_ni_syscall. */
    CHECK(syscall(__NR_readdir, fd, &e, 1) == -1 && errno == ENOSYS);
#else
    int seen = 0, n = 0;
    long r;
    /* Two entries by readdir, the rest by getdents64: nothing is skipped or repeated. */
    while (n < 2 && (r = syscall(__NR_readdir, fd, &e, 1)) == 1) {
        CHECK(e.d_namlen == strlen(e.d_name));
        struct stat st;
        char p[320];
        snprintf(p, sizeof p, "d/%s", e.d_name);
        CHECK(stat(p, &st) == 0 && st.st_ino == e.d_ino);
        for (int i = 0; i < 3; i++)
            if (strcmp(e.d_name, names[i]) == 0)
                seen |= 1 << i;
        if (strcmp(e.d_name, ".") == 0)
            seen |= 8;
        if (strcmp(e.d_name, "..") == 0)
            seen |= 16;
        n++;
    }
    char buf[4096];
    long got;
    while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            for (int i = 0; i < 3; i++)
                if (strcmp(d->d_name, names[i]) == 0)
                    seen |= 1 << i;
            if (strcmp(d->d_name, ".") == 0)
                seen |= 8;
            if (strcmp(d->d_name, "..") == 0)
                seen |= 16;
            n++;
            off += d->d_reclen;
        }
    }
    CHECK(n == 5 && seen == 31);
    /* From the start again, all five by readdir; then 0 at the end. */
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    for (n = 0; (r = syscall(__NR_readdir, fd, &e, 1)) == 1; n++)
        ;
    CHECK(r == 0 && n == 5);
    CHECK(syscall(__NR_readdir, fd, &e, 1) == 0);
    /* A bad buffer leaves the entry for the next call. */
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    CHECK(syscall(__NR_readdir, fd, (void *)16, 1) == -1 && errno == EFAULT);
    for (n = 0; syscall(__NR_readdir, fd, &e, 1) == 1; n++)
        ;
    CHECK(n == 5);
    CHECK(syscall(__NR_readdir, 999, &e, 1) == -1 && errno == EBADF);
    int f = open("d/a", O_RDONLY);
    CHECK(syscall(__NR_readdir, f, &e, 1) == -1 && errno == ENOTDIR);
    close(f);
#endif
    close(fd);
#endif
    ok("readdir");
}

static void waitpid_call(void)
{
#ifdef __NR_waitpid
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0)
        _exit(7);
    int st = 0;
    CHECK(syscall(__NR_waitpid, p, &st, 0) == p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
    CHECK(syscall(__NR_waitpid, -1, &st, 0) == -1 && errno == ECHILD);
#endif
    ok("waitpid");
}

static void signal_call(void)
{
#ifdef __NR_signal
    CHECK(syscall(__NR_signal, SIGUSR1, on_usr1) == (long)SIG_DFL);
    CHECK(syscall(__NR_signal, SIGUSR1, on_usr1) == (long)on_usr1);
    set_rt_mask(0, 0);
    usr1_hits = 0;
    CHECK(raise(SIGUSR1) == 0);
    /* SA_NODEFER: not blocked in the handler; SA_RESETHAND: the default afterwards, the
     * flags kept. */
    CHECK(usr1_hits == 1 && !usr1_blocked_inside);
    struct sigaction sa;
    CHECK(sigaction(SIGUSR1, NULL, &sa) == 0);
    CHECK(sa.sa_handler == SIG_DFL);
    CHECK((sa.sa_flags & (SA_RESETHAND | SA_NODEFER)) == (SA_RESETHAND | SA_NODEFER));
    CHECK(syscall(__NR_signal, SIGUSR1, SIG_IGN) == (long)SIG_DFL);
    CHECK(raise(SIGUSR1) == 0);
    CHECK(syscall(__NR_signal, SIGUSR1, SIG_DFL) == (long)SIG_IGN);
    CHECK(syscall(__NR_signal, SIGKILL, on_usr1) == -1 && errno == EINVAL);
    CHECK(syscall(__NR_signal, SIGSTOP, SIG_IGN) == -1 && errno == EINVAL);
    CHECK(syscall(__NR_signal, 0, on_usr1) == -1 && errno == EINVAL);
    CHECK(syscall(__NR_signal, 65, on_usr1) == -1 && errno == EINVAL);
#endif
    ok("signal");
}

#ifdef __NR_sigaction
struct old_sigaction {
    unsigned long handler, mask, flags, restorer;
};
#endif

static void sigaction_call(void)
{
#ifdef __NR_sigaction
    struct old_sigaction o = { (unsigned long)on_usr2, OLDBIT(SIGUSR1), SA_RESTART, 0 }, old;
    memset(&old, 0x5a, sizeof old);
    CHECK(syscall(__NR_sigaction, SIGUSR2, &o, &old) == 0);
    CHECK(old.handler == (unsigned long)SIG_DFL && old.mask == 0);
    struct sigaction sa;
    CHECK(sigaction(SIGUSR2, NULL, &sa) == 0);
    CHECK(sa.sa_handler == on_usr2 && (sa.sa_flags & SA_RESTART));
    CHECK(sigismember(&sa.sa_mask, SIGUSR1) && !sigismember(&sa.sa_mask, SIGUSR2));
    set_rt_mask(0, 0);
    usr2_hits = 0;
    CHECK(raise(SIGUSR2) == 0);
    CHECK(usr2_hits == 1 && usr1_blocked_inside && usr2_blocked_inside);
    CHECK(!blocked(SIGUSR1) && !blocked(SIGUSR2));
    /* A mask set through rt_sigaction reads back as its first word. */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    sigaddset(&sa.sa_mask, SIGRTMIN + 6);
    sa.sa_handler = on_usr2;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    CHECK(syscall(__NR_sigaction, SIGUSR2, NULL, &old) == 0);
    unsigned long want = OLDBIT(SIGUSR1);
    if (sizeof(long) == 8)
        want |= OLDBIT(SIGRTMIN + 6);
    CHECK(old.handler == (unsigned long)on_usr2 && old.mask == want && (old.flags & SA_RESTART));
    /* A new one-word mask drops the signals above it. */
    CHECK(syscall(__NR_sigaction, SIGUSR2, &old, NULL) == 0);
    CHECK(sigaction(SIGUSR2, NULL, &sa) == 0);
    CHECK(sigismember(&sa.sa_mask, SIGRTMIN + 6) == (sizeof(long) == 8));
    CHECK(syscall(__NR_sigaction, SIGKILL, &o, NULL) == -1 && errno == EINVAL);
    CHECK(syscall(__NR_sigaction, SIGKILL, NULL, &old) == 0);
    CHECK(syscall(__NR_sigaction, 0, NULL, &old) == -1 && errno == EINVAL);
    CHECK(syscall(__NR_sigaction, SIGUSR2, (void *)16, NULL) == -1 && errno == EFAULT);
    CHECK(syscall(__NR_sigaction, SIGUSR2, NULL, (void *)16) == -1 && errno == EFAULT);
    signal(SIGUSR2, SIG_DFL);
#endif
    ok("sigaction");
}

static void sigprocmask_call(void)
{
#ifdef __NR_sigprocmask
    set_rt_mask(SIGUSR1, SIGRTMIN + 6);
    unsigned long set = OLDBIT(SIGUSR2), old = 0x5a;
    CHECK(syscall(__NR_sigprocmask, SIG_SETMASK, &set, &old) == 0);
    unsigned long want = OLDBIT(SIGUSR1);
    if (sizeof(long) == 8)
        want |= OLDBIT(SIGRTMIN + 6);
    CHECK(old == want);
    /* SIG_SETMASK replaces the first word only. */
    CHECK(blocked(SIGUSR2) && !blocked(SIGUSR1));
    CHECK(blocked(SIGRTMIN + 6) == (sizeof(long) == 4));
    set = OLDBIT(SIGUSR1) | OLDBIT(SIGKILL);
    CHECK(syscall(__NR_sigprocmask, SIG_BLOCK, &set, NULL) == 0);
    CHECK(blocked(SIGUSR1) && blocked(SIGUSR2) && !blocked(SIGKILL));
    set = OLDBIT(SIGUSR2);
    CHECK(syscall(__NR_sigprocmask, SIG_UNBLOCK, &set, &old) == 0);
    CHECK((old & OLDBIT(SIGUSR2)) && blocked(SIGUSR1) && !blocked(SIGUSR2));
    CHECK(syscall(__NR_sigprocmask, 7, &set, NULL) == -1 && errno == EINVAL);
    CHECK(syscall(__NR_sigprocmask, 7, NULL, &old) == 0 && (old & OLDBIT(SIGUSR1)));
    CHECK(syscall(__NR_sigprocmask, SIG_BLOCK, (void *)16, NULL) == -1 && errno == EFAULT);
    set_rt_mask(0, 0);
#endif
    ok("sigprocmask");
}

static void sigpending_call(void)
{
#ifdef __NR_sigpending
    struct sigaction sa = { 0 };
    sa.sa_handler = on_usr1;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    set_rt_mask(SIGUSR1, 0);
    CHECK(raise(SIGUSR1) == 0);
    unsigned long pend = 0;
    CHECK(syscall(__NR_sigpending, &pend) == 0);
    CHECK(pend == OLDBIT(SIGUSR1));
    CHECK(syscall(__NR_sigpending, (void *)16) == -1 && errno == EFAULT);
    usr1_hits = 0;
    set_rt_mask(0, 0);
    CHECK(usr1_hits == 1);
    signal(SIGUSR1, SIG_DFL);
#endif
    ok("sigpending");
}

static void sigsuspend_call(void)
{
#ifdef __NR_sigsuspend
    struct sigaction sa = { 0 };
    sa.sa_handler = on_usr1;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    set_rt_mask(SIGUSR1, SIGRTMIN + 6);
    CHECK(raise(SIGUSR1) == 0);
    usr1_hits = 0;
    /* The mask is the third argument; the signals above its word are unblocked. */
    errno = 0;
    CHECK(syscall(__NR_sigsuspend, OLDBIT(SIGUSR1), OLDBIT(SIGUSR1), OLDBIT(SIGUSR2)) == -1 && errno == EINTR);
    CHECK(usr1_hits == 1 && usr1_blocked_inside && usr2_blocked_inside && !rt_blocked_inside);
    CHECK(blocked(SIGUSR1) && !blocked(SIGUSR2) && blocked(SIGRTMIN + 6));
    set_rt_mask(0, 0);
    signal(SIGUSR1, SIG_DFL);
#endif
    ok("sigsuspend");
}

static void sgetmask_calls(void)
{
#ifdef __NR_sgetmask
    set_rt_mask(SIGUSR1, SIGRTMIN + 6);
    CHECK(syscall(__NR_sgetmask) == (long)OLDBIT(SIGUSR1));
    CHECK(syscall(__NR_ssetmask, OLDBIT(SIGUSR2) | OLDBIT(SIGKILL)) == (long)OLDBIT(SIGUSR1));
    CHECK(blocked(SIGUSR2) && !blocked(SIGUSR1) && !blocked(SIGKILL) && !blocked(SIGRTMIN + 6));
    CHECK(syscall(__NR_sgetmask) == (long)OLDBIT(SIGUSR2));
    CHECK(syscall(__NR_ssetmask, 0) == (long)OLDBIT(SIGUSR2));
#endif
    ok("sgetmask, ssetmask");
}

static void ulimit_call(void)
{
#ifdef __NR_ulimit
    /* Never implemented by Linux (sys_ni_syscall). */
    CHECK(syscall(__NR_ulimit, 1, 0) == -1 && errno == ENOSYS);
#endif
    ok("ulimit");
}

int main(void)
{
    old_stat_calls();
    old_uname_calls();
    readdir_call();
    waitpid_call();
    signal_call();
    sigaction_call();
    sigprocmask_call();
    sigpending_call();
    sigsuspend_call();
    sgetmask_calls();
    ulimit_call();
    return 0;
}
