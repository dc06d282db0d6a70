/* The constants each arch numbers its own way, at run time (docs/constants.md): open flags
 * read back with F_GETFL (O_DIRECTORY, O_NOFOLLOW, O_PATH, O_LARGEFILE, O_APPEND, O_NONBLOCK,
 * O_DSYNC, O_SYNC, O_NOATIME, O_ASYNC, O_TMPFILE), poll's POLLWRNORM/POLLWRBAND, mmap flags that MIPS moves
 * (MAP_NORESERVE, MAP_POPULATE, MAP_LOCKED, MAP_STACK, MAP_GROWSDOWN), mprotect with the
 * arch's PROT_SEM, every posix_fadvise advice (s390x numbers two its own way), socket types
 * with SOCK_NONBLOCK|SOCK_CLOEXEC (socket, accept4), options at the arch's SOL_SOCKET (SO_TYPE, SO_RCVBUF
 * doubling, SO_REUSEADDR, SO_KEEPALIVE, SO_RCVLOWAT, SO_LINGER, SO_PROTOCOL, SO_DOMAIN,
 * SO_ACCEPTCONN), SO_ERROR of a refused connect and SIOCATMARK, signals delivered by number
 * and seen by name, and termios bits and c_cc slots that MIPS moves (IEXTEN, TOSTOP, FLUSHO,
 * VEOF, VEOL, VEOL2, VMIN, VTIME) on a pseudo-terminal. */
#include "common.h"
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>

/* The kernel's O_LARGEFILE, which F_GETFL reports on every arch (the kernel forces it on
 * 64-bit; 32-bit glibc sets it): glibc spells it 0 on 64-bit arches, so the arch's value is
 * written out (arch/arm64, arch/arm, arch/mips uapi asm/fcntl.h; asm-generic otherwise). */
#if defined(__aarch64__) || defined(__arm__)
#define KERNEL_O_LARGEFILE 0400000
#elif defined(__mips__)
#define KERNEL_O_LARGEFILE 0x2000
#else
#define KERNEL_O_LARGEFILE 0100000
#endif

/* PROT_SEM: arch/mips/include/uapi/asm/mman.h 0x10, asm-generic 0x8 (glibc has no name). */
#ifdef __mips__
#define ARCH_PROT_SEM 0x10
#else
#define ARCH_PROT_SEM 0x8
#endif

static void getfl(const char *label, int fd, int want)
{
    int fl = fcntl(fd, F_GETFL);
    printf("%s: %s\n", label, fl == -1 ? errname(errno) : (fl & want) == want ? "set" : "missing");
}

