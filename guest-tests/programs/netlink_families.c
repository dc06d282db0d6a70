/* Netlink families beyond rtnetlink, seen by the guest: generic netlink's controller
 * (CTRL_CMD_GETFAMILY for "nlctrl": its id, version, operations and multicast group; an
 * unknown family's error with an extended-ack message) and sock_diag(7) (a dump of a
 * listening unix socket with its name, inode, queue lengths and owner; a TCP listener found by
 * port with its inode and backlog). */
#define _GNU_SOURCE 1
#include "common.h"
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

static char buf[65536];

static int nl_open(int proto)
{
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
    CHECK(s >= 0);
    return s;
}

/* Sends one message of `type` with `body` (no sockaddr: the kernel is the default peer). */
static void send_msg(int s, int type, int flags, const void *body, size_t blen, unsigned seq)
{
    char out[256] = { 0 };
    struct nlmsghdr *h = (struct nlmsghdr *)out;
    h->nlmsg_len = NLMSG_LENGTH(blen);
    h->nlmsg_type = type;
    h->nlmsg_flags = NLM_F_REQUEST | flags;
    h->nlmsg_seq = seq;
    memcpy(NLMSG_DATA(h), body, blen);
    CHECK(send(s, out, h->nlmsg_len, 0) == (ssize_t)h->nlmsg_len);
}

/* A generic netlink request: genlmsghdr, then one string attribute. */
static void genl_request(int s, int cmd, int attr, const char *str, unsigned seq)
{
    char body[64] = { 0 };
    struct genlmsghdr *g = (struct genlmsghdr *)body;
    g->cmd = cmd;
    g->version = 1;
    struct nlattr *a = (struct nlattr *)(body + GENL_HDRLEN);
    a->nla_type = attr;
    a->nla_len = NLA_HDRLEN + strlen(str) + 1;
    strcpy((char *)a + NLA_HDRLEN, str);
    send_msg(s, GENL_ID_CTRL, 0, body, GENL_HDRLEN + NLA_ALIGN(a->nla_len), seq);
}

#define NLA_NEXT(a, rem) ((rem) -= NLA_ALIGN((a)->nla_len), (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))
#define NLA_OK(a, rem) ((rem) >= (int)sizeof(struct nlattr) && (a)->nla_len >= sizeof(struct nlattr) && (a)->nla_len <= (rem))
#define NLA_DATA(a) ((void *)((char *)(a) + NLA_HDRLEN))
#define NLA_TYPE(a) ((a)->nla_type & NLA_TYPE_MASK)

