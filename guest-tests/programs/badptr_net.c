/* Bad pointers to the socket calls (issue 15 part 3): socketpair, bind, connect, accept4,
 * getsockname, getpeername, getsockopt, setsockopt, sendto, recvfrom, sendmsg, recvmsg,
 * sendmmsg, recvmmsg, and socketcall's argument block on the arches that have it (i386, s390x;
 * elsewhere the line comes from the direct call, which answers the same).
 *
 * Each is called with NULL, an unmapped page, a read-only page (for what the kernel writes)
 * or a buffer straddling the end of a mapping (badptr.h), on AF_UNIX sockets, and prints what
 * it returned; the expected output (made natively) records Linux's answers.  Every receive is
 * MSG_DONTWAIT and the listener is non-blocking, so a wrong answer cannot hang the test.
 * Linux checks a receive buffer only when it copies into it: with nothing queued the answer
 * is EAGAIN, whatever the pointer.  Sources: socket(7), unix(7), send(2), recv(2), bind(2),
 * getsockopt(2), accept(2), and Linux's net/socket.c (move_addr_to_kernel/_user). */
#include "badptr.h"
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/net.h>

/* socketcall(call, args) where the arch has it, else the direct call with the same args. */
static long sc(int call, long direct_nr, unsigned long *args, int nargs, void *block)
{
#ifdef SYS_socketcall
    (void)direct_nr;
    (void)args;
    (void)nargs;
    return syscall(SYS_socketcall, call, block);
#else
    (void)call;
    (void)block;
    if (nargs == 3)
        return syscall(direct_nr, args[0], args[1], args[2]);
    return syscall(direct_nr, args[0], args[1], args[2], args[3], args[4], args[5]);
#endif
}

