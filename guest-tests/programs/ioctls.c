/* ioctl(2) requests by family: a pty pair (TIOCGPTN, TIOCSPTLCK, TIOCGPTPEER, TIOCGWINSZ,
 * TIOCSWINSZ, TCGETS, FIONREAD; TIOCPKT and packet-mode reads, TIOCSTI); FIONREAD on a pipe;
 * RNDGETENTCNT; a loop device attached to a file (LOOP_CTL_GET_FREE, LOOP_CONFIGURE,
 * BLKGETSIZE64, BLKSSZGET, LOOP_GET_STATUS64, LOOP_CLR_FD); a tun device (TUNGETFEATURES,
 * TUNSETIFF, TUNGETIFF, TUNSETOWNER, TUNSETGROUP, TUNSETPERSIST); a file's extents
 * (FS_IOC_FIEMAP: counting, filling, bounded by fm_extent_count and by the memory the array
 * has) and attributes (FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR); an unknown request; and the
 * order of errors: EBADF, then ENOTTY, then EFAULT. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/if_tun.h>
#include <linux/loop.h>
#include <linux/random.h>
#include <net/if.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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
    char got[16];
    CHECK(read(s, got, sizeof got) == 5);

    /* Packet mode: every read on the master starts with a status byte. */
    int one = 1, pkt = -1;
    CHECK(ioctl(m, TIOCPKT, &one) == 0 && ioctl(m, TIOCGPKT, &pkt) == 0);
    printf("pty: TIOCPKT on, TIOCGPKT reads %d\n", pkt);
    CHECK(write(s, "xy", 2) == 2);
    int k = read(m, got, sizeof got);
    printf("pty: packet-mode read %d bytes: TIOCPKT_DATA %d then \"%.*s\"\n", k, got[0] == TIOCPKT_DATA, k - 1, got + 1);
    CHECK(tcflush(s, TCIFLUSH) == 0);
    k = read(m, got, sizeof got);
    printf("pty: after the other end flushes its input, a %d-byte status TIOCPKT_FLUSHREAD %d\n", k,
           (got[0] & TIOCPKT_FLUSHREAD) != 0);
    int zero = 0;
    CHECK(ioctl(m, TIOCPKT, &zero) == 0);

    /* TIOCSTI: a byte pushed into the terminal's input. */
    char c = 'q';
    int r = ioctl(s, TIOCSTI, &c);
    printf("pty: TIOCSTI %s\n", r == 0 ? "0" : errname(errno));
    if (r == 0) {
        k = read(s, got, sizeof got);
        printf("pty: read after TIOCSTI gives \"%.*s\"\n", k, got);
    }
    EXPECT_ERR("pty: TIOCSTI from a bad pointer", ioctl(s, TIOCSTI, (char *)8), EFAULT);
    close(s);
    close(m);
}

static void extents(void)
{
    int f = open("sparse", O_CREAT | O_RDWR | O_TRUNC, 0600);
    CHECK(f >= 0);
    static char block[65536];
    memset(block, 'e', sizeof block);
    CHECK(pwrite(f, block, sizeof block, 0) == (ssize_t)sizeof block);
    CHECK(pwrite(f, block, sizeof block, 4 << 20) == (ssize_t)sizeof block);
    CHECK(fsync(f) == 0);
    struct fiemap head = { .fm_start = 0, .fm_length = FIEMAP_MAX_OFFSET, .fm_flags = FIEMAP_FLAG_SYNC };
    int r = ioctl(f, FS_IOC_FIEMAP, &head);
    if (r != 0) {
        printf("fiemap: not on this file system (%s)\n", errname(errno));
        close(f);
        return;
    }
    printf("fiemap: counting only: %u extents\n", head.fm_mapped_extents);
    size_t size = sizeof(struct fiemap) + 8 * sizeof(struct fiemap_extent);
    struct fiemap *fm = calloc(1, size);
    fm->fm_length = FIEMAP_MAX_OFFSET;
    fm->fm_extent_count = 8;
    CHECK(ioctl(f, FS_IOC_FIEMAP, fm) == 0);
    struct fiemap_extent *e = fm->fm_extents;
    unsigned k = fm->fm_mapped_extents;
    printf("fiemap: %u extents, first at 0 %d covering the first block %d, last ends at 4 MiB + 64 KiB %d, "
           "FIEMAP_EXTENT_LAST on the last %d, extent_count kept %u\n",
           k, e[0].fe_logical == 0, e[0].fe_length >= sizeof block,
           k > 0 && e[k - 1].fe_logical + e[k - 1].fe_length == (4 << 20) + sizeof block,
           k > 0 && (e[k - 1].fe_flags & FIEMAP_EXTENT_LAST) != 0, fm->fm_extent_count);
    memset(fm, 0, size);
    fm->fm_length = FIEMAP_MAX_OFFSET;
    fm->fm_extent_count = 1;
    CHECK(ioctl(f, FS_IOC_FIEMAP, fm) == 0);
    printf("fiemap: room for one: %u mapped, the first %d, not the last %d\n", fm->fm_mapped_extents,
           fm->fm_extents[0].fe_logical == 0, (fm->fm_extents[0].fe_flags & FIEMAP_EXTENT_LAST) == 0);
    /* An array that ends at an unmapped page after one extent: the second is EFAULT. */
    long pg = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(two != MAP_FAILED && munmap(two + pg, pg) == 0);
    struct fiemap *edge = (struct fiemap *)(two + pg - sizeof(struct fiemap) - sizeof(struct fiemap_extent));
    memset(edge, 0, sizeof(struct fiemap));
    edge->fm_length = FIEMAP_MAX_OFFSET;
    edge->fm_extent_count = 4;
    r = ioctl(f, FS_IOC_FIEMAP, edge);
    printf("fiemap: extents beyond the array's memory: %s\n", r == 0 ? "0" : errname(errno));
    edge->fm_extent_count = 1;
    r = ioctl(f, FS_IOC_FIEMAP, edge);
    printf("fiemap: the same array with extent_count 1: %s, %u mapped\n", r == 0 ? "0" : errname(errno),
           edge->fm_mapped_extents);
    edge->fm_extent_count = 0xffffffffu;
    EXPECT_ERR("fiemap: extent_count above FIEMAP_MAX_EXTENTS", ioctl(f, FS_IOC_FIEMAP, edge), EINVAL);
    munmap(two, pg);
    free(fm);

    struct fsxattr fx;
    memset(&fx, 0xa5, sizeof fx);
    r = ioctl(f, FS_IOC_FSGETXATTR, &fx);
    if (r != 0) {
        printf("fsxattr: not on this file system (%s)\n", errname(errno));
    } else {
        printf("fsxattr: FS_IOC_FSGETXATTR projid %u extsize %u cowextsize %u, xflags without IMMUTABLE %d\n",
               fx.fsx_projid, fx.fsx_extsize, fx.fsx_cowextsize, (fx.fsx_xflags & FS_XFLAG_IMMUTABLE) == 0);
        struct fsxattr set = fx;
        set.fsx_xflags |= FS_XFLAG_NOATIME;
        r = ioctl(f, FS_IOC_FSSETXATTR, &set);
        printf("fsxattr: FS_IOC_FSSETXATTR NOATIME %s\n", r == 0 ? "0" : errname(errno));
        struct fsxattr back;
        memset(&back, 0, sizeof back);
        CHECK(ioctl(f, FS_IOC_FSGETXATTR, &back) == 0);
        printf("fsxattr: read back NOATIME %d\n", (back.fsx_xflags & FS_XFLAG_NOATIME) != 0);
        int flags = 0;
        CHECK(ioctl(f, FS_IOC_GETFLAGS, &flags) == 0);
        printf("fsxattr: FS_IOC_GETFLAGS agrees (FS_NOATIME_FL) %d\n", (flags & FS_NOATIME_FL) != 0);
        CHECK(ioctl(f, FS_IOC_FSSETXATTR, &fx) == 0);
    }
    EXPECT_ERR("fsxattr: to a bad pointer", ioctl(f, FS_IOC_FSGETXATTR, (void *)8), EFAULT);
    close(f);
}

