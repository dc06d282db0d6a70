/* Control messages that carry socket addresses and the extended error of a datagram, in the
 * layout the build's own ABI gives them (ip(7), ipv6(7)): `IP_ORIGDSTADDR` and
 * `IPV6_ORIGDSTADDR` (a `struct sockaddr_in`/`sockaddr_in6`: the family in the CPU's byte
 * order, port, address and flow label in network byte order, the scope in the CPU's order),
 * and `IP_RECVERR`/`IPV6_RECVERR` (a `struct sock_extended_err`, linux/errqueue.h, then the
 * offender's address) for a datagram sent to a loopback port nobody listens on. IPv6 parts
 * print "no ::1" where the host has no IPv6 loopback, so the output is the same everywhere
 * IPv6 works. */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "common.h"

/* Receives one message (from the error queue with MSG_ERRQUEUE); returns the first control
 * message of level/type, or NULL. */
static struct cmsghdr *receive(int s, int flags, char *ctl, size_t ctl_len, int level, int type)
{
    static char data[16];
    static struct iovec iov = {data, sizeof data};
    static struct msghdr m;
    m = (struct msghdr){.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = ctl_len};
    struct pollfd p = {.fd = s, .events = flags ? POLLERR : POLLIN};
    CHECK(poll(&p, 1, 5000) == 1);
    CHECK(recvmsg(s, &m, flags) >= 0);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == level && c->cmsg_type == type) {
            return c;
        }
    }
    return NULL;
}

/* Turns `opt` (IP_RECVORIGDSTADDR or IPV6_RECVORIGDSTADDR, the same numbers as the message
 * types) on for `rx`, bound at `to`, sends it a datagram from `tx`, and returns the message of
 * that type it arrives with. */
static struct cmsghdr *origdst(int rx, int tx, const struct sockaddr *to, socklen_t to_len, int level, int opt,
                               char *ctl, size_t ctl_len)
{
    int on = 1;
    CHECK(setsockopt(rx, level, opt, &on, sizeof on) == 0);
    CHECK(sendto(tx, "a", 1, 0, to, to_len) == 1);
    struct cmsghdr *c = receive(rx, 0, ctl, ctl_len, level, opt);
    CHECK(c != NULL);
    return c;
}

/* Sends a datagram from `tx` to `to`, a port nobody listens on, with `opt` (IP_RECVERR or
 * IPV6_RECVERR) on, and prints the error message the ICMP reply comes back as: the
 * `sock_extended_err`, then the offender's address of `to`'s family. */
static void recverr(int tx, const struct sockaddr *to, socklen_t to_len, int level, int opt, const char *name,
                    int origin, const char *origin_name)
{
    int on = 1, v4 = to->sa_family == AF_INET;
    CHECK(setsockopt(tx, level, opt, &on, sizeof on) == 0);
    CHECK(connect(tx, to, to_len) == 0);
    CHECK(send(tx, "b", 1, 0) == 1);
    char ctl[256];
    struct cmsghdr *c = receive(tx, MSG_ERRQUEUE, ctl, sizeof ctl, level, opt);
    CHECK(c != NULL);
    struct sock_extended_err e;
    memcpy(&e, CMSG_DATA(c), sizeof e);
    struct sockaddr_storage off;
    memcpy(&off, CMSG_DATA(c) + sizeof e, to_len);
    const void *addr = v4 ? (const void *)&((struct sockaddr_in *)&off)->sin_addr
                          : (const void *)&((struct sockaddr_in6 *)&off)->sin6_addr;
    char s[INET6_ADDRSTRLEN];
    printf("%s: length is CMSG_LEN(err + %s) %d, errno ECONNREFUSED %d, origin %s %d, type %d, code %d, offender "
           "family %s %d, offender %s\n",
           name, v4 ? "sockaddr_in" : "sockaddr_in6", c->cmsg_len == CMSG_LEN(sizeof e + to_len),
           e.ee_errno == ECONNREFUSED, origin_name, e.ee_origin == origin, e.ee_type, e.ee_code,
           v4 ? "AF_INET" : "AF_INET6", off.ss_family == to->sa_family, inet_ntop(to->sa_family, addr, s, sizeof s));
}

static void ipv4(void)
{
    int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(rx >= 0 && tx >= 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof to;
    CHECK(bind(rx, (struct sockaddr *)&to, sizeof to) == 0);
    CHECK(getsockname(rx, (struct sockaddr *)&to, &len) == 0);
    char ctl[256];
    struct cmsghdr *c = origdst(rx, tx, (struct sockaddr *)&to, sizeof to, IPPROTO_IP, IP_ORIGDSTADDR, ctl, sizeof ctl);
    struct sockaddr_in d;
    memcpy(&d, CMSG_DATA(c), sizeof d);
    char s[INET_ADDRSTRLEN];
    printf("IP_ORIGDSTADDR: length is CMSG_LEN(sockaddr_in) %d, family AF_INET %d, port is the bound one %d, "
           "addr %s\n",
           c->cmsg_len == CMSG_LEN(sizeof d), d.sin_family == AF_INET, d.sin_port == to.sin_port,
           inet_ntop(AF_INET, &d.sin_addr, s, sizeof s));

    /* A datagram to the port just closed: the ICMP port-unreachable comes back as an error. */
    close(rx);
    recverr(tx, (struct sockaddr *)&to, sizeof to, IPPROTO_IP, IP_RECVERR, "IP_RECVERR", SO_EE_ORIGIN_ICMP, "ICMP");
    close(tx);
}

static void ipv6(void)
{
    int rx = socket(AF_INET6, SOCK_DGRAM, 0), tx = socket(AF_INET6, SOCK_DGRAM, 0);
    CHECK(rx >= 0 && tx >= 0);
    struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    socklen_t len = sizeof to;
    if (bind(rx, (struct sockaddr *)&to, sizeof to) != 0) {
        printf("IPV6_ORIGDSTADDR: no ::1\nIPV6_RECVERR: no ::1\n");
        close(rx);
        close(tx);
        return;
    }
    CHECK(getsockname(rx, (struct sockaddr *)&to, &len) == 0);
    char ctl[256];
    struct cmsghdr *c =
        origdst(rx, tx, (struct sockaddr *)&to, sizeof to, IPPROTO_IPV6, IPV6_ORIGDSTADDR, ctl, sizeof ctl);
    struct sockaddr_in6 d;
    memcpy(&d, CMSG_DATA(c), sizeof d);
    char s[INET6_ADDRSTRLEN];
    printf("IPV6_ORIGDSTADDR: length is CMSG_LEN(sockaddr_in6) %d, family AF_INET6 %d, port is the bound one %d, "
           "flowinfo %u, scope %u, addr %s\n",
           c->cmsg_len == CMSG_LEN(sizeof d), d.sin6_family == AF_INET6, d.sin6_port == to.sin6_port,
           (unsigned)ntohl(d.sin6_flowinfo), (unsigned)d.sin6_scope_id, inet_ntop(AF_INET6, &d.sin6_addr, s, sizeof s));

    close(rx);
    recverr(tx, (struct sockaddr *)&to, sizeof to, IPPROTO_IPV6, IPV6_RECVERR, "IPV6_RECVERR", SO_EE_ORIGIN_ICMP6,
            "ICMP6");
    close(tx);
}

int main(void)
{
    ipv4();
    ipv6();
    return 0;
}
