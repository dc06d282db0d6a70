/* Terminal attributes on a pseudo-terminal: posix_openpt/grantpt/unlockpt/ptsname, open the
 * slave, tcgetattr, cfmakeraw + speed + c_cc changes through tcsetattr, and read back. Then
 * data through the raw pty both ways, and the window size ioctls. struct termios differs per
 * arch (mips and others have other flag values and c_cc layouts), and glibc's struct is not
 * the kernel's everywhere, so this checks an emulator's ioctl translation. */
#include "common.h"
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>

int main(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    CHECK(m >= 0);
    CHECK(grantpt(m) == 0);
    CHECK(unlockpt(m) == 0);
    const char *name = ptsname(m);
    CHECK(name != NULL);
    printf("ptsname under /dev/pts/: %d\n", strncmp(name, "/dev/pts/", 9) == 0);
    int s = open(name, O_RDWR | O_NOCTTY);
    CHECK(s >= 0);
    printf("slave isatty: %d, master isatty: %d\n", isatty(s), isatty(m));

    struct termios t;
    CHECK(tcgetattr(s, &t) == 0);
    printf("default: ICANON %d ECHO %d ISIG %d ICRNL %d OPOST %d CS8 %d\n", !!(t.c_lflag & ICANON),
           !!(t.c_lflag & ECHO), !!(t.c_lflag & ISIG), !!(t.c_iflag & ICRNL), !!(t.c_oflag & OPOST),
           (t.c_cflag & CSIZE) == CS8);
    printf("default VINTR is ^C: %d, VEOF is ^D: %d\n", t.c_cc[VINTR] == 3, t.c_cc[VEOF] == 4);

    cfmakeraw(&t);
    CHECK(cfsetispeed(&t, B9600) == 0 && cfsetospeed(&t, B9600) == 0);
    t.c_cc[VMIN] = 3;
    t.c_cc[VTIME] = 7;
    CHECK(tcsetattr(s, TCSANOW, &t) == 0);
    struct termios r;
    memset(&r, 0x5a, sizeof r);
    CHECK(tcgetattr(s, &r) == 0);
    printf("raw: ICANON %d ECHO %d ISIG %d ICRNL %d OPOST %d CS8 %d PARENB %d\n", !!(r.c_lflag & ICANON),
           !!(r.c_lflag & ECHO), !!(r.c_lflag & ISIG), !!(r.c_iflag & ICRNL), !!(r.c_oflag & OPOST),
           (r.c_cflag & CSIZE) == CS8, !!(r.c_cflag & PARENB));
    printf("speed: in 9600 %d, out 9600 %d\n", cfgetispeed(&r) == B9600, cfgetospeed(&r) == B9600);
    printf("VMIN %d VTIME %d\n", r.c_cc[VMIN], r.c_cc[VTIME]);
    int same = r.c_iflag == t.c_iflag && r.c_oflag == t.c_oflag && r.c_cflag == t.c_cflag && r.c_lflag == t.c_lflag;
    printf("all four flag words read back: %d\n", same);
    CHECK(same);

    struct termios mt;
    CHECK(tcgetattr(m, &mt) == 0);
    printf("master sees the same attributes: %d\n", mt.c_lflag == r.c_lflag);

    /* Raw mode: bytes pass unchanged (no CR/NL mapping, no echo); VMIN 3 waits for all. */
    CHECK(write(m, "a\rb", 3) == 3);
    char buf[16] = {0};
    ssize_t got = read(s, buf, sizeof buf);
    printf("slave read %zd raw bytes: %d\n", got, got == 3 && !memcmp(buf, "a\rb", 3));
    CHECK(write(s, "xy\n", 3) == 3);
    memset(buf, 0, sizeof buf);
    ssize_t n = read(m, buf, sizeof buf);
    printf("master read %zd bytes, no CR added: %d\n", n, n == 3 && !strcmp(buf, "xy\n"));

    CHECK(write(m, "q", 1) == 1);
    struct pollfd pf = {s, POLLIN, 0};
    CHECK(poll(&pf, 1, 5000) == 1);
    int avail = -1;
    CHECK(ioctl(s, FIONREAD, &avail) == 0);
    printf("FIONREAD after one byte: %d\n", avail);
    CHECK(read(s, buf, 1) == 1);

    t.c_lflag |= ICANON | ECHO;
    CHECK(tcsetattr(s, TCSADRAIN, &t) == 0);
    CHECK(tcgetattr(s, &r) == 0);
    printf("TCSADRAIN back to ICANON|ECHO: %d\n", (r.c_lflag & (ICANON | ECHO)) == (ICANON | ECHO));

    struct winsize ws = {24, 80, 0, 0}, wr;
    CHECK(ioctl(s, TIOCSWINSZ, &ws) == 0);
    CHECK(ioctl(m, TIOCGWINSZ, &wr) == 0);
    printf("window size: %ux%u\n", wr.ws_col, wr.ws_row);

    int nulfd = open("/dev/null", O_RDWR);
    EXPECT_ERR("tcgetattr on /dev/null", tcgetattr(nulfd, &r), ENOTTY);
    EXPECT_ERR("tcsetattr bad action", tcsetattr(s, 12345, &t), EINVAL);
    close(s);
    close(m);
    return 0;
}
