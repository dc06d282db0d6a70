/* The raw getdents64 system call over a directory of exactly 200 entries (150 files, 30
 * directories, 15 symlinks, 5 fifos) with a small buffer, so it takes many calls: every
 * record's d_reclen, d_type and name are checked, the names printed sorted, and seeking to
 * a saved d_off resumes the listing. struct linux_dirent64 is the same on every arch (u64,
 * s64, u16, u8, name), but its fields are in the guest's byte order. */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

enum { N = 200 };

struct seen {
    char name[32];
    unsigned char type;
    int64_t off;
};

static int cmp(const void *a, const void *b) { return strcmp(((const struct seen *)a)->name, ((const struct seen *)b)->name); }

/* Reads the whole directory from the fd's current offset; returns the number of entries
 * (dot entries included) and the number of getdents64 calls that returned data. */
static int read_all(int fd, struct seen *out, int max, int *calls)
{
    char buf[600] __attribute__((aligned(8)));
    int n = 0;
    *calls = 0;
    for (;;) {
        long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
        CHECK(got >= 0);
        if (got == 0)
            return n;
        (*calls)++;
        for (long pos = 0; pos < got;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + pos);
            CHECK(d->d_reclen >= offsetof(struct linux_dirent64, d_name) + 2 && d->d_reclen % 8 == 0 && pos + d->d_reclen <= got);
            CHECK(strlen(d->d_name) < sizeof out->name && d->d_ino != 0);
            CHECK(n < max);
            strcpy(out[n].name, d->d_name);
            out[n].type = d->d_type;
            out[n].off = d->d_off;
            n++;
            pos += d->d_reclen;
        }
    }
}

static unsigned char want_type(const char *name)
{
    switch (name[0]) {
    case 'd': return DT_DIR;
    case 'l': return DT_LNK;
    case 'p': return DT_FIFO;
    default: return DT_REG;
    }
}

int main(void)
{
    char top[] = "gd64XXXXXX";
    CHECK(mkdtemp(top) != NULL);
    CHECK(chdir(top) == 0);
    char name[64];
    for (int i = 0; i < 150; i++) {
        snprintf(name, sizeof name, "file-%03d", i);
        int fd = open(name, O_CREAT | O_WRONLY, 0644);
        CHECK(fd >= 0);
        close(fd);
    }
    for (int i = 0; i < 30; i++) {
        snprintf(name, sizeof name, "dir-%02d", i);
        CHECK(mkdir(name, 0755) == 0);
    }
    for (int i = 0; i < 15; i++) {
        snprintf(name, sizeof name, "link-%02d", i);
        CHECK(symlink("file-000", name) == 0);
    }
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "pipe-%d", i);
        CHECK(mkfifo(name, 0600) == 0);
    }

    int fd = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0);
    static struct seen all[N + 2], again[N + 2];
    int calls;
    int n = read_all(fd, all, N + 2, &calls);
    printf("entries including . and ..: %d\n", n);
    printf("needed more than one call: %d\n", calls > 1);
    int counts[256] = {0}, others = 0, dots = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(all[i].name, ".") || !strcmp(all[i].name, "..")) {
            CHECK(all[i].type == DT_DIR);
            dots++;
            continue;
        }
        CHECK(all[i].type == want_type(all[i].name));
        counts[all[i].type]++;
        others++;
    }
    printf("dot entries: %d, others: %d\n", dots, others);
    printf("DT_REG %d, DT_DIR %d, DT_LNK %d, DT_FIFO %d\n", counts[DT_REG], counts[DT_DIR], counts[DT_LNK],
           counts[DT_FIFO]);

    /* Resume from the d_off of the 100th record: the rest of the listing comes back. d_off
     * may be a 64-bit hash (ext4), hence lseek64 (_llseek on 32-bit arches). */
    CHECK(lseek64(fd, all[99].off, SEEK_SET) == all[99].off);
    int rest = read_all(fd, again, N + 2, &calls);
    int same = rest == n - 100;
    for (int i = 0; same && i < rest; i++)
        same = !strcmp(again[i].name, all[100 + i].name) && again[i].off == all[100 + i].off;
    printf("lseek to a saved d_off resumes the listing: %d\n", same);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    CHECK(read_all(fd, again, N + 2, &calls) == n);
    printf("rewind lists everything again: ok\n");
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    EXPECT_ERR("buffer too small for one record", syscall(SYS_getdents64, fd, name, 8), EINVAL);
    close(fd);

    qsort(all, n, sizeof *all, cmp);
    printf("sorted:");
    for (int i = 0; i < n; i++)
        printf("%s%s", i % 10 ? " " : "\n  ", all[i].name);
    printf("\n");

    int f = open("file-000", O_RDONLY);
    CHECK(f >= 0);
    EXPECT_ERR("getdents64 on a file", syscall(SYS_getdents64, f, again, sizeof again), ENOTDIR);
    close(f);
    EXPECT_ERR("getdents64 bad fd", syscall(SYS_getdents64, 999, again, sizeof again), EBADF);

    for (int i = 0; i < n; i++) {
        if (all[i].name[0] == '.')
            continue;
        CHECK((all[i].name[0] == 'd' ? rmdir(all[i].name) : unlink(all[i].name)) == 0);
    }
    CHECK(chdir("..") == 0 && rmdir(top) == 0);
    return 0;
}
