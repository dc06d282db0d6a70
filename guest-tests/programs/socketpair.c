/* Unix sockets: socketpair stream in both directions, SOCK_DGRAM message boundaries,
 * sendmsg/recvmsg with an iovec, shutdown giving EOF, and getsockopt SO_TYPE. */
#include "common.h"
#include <sys/socket.h>
#include <sys/un.h>

int main(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(send(sv[0], "ping", 4, 0) == 4);
    char buf[64] = {0};
    CHECK(recv(sv[1], buf, sizeof buf, 0) == 4);
    CHECK(write(sv[1], "pong", 4) == 4);
    CHECK(read(sv[0], buf + 4, 4) == 4);
    printf("stream both ways: <%s>\n", buf);

    int type = 0;
    socklen_t len = sizeof type;
    CHECK(getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &type, &len) == 0);
    printf("SO_TYPE is SOCK_STREAM: %d\n", type == SOCK_STREAM);

    struct iovec iov[2] = {{"scatter ", 8}, {"gather", 6}};
    struct msghdr mh = {0};
    mh.msg_iov = iov;
    mh.msg_iovlen = 2;
    CHECK(sendmsg(sv[0], &mh, 0) == 14);
    char a[5] = {0}, b[20] = {0};
    struct iovec riov[2] = {{a, 4}, {b, 19}};
    struct msghdr rh = {0};
    rh.msg_iov = riov;
    rh.msg_iovlen = 2;
    CHECK(recvmsg(sv[1], &rh, 0) == 14);
    printf("sendmsg/recvmsg: <%s> <%s>\n", a, b);

    CHECK(shutdown(sv[0], SHUT_WR) == 0);
    printf("after shutdown, recv returns %zd\n", recv(sv[1], buf, sizeof buf, 0));
    close(sv[0]);
    close(sv[1]);

    CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
    CHECK(send(sv[0], "one", 3, 0) == 3);
    CHECK(send(sv[0], "three", 5, 0) == 5);
    memset(buf, 0, sizeof buf);
    ssize_t n1 = recv(sv[1], buf, sizeof buf, 0);
    ssize_t n2 = recv(sv[1], buf + 10, sizeof buf - 10, 0);
    printf("datagrams keep boundaries: %zd <%s> %zd <%s>\n", n1, buf, n2, buf + 10);
    CHECK(send(sv[0], "truncate-me", 11, 0) == 11);
    memset(buf, 0, sizeof buf);
    printf("short datagram read: %zd <%s>\n", recv(sv[1], buf, 4, 0), buf);
    EXPECT_ERR("recv nothing with MSG_DONTWAIT", recv(sv[1], buf, 4, MSG_DONTWAIT), EAGAIN);
    EXPECT_ERR("socket bad family", socket(12345, SOCK_STREAM, 0), EAFNOSUPPORT);
    EXPECT_ERR("send on a non-socket", send(0 + 100, "x", 1, 0), EBADF);
    return 0;
}
