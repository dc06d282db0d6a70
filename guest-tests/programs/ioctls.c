/* ioctl(2) requests by family: a pty pair (TIOCGPTN, TIOCSPTLCK, TIOCGPTPEER, TIOCGWINSZ,
 * TIOCSWINSZ, TCGETS, FIONREAD); FIONREAD on a pipe; RNDGETENTCNT; a loop device attached
 * to a file (LOOP_CTL_GET_FREE, LOOP_CONFIGURE, BLKGETSIZE64, BLKSSZGET, LOOP_GET_STATUS64,
 * LOOP_CLR_FD); a tun device (TUNGETFEATURES, TUNSETIFF, TUNGETIFF); an unknown request. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/if_tun.h>
#include <linux/loop.h>
#include <linux/random.h>
#include <net/if.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <termios.h>

static void pty(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    CHECK(m >= 0);
    CHECK(grantpt(m) == 0 && unlockpt(m) == 0);
    unsigned n;
    CHECK(ioctl(m, TIOCGPTN, &n) == 0);
    char want[32];
    snprintf(want, sizeof want, "/dev/pts/%u", n);
    printf("pty: ptsname agrees with TIOCGPTN %d\n", strcmp(ptsname(m), want) == 0);
    int s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    printf("pty: TIOCGPTPEER gives a close-on-exec descriptor %d\n", s >= 0 && (fcntl(s, F_GETFD) & FD_CLOEXEC) != 0);
    struct winsize ws = { .ws_row = 33, .ws_col = 101 };
    CHECK(ioctl(m, TIOCSWINSZ, &ws) == 0);
    memset(&ws, 0, sizeof ws);
    CHECK(ioctl(s, TIOCGWINSZ, &ws) == 0);
    printf("pty: window size seen on the other end %ux%u\n", ws.ws_col, ws.ws_row);
    struct termios tio;
    CHECK(tcgetattr(s, &tio) == 0);
    cfmakeraw(&tio);
    CHECK(tcsetattr(s, TCSANOW, &tio) == 0);
    CHECK(write(m, "hello", 5) == 5);
    /* The pty moves the bytes to the other end asynchronously. */
    int avail = -1;
    for (int i = 0; i < 5000; i++) {
        CHECK(ioctl(s, FIONREAD, &avail) == 0);
        if (avail == 5)
            break;
        usleep(1000);
    }
    printf("pty: FIONREAD after 5 bytes through a raw pty: %d\n", avail);
    close(s);
    close(m);
}

static void loopdev(void)
{
    int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0) {
        printf("loop: no /dev/loop-control (%s)\n", errname(errno));
        return;
    }
    int f = open("backing", O_CREAT | O_RDWR, 0600);
    CHECK(f >= 0 && ftruncate(f, 1 << 20) == 0);
    int dev = -1;
    for (int tries = 0; tries < 50 && dev < 0; tries++) {
        int n = ioctl(ctl, LOOP_CTL_GET_FREE);
        CHECK(n >= 0);
        char path[32];
        snprintf(path, sizeof path, "/dev/loop%d", n);
        int d = open(path, O_RDWR | O_CLOEXEC);
        if (d < 0)
            continue;
        struct loop_config cfg = { .fd = (uint32_t)f, .block_size = 512 };
        cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
        strcpy((char *)cfg.info.lo_file_name, "backing");
        if (ioctl(d, LOOP_CONFIGURE, &cfg) == 0)
            dev = d;
        else
            close(d); /* another process took it first (EBUSY): ask again */
    }
    CHECK(dev >= 0);
    uint64_t size = 0;
    int ssz = 0;
    CHECK(ioctl(dev, BLKGETSIZE64, &size) == 0 && ioctl(dev, BLKSSZGET, &ssz) == 0);
    printf("loop: BLKGETSIZE64 %llu, BLKSSZGET %d\n", (unsigned long long)size, ssz);
    struct loop_info64 info;
    memset(&info, 0, sizeof info);
    CHECK(ioctl(dev, LOOP_GET_STATUS64, &info) == 0);
    printf("loop: LOOP_GET_STATUS64 file name \"%s\", autoclear %d\n", (char *)info.lo_file_name,
           (info.lo_flags & LO_FLAGS_AUTOCLEAR) != 0);
    CHECK(pwrite(dev, "block data", 10, 4096) == 10 && fsync(dev) == 0);
    char buf[16] = { 0 };
    CHECK(pread(f, buf, 10, 4096) == 10);
    printf("loop: a write to the device reaches the file: \"%s\"\n", buf);
    CHECK(ioctl(dev, LOOP_CLR_FD, 0) == 0);
    close(dev);
    close(ctl);
    close(f);
}

static void tun(void)
{
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        printf("tun: no /dev/net/tun (%s)\n", errname(errno));
        return;
    }
    unsigned feat = 0;
    CHECK(ioctl(fd, TUNGETFEATURES, &feat) == 0);
    printf("tun: TUNGETFEATURES has IFF_TUN %d IFF_NO_PI %d\n", (feat & IFF_TUN) != 0, (feat & IFF_NO_PI) != 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    strcpy(ifr.ifr_name, "egt%d");
    CHECK(ioctl(fd, TUNSETIFF, &ifr) == 0);
    printf("tun: TUNSETIFF named it egt<n> %d\n", strncmp(ifr.ifr_name, "egt", 3) == 0 && ifr.ifr_name[3] >= '0');
    struct ifreq got;
    memset(&got, 0, sizeof got);
    CHECK(ioctl(fd, TUNGETIFF, &got) == 0);
    printf("tun: TUNGETIFF same name %d, flags IFF_TUN %d\n", strcmp(got.ifr_name, ifr.ifr_name) == 0,
           (got.ifr_flags & IFF_TUN) != 0);
    close(fd);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    pty();
    int p[2];
    CHECK(pipe(p) == 0 && write(p[1], "abc", 3) == 3);
    int n = -1;
    CHECK(ioctl(p[0], FIONREAD, &n) == 0);
    printf("pipe: FIONREAD %d\n", n);
    int r = open("/dev/random", O_RDONLY);
    int ent = -1;
    printf("random: RNDGETENTCNT %d\n", r >= 0 && ioctl(r, RNDGETENTCNT, &ent) == 0 && ent >= 0);
    loopdev();
    tun();
    EXPECT_ERR("an unknown request on a pipe", ioctl(p[0], _IOR('z', 200, int), &n), ENOTTY);
    EXPECT_ERR("TIOCGWINSZ on a pipe", ioctl(p[0], TIOCGWINSZ, &n), ENOTTY);
    EXPECT_ERR("FIONREAD to a bad pointer", ioctl(p[0], FIONREAD, (int *)8), EFAULT);
    return 0;
}
