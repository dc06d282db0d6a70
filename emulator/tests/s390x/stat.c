/* stat, lstat, fstat, fstatat and statfs of the paths given, field by field: s390x has its
 * own struct stat (st_nlink a long before st_mode) and struct statfs (32-bit f_type/f_bsize). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

static void show(const char *how, int r, const struct stat *st) {
    if (r != 0) {
        printf("%s: error\n", how);
        return;
    }
    printf("%s: dev=%lu ino=%lu mode=%o nlink=%lu uid=%u gid=%u rdev=%lu size=%ld blksize=%ld "
           "blocks=%ld atime=%ld.%09ld mtime=%ld.%09ld ctime=%ld.%09ld\n",
           how, (unsigned long)st->st_dev, (unsigned long)st->st_ino, st->st_mode,
           (unsigned long)st->st_nlink, st->st_uid, st->st_gid, (unsigned long)st->st_rdev,
           (long)st->st_size, (long)st->st_blksize, (long)st->st_blocks, (long)st->st_atim.tv_sec,
           st->st_atim.tv_nsec, (long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
           (long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        struct stat st;
        printf("== %s\n", argv[i]);
        show("stat", stat(argv[i], &st), &st);
        show("lstat", lstat(argv[i], &st), &st);
        show("fstatat", fstatat(AT_FDCWD, argv[i], &st, AT_SYMLINK_NOFOLLOW), &st);
        int fd = open(argv[i], O_RDONLY);
        show("fstat", fstat(fd, &st), &st);
        struct statfs sf;
        if (fstatfs(fd, &sf) == 0)
            printf("fstatfs: type=%lx bsize=%ld blocks=%lu files=%lu namelen=%ld frsize=%ld\n",
                   (unsigned long)sf.f_type, (long)sf.f_bsize, (unsigned long)sf.f_blocks,
                   (unsigned long)sf.f_files, (long)sf.f_namelen, (long)sf.f_frsize);
        close(fd);
    }
    struct stat st;
    printf("missing: %d\n", stat("/nonexistent/endgate", &st));
    return 0;
}
