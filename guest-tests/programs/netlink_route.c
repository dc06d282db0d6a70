/* rtnetlink(7) seen by the guest: an RTM_GETLINK dump that finds the loopback interface with
 * its index, flags and MTU; an RTM_GETADDR dump that finds 127.0.0.1/8 on it; an error ack;
 * the same requests through write()/writev() and read()/readv(), a read shorter than the
 * answer (its header still whole), a MSG_PEEK|MSG_TRUNC size probe; and the libc calls built
 * on them: getifaddrs(3), if_nameindex(3), if_nametoindex(3). */
#define _GNU_SOURCE 1
#include "common.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/uio.h>

static int nl_open(void)
{
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    CHECK(s >= 0);
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
    CHECK(bind(s, (struct sockaddr *)&sa, sizeof sa) == 0);
    return s;
}

static void request(int s, int type, int flags, void *body, size_t blen, unsigned seq)
{
    char buf[128] = { 0 };
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    h->nlmsg_len = NLMSG_LENGTH(blen);
    h->nlmsg_type = type;
    h->nlmsg_flags = NLM_F_REQUEST | flags;
    h->nlmsg_seq = seq;
    memcpy(NLMSG_DATA(h), body, blen);
    struct sockaddr_nl to = { .nl_family = AF_NETLINK };
    CHECK(sendto(s, buf, h->nlmsg_len, 0, (struct sockaddr *)&to, sizeof to) == (ssize_t)h->nlmsg_len);
}

/* One RTM_GETLINK of interface `index` (no dump): one RTM_NEWLINK answer. */
static void getlink_one(int s, unsigned index, unsigned seq)
{
    char buf[64] = { 0 };
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    h->nlmsg_type = RTM_GETLINK;
    h->nlmsg_flags = NLM_F_REQUEST;
    h->nlmsg_seq = seq;
    struct ifinfomsg *ifi = NLMSG_DATA(h);
    ifi->ifi_index = index;
    CHECK(write(s, buf, h->nlmsg_len) == (ssize_t)h->nlmsg_len);
}

/* The requests above through write()/writev() and read()/readv(), as busybox's ip and other
 * programs send them. */
