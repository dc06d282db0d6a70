/* rtnetlink(7) messages whose attributes hold integers of the guest's byte order, checked
 * against what /proc says of the same settings: an RTM_GETNEIGHTBL dump (neighbour.h: the
 * arp_cache table's NDTA_THRESH1, NDTA_GC_INTERVAL in ms, struct ndt_config's key length, and
 * NDTPA_BASE_REACHABLE_TIME inside NDTA_PARMS), an RTM_GETADDRLABEL dump (if_addrlabel.h:
 * IFAL_ADDRESS and IFAL_LABEL), and an AF_INET6 RTM_GETLINK of lo, whose IFLA_PROTINFO nests
 * IFLA_INET6_* (if_link.h: the DEVCONF_MTU6 entry of IFLA_INET6_CONF). */
#include "common.h"
#include <linux/if_addrlabel.h>
#include <linux/ipv6.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

static char buf[1 << 16];

static long proc_long(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    long v = -1;
    if (fscanf(f, "%ld", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

static int dump(int type, unsigned char family, size_t hdr, int ifindex)
{
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    CHECK(s >= 0);
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } q;
    memset(&q, 0, sizeof q);
    q.h.nlmsg_len = NLMSG_LENGTH(hdr);
    q.h.nlmsg_type = type;
    q.h.nlmsg_flags = NLM_F_REQUEST | (ifindex ? 0 : NLM_F_DUMP);
    q.h.nlmsg_seq = 7;
    q.i.ifi_family = family;
    q.i.ifi_index = ifindex;
    CHECK(send(s, &q, q.h.nlmsg_len, 0) == (ssize_t)q.h.nlmsg_len);
    return s;
}

/* The attribute of type `type` in [a, a+len), or NULL; every attribute must fit. */
static struct rtattr *find(struct rtattr *a, int len, int type)
{
    for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
        if ((a->rta_type & NLA_TYPE_MASK) == type)
            return a;
    CHECK(len == 0 || len < (int)sizeof(struct rtattr));
    return NULL;
}

/* Calls on(h, ctx) for every answer to the dump on s, up to NLMSG_DONE (or an error). */
static void each_answer(int s, void (*on)(struct nlmsghdr *, void *), void *ctx)
{
    for (int done = 0; !done;) {
        ssize_t n = recv(s, buf, sizeof buf, 0);
        CHECK(n > 0);
        for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
                done = 1;
                break;
            }
            on(h, ctx);
        }
    }
    close(s);
}

struct neigh_seen {
    int found, thresh, key, gc, reach;
};

static void neigh_answer(struct nlmsghdr *h, void *ctx)
{
    struct neigh_seen *v = ctx;
    CHECK(h->nlmsg_type == RTM_NEWNEIGHTBL && h->nlmsg_seq == 7);
    struct rtattr *a = (void *)((char *)NLMSG_DATA(h) + NLMSG_ALIGN(sizeof(struct ndtmsg)));
    int len = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct ndtmsg)));
    struct rtattr *name = find(a, len, NDTA_NAME);
    if (name == NULL || strcmp(RTA_DATA(name), "arp_cache") != 0)
        return;
    struct rtattr *t1 = find(a, len, NDTA_THRESH1), *cfg = find(a, len, NDTA_CONFIG);
    struct rtattr *gci = find(a, len, NDTA_GC_INTERVAL), *parms = find(a, len, NDTA_PARMS);
    if (t1 == NULL || cfg == NULL || gci == NULL)
        return; /* a per-device message: parameters only */
    v->found = 1;
    v->thresh = *(__u32 *)RTA_DATA(t1) == proc_long("/proc/sys/net/ipv4/neigh/default/gc_thresh1");
    v->key = ((struct ndt_config *)RTA_DATA(cfg))->ndtc_key_len == 4;
    v->gc = *(__u64 *)RTA_DATA(gci) == (__u64)proc_long("/proc/sys/net/ipv4/neigh/default/gc_interval") * 1000;
    if (parms != NULL) {
        struct rtattr *b = find(RTA_DATA(parms), RTA_PAYLOAD(parms), NDTPA_BASE_REACHABLE_TIME);
        v->reach = b != NULL &&
                   *(__u64 *)RTA_DATA(b) == (__u64)proc_long("/proc/sys/net/ipv4/neigh/default/base_reachable_time_ms");
    }
}

static void neightbl(void)
{
    struct neigh_seen v = { 0 };
    each_answer(dump(RTM_GETNEIGHTBL, AF_INET, sizeof(struct ndtmsg), 0), neigh_answer, &v);
    printf("RTM_GETNEIGHTBL: arp_cache %d, thresh1 as /proc %d, key length 4 %d, gc interval as /proc %d, "
           "base reachable time as /proc %d\n", v.found, v.thresh, v.key, v.gc, v.reach);
}

static void label_answer(struct nlmsghdr *h, void *ctx)
{
    int *bad = ctx;
    struct ifaddrlblmsg *m = NLMSG_DATA(h);
    struct rtattr *a = (void *)((char *)m + NLMSG_ALIGN(sizeof *m));
    int len = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof *m));
    struct rtattr *addr = find(a, len, IFAL_ADDRESS), *label = find(a, len, IFAL_LABEL);
    if (addr == NULL || RTA_PAYLOAD(addr) != 16 || label == NULL || RTA_PAYLOAD(label) != 4 ||
        m->ifal_prefixlen > 128 || *(__u32 *)RTA_DATA(label) > 0xffff)
        ++*bad;
}

static void addrlabel(void)
{
    int bad = 0;
    each_answer(dump(RTM_GETADDRLABEL, AF_INET6, sizeof(struct ifaddrlblmsg), 0), label_answer, &bad);
    printf("RTM_GETADDRLABEL: every entry a 16-byte address and a small label %d\n", bad == 0);
}

struct link_seen {
    int lo, present, mtu_ok;
};

static void link_answer(struct nlmsghdr *h, void *ctx)
{
    struct link_seen *v = ctx;
    struct ifinfomsg *i = NLMSG_DATA(h);
    if (h->nlmsg_type != RTM_NEWLINK || i->ifi_index != v->lo)
        return;
    struct rtattr *p = find(IFLA_RTA(i), IFLA_PAYLOAD(h), IFLA_PROTINFO);
    if (p == NULL)
        return;
    v->present = 1;
    struct rtattr *conf = find(RTA_DATA(p), RTA_PAYLOAD(p), IFLA_INET6_CONF);
    /* DEVCONF_MTU6 is the conf array's third entry (linux/ipv6.h). */
    v->mtu_ok = conf != NULL && RTA_PAYLOAD(conf) >= 12 &&
                ((__s32 *)RTA_DATA(conf))[DEVCONF_MTU6] == proc_long("/proc/sys/net/ipv6/conf/lo/mtu");
}

static void protinfo(void)
{
    struct link_seen v = { .lo = (int)if_nametoindex("lo") };
    CHECK(v.lo > 0);
    /* A dump of family AF_INET6 (as `ip token` and `ip -6 link` ask) answers with IPv6's
     * view of each link. */
    each_answer(dump(RTM_GETLINK, AF_INET6, sizeof(struct ifinfomsg), 0), link_answer, &v);
    printf("RTM_GETLINK AF_INET6 dump, lo: IFLA_PROTINFO %d, IFLA_INET6_CONF's mtu6 as /proc %d\n", v.present,
           v.mtu_ok);
}

int main(void)
{
    neightbl();
    addrlabel();
    protinfo();
    return 0;
}
