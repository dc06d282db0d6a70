/* rtnetlink(7) seen by the guest: an RTM_GETLINK dump that finds the loopback interface with
 * its index, flags and MTU; an RTM_GETADDR dump that finds 127.0.0.1/8 on it; an error ack;
 * and the libc calls built on them: getifaddrs(3), if_nameindex(3), if_nametoindex(3). */
#define _GNU_SOURCE 1
#include "common.h"
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

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