static void rw_paths(unsigned lo)
{
    int s = nl_open();
    static char buf[65536];

    /* An RTM_GETADDR dump written with writev() in two pieces, read with readv(). */
    struct {
        struct nlmsghdr h;
        struct ifaddrmsg a;
    } req = { .h = { .nlmsg_len = sizeof req, .nlmsg_type = RTM_GETADDR,
                     .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 10 },
              .a = { .ifa_family = AF_INET } };
    struct iovec wv[2] = { { &req, 10 }, { (char *)&req + 10, sizeof req - 10 } };
    CHECK(writev(s, wv, 2) == (ssize_t)sizeof req);
    int found = 0, done = 0;
    while (!done) {
        struct iovec rv[2] = { { buf, 24 }, { buf + 24, sizeof buf - 24 } };
        ssize_t n = readv(s, rv, 2);
        CHECK(n > 0);
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type == NLMSG_DONE) {
                done = 1;
                break;
            }
            CHECK(h->nlmsg_type == RTM_NEWADDR && h->nlmsg_seq == 10);
            struct ifaddrmsg *ifa = NLMSG_DATA(h);
            int alen = IFA_PAYLOAD(h);
            for (struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
                if (a->rta_type == IFA_LOCAL && *(unsigned char *)RTA_DATA(a) == 127 && ifa->ifa_index == lo)
                    found = 1;
        }
    }
    printf("writev/readv: RTM_GETADDR dump finds 127.0.0.1 on lo %d\n", found);

    /* write() of one RTM_GETLINK, read() of the whole answer. */
    getlink_one(s, lo, 11);
    ssize_t n = read(s, buf, sizeof buf);
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    struct ifinfomsg *ifi = NLMSG_DATA(h);
    printf("write/read: RTM_NEWLINK %d, seq 11 %d, whole %d, index lo %d\n", n > 0 && h->nlmsg_type == RTM_NEWLINK,
           h->nlmsg_seq == 11, n == (ssize_t)h->nlmsg_len, (unsigned)ifi->ifi_index == lo);
    unsigned whole = h->nlmsg_len;

    /* A read shorter than the answer: the rest of the datagram is dropped (MSG_TRUNC), what
     * arrived keeps its header and the fixed part whole. */
    getlink_one(s, lo, 12);
    memset(buf, 0, 64);
    n = read(s, buf, 24);
    printf("short read: %zd bytes, nlmsg_len is the whole answer's %d, type RTM_NEWLINK %d, seq 12 %d, "
           "family AF_UNSPEC %d\n",
           n, h->nlmsg_len == whole, h->nlmsg_type == RTM_NEWLINK, h->nlmsg_seq == 12, ifi->ifi_family == AF_UNSPEC);
    getlink_one(s, lo, 13);
    memset(buf, 0, 64);
    struct msghdr mh = { 0 };
    struct iovec one = { buf, 20 };
    mh.msg_iov = &one;
    mh.msg_iovlen = 1;
    n = recvmsg(s, &mh, 0);
    printf("short recvmsg: %zd bytes, MSG_TRUNC %d, nlmsg_len whole %d, seq 13 %d\n", n, (mh.msg_flags & MSG_TRUNC) != 0,
           h->nlmsg_len == whole, h->nlmsg_seq == 13);

    /* The size probe libraries make before reading: MSG_PEEK|MSG_TRUNC with no buffer. */
    getlink_one(s, lo, 14);
    n = recv(s, NULL, 0, MSG_PEEK | MSG_TRUNC);
    printf("MSG_PEEK|MSG_TRUNC probe gives the whole length %d\n", n == (ssize_t)whole);
    n = recv(s, buf, 8, MSG_PEEK);
    printf("8-byte peek: nlmsg_len %d, type RTM_NEWLINK %d, flags 0 %d\n", h->nlmsg_len == whole,
           h->nlmsg_type == RTM_NEWLINK, h->nlmsg_flags == 0);
    n = recv(s, buf, sizeof buf, 0);
    printf("then the read: whole %d, seq 14 %d, mtu attribute 65536 %d\n", n == (ssize_t)whole, h->nlmsg_seq == 14, ({
               int alen = IFLA_PAYLOAD(h), mtu = 0;
               for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
                   if (a->rta_type == IFLA_MTU)
                       mtu = *(int *)RTA_DATA(a);
               mtu == 65536;
           }));

    /* A descriptor made by dup() of the socket, and one that reuses a closed socket's number
     * for a pipe, are each seen for what they are. */
    int d = dup(s);
    getlink_one(d, lo, 15);
    n = read(d, buf, sizeof buf);
    printf("dup'ed socket: RTM_NEWLINK %d seq 15 %d\n", n > 0 && h->nlmsg_type == RTM_NEWLINK, h->nlmsg_seq == 15);
    close(s);
    int p[2];
    CHECK(pipe(p) == 0);
    if (p[0] != s) {
        CHECK(dup2(p[0], s) == s);
        close(p[0]);
        p[0] = s;
    }
    unsigned char bytes[20] = { 20, 0, 0, 0, 16, 0, 1, 0 };
    CHECK(write(p[1], bytes, sizeof bytes) == (ssize_t)sizeof bytes);
    unsigned char back[20];
    CHECK(read(p[0], back, sizeof back) == (ssize_t)sizeof back);
    printf("a pipe on the closed socket's number carries bytes unchanged %d\n", memcmp(bytes, back, sizeof bytes) == 0);
    close(d);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    unsigned lo = if_nametoindex("lo");
    printf("if_nametoindex(\"lo\") positive %d\n", lo > 0);
    int s = nl_open();

    struct rtgenmsg g = { .rtgen_family = AF_UNSPEC };
    request(s, RTM_GETLINK, NLM_F_DUMP, &g, sizeof g, 1);
    int found = 0, done = 0, seq_ok = 1;
    static char buf[65536];
    while (!done) {
        ssize_t n = recv(s, buf, sizeof buf, 0);
        CHECK(n > 0);
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
            seq_ok &= h->nlmsg_seq == 1;
            if (h->nlmsg_type == NLMSG_DONE) {
                done = 1;
                break;
            }
            CHECK(h->nlmsg_type == RTM_NEWLINK);
            struct ifinfomsg *ifi = NLMSG_DATA(h);
            int alen = IFLA_PAYLOAD(h);
            const char *name = NULL;
            unsigned mtu = 0;
            for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
                if (a->rta_type == IFLA_IFNAME)
                    name = RTA_DATA(a);
                if (a->rta_type == IFLA_MTU)
                    mtu = *(unsigned *)RTA_DATA(a);
            }
            if (name && strcmp(name, "lo") == 0) {
                found = 1;
                printf("RTM_GETLINK: lo index matches %d, IFF_LOOPBACK %d, IFF_UP %d, mtu %u\n",
                       (unsigned)ifi->ifi_index == lo, (ifi->ifi_flags & IFF_LOOPBACK) != 0,
                       (ifi->ifi_flags & IFF_UP) != 0, mtu);
            }
        }
    }
    printf("RTM_GETLINK: found lo %d, sequence numbers kept %d\n", found, seq_ok);

    struct ifaddrmsg am = { .ifa_family = AF_INET };
    request(s, RTM_GETADDR, NLM_F_DUMP, &am, sizeof am, 2);
    found = done = 0;
    while (!done) {
        ssize_t n = recv(s, buf, sizeof buf, 0);
        CHECK(n > 0);
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type == NLMSG_DONE) {
                done = 1;
                break;
            }
            struct ifaddrmsg *ifa = NLMSG_DATA(h);
            int alen = IFA_PAYLOAD(h);
            for (struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
                char txt[32];
                if (a->rta_type == IFA_LOCAL && inet_ntop(AF_INET, RTA_DATA(a), txt, sizeof txt) &&
                    strcmp(txt, "127.0.0.1") == 0) {
                    found = 1;
                    printf("RTM_GETADDR: 127.0.0.1/%u on lo %d\n", ifa->ifa_prefixlen, ifa->ifa_index == lo);
                }
            }
        }
    }
    printf("RTM_GETADDR: found 127.0.0.1 %d\n", found);

    /* A request for an interface that does not exist: an NLMSG_ERROR with -ENODEV. */
    struct ifinfomsg bad = { .ifi_family = AF_UNSPEC, .ifi_index = 0x7ffffff0 };
    request(s, RTM_GETLINK, NLM_F_ACK, &bad, sizeof bad, 3);
    ssize_t n = recv(s, buf, sizeof buf, 0);
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    struct nlmsgerr *e = NLMSG_DATA(h);
    printf("error ack: NLMSG_ERROR %d, error %s, echoes seq %d type RTM_GETLINK %d\n",
           n > 0 && h->nlmsg_type == NLMSG_ERROR, errname(-e->error), e->msg.nlmsg_seq == 3,
           e->msg.nlmsg_type == RTM_GETLINK);
    close(s);
    rw_paths(lo);

    struct ifaddrs *ifs;
    CHECK(getifaddrs(&ifs) == 0);
    int inet = 0, packet = 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (strcmp(i->ifa_name, "lo") != 0 || !i->ifa_addr)
            continue;
        if (i->ifa_addr->sa_family == AF_INET) {
            char txt[32];
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, txt, sizeof txt);
            char mask[32];
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_netmask)->sin_addr, mask, sizeof mask);
            printf("getifaddrs: lo AF_INET %s netmask %s, IFF_LOOPBACK %d\n", txt, mask,
                   (i->ifa_flags & IFF_LOOPBACK) != 0);
            inet = 1;
        }
        if (i->ifa_addr->sa_family == AF_PACKET)
            packet = 1;
    }
    freeifaddrs(ifs);
    printf("getifaddrs: lo has AF_INET %d and AF_PACKET %d entries\n", inet, packet);
    struct if_nameindex *ni = if_nameindex();
    CHECK(ni != NULL);
    int lo_listed = 0;
    for (struct if_nameindex *p = ni; p->if_index; p++)
        lo_listed |= strcmp(p->if_name, "lo") == 0 && p->if_index == lo;
    if_freenameindex(ni);
    printf("if_nameindex: lists lo with its index %d\n", lo_listed);
    return 0;
}
