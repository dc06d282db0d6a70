/* statfs/fstatfs/statvfs of the working directory: only what is stable everywhere is printed
 * (the file system type and sizes vary): consistency of the fields and agreement between the
 * calls. /proc's f_type is printed, since procfs has one magic number on every Linux.
 * Built with -D_FILE_OFFSET_BITS=64 (manifest), so 32-bit arches use statfs64. */
#include "common.h"
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

static int same(const struct statfs *a, const struct statfs *b)
{
    /* The free counts may move between two calls if something else writes: compare the
     * fields that do not. */
    return a->f_type == b->f_type && a->f_bsize == b->f_bsize && a->f_blocks == b->f_blocks &&
           a->f_files == b->f_files && a->f_namelen == b->f_namelen && a->f_frsize == b->f_frsize &&
           a->f_flags == b->f_flags && !memcmp(&a->f_fsid, &b->f_fsid, sizeof a->f_fsid);
}

int main(void)
{
    struct statfs s, f;
    CHECK(statfs(".", &s) == 0);
    printf("f_bsize positive: %d\n", s.f_bsize > 0);
    printf("f_frsize positive: %d\n", s.f_frsize > 0);
    printf("f_blocks >= f_bfree: %d\n", s.f_blocks >= s.f_bfree);
    printf("f_bfree >= f_bavail: %d\n", s.f_bfree >= s.f_bavail);
    printf("f_files >= f_ffree: %d\n", s.f_files >= s.f_ffree);
    printf("f_namelen at least 14: %d\n", s.f_namelen >= 14);
    printf("f_flags has ST_VALID: %d\n", (s.f_flags & 0x0020) != 0);

    int fd = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0);
    CHECK(fstatfs(fd, &f) == 0);
    printf("fstatfs agrees with statfs: %d\n", same(&s, &f));
    CHECK(same(&s, &f));

    struct statvfs v;
    CHECK(statvfs(".", &v) == 0);
    int vok = v.f_bsize == (unsigned long)s.f_bsize && v.f_blocks == s.f_blocks && v.f_files == s.f_files &&
              v.f_namemax == (unsigned long)s.f_namelen;
    printf("statvfs agrees with statfs: %d\n", vok);
    CHECK(vok);
    struct statvfs fv;
    CHECK(fstatvfs(fd, &fv) == 0);
    printf("fstatvfs agrees with statvfs: %d\n", fv.f_bsize == v.f_bsize && fv.f_blocks == v.f_blocks);
    close(fd);

    CHECK(statfs("/proc", &s) == 0);
    printf("/proc f_type: 0x%lx\n", (unsigned long)s.f_type);
    CHECK(statfs("/proc/self", &f) == 0);
    printf("/proc/self is on the same file system: %d\n", f.f_type == s.f_type);

    EXPECT_ERR("statfs missing", statfs("missing/dir", &s), ENOENT);
    EXPECT_ERR("fstatfs bad fd", fstatfs(999, &s), EBADF);
    EXPECT_ERR("statfs bad buffer", statfs(".", (struct statfs *)16), EFAULT);
    return 0;
}
