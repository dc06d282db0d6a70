/* Answers Linux gives that an emulator easily gets wrong: sync_file_range on every arch (the
 * number asm-generic calls sync_file_range), and timer_create's order of checks: the sigevent
 * is read first (EFAULT), then the clock (EINVAL), and the id is stored last (a bad id
 * pointer with a bad clock is EINVAL). */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
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
