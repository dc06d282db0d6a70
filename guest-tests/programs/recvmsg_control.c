/* recvmsg with a control buffer the caller can write only in part, or that is smaller than
 * the control messages (net/core/scm.c put_cmsg and scm_detach_fds, man 7 unix, man 3 cmsg):
 * the data is received whatever the control buffer; descriptors are installed one by one
 * until one does not fit (MSG_CTRUNC) or cannot be written, the header written for those
 * installed, and the others closed; a message put_cmsg cannot write (SCM_CREDENTIALS) is
 * dropped without MSG_CTRUNC and without an error; msg_controllen says how much was used. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

static int sv[2];
static long pg;

static const char *errname(int e) { const char *n = strerrorname_np(e); return n ? n : "E?"; }

/* The lowest free descriptor (what the next installed fd gets). */
static int lowest_free(void) { int d = dup(0); close(d); return d; }

/* How many descriptors below 256 are open. */
static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 256; fd++)
        if (fcntl(fd, F_GETFD) != -1) n++;
    return n;
}

/* Sends "msgN" with `nfds` descriptors (copies of 0) and, when asked, nothing else. */
static void send_fds(const char *data, int nfds)
{
    union { char b[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr a; } u;
    struct iovec iov = { (void *)data, strlen(data) };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (nfds) {
        memset(&u, 0, sizeof u);
        m.msg_control = u.b;
        m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        for (int i = 0; i < nfds; i++) ((int *)CMSG_DATA(c))[i] = 0;
    }
    if (sendmsg(sv[0], &m, 0) < 0) { printf("sendmsg: %s\n", errname(errno)); exit(1); }
}

/* Receives one datagram with control buffer `ctl` of `len` bytes and reports: the result,
 * the data, MSG_CTRUNC, msg_controllen against `want_len`, the messages the guest can read
 * (only when `readable` bytes cover them), and how many descriptors were installed. */
static void recv_report(const char *label, void *ctl, size_t len, size_t want_len, size_t readable)
{
    char data[16] = { 0 };
    struct iovec iov = { data, sizeof data - 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = len };
    int free0 = lowest_free(), open0 = open_fds();
    errno = 0;
    ssize_t r = recvmsg(sv[1], &m, 0);
    if (r < 0) { printf("%s: recvmsg %s\n", label, errname(errno)); return; }
    printf("%s: %zd bytes \"%s\", MSG_CTRUNC %d, msg_controllen %s", label, r, data,
           !!(m.msg_flags & MSG_CTRUNC), m.msg_controllen == want_len ? "as expected" : "WRONG");
    if (m.msg_controllen != want_len) printf(" (%zu, wanted %zu)", (size_t)m.msg_controllen, want_len);
    int first = -1;
    size_t lim = m.msg_controllen < readable ? m.msg_controllen : readable, off = 0;
    while (off + CMSG_LEN(0) <= lim) {
        struct cmsghdr *c = (struct cmsghdr *)((char *)ctl + off);
        if (c->cmsg_len < CMSG_LEN(0) || off + c->cmsg_len > readable) { printf(", unreadable message"); break; }
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            printf(", SCM_RIGHTS with %d", n);
            if (n) first = ((int *)CMSG_DATA(c))[0];
            for (int i = 0; i < n; i++) close(((int *)CMSG_DATA(c))[i]);
        } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
            struct ucred uc;
            if (c->cmsg_len == CMSG_LEN(0)) {
                printf(", SCM_CREDENTIALS header only");
            } else {
                memcpy(&uc, CMSG_DATA(c), sizeof uc);
                printf(", SCM_CREDENTIALS %s", c->cmsg_len == CMSG_LEN(sizeof uc) && uc.pid == getpid() &&
                                                    uc.uid == getuid() ? "right" : "WRONG");
            }
        } else {
            printf(", other message");
        }
        off += CMSG_ALIGN(c->cmsg_len);
    }
    /* Every descriptor the guest can see was closed above: no other one may stay installed
     * (the ones that did not fit or could not be written are closed by the kernel). */
    printf(", first fd the lowest free %d, fds left open %d\n", first == -1 || first == free0, open_fds() - open0);
}

