/* The sizes and alignments of common C and POSIX types, and the byte order: a property of
 * each arch's ABI, so this test is arch-specific (expected output per arch, from qemu-user).
 * It also checks the rules that hold on every Linux arch (long and pointers agree, int is
 * 32 bits), exiting 1 if one does not. */
#include "common.h"
#include <dirent.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

#define SHOW(t) printf("%-16s size %3zu align %2zu\n", #t, sizeof(t), _Alignof(t))

int main(void)
{
    SHOW(char);
    SHOW(short);
    SHOW(int);
    SHOW(long);
    SHOW(long long);
    SHOW(void *);
    SHOW(size_t);
    SHOW(float);
    SHOW(double);
    SHOW(long double);
    SHOW(max_align_t);
    SHOW(wchar_t);
    SHOW(off_t);
    SHOW(time_t);
    SHOW(clock_t);
    SHOW(pid_t);
    SHOW(uid_t);
    SHOW(mode_t);
    SHOW(dev_t);
    SHOW(ino_t);
    SHOW(struct timespec);
    SHOW(struct timeval);
    SHOW(struct stat);
    SHOW(sigset_t);
    printf("char is signed: %d\n", (char)-1 < 0);
    union {
        uint32_t u;
        unsigned char b[4];
    } e = {0x01020304};
    printf("byte order: %s\n", e.b[0] == 4 ? "little-endian" : "big-endian");

    CHECK(sizeof(long) == sizeof(void *));
    CHECK(sizeof(int) == 4 && sizeof(long long) == 8 && sizeof(short) == 2);
    CHECK(sizeof(size_t) == sizeof(void *));
    printf("Linux ABI rules hold: ok\n");
    return 0;
}