/* Which error comes first: the fd (EBADF), then whether the file takes the request (ENOTTY),
 * then the argument (EFAULT). */
static void error_order(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    int closed = p[0];
    close(p[0]);
    int n;
    EXPECT_ERR("order: FIONREAD on a closed fd to a bad pointer", ioctl(closed, FIONREAD, (int *)8), EBADF);
    EXPECT_ERR("order: TIOCGWINSZ on a closed fd to a bad pointer", ioctl(closed, TIOCGWINSZ, (void *)8), EBADF);
    EXPECT_ERR("order: an unknown request on a closed fd", ioctl(closed, _IOR('z', 200, int), &n), EBADF);
    EXPECT_ERR("order: TIOCGWINSZ on a pipe to a bad pointer", ioctl(p[1], TIOCGWINSZ, (void *)8), ENOTTY);
    EXPECT_ERR("order: TCSETS on a pipe from a bad pointer", ioctl(p[1], TCSETS, (void *)8), ENOTTY);
    EXPECT_ERR("order: SIOCGIFFLAGS on a pipe to a bad pointer", ioctl(p[1], SIOCGIFFLAGS, (void *)8), ENOTTY);
    EXPECT_ERR("order: FIONREAD on a pipe to a bad pointer", ioctl(p[1], FIONREAD, (int *)8), EFAULT);
    int path = open(".", O_PATH | O_CLOEXEC);
    EXPECT_ERR("order: FIONREAD on an O_PATH fd", ioctl(path, FIONREAD, &n), EBADF);
    EXPECT_ERR("order: an unknown request on an O_PATH fd", ioctl(path, _IOR('z', 200, int), &n), EBADF);
    close(path);
    close(p[1]);
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
    /* Parallel runs race for free devices: ask again when another one took ours (EBUSY) or
     * its node is not there yet, as losetup does. */
    for (int tries = 0; tries < 200 && dev < 0; tries++) {
        int n = ioctl(ctl, LOOP_CTL_GET_FREE);
        CHECK(n >= 0);
        char path[32];
        snprintf(path, sizeof path, "/dev/loop%d", n);
        int d = open(path, O_RDWR | O_CLOEXEC);
        if (d < 0) {
            usleep(10000);
            continue;
        }
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
    printf("tun: TUNSETOWNER %d, TUNSETGROUP %d, TUNSETPERSIST off %d\n", ioctl(fd, TUNSETOWNER, (long)getuid()),
           ioctl(fd, TUNSETGROUP, (long)getgid()), ioctl(fd, TUNSETPERSIST, 0L));
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
    extents();
    error_order();
    EXPECT_ERR("an unknown request on a pipe", ioctl(p[0], _IOR('z', 200, int), &n), ENOTTY);
    EXPECT_ERR("TIOCGWINSZ on a pipe", ioctl(p[0], TIOCGWINSZ, &n), ENOTTY);
    EXPECT_ERR("FIONREAD to a bad pointer", ioctl(p[0], FIONREAD, (int *)8), EFAULT);
    return 0;
}