static void open_flags(void)
{
    int fd = open("file", O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(fd >= 0);
    getfl("O_LARGEFILE after open", fd, KERNEL_O_LARGEFILE);
    printf("access mode: %d\n", fcntl(fd, F_GETFL) & O_ACCMODE);
    CHECK(fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK) == 0);
    getfl("F_SETFL O_APPEND", fd, O_APPEND);
    getfl("F_SETFL O_NONBLOCK", fd, O_NONBLOCK);
    CHECK(fcntl(fd, F_SETFL, O_NOATIME) == 0);
    getfl("F_SETFL O_NOATIME", fd, O_NOATIME);
    printf("O_APPEND cleared: %d\n", (fcntl(fd, F_GETFL) & O_APPEND) == 0);
    CHECK(write(fd, "abc", 3) == 3);
    close(fd);

    fd = open("file", O_WRONLY | O_APPEND | O_DSYNC);
    CHECK(fd >= 0);
    getfl("open O_DSYNC", fd, O_DSYNC);
    printf("O_DSYNC is not O_SYNC: %d\n", (fcntl(fd, F_GETFL) & O_SYNC) != O_SYNC);
    CHECK(write(fd, "d", 1) == 1);
    close(fd);
    fd = open("file", O_WRONLY | O_SYNC | O_CLOEXEC);
    CHECK(fd >= 0);
    getfl("open O_SYNC", fd, O_SYNC);
    printf("O_CLOEXEC: FD_CLOEXEC %d\n", fcntl(fd, F_GETFD) == FD_CLOEXEC);
    close(fd);
    struct stat st;
    CHECK(stat("file", &st) == 0);
    printf("appended size: %lld\n", (long long)st.st_size);

    CHECK(mkdir("dir", 0755) == 0);
    fd = open("dir", O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0);
    getfl("open O_DIRECTORY", fd, O_DIRECTORY);
    close(fd);
    EXPECT_ERR("O_DIRECTORY on a file", open("file", O_RDONLY | O_DIRECTORY), ENOTDIR);
    EXPECT_ERR("O_CREAT|O_EXCL on a file", open("file", O_CREAT | O_EXCL | O_RDWR, 0644), EEXIST);
    CHECK(symlink("file", "link") == 0);
    EXPECT_ERR("O_NOFOLLOW on a symlink", open("link", O_RDONLY | O_NOFOLLOW), ELOOP);
    fd = open("link", O_PATH | O_NOFOLLOW);
    CHECK(fd >= 0);
    getfl("O_PATH|O_NOFOLLOW", fd, O_PATH | O_NOFOLLOW);
    close(fd);
    fd = open("link", O_RDONLY | O_NONBLOCK | O_NOCTTY);
    CHECK(fd >= 0);
    getfl("open O_NONBLOCK through a link", fd, O_NONBLOCK);
    close(fd);

    fd = open("dir", O_TMPFILE | O_RDWR, 0600);
    if (fd < 0) {
        printf("O_TMPFILE: %s\n", errname(errno));
    } else {
        getfl("O_TMPFILE", fd, O_TMPFILE);
        close(fd);
    }
    EXPECT_ERR("O_TMPFILE without write access", open("dir", O_TMPFILE | O_RDONLY, 0600), EINVAL);

    int p[2];
    CHECK(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0);
    getfl("pipe2 O_NONBLOCK", p[0], O_NONBLOCK);
    printf("pipe2 O_CLOEXEC: %d\n", fcntl(p[1], F_GETFD) == FD_CLOEXEC);
    char c;
    EXPECT_ERR("read an empty O_NONBLOCK pipe", read(p[0], &c, 1), EAGAIN);
    /* POLLWRNORM and POLLWRBAND (MIPS numbers them 0x4 and 0x100): a pipe with room is
     * writable (POLLOUT, POLLWRNORM) and has no priority band (POLLWRBAND). */
    struct pollfd pw[3] = {{p[1], POLLWRBAND, 0}, {p[1], POLLWRNORM, 0}, {p[1], POLLOUT | POLLWRBAND, 0}};
    printf("poll a pipe: %d\n", poll(pw, 3, 0));
    printf("POLLWRBAND: %d, POLLWRNORM: %d, POLLOUT|POLLWRBAND: %d, events kept %d\n", pw[0].revents == 0,
           pw[1].revents == POLLWRNORM, pw[2].revents == POLLOUT, pw[0].events == POLLWRBAND);
    struct timespec zero = {0, 0};
    pw[0].revents = 7;
    int pr = ppoll(pw, 1, &zero, NULL);
    printf("ppoll POLLWRBAND: %d revents %d\n", pr, pw[0].revents);
    CHECK(fcntl(p[0], F_SETFL, O_ASYNC) == 0);
    getfl("F_SETFL O_ASYNC", p[0], O_ASYNC);
    close(p[0]);
    close(p[1]);
    unlink("link");
    unlink("file");
    rmdir("dir");
}

static void mmap_flags(void)
{
    long page = sysconf(_SC_PAGESIZE);
    static const struct {
        const char *name;
        int flags;
    } maps[] = {
        {"MAP_NORESERVE", MAP_NORESERVE},
        {"MAP_POPULATE", MAP_POPULATE},
        {"MAP_LOCKED", MAP_LOCKED},
        {"MAP_STACK", MAP_STACK},
        {"MAP_NONBLOCK", MAP_NONBLOCK},
        {"MAP_GROWSDOWN", MAP_GROWSDOWN},
    };
    for (unsigned i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        char *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | maps[i].flags, -1, 0);
        if (m == MAP_FAILED) {
            printf("mmap %s: %s\n", maps[i].name, errname(errno));
            continue;
        }
        m[3 * page] = 7;
        printf("mmap %s: ok %d %d\n", maps[i].name, m[0], m[3 * page]);
        CHECK(munmap(m, 4 * page) == 0);
    }
    /* MAP_FIXED_NOREPLACE over a mapping. */
    char *m = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    EXPECT_ERR("MAP_FIXED_NOREPLACE over a mapping",
               (long)mmap(m, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0), EEXIST);
    printf("mprotect with the arch's PROT_SEM: %d\n", mprotect(m, page, PROT_READ | ARCH_PROT_SEM));
    CHECK(munmap(m, page) == 0);
}

