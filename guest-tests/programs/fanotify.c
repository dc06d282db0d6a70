/* fanotify (fanotify(7), fanotify_init(2), fanotify_mark(2); uapi linux/fanotify.h): events on
 * a directory read as struct fanotify_event_metadata (with an open fd of the file and the
 * writer's pid), then with FAN_REPORT_DFID_NAME as info records (a file handle and the name);
 * the 64-bit mask of fanotify_mark (two registers on 32-bit arches: a bit above 31 must reach
 * the kernel), event_f_flags in the arch's O_* numbering, and the errors. Needs
 * CAP_SYS_ADMIN: without it the test says so and stops, the same natively. */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static char dir[64];

static void touch(const char *name, const char *data)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, data, strlen(data)) == (ssize_t)strlen(data));
    CHECK(close(fd) == 0);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    snprintf(dir, sizeof dir, "fan.%d", (int)getpid());
    CHECK(mkdir(dir, 0700) == 0);
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fan < 0) {
        printf("fanotify_init: %s (needs CAP_SYS_ADMIN): skipped\n", errname(errno));
        rmdir(dir);
        return 0;
    }
    printf("fd flags: cloexec %d nonblock %d\n", (fcntl(fan, F_GETFD) & FD_CLOEXEC) != 0,
           (fcntl(fan, F_GETFL) & O_NONBLOCK) != 0);
    char buf[4096];
    errno = 0;
    ssize_t n = read(fan, buf, sizeof buf);
    printf("empty read: %zd %s\n", n, errname(errno));

    /* A bit above 31 of the 64-bit mask is not a valid event. */
    EXPECT_ERR("mark with a high mask bit", fanotify_mark(fan, FAN_MARK_ADD, 1ULL << 40, AT_FDCWD, dir), EINVAL);
    EXPECT_ERR("mark bad fd", fanotify_mark(99, FAN_MARK_ADD, FAN_MODIFY, AT_FDCWD, dir), EBADF);
    EXPECT_ERR("mark missing path", fanotify_mark(fan, FAN_MARK_ADD, FAN_MODIFY, AT_FDCWD, "no/such/dir"), ENOENT);
    EXPECT_ERR("mark bad flags", fanotify_mark(fan, 0x80000000u, FAN_MODIFY, AT_FDCWD, dir), EINVAL);
    CHECK(fanotify_mark(fan, FAN_MARK_ADD, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, AT_FDCWD, dir) == 0);
    touch("a", "hello");
    n = read(fan, buf, sizeof buf);
    CHECK(n >= (ssize_t)sizeof(struct fanotify_event_metadata));
    struct fanotify_event_metadata *m = (void *)buf;
    struct stat st;
    memset(&st, 0, sizeof st);
    int isreg = m->fd >= 0 && fstat(m->fd, &st) == 0 && S_ISREG(st.st_mode);
    printf("event: len %u vers %d meta %u mask %#llx pid ok %d\n", m->event_len, m->vers == FANOTIFY_METADATA_VERSION,
           m->metadata_len, (unsigned long long)m->mask, m->pid == getpid());
    printf("event fd: file %d size %lld cloexec %d nonblock %d\n", isreg, (long long)st.st_size,
           (fcntl(m->fd, F_GETFD) & FD_CLOEXEC) != 0, (fcntl(m->fd, F_GETFL) & O_NONBLOCK) != 0);
    printf("one event: %d\n", FAN_EVENT_OK(m, n) && !FAN_EVENT_OK(FAN_EVENT_NEXT(m, n), n));
    close(m->fd);
    CHECK(fanotify_mark(fan, FAN_MARK_REMOVE, FAN_CLOSE_WRITE | FAN_EVENT_ON_CHILD, AT_FDCWD, dir) == 0);
    touch("b", "x");
    errno = 0;
    n = read(fan, buf, sizeof buf);
    printf("after remove: %zd %s\n", n, errname(errno));
    close(fan);

    /* Directory file handles and names as info records. */
    int fid = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_NONBLOCK, O_RDONLY);
    if (fid < 0) {
        printf("FAN_REPORT_DFID_NAME: %s\n", errname(errno));
    } else {
        CHECK(fanotify_mark(fid, FAN_MARK_ADD, FAN_CREATE | FAN_DELETE, AT_FDCWD, dir) == 0);
        touch("created", "");
        char p[128];
        snprintf(p, sizeof p, "%s/created", dir);
        CHECK(unlink(p) == 0);
        n = read(fid, buf, sizeof buf);
        int events = 0;
        for (m = (void *)buf; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
            struct fanotify_event_info_fid *info = (void *)(m + 1);
            struct file_handle *fh = (void *)info->handle;
            const char *name = (const char *)(fh->f_handle + fh->handle_bytes);
            printf("fid event %d: mask %#llx fd %d info type %d len ok %d handle bytes ok %d name %s\n", events,
                   (unsigned long long)m->mask, m->fd, info->hdr.info_type,
                   info->hdr.len == m->event_len - m->metadata_len, fh->handle_bytes > 0 && fh->handle_bytes <= 128,
                   name);
            events++;
        }
        close(fid);
    }

    /* Permission events: a child's open waits for the answer written to the group. */
    int perm = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
    CHECK(perm >= 0);
    touch("p", "data");
    char pp[128];
    snprintf(pp, sizeof pp, "%s/p", dir);
    CHECK(fanotify_mark(perm, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, pp) == 0);
    for (int round = 0; round < 2; round++) {
        pid_t c = fork();
        if (c == 0) {
            int f = open(pp, O_RDONLY);
            _exit(f >= 0 ? 0 : errno == EPERM ? 3 : 4);
        }
        n = read(perm, buf, sizeof buf);
        CHECK(n >= (ssize_t)sizeof(struct fanotify_event_metadata));
        m = (void *)buf;
        struct fanotify_response resp = { m->fd, round == 0 ? FAN_ALLOW : FAN_DENY };
        CHECK(write(perm, &resp, sizeof resp) == sizeof resp);
        close(m->fd);
        int st;
        CHECK(waitpid(c, &st, 0) == c);
        printf("permission %s: mask %#llx pid ok %d, child's open %s\n", round == 0 ? "allowed" : "denied",
               (unsigned long long)m->mask, m->pid == c,
               WEXITSTATUS(st) == 0 ? "ok" : WEXITSTATUS(st) == 3 ? "EPERM" : "?");
    }
    close(perm);
    CHECK(unlink(pp) == 0);

    EXPECT_ERR("init bad flags", fanotify_init(0x80000000u, O_RDONLY), EINVAL);
    EXPECT_ERR("init bad event flags", fanotify_init(FAN_CLASS_NOTIF, O_RDONLY | O_PATH), EINVAL);
    char p[128];
    snprintf(p, sizeof p, "%s/a", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/b", dir);
    unlink(p);
    CHECK(rmdir(dir) == 0);
    printf("done\n");
    return 0;
}