static void genl(void)
{
    int s = nl_open(NETLINK_GENERIC);
    genl_request(s, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, "nlctrl", 1);
    ssize_t n = recv(s, buf, sizeof buf, 0);
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    CHECK(n > 0 && NLMSG_OK(h, n));
    printf("nlctrl: answer type GENL_ID_CTRL %d, seq 1 %d, cmd CTRL_CMD_NEWFAMILY %d\n", h->nlmsg_type == GENL_ID_CTRL,
           h->nlmsg_seq == 1, ((struct genlmsghdr *)NLMSG_DATA(h))->cmd == CTRL_CMD_NEWFAMILY);
    int rem = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
    int id = -1, ops = 0, getfamily = 0, getfamily_flags_ok = 0, groups = 0, notify_id = -1;
    unsigned version = 0, hdrsize = 99, maxattr = 0;
    const char *name = "";
    for (struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN); NLA_OK(a, rem); a = NLA_NEXT(a, rem)) {
        switch (NLA_TYPE(a)) {
        case CTRL_ATTR_FAMILY_ID: id = *(unsigned short *)NLA_DATA(a); break;
        case CTRL_ATTR_FAMILY_NAME: name = NLA_DATA(a); break;
        case CTRL_ATTR_VERSION: version = *(unsigned *)NLA_DATA(a); break;
        case CTRL_ATTR_HDRSIZE: hdrsize = *(unsigned *)NLA_DATA(a); break;
        case CTRL_ATTR_MAXATTR: maxattr = *(unsigned *)NLA_DATA(a); break;
        case CTRL_ATTR_OPS: {
            int r2 = a->nla_len - NLA_HDRLEN;
            for (struct nlattr *op = NLA_DATA(a); NLA_OK(op, r2); op = NLA_NEXT(op, r2)) {
                ops++;
                int r3 = op->nla_len - NLA_HDRLEN;
                unsigned opid = 0, flags = 0;
                for (struct nlattr *f = NLA_DATA(op); NLA_OK(f, r3); f = NLA_NEXT(f, r3)) {
                    if (NLA_TYPE(f) == CTRL_ATTR_OP_ID)
                        opid = *(unsigned *)NLA_DATA(f);
                    if (NLA_TYPE(f) == CTRL_ATTR_OP_FLAGS)
                        flags = *(unsigned *)NLA_DATA(f);
                }
                if (opid == CTRL_CMD_GETFAMILY) {
                    getfamily = 1;
                    /* GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP, and no bit above the known ones. */
                    getfamily_flags_ok = (flags & 0x6) == 0x6 && flags < 0x100;
                }
            }
            break;
        }
        case CTRL_ATTR_MCAST_GROUPS: {
            int r2 = a->nla_len - NLA_HDRLEN;
            for (struct nlattr *g = NLA_DATA(a); NLA_OK(g, r2); g = NLA_NEXT(g, r2)) {
                groups++;
                int r3 = g->nla_len - NLA_HDRLEN;
                const char *gname = "";
                int gid = -1;
                for (struct nlattr *f = NLA_DATA(g); NLA_OK(f, r3); f = NLA_NEXT(f, r3)) {
                    if (NLA_TYPE(f) == CTRL_ATTR_MCAST_GRP_NAME)
                        gname = NLA_DATA(f);
                    if (NLA_TYPE(f) == CTRL_ATTR_MCAST_GRP_ID)
                        gid = *(int *)NLA_DATA(f);
                }
                if (strcmp(gname, "notify") == 0)
                    notify_id = gid;
            }
            break;
        }
        }
    }
    printf("nlctrl: FAMILY_ID %d, FAMILY_NAME \"%s\", VERSION at least 1 %d, HDRSIZE %u, MAXATTR below 100 %d\n", id,
           name, version >= 1 && version < 100, hdrsize, maxattr < 100);
    printf("nlctrl: OPS listed %d, GETFAMILY among them %d with DO and DUMP %d\n", ops > 0 && ops < 100, getfamily,
           getfamily_flags_ok);
    printf("nlctrl: one multicast group %d, \"notify\" with id GENL_ID_CTRL %d\n", groups == 1, notify_id == GENL_ID_CTRL);

    /* An unknown family: ENOENT, with an extended-ack message when asked for. */
    int one = 1;
    CHECK(setsockopt(s, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one) == 0);
    genl_request(s, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, "no-such-family", 2);
    n = recv(s, buf, sizeof buf, 0);
    CHECK(n > 0 && NLMSG_OK(h, n));
    struct nlmsgerr *e = NLMSG_DATA(h);
    printf("unknown family: NLMSG_ERROR %d, error %s, echoes seq 2 %d and type GENL_ID_CTRL %d\n",
           h->nlmsg_type == NLMSG_ERROR, errname(-e->error), e->msg.nlmsg_seq == 2, e->msg.nlmsg_type == GENL_ID_CTRL);
    int echoed = 0, tlvs_ok = 1;
    if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
        /* The whole request comes back: its attribute names the family asked for. */
        struct nlattr *a = (struct nlattr *)((char *)&e->msg + NLMSG_HDRLEN + GENL_HDRLEN);
        echoed = a->nla_type == CTRL_ATTR_FAMILY_NAME && strcmp(NLA_DATA(a), "no-such-family") == 0;
    }
    if (h->nlmsg_flags & NLM_F_ACK_TLVS) {
        int rem2 = (char *)h + h->nlmsg_len - ((char *)&e->msg + NLMSG_ALIGN(e->msg.nlmsg_len));
        for (struct nlattr *a = (struct nlattr *)((char *)&e->msg + NLMSG_ALIGN(e->msg.nlmsg_len)); NLA_OK(a, rem2);
             a = NLA_NEXT(a, rem2))
            if (NLA_TYPE(a) == NLMSGERR_ATTR_OFFS)
                /* The offset of the attribute at fault, inside the request. */
                tlvs_ok &= *(unsigned *)NLA_DATA(a) < 64;
    }
    printf("unknown family: the request comes back %d, extended-ack attributes sane %d\n", echoed, tlvs_ok);
    close(s);
}

/* Dumps sock_diag answers for `req` and calls `each` on every message; returns their count. */
static int diag_dump(const void *req, size_t len, unsigned seq, void (*each)(struct nlmsghdr *))
{
    int s = nl_open(NETLINK_SOCK_DIAG);
    send_msg(s, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP, req, len, seq);
    int count = 0, done = 0;
    while (!done) {
        ssize_t n = recv(s, buf, sizeof buf, 0);
        CHECK(n > 0);
        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
            CHECK(h->nlmsg_seq == seq);
            if (h->nlmsg_type == NLMSG_DONE) {
                done = 1;
                break;
            }
            if (h->nlmsg_type == NLMSG_ERROR) {
                printf("sock_diag: error %s\n", errname(-((struct nlmsgerr *)NLMSG_DATA(h))->error));
                exit(1);
            }
            CHECK(h->nlmsg_type == SOCK_DIAG_BY_FAMILY);
            count++;
            each(h);
        }
    }
    close(s);
    return count;
}

static unsigned want_ino, vfs_ino;
static int unix_found;