static void fadvise(void)
{
    int fd = open("adv", O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, "0123456789", 10) == 10);
    static const struct {
        const char *name;
        int advice;
    } adv[] = {
        {"NORMAL", POSIX_FADV_NORMAL},     {"RANDOM", POSIX_FADV_RANDOM},   {"SEQUENTIAL", POSIX_FADV_SEQUENTIAL},
        {"WILLNEED", POSIX_FADV_WILLNEED}, {"DONTNEED", POSIX_FADV_DONTNEED}, {"NOREUSE", POSIX_FADV_NOREUSE},
    };
    for (unsigned i = 0; i < sizeof adv / sizeof adv[0]; i++) {
        int r = posix_fadvise(fd, 0, 10, adv[i].advice);
        printf("posix_fadvise %s: %s\n", adv[i].name, r ? errname(r) : "0");
    }
    int r = posix_fadvise(fd, 0, 10, 99);
    printf("posix_fadvise 99: %s\n", r ? errname(r) : "0");
    close(fd);
    unlink("adv");
}

static int getint(int s, int name)
{
    int v = -1;
    socklen_t l = sizeof v;
    if (getsockopt(s, SOL_SOCKET, name, &v, &l) != 0)
        return -1000 - errno;
    return v;
}

static void sockets(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    CHECK(s >= 0);
    printf("SOCK_NONBLOCK: %d, SOCK_CLOEXEC: %d\n", (fcntl(s, F_GETFL) & O_NONBLOCK) != 0,
           fcntl(s, F_GETFD) == FD_CLOEXEC);
    printf("SO_TYPE is SOCK_DGRAM: %d\n", getint(s, SO_TYPE) == SOCK_DGRAM);
    printf("SO_PROTOCOL is UDP: %d, SO_DOMAIN is AF_INET: %d\n", getint(s, SO_PROTOCOL) == IPPROTO_UDP,
           getint(s, SO_DOMAIN) == AF_INET);
    int v = 4096;
    CHECK(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof v) == 0);
    printf("SO_RCVBUF 4096 reads back %d\n", getint(s, SO_RCVBUF));
    v = 1;
    CHECK(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, sizeof v) == 0);
    printf("SO_REUSEADDR: %d\n", getint(s, SO_REUSEADDR));
    char c;
    EXPECT_ERR("recv on an empty SOCK_NONBLOCK socket", recv(s, &c, 1, 0), EAGAIN);
    EXPECT_ERR("unknown SOL_SOCKET option", setsockopt(s, SOL_SOCKET, 12345, &v, sizeof v), ENOPROTOOPT);
    close(s);

    int l = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(l >= 0);
    printf("SO_TYPE is SOCK_STREAM: %d\n", getint(l, SO_TYPE) == SOCK_STREAM);
    CHECK(setsockopt(l, SOL_SOCKET, SO_KEEPALIVE, &v, sizeof v) == 0);
    printf("SO_KEEPALIVE: %d\n", getint(l, SO_KEEPALIVE));
    v = 10;
    CHECK(setsockopt(l, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof v) == 0);
    printf("SO_RCVLOWAT: %d\n", getint(l, SO_RCVLOWAT));
    struct linger lg = {1, 5}, lg2 = {0, 0};
    socklen_t len = sizeof lg2;
    CHECK(setsockopt(l, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
    CHECK(getsockopt(l, SOL_SOCKET, SO_LINGER, &lg2, &len) == 0);
    printf("SO_LINGER: %d %d\n", lg2.l_onoff, lg2.l_linger);
    int mark = -1;
    printf("SIOCATMARK: %d\n", ioctl(l, SIOCATMARK, &mark));
    /* A port nobody listens on: bind a listener-less socket to learn a free port. */
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0);
    len = sizeof a;
    CHECK(getsockname(l, (struct sockaddr *)&a, &len) == 0);
    printf("SO_ACCEPTCONN before listen: %d\n", getint(l, SO_ACCEPTCONN));
    int c2 = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK(c2 >= 0);
    int r = connect(c2, (struct sockaddr *)&a, sizeof a);
    printf("nonblocking connect to a closed port: %s\n",
           r == 0 ? "0" : errno == EINPROGRESS || errno == ECONNREFUSED ? "refused or in progress" : errname(errno));
    close(c2);
    /* A datagram to a closed UDP port: the ICMP port-unreachable answer (never rate-limited on
     * loopback) leaves ECONNREFUSED pending on the socket, which poll reports as POLLERR. */
    int u0 = socket(AF_INET, SOCK_DGRAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(u0 >= 0 && u >= 0);
    struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(bind(u0, (struct sockaddr *)&ua, sizeof ua) == 0);
    len = sizeof ua;
    CHECK(getsockname(u0, (struct sockaddr *)&ua, &len) == 0);
    close(u0);
    CHECK(connect(u, (struct sockaddr *)&ua, sizeof ua) == 0);
    CHECK(send(u, "x", 1, 0) == 1);
    struct pollfd pfd = {u, POLLIN, 0};
    CHECK(poll(&pfd, 1, -1) == 1);
    printf("poll: POLLERR %d\n", !!(pfd.revents & POLLERR));
    int e = getint(u, SO_ERROR);
    printf("SO_ERROR: %s\n", e >= 0 ? errname(e) : "getsockopt failed");
    printf("SO_ERROR again: %d\n", getint(u, SO_ERROR));
    close(u);
    CHECK(listen(l, 1) == 0);
    printf("SO_ACCEPTCONN after listen: %d\n", getint(l, SO_ACCEPTCONN));
    /* accept4's flags are SOCK_NONBLOCK and SOCK_CLOEXEC (MIPS: 0x80 for the first). */
    int cl = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(cl >= 0);
    len = sizeof a;
    CHECK(getsockname(l, (struct sockaddr *)&a, &len) == 0);
    CHECK(connect(cl, (struct sockaddr *)&a, sizeof a) == 0);
    int ac = accept4(l, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    CHECK(ac >= 0);
    printf("accept4 SOCK_NONBLOCK: %d, SOCK_CLOEXEC: %d\n", (fcntl(ac, F_GETFL) & O_NONBLOCK) != 0,
           fcntl(ac, F_GETFD) == FD_CLOEXEC);
    EXPECT_ERR("recv on the accepted SOCK_NONBLOCK socket", recv(ac, &c, 1, 0), EAGAIN);
    close(ac);
    close(cl);
    close(l);
}

static volatile sig_atomic_t seen, seen_info;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    seen = sig;
    seen_info = si->si_signo;
}

static void signals(void)
{
    const struct {
        const char *name;
        int sig;
    } sigs[] = {
        {"SIGBUS", SIGBUS},     {"SIGUSR1", SIGUSR1},     {"SIGUSR2", SIGUSR2}, {"SIGCHLD", SIGCHLD},
        {"SIGURG", SIGURG},     {"SIGWINCH", SIGWINCH},   {"SIGPWR", SIGPWR},   {"SIGSYS", SIGSYS},
        {"SIGXCPU", SIGXCPU},   {"SIGXFSZ", SIGXFSZ},     {"SIGPROF", SIGPROF}, {"SIGVTALRM", SIGVTALRM},
        {"SIGIO", SIGIO},       {"SIGCONT", SIGCONT},     {"SIGTSTP", SIGTSTP}, {"SIGTTIN", SIGTTIN},
        {"SIGTTOU", SIGTTOU},   {"SIGRTMIN+1", SIGRTMIN + 1},
    };
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa = {0}, old;
        sa.sa_sigaction = on_sig;
        sa.sa_flags = SA_SIGINFO;
        CHECK(sigaction(sigs[i].sig, &sa, &old) == 0);
        seen = seen_info = 0;
        CHECK(kill(getpid(), sigs[i].sig) == 0);
        printf("%s: handler saw %s, si_signo %s\n", sigs[i].name, seen == sigs[i].sig ? "its number" : "another",
               seen_info == sigs[i].sig ? "its number" : "another");
        CHECK(sigaction(sigs[i].sig, &old, NULL) == 0);
    }
    /* SIG_BLOCK / SIG_UNBLOCK / SIG_SETMASK with the arch's numbers. */
    sigset_t s, o, pend;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR2);
    CHECK(sigprocmask(SIG_BLOCK, &s, &o) == 0);
    struct sigaction sa = {0};
    sa.sa_sigaction = on_sig;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    seen = 0;
    CHECK(kill(getpid(), SIGUSR2) == 0);
    CHECK(sigpending(&pend) == 0);
    printf("SIG_BLOCK: pending %d, delivered %d\n", sigismember(&pend, SIGUSR2), seen != 0);
    CHECK(sigprocmask(SIG_UNBLOCK, &s, NULL) == 0);
    printf("SIG_UNBLOCK: delivered %d\n", seen == SIGUSR2);
    CHECK(sigprocmask(SIG_SETMASK, &s, NULL) == 0);
    CHECK(sigprocmask(SIG_SETMASK, &o, &pend) == 0);
    printf("SIG_SETMASK read back: %d\n", sigismember(&pend, SIGUSR2));
}

