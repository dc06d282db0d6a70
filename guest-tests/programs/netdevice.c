/* Network-device ioctls (netdevice(7)) on the loopback interface: if_nametoindex and
 * if_indextoname (SIOCGIFINDEX, SIOCGIFNAME), flags, MTU, address, netmask, hardware type,
 * SIOCGIFCONF (the required length with a NULL buffer, then the records), and ENODEV for an
 * interface that does not exist. Only loopback facts are printed. */
#include "common.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

static void addr(int s, unsigned long req, const char *what)
{
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    CHECK(ioctl(s, req, &r) == 0);
    struct sockaddr_in *in = (struct sockaddr_in *)&r.ifr_addr;
    printf("%s: family %s %s\n", what, in->sin_family == AF_INET ? "AF_INET" : "other", inet_ntoa(in->sin_addr));
}

int main(void)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(s >= 0);
    unsigned idx = if_nametoindex("lo");
    printf("if_nametoindex(lo) > 0: %s\n", idx > 0 ? "yes" : "no");
    char name[IF_NAMESIZE];
    printf("if_indextoname: %s\n", if_indextoname(idx, name) ? name : "failed");

    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, "lo");
    CHECK(ioctl(s, SIOCGIFFLAGS, &r) == 0);
    printf("flags: up %d loopback %d running %d\n", !!(r.ifr_flags & IFF_UP), !!(r.ifr_flags & IFF_LOOPBACK),
           !!(r.ifr_flags & IFF_RUNNING));
    CHECK(ioctl(s, SIOCGIFMTU, &r) == 0);
    printf("mtu at least 1500: %s\n", r.ifr_mtu >= 1500 ? "yes" : "no");
    CHECK(ioctl(s, SIOCGIFINDEX, &r) == 0);
    printf("index matches: %s\n", (unsigned)r.ifr_ifindex == idx ? "yes" : "no");
    addr(s, SIOCGIFADDR, "address");
    addr(s, SIOCGIFNETMASK, "netmask");
    CHECK(ioctl(s, SIOCGIFHWADDR, &r) == 0);
    printf("hardware type: %s\n", r.ifr_hwaddr.sa_family == ARPHRD_LOOPBACK ? "ARPHRD_LOOPBACK" : "other");

    struct ifconf c = { .ifc_len = 0, .ifc_buf = NULL };
    CHECK(ioctl(s, SIOCGIFCONF, &c) == 0);
    printf("ifconf length is whole records: %s\n", c.ifc_len > 0 && c.ifc_len % (int)sizeof(struct ifreq) == 0 ? "yes" : "no");
    struct ifreq recs[32];
    c.ifc_len = sizeof recs;
    c.ifc_req = recs;
    CHECK(ioctl(s, SIOCGIFCONF, &c) == 0);
    int found = 0;
    for (int i = 0; i < c.ifc_len / (int)sizeof(struct ifreq); i++) {
        struct sockaddr_in *in = (struct sockaddr_in *)&recs[i].ifr_addr;
        if (strcmp(recs[i].ifr_name, "lo") == 0 && in->sin_family == AF_INET)
            printf("ifconf lo: %s\n", inet_ntoa(in->sin_addr)), found = 1;
    }
    printf("ifconf found lo: %s\n", found ? "yes" : "no");

    strcpy(r.ifr_name, "nosuch0");
    EXPECT_ERR("unknown interface", ioctl(s, SIOCGIFFLAGS, &r), ENODEV);
    printf("if_nametoindex(nosuch0): %u\n", if_nametoindex("nosuch0"));
    r.ifr_ifindex = 0x7fffff00;
    EXPECT_ERR("unknown index", ioctl(s, SIOCGIFNAME, &r), ENODEV);
    EXPECT_ERR("bad pointer", ioctl(s, SIOCGIFFLAGS, (void *)16), EFAULT);
    return 0;
}
