/* Socket ioctls of linux/sockios.h beyond the interface queries: SIOCETHTOOL (linux/ethtool.h:
 * struct ifreq whose ifr_data points at the command's structure, its first __u32 the command)
 * on the loopback interface, which has a link (ETHTOOL_GLINK's struct ethtool_value data 1), no
 * string sets (ETHTOOL_GSSET_INFO clears the mask it is asked about) and no driver information
 * (ETHTOOL_GDRVINFO: EOPNOTSUPP); and SIOCGARP (arp(7): struct arpreq, its sockaddrs' families
 * in the host's order) for 127.0.0.1 on lo, which has no ARP entry (ENXIO). */
#include "common.h"
#include <net/if.h>
#include <net/if_arp.h>
#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

static int ethtool(int s, void *cmd)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    ifr.ifr_data = cmd;
    errno = 0;
    return ioctl(s, SIOCETHTOOL, &ifr) == 0 ? 0 : errno;
}

int main(void)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(s >= 0);
    struct ethtool_value link = { .cmd = ETHTOOL_GLINK };
    int e = ethtool(s, &link);
    printf("ETHTOOL_GLINK: %s, data %u, cmd kept %d\n", e ? strerror(e) : "ok", link.data, link.cmd == ETHTOOL_GLINK);
    struct {
        struct ethtool_sset_info h;
        __u32 data[2];
    } ss = { { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = (1ULL << ETH_SS_STATS) | (1ULL << ETH_SS_PRIV_FLAGS) } };
    e = ethtool(s, &ss);
    printf("ETHTOOL_GSSET_INFO: %s, mask %#llx\n", e ? strerror(e) : "ok", (unsigned long long)ss.h.sset_mask);
    struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
    e = ethtool(s, &di);
    printf("ETHTOOL_GDRVINFO: %s\n", e ? strerror(e) : "ok");
    struct ethtool_value bogus = { .cmd = 0 };
    e = ethtool(s, &bogus);
    printf("command 0: %s\n", e ? strerror(e) : "ok");

    struct arpreq ar;
    memset(&ar, 0, sizeof ar);
    struct sockaddr_in *pa = (struct sockaddr_in *)&ar.arp_pa;
    pa->sin_family = AF_INET;
    pa->sin_addr.s_addr = inet_addr("127.0.0.1");
    strcpy(ar.arp_dev, "lo");
    errno = 0;
    int r = ioctl(s, SIOCGARP, &ar);
    printf("SIOCGARP 127.0.0.1 on lo: %d %s\n", r, r ? strerror(errno) : "");
    pa->sin_family = AF_INET6;
    errno = 0;
    r = ioctl(s, SIOCGARP, &ar);
    printf("SIOCGARP of an AF_INET6 address: %d %s\n", r, r ? strerror(errno) : "");
    return 0;
}
