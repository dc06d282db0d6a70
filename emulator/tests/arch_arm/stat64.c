#define _GNU_SOURCE
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
/* The kernel's arm structs (arch/arm/include/uapi/asm/stat.h), spelled out here because
   glibc's <sys/stat.h> defines its own. */
struct kstat64 {
    unsigned long long st_dev; unsigned char pad0[4]; unsigned long st_ino32;
    unsigned int st_mode, st_nlink; unsigned long st_uid, st_gid;
    unsigned long long st_rdev; unsigned char pad3[4]; long long st_size;
    unsigned long st_blksize; unsigned long long st_blocks;
    unsigned long at, atn, mt, mtn, ct, ctn; unsigned long long st_ino;
};
struct kstat {
    unsigned long st_dev, st_ino; unsigned short st_mode, st_nlink, st_uid, st_gid;
    unsigned long st_rdev, st_size, st_blksize, st_blocks, at, atn, mt, mtn, ct, ctn, u4, u5;
};
int main(void) {
    int fd = open("f.txt", O_RDWR | O_CREAT | O_TRUNC, 0640);
    write(fd, "0123456789", 10);
    fchmod(fd, 0640);
    struct kstat64 a, b; struct kstat o; struct stat g;
    printf("sizes %zu %zu\n", sizeof a, sizeof o);
    printf("stat64: %ld\n", syscall(SYS_stat64, "f.txt", &a));
    printf("fstat64: %ld\n", syscall(SYS_fstat64, fd, &b));
    stat("f.txt", &g);
    printf("size %lld mode %o nlink %u same ino %d low ino %d glibc ino %d\n", a.st_size, a.st_mode & 07777,
           a.st_nlink, a.st_ino == b.st_ino, (unsigned long)a.st_ino == a.st_ino32, a.st_ino == g.st_ino);
    printf("blocks match glibc %d blksize match %d mtime match %d\n", a.st_blocks == g.st_blocks,
           a.st_blksize == g.st_blksize, a.mt == g.st_mtime);
    long r = syscall(SYS_lstat64, ".", &a);
    printf("lstat64 dir: %ld isdir %d\n", r, S_ISDIR(a.st_mode));
    symlink("f.txt", "l");
    r = syscall(SYS_lstat64, "l", &a);
    printf("lstat64 link: %ld islnk %d\n", r, S_ISLNK(a.st_mode));
    r = syscall(SYS_fstatat64, AT_FDCWD, "l", &a, 0);
    printf("fstatat64 follow: %ld isreg %d\n", r, S_ISREG(a.st_mode));
    r = syscall(SYS_fstatat64, AT_FDCWD, "nope", &a, 0);
    printf("fstatat64 missing: %ld %m\n", r);
    r = syscall(SYS_stat, "f.txt", &o);
    printf("old stat: %ld size %lu mode %o\n", r, o.st_size, o.st_mode & 07777);
    unsigned char sfs[88];
    printf("statfs64 88: %ld\n", syscall(SYS_statfs64, ".", 88, sfs));
    printf("statfs64 84: %ld\n", syscall(SYS_statfs64, ".", 84, sfs));
    struct statfs s1; statfs(".", &s1);
    printf("statfs bsize>0 %d namelen %ld\n", s1.f_bsize > 0, (long)s1.f_namelen);
    unlink("l"); unlink("f.txt");
    return 0;
}