int main(void)
{
    pg = sysconf(_SC_PAGESIZE);
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) { printf("socketpair: %s\n", errname(errno)); return 1; }
    /* A writable page followed by an unmapped one; `end` is the boundary. */
    char *two = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *ro = mmap(0, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (two == MAP_FAILED || ro == MAP_FAILED) return 1;
    munmap(two + pg, pg);
    char *end = two + pg;
    size_t sp3 = CMSG_SPACE(3 * sizeof(int));

    /* Control buffers smaller than the message: what fits, and MSG_CTRUNC. */
    char *ok = two;
    send_fds("m1", 3); recv_report("room for 1 of 3 fds", ok, CMSG_LEN(sizeof(int)), CMSG_LEN(sizeof(int)), pg);
    send_fds("m2", 3); recv_report("room for the header only", ok, CMSG_LEN(0), 0, pg);
    send_fds("m3", 3); recv_report("4 bytes of room", ok, 4, 0, pg);
    send_fds("m4", 3); recv_report("msg_control NULL, msg_controllen 64", NULL, 64, 0, 0);
    send_fds("m5", 3); recv_report("room for all 3", ok, sp3, sp3, pg);

    /* Control buffers writable only in part: the fds written before the fault are kept. (Every
     * buffer starts at a multiple of 8, where a cmsghdr may be read on every arch.) */
    send_fds("m6", 3); recv_report("2 fds writable of 3", end - CMSG_LEN(2 * sizeof(int)), sp3, CMSG_SPACE(2 * sizeof(int)), CMSG_LEN(2 * sizeof(int)));
    send_fds("m7", 3); recv_report("header writable only", end - CMSG_LEN(0), sp3, 0, 0);
    send_fds("m8", 3); recv_report("unmapped buffer", end, sp3, 0, 0);
    send_fds("m9", 3); recv_report("read-only buffer", ro, sp3, 0, 0);
    send_fds("m10", 0); recv_report("no fds, unmapped buffer", end, sp3, 0, 0);

    /* put_cmsg (SCM_CREDENTIALS): a message that cannot be written is dropped silently. */
    int on = 1;
    if (setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on)) { printf("SO_PASSCRED: %s\n", errname(errno)); return 1; }
    size_t cr = CMSG_SPACE(sizeof(struct ucred));
    send_fds("c1", 0); recv_report("credentials", ok, cr, cr, pg);
    send_fds("c2", 0); recv_report("credentials, header writable only", end - CMSG_LEN(0), cr, 0, 0);
    send_fds("c3", 0); recv_report("credentials, unmapped", end, cr, 0, 0);
    send_fds("c4", 0); recv_report("credentials, room for the header", ok, CMSG_LEN(0), CMSG_LEN(0), pg);
    send_fds("c5", 0); recv_report("credentials, room for 8 bytes", ok, 8, 0, pg);
    send_fds("c6", 2); recv_report("credentials and 2 fds", ok, cr + CMSG_SPACE(2 * sizeof(int)), cr + CMSG_SPACE(2 * sizeof(int)), pg);
    send_fds("c7", 3); recv_report("credentials and 2 of 3 fds writable", end - cr - CMSG_LEN(2 * sizeof(int)), cr + CMSG_SPACE(3 * sizeof(int)), cr + CMSG_SPACE(2 * sizeof(int)), cr + CMSG_LEN(2 * sizeof(int)));
    send_fds("c8", 2); recv_report("credentials writable, no fd", end - cr - CMSG_LEN(0), cr + CMSG_SPACE(2 * sizeof(int)), cr, cr);
    send_fds("c9", 2); recv_report("credentials not writable, fds lost", end - CMSG_LEN(0), cr + CMSG_SPACE(2 * sizeof(int)), 0, 0);
    return 0;
}
