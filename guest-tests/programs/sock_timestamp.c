/* The time a socket received its last datagram, and the control messages that carry it and
 * the packet's addresses, in the layout the build's own ABI gives them: `SIOCGSTAMP` and
 * `SIOCGSTAMPNS` (a `struct timeval`/`timespec` of `long`s: 8 bytes on a 32-bit arch),
 * `SO_TIMESTAMP`/`SO_TIMESTAMPNS` messages (`cmsg_len` is `CMSG_LEN` of that struct) and
 * `IP_PKTINFO` (an `int` index and two addresses in network byte order), received and sent.
 * Times are checked against the clock around them, so the output is the same everywhere. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "common.h"

static struct sockaddr_in bound(int s)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    CHECK(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(getsockname(s, (struct sockaddr *)&a, &len) == 0);
    return a;
}

/* Receives one datagram with room for control messages; returns the first message of
 * level/type, or NULL. */
static struct cmsghdr *receive(int s, struct msghdr *m, char *ctl, size_t ctl_len, int level, int type)
{
    static char data[16];
    static struct iovec iov = {data, sizeof data};
    *m = (struct msghdr){.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = ctl_len};
    CHECK(recvmsg(s, m, 0) == 1);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level == level && c->cmsg_type == type) {
            return c;
        }
    }
    return NULL;
}

static int near_now(long sec)
{
    long now = (long)time(NULL);
    return sec >= now - 5 && sec <= now + 1;
}

int main(void)
{
    int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(rx >= 0 && tx >= 0);
    struct sockaddr_in to = bound(rx);
    char ctl[256];
    struct msghdr m;

    CHECK(sendto(tx, "a", 1, 0, (struct sockaddr *)&to, sizeof to) == 1);
    char b[8];
    CHECK(recv(rx, b, sizeof b, 0) == 1);
    struct timeval tv = {0};
    CHECK(ioctl(rx, SIOCGSTAMP, &tv) == 0);
    printf("SIOCGSTAMP: near now %d, usec in range %d\n", near_now((long)tv.tv_sec), tv.tv_usec >= 0 && tv.tv_usec < 1000000);
    struct timespec ts = {0};
    CHECK(ioctl(rx, SIOCGSTAMPNS, &ts) == 0);
    printf("SIOCGSTAMPNS: near now %d, nsec in range %d, same second %d\n", near_now((long)ts.tv_sec),
           ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, ts.tv_sec == tv.tv_sec);

    int on = 1;
    CHECK(setsockopt(rx, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof on) == 0);
    CHECK(sendto(tx, "b", 1, 0, (struct sockaddr *)&to, sizeof to) == 1);
    struct cmsghdr *c = receive(rx, &m, ctl, sizeof ctl, SOL_SOCKET, SCM_TIMESTAMP);
    CHECK(c != NULL);
    struct timeval mtv;
    memcpy(&mtv, CMSG_DATA(c), sizeof mtv);
    printf("SCM_TIMESTAMP: length is CMSG_LEN(timeval) %d, near now %d, usec in range %d\n",
           c->cmsg_len == CMSG_LEN(sizeof(struct timeval)), near_now((long)mtv.tv_sec),
           mtv.tv_usec >= 0 && mtv.tv_usec < 1000000);
    on = 0;
    CHECK(setsockopt(rx, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof on) == 0);

    on = 1;
    CHECK(setsockopt(rx, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0);
    CHECK(sendto(tx, "c", 1, 0, (struct sockaddr *)&to, sizeof to) == 1);
    c = receive(rx, &m, ctl, sizeof ctl, SOL_SOCKET, SCM_TIMESTAMPNS);
    CHECK(c != NULL);
    struct timespec mts;
    memcpy(&mts, CMSG_DATA(c), sizeof mts);
    printf("SCM_TIMESTAMPNS: length is CMSG_LEN(timespec) %d, near now %d, nsec in range %d\n",
           c->cmsg_len == CMSG_LEN(sizeof(struct timespec)), near_now((long)mts.tv_sec),
           mts.tv_nsec >= 0 && mts.tv_nsec < 1000000000);
    on = 0;
    CHECK(setsockopt(rx, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0);

    on = 1;
    CHECK(setsockopt(rx, IPPROTO_IP, IP_PKTINFO, &on, sizeof on) == 0);
    /* Sent with an IP_PKTINFO message naming the source address. */
    char sctl[CMSG_SPACE(sizeof(struct in_pktinfo))] = {0};
    struct iovec iov = {"d", 1};
    struct msghdr sm = {.msg_name = &to, .msg_namelen = sizeof to, .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = sctl, .msg_controllen = sizeof sctl};
    struct cmsghdr *sc = CMSG_FIRSTHDR(&sm);
    sc->cmsg_level = IPPROTO_IP;
    sc->cmsg_type = IP_PKTINFO;
    sc->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
    struct in_pktinfo spi = {.ipi_spec_dst.s_addr = htonl(INADDR_LOOPBACK)};
    memcpy(CMSG_DATA(sc), &spi, sizeof spi);
    CHECK(sendmsg(tx, &sm, 0) == 1);
    c = receive(rx, &m, ctl, sizeof ctl, IPPROTO_IP, IP_PKTINFO);
    CHECK(c != NULL);
    struct in_pktinfo pi;
    memcpy(&pi, CMSG_DATA(c), sizeof pi);
    char dst[32], addr[32];
    snprintf(dst, sizeof dst, "%s", inet_ntoa(pi.ipi_spec_dst));
    snprintf(addr, sizeof addr, "%s", inet_ntoa(pi.ipi_addr));
    printf("IP_PKTINFO: length is CMSG_LEN(in_pktinfo) %d, index positive %d, spec_dst %s, addr %s\n",
           c->cmsg_len == CMSG_LEN(sizeof(struct in_pktinfo)), pi.ipi_ifindex > 0, dst, addr);
    return 0;
}
