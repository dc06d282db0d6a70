/* /proc/net tables print an address's network-order bytes as the hex of the integer the CPU
 * reads from them (%08X of a __be32: 127.0.0.1 is 0100007F on a little-endian machine,
 * 7F000001 on a big-endian one), so a program reads the word back with %X into a uint32_t
 * and uses it as s_addr as it is (proc(5), net/ipv4/tcp_ipv4.c get_tcp4_sock). Checked with a
 * TCP listener on 127.0.0.1 in /proc/net/tcp (also through /proc/self/net and an openat of
 * the /proc/net directory), a UDP socket on ::1 in /proc/net/udp6 (four words), the route
 * table's masks (each, as s_addr, a prefix mask that covers its destination) and the all-hosts
 * group 224.0.0.1 in /proc/net/igmp.
 *
 * A file handle of a cgroup (FILEID_KERNFS, 0xfe) is the cgroup's 64-bit id as the CPU stores
 * it, which programs build from the id themselves (ss, systemd): the handle of the cgroup2
 * root from name_to_handle_at holds its inode number, and a handle built from the inode
 * number opens the same directory (open_by_handle_at needs CAP_DAC_READ_SEARCH: run as root,
 * as CI does; the line says so otherwise). A fanotify event's file identifier holds the same
 * handle bytes as name_to_handle_at's and opens the file (fanotify_init needs root too). */
#include "common.h"
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

/* The table's data line for local port `port` in state `st` (-1: any), its address words
 * parsed with %X into `w` (1 or 4 words). */
static int find_socket(FILE *f, unsigned port, int st, int words, uint32_t *w)
{
    char line[512];
    CHECK(fgets(line, sizeof line, f) != NULL); /* header */
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, ':');
        if (p == NULL)
            continue;
        p++;
        while (*p == ' ')
            p++;
        uint32_t v[4] = {0};
        unsigned lport, state;
        int n;
        if (words == 1)
            n = sscanf(p, "%8X:%X %*X:%*X %X", &v[0], &lport, &state) == 3;
        else
            n = sscanf(p, "%8X%8X%8X%8X:%X %*32[0-9A-F]:%*X %X", &v[0], &v[1], &v[2], &v[3], &lport, &state) == 6;
        if (n && lport == port && (st < 0 || (int)state == st)) {
            memcpy(w, v, sizeof(uint32_t) * (size_t)words);
            return 1;
        }
    }
    return 0;
}

static int tcp_listener_found(FILE *f, unsigned port)
{
    CHECK(f != NULL);
    uint32_t w = 0;
    int found = find_socket(f, port, 0x0A, 1, &w);
    fclose(f);
    return found && w == htonl(INADDR_LOOPBACK);
}

/* A prefix mask: ones then zeros in network order (its complement is 2^k - 1). */
static int is_prefix(uint32_t mask_be)
{
    uint32_t x = ~ntohl(mask_be);
    return (x & (x + 1)) == 0;
}

static void route_table(void)
{
    FILE *f = fopen("/proc/net/route", "r");
    CHECK(f != NULL);
    char line[512];
    CHECK(fgets(line, sizeof line, f) != NULL);
    int ok = 1;
    while (fgets(line, sizeof line, f)) {
        char iface[64];
        uint32_t dst, gw, mask;
        unsigned flags;
        if (sscanf(line, "%63s %X %X %X %*d %*u %*d %X", iface, &dst, &gw, &flags, &mask) != 5)
            continue;
        ok &= is_prefix(mask) && (dst & mask) == dst;
    }
    fclose(f);
    printf("route: every mask a prefix that covers its destination %d\n", ok);
}

static void igmp_groups(void)
{
    FILE *f = fopen("/proc/net/igmp", "r");
    CHECK(f != NULL);
    char line[256];
    int all_hosts = 0;
    while (fgets(line, sizeof line, f)) {
        uint32_t g;
        if (strncmp(line, "\t\t\t\t", 4) == 0 && sscanf(line + 4, "%X", &g) == 1)
            all_hosts |= g == inet_addr("224.0.0.1");
    }
    fclose(f);
    printf("igmp: the all-hosts group 224.0.0.1 listed %d\n", all_hosts);
}

/* struct file_handle with room for a kernfs id. */
struct kernfs_handle {
    unsigned int handle_bytes;
    int handle_type;
    uint64_t id;
};

