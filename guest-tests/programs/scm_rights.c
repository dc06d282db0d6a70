/* Passing file descriptors over a Unix socket pair with sendmsg/recvmsg and SCM_RIGHTS:
 * one fd, then three in one message with data, each read through on the receiving side;
 * MSG_CTRUNC when the control buffer is too small, SCM_CREDENTIALS, and the msg_controllen
 * recvmsg gives back (the CMSG_SPACE of each message, clamped to the buffer). struct cmsghdr and
 * its alignment differ between 32- and 64-bit arches (CMSG_ALIGN is 4 or 8). */
#include "common.h"
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>

static int send_fds(int sock, const int *fds, int n, const char *data)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct iovec iov = {(void *)data, strlen(data)};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = u.buf;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * n);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
    return (int)sendmsg(sock, &mh, 0);
}

/* Receives into fds (up to max); returns the number of fds and fills data. */
static int recv_fds(int sock, int *fds, int max, char *data, size_t cap, int *flags)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    memset(data, 0, cap);
    struct iovec iov = {data, cap - 1};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = u.buf;
    /* CMSG_LEN, not CMSG_SPACE: exactly room for max fds on every arch (CMSG_SPACE's padding
     * would hold one more int on 64-bit arches). */
    mh.msg_controllen = CMSG_LEN(sizeof(int) * max);
    CHECK(recvmsg(sock, &mh, 0) > 0);
    *flags = mh.msg_flags;
    int n = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        CHECK(c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS);
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        memcpy(fds + n, CMSG_DATA(c), sizeof(int) * k);
        n += k;
    }
    return n;
}

/* Receives one message into a control buffer of `room` bytes, closes the descriptors that
 * came, and returns msg_controllen; *flags gets msg_flags. */
static size_t recv_controllen(int sock, size_t room, int *flags)
{
    union {
        char buf[256];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    char data[16];
    struct iovec iov = {data, sizeof data};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = u.buf;
    mh.msg_controllen = room;
    CHECK(recvmsg(sock, &mh, 0) > 0);
    *flags = mh.msg_flags;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                close(fd);
            }
        }
    }
    return mh.msg_controllen;
}

static void show_through(const char *label, int fd)
{
    char buf[64] = {0};
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    printf("%s: read %zd bytes through it: <%s>\n", label, n, buf);
}

int main(void)
{
    char dir[] = "scmXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    int files[3];
    const char *texts[3] = {"first file", "second", "the third one"};
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "f%d", i);
        files[i] = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
        CHECK(files[i] >= 0);
        CHECK(write(files[i], texts[i], strlen(texts[i])) == (ssize_t)strlen(texts[i]));
    }
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);

    printf("send one fd: %d bytes\n", send_fds(sv[0], files, 1, "one"));
    int got[4], flags;
    char data[32];
    int n = recv_fds(sv[1], got, 4, data, sizeof data, &flags);
    printf("received %d fd with <%s>, new fd number: %d, flags %d\n", n, data, got[0] != files[0], flags);
    show_through("received fd", got[0]);
    CHECK(lseek(got[0], 3, SEEK_SET) == 3);
    printf("shares the file offset with the original: %d\n", lseek(files[0], 0, SEEK_CUR) == 3);
    close(got[0]);

    printf("send three fds: %d bytes\n", send_fds(sv[0], files, 3, "three"));
    n = recv_fds(sv[1], got, 4, data, sizeof data, &flags);
    printf("received %d fds with <%s>\n", n, data);
    for (int i = 0; i < n; i++) {
        char label[16];
        snprintf(label, sizeof label, "fd %d of 3", i + 1);
        show_through(label, got[i]);
        close(got[i]);
    }

    /* Three fds into room for one: MSG_CTRUNC, and the extra fds are not installed. */
    CHECK(send_fds(sv[0], files, 3, "trunc") == 5);
    n = recv_fds(sv[1], got, 1, data, sizeof data, &flags);
    printf("room for one of three: %d fd, MSG_CTRUNC %d\n", n, !!(flags & MSG_CTRUNC));
    close(got[0]);

    int on = 1;
    CHECK(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0);
    CHECK(send(sv[0], "cred", 4, 0) == 4);
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {data, sizeof data};
    struct msghdr mh = {0};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = u.buf;
    mh.msg_controllen = sizeof u.buf;
    CHECK(recvmsg(sv[1], &mh, 0) == 4);
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    CHECK(c != NULL && c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len == CMSG_LEN(sizeof(struct ucred)));
    struct ucred cr;
    memcpy(&cr, CMSG_DATA(c), sizeof cr);
    printf("SCM_CREDENTIALS: pid %d uid %d gid %d\n", cr.pid == getpid(), cr.uid == getuid(), cr.gid == getgid());

    /* msg_controllen after recvmsg: each message counts CMSG_SPACE of its data (up to its
     * aligned end, not its last data byte), all of it clamped to the buffer. */
    const size_t cred_space = CMSG_SPACE(sizeof(struct ucred)), big = 200;
    CHECK(send(sv[0], "c", 1, 0) == 1);
    size_t len = recv_controllen(sv[1], big, &flags);
    printf("msg_controllen of SCM_CREDENTIALS is CMSG_SPACE(sizeof(struct ucred)) %d\n", len == cred_space);
    CHECK(send_fds(sv[0], files, 1, "r") == 1);
    len = recv_controllen(sv[1], big, &flags);
    printf("msg_controllen of SCM_CREDENTIALS and one fd is the two CMSG_SPACEs %d\n",
           len == cred_space + CMSG_SPACE(sizeof(int)));
    CHECK(send_fds(sv[0], files, 3, "3") == 1);
    len = recv_controllen(sv[1], big, &flags);
    printf("msg_controllen of SCM_CREDENTIALS and three fds is the two CMSG_SPACEs %d\n",
           len == cred_space + CMSG_SPACE(3 * sizeof(int)));
    CHECK(send_fds(sv[0], files, 3, "t") == 1);
    len = recv_controllen(sv[1], cred_space + CMSG_LEN(sizeof(int)), &flags);
    printf("room for the credentials and one of three fds: msg_controllen all of it %d, MSG_CTRUNC %d\n",
           len == cred_space + CMSG_LEN(sizeof(int)), !!(flags & MSG_CTRUNC));
    on = 0;
    CHECK(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0);
    CHECK(send_fds(sv[0], files, 1, "1") == 1);
    len = recv_controllen(sv[1], big, &flags);
    printf("msg_controllen of one fd is CMSG_SPACE(sizeof(int)) %d\n", len == CMSG_SPACE(sizeof(int)));

    EXPECT_ERR("sending a closed fd", send_fds(sv[0], (int[]){999}, 1, "x"), EBADF);
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "f%d", i);
        close(files[i]);
        CHECK(unlink(name) == 0);
    }
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