static void unix_each(struct nlmsghdr *h)
{
    struct unix_diag_msg *m = NLMSG_DATA(h);
    if (m->udiag_ino != want_ino)
        return;
    unix_found = 1;
    printf("unix: family AF_UNIX %d, type SOCK_STREAM %d, state TCP_LISTEN %d, cookie set %d\n", m->udiag_family == AF_UNIX,
           m->udiag_type == SOCK_STREAM, m->udiag_state == TCP_LISTEN, m->udiag_cookie[0] || m->udiag_cookie[1]);
    int rem = h->nlmsg_len - NLMSG_LENGTH(sizeof *m);
    for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, rem); a = RTA_NEXT(a, rem)) {
        switch (a->rta_type) {
        case UNIX_DIAG_NAME:
            printf("unix: UNIX_DIAG_NAME \"%.*s\"\n", (int)RTA_PAYLOAD(a), (char *)RTA_DATA(a));
            break;
        case UNIX_DIAG_VFS: {
            struct unix_diag_vfs *v = RTA_DATA(a);
            printf("unix: UNIX_DIAG_VFS inode of the file %d\n", v->udiag_vfs_ino == vfs_ino);
            break;
        }
        case UNIX_DIAG_RQLEN: {
            struct unix_diag_rqlen *q = RTA_DATA(a);
            printf("unix: UNIX_DIAG_RQLEN pending %u, backlog %u\n", q->udiag_rqueue, q->udiag_wqueue);
            break;
        }
        case UNIX_DIAG_ICONS:
            printf("unix: UNIX_DIAG_ICONS %u waiting connection(s)\n", (unsigned)(RTA_PAYLOAD(a) / 4));
            break;
        case UNIX_DIAG_UID:
            printf("unix: UNIX_DIAG_UID is ours %d\n", *(unsigned *)RTA_DATA(a) == getuid());
            break;
        }
    }
}

static unsigned short want_port;
static int tcp_found;

static void tcp_each(struct nlmsghdr *h)
{
    struct inet_diag_msg *m = NLMSG_DATA(h);
    if (m->id.idiag_sport != want_port)
        return;
    tcp_found = 1;
    printf("tcp: family AF_INET %d, state TCP_LISTEN %d, src 127.0.0.1 %d, inode ours %d, uid ours %d, backlog %u\n",
           m->idiag_family == AF_INET, m->idiag_state == TCP_LISTEN, m->id.idiag_src[0] == htonl(INADDR_LOOPBACK),
           m->idiag_inode == want_ino, m->idiag_uid == getuid(), m->idiag_wqueue);
    int rem = h->nlmsg_len - NLMSG_LENGTH(sizeof *m);
    for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, rem); a = RTA_NEXT(a, rem)) {
        if (a->rta_type == INET_DIAG_INFO) {
            struct tcp_info *ti = RTA_DATA(a);
            /* A listener's tcp_info holds its queue lengths and nothing else. */
            printf("tcp: INET_DIAG_INFO state TCP_LISTEN %d, unacked %u, sacked (the backlog) %u, rto %u\n",
                   ti->tcpi_state == TCP_LISTEN, ti->tcpi_unacked, ti->tcpi_sacked, ti->tcpi_rto);
        }
        if (a->rta_type == INET_DIAG_SKMEMINFO)
            printf("tcp: INET_DIAG_SKMEMINFO rmem_alloc 0 %d, rcvbuf positive %d\n", ((unsigned *)RTA_DATA(a))[0] == 0,
                   (int)((unsigned *)RTA_DATA(a))[1] > 0);
    }
}

static void sock_diag(void)
{
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    strcpy(sa.sun_path, "diag.sock");
    unlink(sa.sun_path);
    CHECK(bind(l, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(l, 5) == 0);
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(connect(c, (struct sockaddr *)&sa, sizeof sa) == 0);
    struct stat st;
    CHECK(fstat(l, &st) == 0);
    want_ino = st.st_ino;
    CHECK(stat("diag.sock", &st) == 0);
    vfs_ino = st.st_ino;
    struct unix_diag_req ur = { .sdiag_family = AF_UNIX, .udiag_states = 1 << TCP_LISTEN,
                                .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_RQLEN | UDIAG_SHOW_ICONS |
                                              UDIAG_SHOW_UID };
    int n = diag_dump(&ur, sizeof ur, 5, unix_each);
    printf("unix: dump of listeners has some %d, ours among them %d\n", n > 0, unix_found);

    int t = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in in = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof in;
    CHECK(bind(t, (struct sockaddr *)&in, sizeof in) == 0 && listen(t, 7) == 0);
    CHECK(getsockname(t, (struct sockaddr *)&in, &len) == 0);
    want_port = in.sin_port;
    CHECK(fstat(t, &st) == 0);
    want_ino = st.st_ino;
    struct inet_diag_req_v2 ir = { .sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP,
                                   .idiag_ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_SKMEMINFO - 1)),
                                   .idiag_states = 1 << TCP_LISTEN };
    n = diag_dump(&ir, sizeof ir, 6, tcp_each);
    printf("tcp: dump of listeners has some %d, ours among them %d\n", n > 0, tcp_found);
    close(t);
    close(c);
    close(l);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    genl();
    sock_diag();
    return 0;
}
