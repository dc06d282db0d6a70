/* The netdevice(7) setters, in a private network namespace the program makes itself
 * (unshare(CLONE_NEWNET); without the privilege it prints why it skipped): SIOCSIFFLAGS brings
 * lo up, SIOCSIFMTU, SIOCSIFTXQLEN, SIOCSIFADDR/SIOCSIFNETMASK/SIOCSIFBRDADDR (read back with
 * the getters), SIOCSIFNAME (found by SIOCGIFINDEX), SIOCGIFMAP,
 * SIOCSIFMETRIC and SIOCSIFHWADDR's refusals, SIOCSIFADDR/SIOCDIFADDR with struct in6_ifreq
 * on an AF_INET6 socket, and a setter whose struct is read-only memory. */
#define _GNU_SOURCE 1
#include "common.h"
#include <arpa/inet.h>
#include <linux/ipv6.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>

static int s;

static struct ifreq named(const char *name)
{
    struct ifreq r;
    memset(&r, 0, sizeof r);
    strcpy(r.ifr_name, name);
    return r;
}

static short flags_of(const char *name)
{
    struct ifreq r = named(name);
    CHECK(ioctl(s, SIOCGIFFLAGS, &r) == 0);
    return r.ifr_flags;
}

static const char *addr_of(const char *name, unsigned long req)
{
    static char txt[4][32];
    static int slot;
    struct ifreq r = named(name);
    if (ioctl(s, req, &r) != 0)
        return errname(errno);
    char *t = txt[slot++ % 4];
    inet_ntop(AF_INET, &((struct sockaddr_in *)&r.ifr_addr)->sin_addr, t, 32);
    return t;
}