int main(void)
{
    badptr_setup();
    char buf[64];
    int sv[2];
    T("socketpair sv NULL", syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, NUL));
    T("socketpair sv UNM", syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, UNM));
    T("socketpair sv RO", syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, RO));
    T("socketpair sv E4", syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, E4));
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    printf("socketpair after the faults: fds %d %d\n", sv[0], sv[1]);

    /* addresses handed in */
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK(s >= 0);
    T("bind addr NULL", syscall(SYS_bind, s, NUL, sizeof(struct sockaddr_un)));
    T("bind addr UNM", syscall(SYS_bind, s, UNM, sizeof(struct sockaddr_un)));
    T("bind addr E8 len 110", syscall(SYS_bind, s, E8, sizeof(struct sockaddr_un)));
    T("connect addr UNM", syscall(SYS_connect, sv[0], UNM, sizeof(struct sockaddr_un)));
    T("connect addr NULL len 0", syscall(SYS_connect, s, NUL, 0));
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    strcpy(sun.sun_path, "sock");
    CHECK(bind(s, (struct sockaddr *)&sun, sizeof sun) == 0);
    CHECK(listen(s, 4) == 0);

    /* accept: the address is written after the connection is taken */
    socklen_t len = sizeof sun;
    T("accept4 nothing queued, addr UNM", syscall(SYS_accept4, s, UNM, &len, 0));
    int c1 = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(c1 >= 0 && connect(c1, (struct sockaddr *)&sun, sizeof sun) == 0);
    T("accept4 addr UNM", syscall(SYS_accept4, s, UNM, &len, 0));
    int c2 = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(c2 >= 0 && connect(c2, (struct sockaddr *)&sun, sizeof sun) == 0);
    T("accept4 addrlen UNM", syscall(SYS_accept4, s, buf, UNM, 0));
    T("accept4 addrlen RO", syscall(SYS_accept4, s, buf, RO, 0));
    T("accept4 after the faults (both connections were taken)", syscall(SYS_accept4, s, NUL, NUL, 0));

    /* addresses handed out */
    len = sizeof buf;
    T("getsockname addr UNM", syscall(SYS_getsockname, s, UNM, &len));
    T("getsockname addrlen UNM", syscall(SYS_getsockname, s, buf, UNM));
    T("getsockname addrlen NULL", syscall(SYS_getsockname, s, buf, NUL));
    T("getsockname addr RO", syscall(SYS_getsockname, s, RO, &len));
    len = 64;
    T("getsockname addr E4", syscall(SYS_getsockname, s, E4, &len));
    len = sizeof buf;
    T("getpeername addr UNM", syscall(SYS_getpeername, c1, UNM, &len));
    T("getpeername addrlen RO", syscall(SYS_getpeername, c1, buf, RO));

    /* socket options */
    len = sizeof(int);
    T("getsockopt SO_TYPE optval UNM", syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, UNM, &len));
    T("getsockopt SO_TYPE optval RO", syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, RO, &len));
    T("getsockopt SO_TYPE optlen UNM", syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, buf, UNM));
    T("getsockopt SO_TYPE optlen NULL", syscall(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, buf, NUL));
    len = sizeof(int);
    T("getsockopt SO_RCVBUF optval E4 len 4 (fits)", syscall(SYS_getsockopt, s, SOL_SOCKET, SO_RCVBUF, E4, &len) == 0);
    len = 64;
    T("getsockopt SO_PEERCRED optval E8", syscall(SYS_getsockopt, sv[0], SOL_SOCKET, SO_PEERCRED, E8, &len));
    T("setsockopt SO_RCVBUF optval NULL", syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, NUL, sizeof(int)));
    T("setsockopt SO_RCVBUF optval UNM", syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, UNM, sizeof(int)));
    T("setsockopt SO_RCVBUF optval E4 len 8", syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVBUF, E4, 8));

    /* sendto / recvfrom */
    T("sendto buf NULL", syscall(SYS_sendto, sv[0], NUL, 4, MSG_DONTWAIT, NUL, 0));
    T("sendto buf UNM", syscall(SYS_sendto, sv[0], UNM, 4, MSG_DONTWAIT, NUL, 0));
    memset(E8, 'x', 8);
    T("sendto buf E8 len 16", syscall(SYS_sendto, sv[0], E8, 16, MSG_DONTWAIT, NUL, 0));
    T("sendto dest UNM", syscall(SYS_sendto, sv[0], "abcd", 4, MSG_DONTWAIT, UNM, sizeof sun));
    T("recvfrom nothing queued, buf UNM", syscall(SYS_recvfrom, sv[1], UNM, 4, MSG_DONTWAIT, NUL, NUL));
    CHECK(send(sv[0], "abcdefgh", 8, 0) == 8);
    T("recvfrom buf NULL", syscall(SYS_recvfrom, sv[1], NUL, 4, MSG_DONTWAIT, NUL, NUL));
    T("recvfrom buf UNM", syscall(SYS_recvfrom, sv[1], UNM, 4, MSG_DONTWAIT, NUL, NUL));
    T("recvfrom buf RO", syscall(SYS_recvfrom, sv[1], RO, 4, MSG_DONTWAIT, NUL, NUL));
    T("recvfrom buf E4 len 8", syscall(SYS_recvfrom, sv[1], E4, 8, MSG_DONTWAIT, NUL, NUL));
    len = sizeof sun;
    T("recvfrom addrlen UNM", syscall(SYS_recvfrom, sv[1], buf, 2, MSG_DONTWAIT, buf + 8, UNM));
    T("recvfrom addr UNM (unnamed peer: nothing to copy)", syscall(SYS_recvfrom, sv[1], buf, 2, MSG_DONTWAIT, UNM, &len));
    T("recvfrom the rest", syscall(SYS_recvfrom, sv[1], buf, sizeof buf, MSG_DONTWAIT, NUL, NUL));

    /* sendmsg / recvmsg */
    struct iovec iov = {"abcd", 4};
    struct iovec iov_bad = {UNM, 4};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    T("sendmsg msghdr NULL", syscall(SYS_sendmsg, sv[0], NUL, MSG_DONTWAIT));
    T("sendmsg msghdr UNM", syscall(SYS_sendmsg, sv[0], UNM, MSG_DONTWAIT));
    mh.msg_iov = (struct iovec *)UNM;
    T("sendmsg iov array UNM", syscall(SYS_sendmsg, sv[0], &mh, MSG_DONTWAIT));
    mh.msg_iov = &iov_bad;
    T("sendmsg iov base UNM", syscall(SYS_sendmsg, sv[0], &mh, MSG_DONTWAIT));
    mh.msg_iov = &iov;
    mh.msg_control = UNM;
    mh.msg_controllen = 32;
    T("sendmsg control UNM", syscall(SYS_sendmsg, sv[0], &mh, MSG_DONTWAIT));
    mh.msg_control = NULL;
    mh.msg_controllen = 0;
    mh.msg_name = UNM;
    mh.msg_namelen = sizeof sun;
    T("sendmsg name UNM", syscall(SYS_sendmsg, sv[0], &mh, MSG_DONTWAIT));
    mh.msg_name = NULL;
    mh.msg_namelen = 0;
    T("sendmsg good", syscall(SYS_sendmsg, sv[0], &mh, MSG_DONTWAIT));
    T("recvmsg msghdr UNM", syscall(SYS_recvmsg, sv[1], UNM, MSG_DONTWAIT));
    T("recvmsg msghdr NULL", syscall(SYS_recvmsg, sv[1], NUL, MSG_DONTWAIT));
    struct iovec riov = {buf, 2};
    struct msghdr rh = {.msg_iov = &riov, .msg_iovlen = 1};
    rh.msg_iov = (struct iovec *)UNM;
    T("recvmsg iov array UNM", syscall(SYS_recvmsg, sv[1], &rh, MSG_DONTWAIT));
    rh.msg_iov = &iov_bad;
    T("recvmsg iov base UNM", syscall(SYS_recvmsg, sv[1], &rh, MSG_DONTWAIT));
    /* a msghdr on a read-only page: read fine, the kernel's write-back of msg_flags faults
     * after the bytes were taken */
    rh.msg_iov = &riov;
    ro_put(&rh, sizeof rh);
    T("recvmsg msghdr RO", syscall(SYS_recvmsg, sv[1], RO, MSG_DONTWAIT));
    ro_reset();
    T("recvmsg the rest", syscall(SYS_recvmsg, sv[1], &rh, MSG_DONTWAIT));
    T("recvmsg nothing queued, iov base UNM", syscall(SYS_recvmsg, sv[1], &(struct msghdr){.msg_iov = &iov_bad, .msg_iovlen = 1}, MSG_DONTWAIT));

    /* sendmmsg / recvmmsg */
    T("sendmmsg vec UNM", syscall(SYS_sendmmsg, sv[0], UNM, 1, MSG_DONTWAIT));
    T("recvmmsg vec UNM", syscall(SYS_recvmmsg, sv[1], UNM, 1, MSG_DONTWAIT, NUL));
    struct mmsghdr mm = {.msg_hdr = {.msg_iov = &iov_bad, .msg_iovlen = 1}};
    T("sendmmsg iov base UNM", syscall(SYS_sendmmsg, sv[0], &mm, 1, MSG_DONTWAIT));

    /* socketcall's argument block */
    unsigned long args[6] = {AF_UNIX, SOCK_STREAM, 0, 0, 0, 0};
    unsigned long bad[6] = {(unsigned long)s, (unsigned long)UNM, (unsigned long)UNM, 0, 0, 0};
    T("socketcall(getsockname) args UNM|getsockname addr UNM",
      sc(SYS_GETSOCKNAME, SYS_getsockname, bad, 3, UNM));
    T("socketcall(getsockname) args NULL|getsockname addr UNM",
      sc(SYS_GETSOCKNAME, SYS_getsockname, bad, 3, NUL));
    args[0] = s;
    args[1] = (unsigned long)UNM;
    args[2] = (unsigned long)&len;
    len = sizeof sun;
    T("socketcall(getsockname) addr UNM", sc(SYS_GETSOCKNAME, SYS_getsockname, args, 3, args));

    badptr_finish();
    return 0;
}
