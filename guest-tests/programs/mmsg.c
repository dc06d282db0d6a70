/* sendmmsg(2) and recvmmsg(2): several datagrams in one call over a UNIX socket pair and
 * over UDP on the loopback (with the sender's address written back), msg_len of each,
 * MSG_WAITFORONE, the timeout (an invalid one is EINVAL), and the errors: one met after a
 * datagram was received is left for the next call (or SO_ERROR), as net/socket.c does. */
#define _GNU_SOURCE 1
#include "common.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
    const char *words[3] = { "one", "three", "fifteen" };
    struct iovec iov[3];
    struct mmsghdr out[3];
    memset(out, 0, sizeof out);
    for (int i = 0; i < 3; i++) {
        iov[i].iov_base = (void *)words[i];
        iov[i].iov_len = strlen(words[i]);
        out[i].msg_hdr.msg_iov = &iov[i];
        out[i].msg_hdr.msg_iovlen = 1;
    }
    int n = sendmmsg(sv[0], out, 3, 0);
    printf("sendmmsg: %d sent, lengths %u %u %u\n", n, out[0].msg_len, out[1].msg_len, out[2].msg_len);

    char bufs[4][16];
    struct iovec riov[4];
    struct mmsghdr in[4];
    memset(in, 0, sizeof in);
    memset(bufs, 0, sizeof bufs);
    for (int i = 0; i < 4; i++) {
        riov[i].iov_base = bufs[i];
        riov[i].iov_len = sizeof bufs[i] - 1;
        in[i].msg_hdr.msg_iov = &riov[i];
        in[i].msg_hdr.msg_iovlen = 1;
    }
    n = recvmmsg(sv[1], in, 4, MSG_DONTWAIT, NULL);
    printf("recvmmsg: %d received:", n);
    for (int i = 0; i < n; i++)
        printf(" \"%s\"(%u)", bufs[i], in[i].msg_len);
    printf("\n");
    EXPECT_ERR("recvmmsg on an empty socket, non-blocking", recvmmsg(sv[1], in, 4, MSG_DONTWAIT, NULL), EAGAIN);

    /* MSG_WAITFORONE: block for the first, then take what is there. */
    CHECK(send(sv[0], "a", 1, 0) == 1 && send(sv[0], "bb", 2, 0) == 2);
    memset(bufs, 0, sizeof bufs);
    n = recvmmsg(sv[1], in, 4, MSG_WAITFORONE, NULL);
    printf("recvmmsg MSG_WAITFORONE: %d received: \"%s\" \"%s\"\n", n, bufs[0], bufs[1]);

    /* A timeout is checked after each datagram. */
    CHECK(send(sv[0], "t", 1, 0) == 1);
    struct timespec ts = { 0, 1 };
    n = recvmmsg(sv[1], in, 4, 0, &ts);
    printf("recvmmsg with a 1 ns timeout: %d received\n", n);

    /* A timeout that is no valid timespec is EINVAL, before the descriptor is looked at. */
    struct timespec bad = { 0, 1000000000 };
    EXPECT_ERR("recvmmsg with tv_nsec 1000000000", recvmmsg(sv[1], in, 4, MSG_DONTWAIT, &bad), EINVAL);
    bad.tv_nsec = -1;
    EXPECT_ERR("recvmmsg with tv_nsec -1", recvmmsg(sv[1], in, 4, MSG_DONTWAIT, &bad), EINVAL);
    bad.tv_sec = -1;
    bad.tv_nsec = 0;
    EXPECT_ERR("recvmmsg with tv_sec -1", recvmmsg(sv[1], in, 4, MSG_DONTWAIT, &bad), EINVAL);
    bad.tv_sec = 0;
    bad.tv_nsec = 1000000000;
    EXPECT_ERR("recvmmsg on a closed descriptor with tv_nsec 1000000000", recvmmsg(99, in, 4, MSG_DONTWAIT, &bad),
               EINVAL);

    /* An error after a datagram was received: the count now, the error on the next call. */
    CHECK(send(sv[0], "d1", 2, 0) == 2 && send(sv[0], "d2", 2, 0) == 2);
    memset(bufs, 0, sizeof bufs);
    in[1].msg_hdr.msg_iov = (struct iovec *)8;
    n = recvmmsg(sv[1], in, 2, MSG_DONTWAIT, NULL);
    printf("recvmmsg with a bad second iovec array: %d received \"%s\"\n", n, bufs[0]);
    in[1].msg_hdr.msg_iov = &riov[1];
    EXPECT_ERR("recvmmsg after that: the deferred error", recvmmsg(sv[1], in, 2, MSG_DONTWAIT, NULL), EFAULT);
    memset(bufs, 0, sizeof bufs);
    n = recvmmsg(sv[1], in, 2, MSG_DONTWAIT, NULL);
    printf("recvmmsg then: %d received \"%s\"\n", n, bufs[0]);

    /* UDP on the loopback: each message's source address comes back. */
    int u = socket(AF_INET, SOCK_DGRAM, 0), w = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(u >= 0 && w >= 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    CHECK(bind(u, (struct sockaddr *)&sa, sizeof sa) == 0);
    socklen_t sl = sizeof sa;
    CHECK(getsockname(u, (struct sockaddr *)&sa, &sl) == 0);
    struct mmsghdr udp[2];
    memset(udp, 0, sizeof udp);
    for (int i = 0; i < 2; i++) {
        udp[i].msg_hdr.msg_name = &sa;
        udp[i].msg_hdr.msg_namelen = sizeof sa;
        udp[i].msg_hdr.msg_iov = &iov[i];
        udp[i].msg_hdr.msg_iovlen = 1;
    }
    n = sendmmsg(w, udp, 2, 0);
    printf("sendmmsg over UDP: %d sent\n", n);
    struct sockaddr_in from[2];
    memset(in, 0, sizeof in);
    memset(bufs, 0, sizeof bufs);
    for (int i = 0; i < 2; i++) {
        in[i].msg_hdr.msg_name = &from[i];
        in[i].msg_hdr.msg_namelen = sizeof from[i];
        in[i].msg_hdr.msg_iov = &riov[i];
        in[i].msg_hdr.msg_iovlen = 1;
    }
    struct sockaddr_in me;
    sl = sizeof me;
    CHECK(getsockname(w, (struct sockaddr *)&me, &sl) == 0);
    n = recvmmsg(u, in, 2, 0, NULL);
    printf("recvmmsg over UDP: %d received \"%s\" \"%s\", senders are the loopback socket %d %d, namelen %u\n", n,
           bufs[0], bufs[1], from[0].sin_port == me.sin_port && from[0].sin_addr.s_addr == htonl(INADDR_LOOPBACK),
           from[1].sin_port == me.sin_port, in[0].msg_hdr.msg_namelen);

    /* The deferred error is the socket's pending error: SO_ERROR reads and clears it. */
    CHECK(sendmmsg(w, udp, 2, 0) == 2);
    memset(bufs, 0, sizeof bufs);
    in[1].msg_hdr.msg_iov = (struct iovec *)8;
    n = recvmmsg(u, in, 2, 0, NULL);
    printf("recvmmsg over UDP with a bad second iovec array: %d received \"%s\"\n", n, bufs[0]);
    in[1].msg_hdr.msg_iov = &riov[1];
    int soerr = -1;
    socklen_t el = sizeof soerr;
    CHECK(getsockopt(u, SOL_SOCKET, SO_ERROR, &soerr, &el) == 0);
    printf("SO_ERROR then: %s\n", soerr ? errname(soerr) : "0");
    CHECK(getsockopt(u, SOL_SOCKET, SO_ERROR, &soerr, &el) == 0);
    printf("SO_ERROR again: %s\n", soerr ? errname(soerr) : "0");
    memset(bufs, 0, sizeof bufs);
    n = recvmmsg(u, in, 2, MSG_DONTWAIT, NULL);
    printf("recvmmsg then: %d received \"%s\"\n", n, bufs[0]);

    /* SO_ERROR gives the guest's number for the error (MIPS numbers ECONNREFUSED its own
     * way): a non-blocking connect to a port bound but not listening is refused. */
    int hold = socket(AF_INET, SOCK_STREAM, 0), tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK(hold >= 0 && tcp >= 0);
    struct sockaddr_in port = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    sl = sizeof port;
    CHECK(bind(hold, (struct sockaddr *)&port, sizeof port) == 0 && getsockname(hold, (struct sockaddr *)&port, &sl) == 0);
    int cerr = connect(tcp, (struct sockaddr *)&port, sizeof port) == 0 ? 0 : errno;
    if (cerr == EINPROGRESS) {
        struct pollfd pfd = { .fd = tcp, .events = POLLOUT };
        CHECK(poll(&pfd, 1, -1) == 1);
        el = sizeof cerr;
        CHECK(getsockopt(tcp, SOL_SOCKET, SO_ERROR, &cerr, &el) == 0);
    }
    printf("a refused non-blocking connect: %s\n", cerr ? errname(cerr) : "0");
    close(tcp);
    close(hold);

    EXPECT_ERR("sendmmsg on a closed descriptor", sendmmsg(99, out, 1, 0), EBADF);
    EXPECT_ERR("recvmmsg into a bad vector", recvmmsg(sv[1], (struct mmsghdr *)8, 1, MSG_DONTWAIT, NULL), EFAULT);
    printf("sendmmsg of no messages: %d\n", sendmmsg(sv[0], out, 0, 0));
    return 0;
}