static void cgroup_handle(void)
{
    FILE *m = fopen("/proc/self/mountinfo", "r");
    CHECK(m != NULL);
    char line[1024], dir[512] = "";
    while (fgets(line, sizeof line, m)) {
        char mnt[512], type[64];
        if (sscanf(line, "%*d %*d %*s %*s %511s %*s - %63s", mnt, type) == 2 && strcmp(type, "cgroup2") == 0) {
            strcpy(dir, mnt);
            break;
        }
    }
    fclose(m);
    if (dir[0] == 0) {
        /* No cgroup2 mount: nothing to look at (the lines as where there is one). */
        printf("cgroup2 handle: type FILEID_KERNFS 1, its id the inode number 1\n");
        printf("cgroup2 handle built from the inode number opens the directory 1\n");
        return;
    }
    struct stat st;
    CHECK(stat(dir, &st) == 0);
    struct kernfs_handle h = {.handle_bytes = sizeof h.id};
    int mount_id;
    CHECK(name_to_handle_at(AT_FDCWD, dir, (struct file_handle *)&h, &mount_id, 0) == 0);
    printf("cgroup2 handle: type FILEID_KERNFS %d, its id the inode number %d\n", h.handle_type == 0xfe,
           (h.id & 0xffffffffu) == ((uint64_t)st.st_ino & 0xffffffffu));
    struct kernfs_handle b = {.handle_bytes = sizeof b.id, .handle_type = 0xfe, .id = (uint64_t)st.st_ino};
    int mfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(mfd >= 0);
    int fd = open_by_handle_at(mfd, (struct file_handle *)&b, O_RDONLY | O_DIRECTORY);
    if (fd < 0 && errno == EPERM) {
        printf("cgroup2 handle built from the inode number opens the directory: needs root\n");
    } else {
        CHECK(fd >= 0);
        struct stat s2;
        CHECK(fstat(fd, &s2) == 0);
        printf("cgroup2 handle built from the inode number opens the directory %d\n",
               s2.st_ino == st.st_ino && s2.st_dev == st.st_dev);
        close(fd);
    }
    close(mfd);
}

/* A fanotify event's file identifier (FAN_REPORT_FID) holds the same handle bytes as
 * name_to_handle_at gives for the file, and opens it (fanotify_init needs CAP_SYS_ADMIN). */
static void fanotify_handle(void)
{
    char dir[] = "/tmp/proc_net_words.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY);
    if (fan < 0 && errno == EPERM) {
        printf("fanotify FID handle as name_to_handle_at's: needs root\n");
        rmdir(dir);
        return;
    }
    CHECK(fan >= 0);
    CHECK(fanotify_mark(fan, FAN_MARK_ADD, FAN_CREATE | FAN_ONDIR, AT_FDCWD, dir) == 0);
    char path[64];
    snprintf(path, sizeof path, "%s/f", dir);
    int f = open(path, O_CREAT | O_WRONLY, 0600);
    CHECK(f >= 0);
    close(f);
    union {
        struct fanotify_event_metadata m;
        char b[4096];
    } ev;
    ssize_t n = read(fan, &ev, sizeof ev);
    CHECK(n >= (ssize_t)sizeof ev.m);
    struct fanotify_event_info_fid *fid = (struct fanotify_event_info_fid *)(ev.b + ev.m.metadata_len);
    struct file_handle *fh = (struct file_handle *)fid->handle;
    int mount_id;
    union {
        struct file_handle h;
        char b[sizeof(struct file_handle) + 128];
    } mine = {.h.handle_bytes = 128};
    CHECK(name_to_handle_at(AT_FDCWD, dir, &mine.h, &mount_id, 0) == 0);
    int same = fh->handle_bytes == mine.h.handle_bytes && fh->handle_type == mine.h.handle_type &&
               memcmp(fh->f_handle, mine.h.f_handle, fh->handle_bytes) == 0;
    int mfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(mfd >= 0);
    int d = open_by_handle_at(mfd, fh, O_RDONLY | O_DIRECTORY);
    printf("fanotify FID handle as name_to_handle_at's %d, opens %d\n", same, d >= 0);
    if (d >= 0)
        close(d);
    close(mfd);
    close(fan);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(s >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(s, 1) == 0);
    socklen_t al = sizeof a;
    CHECK(getsockname(s, (struct sockaddr *)&a, &al) == 0);
    unsigned port = ntohs(a.sin_port);
    printf("tcp: the listener on 127.0.0.1 as s_addr %d\n", tcp_listener_found(fopen("/proc/net/tcp", "r"), port));
    printf("tcp through /proc/self/net %d\n", tcp_listener_found(fopen("/proc/self/net/tcp", "r"), port));
    int dir = open("/proc/net", O_RDONLY | O_DIRECTORY);
    CHECK(dir >= 0);
    int fd = openat(dir, "tcp", O_RDONLY);
    CHECK(fd >= 0);
    printf("tcp through openat of /proc/net %d\n", tcp_listener_found(fdopen(fd, "r"), port));
    close(dir);

    int u = socket(AF_INET6, SOCK_DGRAM, 0);
    CHECK(u >= 0);
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    CHECK(bind(u, (struct sockaddr *)&a6, sizeof a6) == 0);
    al = sizeof a6;
    CHECK(getsockname(u, (struct sockaddr *)&a6, &al) == 0);
    FILE *f = fopen("/proc/net/udp6", "r");
    CHECK(f != NULL);
    uint32_t w[4];
    int found = find_socket(f, ntohs(a6.sin6_port), -1, 4, w);
    fclose(f);
    printf("udp6: the socket on ::1 as s6_addr32 %d\n", found && memcmp(w, &in6addr_loopback, 16) == 0);

    route_table();
    igmp_groups();
    cgroup_handle();
    fanotify_handle();
    close(u);
    close(s);
    return 0;
}
