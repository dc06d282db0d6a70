/* Answers Linux gives that an emulator easily gets wrong: sync_file_range and readahead on
 * every arch (64-bit offsets in register pairs on the 32-bit ones), personality as a query and
 * a setting, and timer_create's order of checks: the sigevent
 * is read first (EFAULT), then the clock (EINVAL), and the id is stored last (a bad id
 * pointer with a bad clock is EINVAL). */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <signal.h>
#include <time.h>

int main(void)
{
    int fd = open("f", O_CREAT | O_RDWR, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, "data", 4) == 4);
    printf("sync_file_range: %d\n", sync_file_range(fd, 0, 100, SYNC_FILE_RANGE_WRITE));
    printf("sync_file_range whole file: %d\n", sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER));
    EXPECT_ERR("sync_file_range negative offset", sync_file_range(fd, -1, 100, SYNC_FILE_RANGE_WRITE), EINVAL);
    EXPECT_ERR("sync_file_range unknown flag", sync_file_range(fd, 0, 100, 0x100), EINVAL);
    EXPECT_ERR("sync_file_range bad fd", sync_file_range(1000, 0, 100, SYNC_FILE_RANGE_WRITE), EBADF);

    printf("readahead: %ld\n", (long)readahead(fd, 0, 4096));
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    EXPECT_ERR("readahead of a pipe", readahead(pfd[0], 0, 4096), EINVAL);
    EXPECT_ERR("readahead of a bad fd", readahead(1000, 0, 4096), EBADF);

    printf("personality: %#x\n", personality(0xffffffff));
    printf("set ADDR_NO_RANDOMIZE, was: %#x\n", personality(PER_LINUX | ADDR_NO_RANDOMIZE));
    printf("personality now: %#x\n", personality(0xffffffff));
    printf("back, was: %#x\n", personality(PER_LINUX));

    timer_t t;
    EXPECT_ERR("timer_create bad clock", syscall(SYS_timer_create, 99, NULL, &t), EINVAL);
    EXPECT_ERR("timer_create bad clock, bad id pointer", syscall(SYS_timer_create, 99, NULL, (void *)16), EINVAL);
    EXPECT_ERR("timer_create bad clock, bad sigevent", syscall(SYS_timer_create, 99, (void *)16, &t), EFAULT);
    EXPECT_ERR("timer_create bad sigevent", syscall(SYS_timer_create, CLOCK_MONOTONIC, (void *)16, &t), EFAULT);
    EXPECT_ERR("timer_create bad id pointer", syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, (void *)16), EFAULT);
    struct sigevent sev = { .sigev_notify = SIGEV_NONE };
    printf("timer_create good: %ld\n", syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &t));
    return 0;
}
