/* inotify (inotify(7)): flags of inotify_init1, events for a watched directory read back in
 * the guest's byte order (wd, mask, cookie, len, name), IN_IGNORED after inotify_rm_watch,
 * and the errors. */
#include "common.h"
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>

static void show_events(int fd, int wd)
{
    char buf[4096] __attribute__((aligned(8)));
    ssize_t n = read(fd, buf, sizeof buf);
    CHECK(n > 0);
    for (char *p = buf; p < buf + n;) {
        struct inotify_event *e = (struct inotify_event *)p;
        const char *what = e->mask & IN_CREATE ? "IN_CREATE" : e->mask & IN_DELETE ? "IN_DELETE"
                         : e->mask & IN_IGNORED ? "IN_IGNORED" : e->mask & IN_MODIFY ? "IN_MODIFY" : "other";
        printf("event %s%s name \"%s\" wd %s len-aligned %s\n", what, e->mask & IN_ISDIR ? "|IN_ISDIR" : "",
               e->len ? e->name : "", e->wd == wd ? "matches" : "differs", e->len % 4 == 0 ? "yes" : "no");
        p += sizeof *e + e->len;
    }
}

int main(void)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    CHECK(fd >= 0);
    printf("cloexec: %s, nonblock: %s\n", fcntl(fd, F_GETFD) & FD_CLOEXEC ? "yes" : "no",
           fcntl(fd, F_GETFL) & O_NONBLOCK ? "yes" : "no");
    char buf[64];
    EXPECT_ERR("read with no events", read(fd, buf, sizeof buf), EAGAIN);
    CHECK(mkdir("d", 0755) == 0);
    int wd = inotify_add_watch(fd, "d", IN_CREATE | IN_DELETE | IN_MODIFY);
    CHECK(wd >= 0);
    int f = open("d/file1", O_CREAT | O_WRONLY, 0644);
    CHECK(f >= 0);
    CHECK(write(f, "x", 1) == 1);
    close(f);
    CHECK(mkdir("d/sub", 0755) == 0);
    CHECK(unlink("d/file1") == 0);
    show_events(fd, wd);
    printf("rm_watch: %d\n", inotify_rm_watch(fd, wd));
    show_events(fd, wd);
    EXPECT_ERR("rm_watch of no watch", inotify_rm_watch(fd, wd + 100), EINVAL);
    EXPECT_ERR("watch of a missing path", inotify_add_watch(fd, "missing", IN_CREATE), ENOENT);
    EXPECT_ERR("watch with a bad fd", inotify_add_watch(1000, "d", IN_CREATE), EBADF);
    EXPECT_ERR("bad flags", inotify_init1(0x40000000), EINVAL);
    return 0;
}
