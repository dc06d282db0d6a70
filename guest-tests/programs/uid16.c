/* The 16-bit-id calls i386 and arm keep at their historic numbers (kernel/uid16.c; the `…32`
 * calls replaced them): `fchown`, `chown` and `lchown` at those numbers take 16-bit ids, where
 * 0xffff means "leave it" (-1), so owning a file of one's own they succeed and change nothing,
 * as root or not; `getuid` there gives the 16-bit id (above 65535: 65534), but `setfsuid`
 * returns the previous fsuid whole (kernel/uid16.c). Each is the raw system call, as glibc calls
 * only the `…32` ones. i386 and arm. */
#define _GNU_SOURCE 1
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common.h"

int main(void)
{
    char path[] = "/tmp/uid16.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    struct stat before, after;
    CHECK(fstat(fd, &before) == 0);
    long r = syscall(SYS_fchown, fd, 0xffff, 0xffff);
    CHECK(fstat(fd, &after) == 0);
    printf("fchown16(fd, 0xffff, 0xffff): %ld, owner unchanged %d, group unchanged %d\n", r,
           after.st_uid == before.st_uid, after.st_gid == before.st_gid);
    r = syscall(SYS_chown, path, 0xffff, 0xffff);
    CHECK(stat(path, &after) == 0);
    printf("chown16(path, 0xffff, 0xffff): %ld, owner unchanged %d, group unchanged %d\n", r,
           after.st_uid == before.st_uid, after.st_gid == before.st_gid);
    r = syscall(SYS_lchown, path, 0xffff, 0xffff);
    CHECK(stat(path, &after) == 0);
    printf("lchown16(path, 0xffff, 0xffff): %ld, owner unchanged %d, group unchanged %d\n", r,
           after.st_uid == before.st_uid, after.st_gid == before.st_gid);
    unlink(path);
    unsigned uid = (unsigned)getuid();
    unsigned expect = uid > 65535 ? 65534 : uid;
    printf("getuid16 is the 16-bit uid: %d\n", (unsigned long)syscall(SYS_getuid) == expect);
    /* 0xffff (-1) only asks: the current fsuid, which is the euid here. */
    printf("setfsuid16(0xffff) is the fsuid: %d\n", (unsigned long)syscall(SYS_setfsuid, 0xffff) == (unsigned)geteuid());
    return 0;
}
