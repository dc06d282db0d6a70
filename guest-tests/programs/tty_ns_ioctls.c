/* ioctls of terminals, namespaces and files that take integers or small structs, on a pty
 * pair and /proc/self/ns: TCGETS2/TCSETS2 (termios2 with its two speeds, BOTHER), TIOCGETD/
 * TIOCSETD, TIOCGDEV, TIOCGLCKTRMIOS, TIOCSBRK/TIOCCBRK, TIOCSIG (a signal to the pty's
 * foreground group), NS_GET_NSTYPE/NS_GET_USERNS/NS_GET_OWNER_UID/NS_GET_PARENT, and the
 * answers of requests a file does not take. */
#include "common.h"
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <asm/termbits.h>

#define NS_GET_USERNS 0xb701
#define NS_GET_PARENT 0xb702
#define NS_GET_NSTYPE 0xb703
#define NS_GET_OWNER_UID 0xb704

static volatile sig_atomic_t got;
static void on_tstp(int s) { got = s; }

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
    CHECK(m >= 0);
    int unlock = 0;
    CHECK(ioctl(m, TIOCSPTLCK, &unlock) == 0);
    int n;
    CHECK(ioctl(m, TIOCGPTN, &n) == 0);
    char name[32];
    snprintf(name, sizeof name, "/dev/pts/%d", n);
    int s = open(name, O_RDWR | O_NOCTTY);
    CHECK(s >= 0);

    struct termios t1;
    struct termios2 t2;
    CHECK(ioctl(s, TCGETS, &t1) == 0);
    CHECK(ioctl(s, TCGETS2, &t2) == 0);
    printf("TCGETS2 flags as TCGETS: %d\n", t2.c_iflag == t1.c_iflag && t2.c_oflag == t1.c_oflag &&
                                             t2.c_cflag == t1.c_cflag && t2.c_lflag == t1.c_lflag &&
                                             memcmp(t2.c_cc, t1.c_cc, sizeof t1.c_cc) == 0);
    printf("TCGETS2 speeds: %u %u\n", t2.c_ispeed, t2.c_ospeed);
    t2.c_cflag = (t2.c_cflag & ~CBAUD) | BOTHER;
    t2.c_ospeed = 12345;
    t2.c_cflag &= ~(CBAUD << IBSHIFT);
    t2.c_cflag |= BOTHER << IBSHIFT;
    t2.c_ispeed = 23456;
    CHECK(ioctl(s, TCSETS2, &t2) == 0);
    struct termios2 back;
    memset(&back, 0, sizeof back);
    CHECK(ioctl(s, TCGETS2, &back) == 0);
    printf("TCSETS2 BOTHER: speeds back %u %u, BOTHER %d\n", back.c_ispeed, back.c_ospeed,
           (back.c_cflag & CBAUD) == BOTHER);
    CHECK(ioctl(s, TCSETSW2, &t2) == 0);
    CHECK(ioctl(s, TCSETSF2, &t2) == 0);
    EXPECT_ERR("TCGETS2 bad pointer", ioctl(s, TCGETS2, (void *)8), EFAULT);

    int disc = -1;
    CHECK(ioctl(s, TIOCGETD, &disc) == 0);
    printf("TIOCGETD: %d\n", disc);
    CHECK(ioctl(s, TIOCSETD, &disc) == 0);
    unsigned dev = 0;
    CHECK(ioctl(s, TIOCGDEV, &dev) == 0);
    struct stat st;
    CHECK(fstat(s, &st) == 0);
    printf("TIOCGDEV is the slave's device: %d\n", major(dev) == major(st.st_rdev) && minor(dev) == minor(st.st_rdev));
    struct termios lock;
    memset(&lock, 0x55, sizeof lock);
    CHECK(ioctl(s, TIOCGLCKTRMIOS, &lock) == 0);
    printf("TIOCGLCKTRMIOS: cflag %#x\n", lock.c_cflag);
    printf("TIOCSBRK: %s\n", ioctl(s, TIOCSBRK) == 0 ? "ok" : errname(errno));
    printf("TIOCCBRK: %s\n", ioctl(s, TIOCCBRK) == 0 ? "ok" : errname(errno));

    /* TIOCSIG: the master signals the slave's foreground process group. */
    int p[2];
    CHECK(pipe(p) == 0);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        signal(SIGTSTP, on_tstp);
        CHECK(setsid() > 0);
        int cs = open(name, O_RDWR); /* the controlling terminal now */
        CHECK(cs >= 0);
        CHECK(write(p[1], "r", 1) == 1);
        for (int i = 0; i < 500 && !got; i++)
            usleep(10000);
        _exit(got == SIGTSTP ? 0 : 1);
    }
    char r;
    CHECK(read(p[0], &r, 1) == 1);
    /* A pty takes only SIGINT, SIGQUIT and SIGTSTP (whose number differs on MIPS). */
    EXPECT_ERR("TIOCSIG 0", ioctl(m, TIOCSIG, 0), EINVAL);
    EXPECT_ERR("TIOCSIG SIGUSR1", ioctl(m, TIOCSIG, SIGUSR1), EINVAL);
    CHECK(ioctl(m, TIOCSIG, SIGTSTP) == 0);
    int wst;
    CHECK(waitpid(c, &wst, 0) == c);
    printf("TIOCSIG SIGTSTP reached the foreground group: %d\n", WIFEXITED(wst) && WEXITSTATUS(wst) == 0);

    /* Namespaces. */
    int uts = open("/proc/self/ns/uts", O_RDONLY);
    CHECK(uts >= 0);
    printf("NS_GET_NSTYPE uts is CLONE_NEWUTS: %d\n", ioctl(uts, NS_GET_NSTYPE) == CLONE_NEWUTS);
    int user = ioctl(uts, NS_GET_USERNS);
    CHECK(user >= 0);
    printf("NS_GET_USERNS gives a user namespace: %d\n", ioctl(user, NS_GET_NSTYPE) == CLONE_NEWUSER);
    unsigned uid = 12345;
    CHECK(ioctl(user, NS_GET_OWNER_UID, &uid) == 0);
    printf("NS_GET_OWNER_UID of the first user namespace: %u\n", uid);
    EXPECT_ERR("NS_GET_OWNER_UID of a uts namespace", ioctl(uts, NS_GET_OWNER_UID, &uid), EINVAL);
    EXPECT_ERR("NS_GET_PARENT of the first user namespace", ioctl(user, NS_GET_PARENT), EPERM);

    /* Requests a file does not take: the file's answer. */
    char path[] = "/tmp/ioctls.XXXXXX";
    int f = mkstemp(path);
    CHECK(f >= 0);
    unlink(path);
    EXPECT_ERR("TCGETS2 of a file", ioctl(f, TCGETS2, &t2), ENOTTY);
    EXPECT_ERR("NS_GET_NSTYPE of a file", ioctl(f, NS_GET_NSTYPE), ENOTTY);
    return 0;
}