static int set_addr(const char *name, unsigned long req, const char *a)
{
    struct ifreq r = named(name);
    struct sockaddr_in *in = (struct sockaddr_in *)&r.ifr_addr;
    in->sin_family = AF_INET;
    inet_pton(AF_INET, a, &in->sin_addr);
    return ioctl(s, req, &r) == 0 ? 0 : errno;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (unshare(CLONE_NEWNET) != 0) {
        printf("skip: unshare(CLONE_NEWNET) %s\n", errname(errno));
        return 0;
    }
    s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(s >= 0);
    printf("new namespace: lo up %d\n", (flags_of("lo") & IFF_UP) != 0);

    struct ifreq r = named("lo");
    r.ifr_flags = flags_of("lo") | IFF_UP;
    CHECK(ioctl(s, SIOCSIFFLAGS, &r) == 0);
    short f = flags_of("lo");
    printf("SIOCSIFFLAGS IFF_UP: up %d, running %d, loopback %d\n", (f & IFF_UP) != 0, (f & IFF_RUNNING) != 0,
           (f & IFF_LOOPBACK) != 0);
    printf("lo's address once up: %s\n", addr_of("lo", SIOCGIFADDR));

    r = named("lo");
    r.ifr_mtu = 1500;
    CHECK(ioctl(s, SIOCSIFMTU, &r) == 0);
    r = named("lo");
    CHECK(ioctl(s, SIOCGIFMTU, &r) == 0);
    printf("SIOCSIFMTU 1500: SIOCGIFMTU %d\n", r.ifr_mtu);
    r = named("lo");
    r.ifr_mtu = -1;
    EXPECT_ERR("SIOCSIFMTU -1", ioctl(s, SIOCSIFMTU, &r), EINVAL);

    r = named("lo");
    r.ifr_qlen = 321;
    CHECK(ioctl(s, SIOCSIFTXQLEN, &r) == 0);
    r = named("lo");
    CHECK(ioctl(s, SIOCGIFTXQLEN, &r) == 0);
    printf("SIOCSIFTXQLEN 321: SIOCGIFTXQLEN %d\n", r.ifr_qlen);
    r = named("lo");
    r.ifr_qlen = -1;
    EXPECT_ERR("SIOCSIFTXQLEN -1", ioctl(s, SIOCSIFTXQLEN, &r), EINVAL);

    int e = set_addr("lo", SIOCSIFADDR, "10.9.8.7");
    printf("SIOCSIFADDR 10.9.8.7: %s, ", errname(e));
    printf("address %s\n", addr_of("lo", SIOCGIFADDR));
    e = set_addr("lo", SIOCSIFNETMASK, "255.255.0.0");
    printf("SIOCSIFNETMASK 255.255.0.0: %s, ", errname(e));
    printf("netmask %s\n", addr_of("lo", SIOCGIFNETMASK));
    e = set_addr("lo", SIOCSIFBRDADDR, "10.9.255.255");
    printf("SIOCSIFBRDADDR 10.9.255.255: %s, ", errname(e));
    printf("broadcast %s\n", addr_of("lo", SIOCGIFBRDADDR));
    printf("SIOCSIFADDR on an unknown interface: %s\n", errname(set_addr("nosuch0", SIOCSIFADDR, "10.1.1.1")));

    r = named("lo");
    r.ifr_metric = 3;
    printf("SIOCSIFMETRIC: %s\n", ioctl(s, SIOCSIFMETRIC, &r) == 0 ? "0" : errname(errno));
    r = named("lo");
    r.ifr_hwaddr.sa_family = 1; /* ARPHRD_ETHER */
    printf("SIOCSIFHWADDR on lo: %s\n", ioctl(s, SIOCSIFHWADDR, &r) == 0 ? "0" : errname(errno));
    r = named("lo");
    memset(&r.ifr_map, 0x5a, sizeof r.ifr_map);
    CHECK(ioctl(s, SIOCGIFMAP, &r) == 0);
    printf("SIOCGIFMAP: mem_start 0 %d, mem_end 0 %d, base_addr %u irq %u dma %u port %u\n", r.ifr_map.mem_start == 0,
           r.ifr_map.mem_end == 0, r.ifr_map.base_addr, r.ifr_map.irq, r.ifr_map.dma, r.ifr_map.port);

    /* Renames: while up (allowed for lo by newer kernels), then while down. */
    r = named("lo");
    strcpy(r.ifr_newname, "lo6");
    e = ioctl(s, SIOCSIFNAME, &r);
    printf("SIOCSIFNAME lo -> lo6 while up: %s, ifr_newname kept \"%s\"\n", e == 0 ? "0" : errname(errno), r.ifr_newname);
    if (e == 0) {
        r = named("lo6");
        strcpy(r.ifr_newname, "lo");
        CHECK(ioctl(s, SIOCSIFNAME, &r) == 0);
    }
    r = named("lo");
    r.ifr_flags = flags_of("lo") & ~IFF_UP;
    CHECK(ioctl(s, SIOCSIFFLAGS, &r) == 0);
    printf("SIOCSIFFLAGS down: up %d\n", (flags_of("lo") & IFF_UP) != 0);
    r = named("lo");
    strcpy(r.ifr_newname, "lo7");
    e = ioctl(s, SIOCSIFNAME, &r);
    printf("SIOCSIFNAME lo -> lo7: %s\n", e == 0 ? "0" : errname(errno));
    if (e == 0) {
        r = named("lo7");
        CHECK(ioctl(s, SIOCGIFINDEX, &r) == 0);
        printf("SIOCGIFINDEX lo7: %d, if_nametoindex(\"lo\") %u\n", r.ifr_ifindex, if_nametoindex("lo"));
        r = named("lo7");
        strcpy(r.ifr_newname, "lo");
        CHECK(ioctl(s, SIOCSIFNAME, &r) == 0);
    }
    r = named("lo7");
    strcpy(r.ifr_newname, "lo8");
    EXPECT_ERR("SIOCSIFNAME of a name no longer there", ioctl(s, SIOCSIFNAME, &r), ENODEV);
    r = named("lo");
    r.ifr_flags = flags_of("lo") | IFF_UP;
    CHECK(ioctl(s, SIOCSIFFLAGS, &r) == 0);

    /* IPv6: struct in6_ifreq on an AF_INET6 socket. */
    int s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(s6 >= 0);
    struct in6_ifreq i6 = { .ifr6_prefixlen = 64, .ifr6_ifindex = (int)if_nametoindex("lo") };
    inet_pton(AF_INET6, "fd00:1:2::7", &i6.ifr6_addr);
    printf("SIOCSIFADDR in6_ifreq fd00:1:2::7/64: %s\n", ioctl(s6, SIOCSIFADDR, &i6) == 0 ? "0" : errname(errno));
    printf("SIOCSIFADDR the same again: %s\n", ioctl(s6, SIOCSIFADDR, &i6) == 0 ? "0" : errname(errno));
    printf("SIOCDIFADDR it: %s\n", ioctl(s6, SIOCDIFADDR, &i6) == 0 ? "0" : errname(errno));
    printf("SIOCDIFADDR it again: %s\n", ioctl(s6, SIOCDIFADDR, &i6) == 0 ? "0" : errname(errno));
    i6.ifr6_ifindex = 9999;
    printf("SIOCSIFADDR on ifindex 9999: %s\n", ioctl(s6, SIOCSIFADDR, &i6) == 0 ? "0" : errname(errno));

    /* A setter only reads its struct: read-only memory will do. */
    char *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    r = named("lo");
    r.ifr_mtu = 2000;
    memcpy(ro, &r, sizeof r);
    CHECK(mprotect(ro, 4096, PROT_READ) == 0);
    printf("SIOCSIFMTU from read-only memory: %s\n", ioctl(s, SIOCSIFMTU, ro) == 0 ? "0" : errname(errno));
    r = named("lo");
    CHECK(ioctl(s, SIOCGIFMTU, &r) == 0);
    printf("SIOCGIFMTU %d\n", r.ifr_mtu);
    EXPECT_ERR("SIOCGIFMTU into read-only memory", ioctl(s, SIOCGIFMTU, ro), EFAULT);
    EXPECT_ERR("SIOCSIFFLAGS from a bad pointer", ioctl(s, SIOCSIFFLAGS, (void *)8), EFAULT);
    return 0;
}