static void terminal(void)
{
    int m, s;
    if (openpty(&m, &s, NULL, NULL, NULL) != 0) {
        printf("openpty: %s\n", errname(errno));
        return;
    }
    struct termios t, r;
    CHECK(tcgetattr(s, &t) == 0);
    printf("default IEXTEN %d TOSTOP %d FLUSHO %d ECHOCTL %d\n", !!(t.c_lflag & IEXTEN), !!(t.c_lflag & TOSTOP),
           !!(t.c_lflag & FLUSHO), !!(t.c_lflag & ECHOCTL));
    printf("default VEOF %d VEOL %d VEOL2 %d\n", t.c_cc[VEOF], t.c_cc[VEOL], t.c_cc[VEOL2]);
    t.c_lflag &= ~(IEXTEN | ECHOCTL);
    t.c_lflag |= TOSTOP | ECHOKE;
    t.c_cc[VEOF] = 5;
    t.c_cc[VEOL] = 6;
    t.c_cc[VEOL2] = 9;
    t.c_cc[VMIN] = 2;
    t.c_cc[VTIME] = 4;
    t.c_cc[VSUSP] = 26;
    t.c_cc[VSTART] = 17;
    CHECK(tcsetattr(s, TCSANOW, &t) == 0);
    CHECK(tcgetattr(m, &r) == 0);
    printf("set IEXTEN %d TOSTOP %d ECHOCTL %d ECHOKE %d\n", !!(r.c_lflag & IEXTEN), !!(r.c_lflag & TOSTOP),
           !!(r.c_lflag & ECHOCTL), !!(r.c_lflag & ECHOKE));
    printf("set VEOF %d VEOL %d VEOL2 %d VMIN %d VTIME %d VSUSP %d VSTART %d\n", r.c_cc[VEOF], r.c_cc[VEOL],
           r.c_cc[VEOL2], r.c_cc[VMIN], r.c_cc[VTIME], r.c_cc[VSUSP], r.c_cc[VSTART]);
    t.c_lflag |= IEXTEN;
    CHECK(tcsetattr(s, TCSADRAIN, &t) == 0);
    CHECK(tcgetattr(s, &r) == 0);
    printf("TCSADRAIN IEXTEN %d\n", !!(r.c_lflag & IEXTEN));
    CHECK(tcflush(m, TCIOFLUSH) == 0);
    int n = -1;
    CHECK(ioctl(m, FIONREAD, &n) == 0);
    printf("FIONREAD after TCIOFLUSH: %d\n", n);
    close(s);
    close(m);
}

int main(void)
{
    char dir[] = "cfXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    open_flags();
    mmap_flags();
    fadvise();
    sockets();
    signals();
    terminal();
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
