/* fcntl commands of newer kernels: F_SET_RW_HINT/F_GET_RW_HINT (a u64 write-life hint, Linux
 * 4.13), F_DUPFD_QUERY (6.10: do two descriptors share one open file) and F_CREATED_QUERY
 * (6.12: did this open create the file). */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>

#ifndef F_SET_RW_HINT
#define F_GET_RW_HINT 1035
#define F_SET_RW_HINT 1036
#endif
#define F_DUPFD_QUERY_ 1027
#define F_CREATED_QUERY_ 1028

int main(void)
{
    char path[] = "/tmp/fcntl_newer.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    uint64_t hint = 2; /* RWH_WRITE_LIFE_SHORT */
    CHECK(fcntl(fd, F_SET_RW_HINT, &hint) == 0);
    hint = 0;
    CHECK(fcntl(fd, F_GET_RW_HINT, &hint) == 0);
    printf("F_GET_RW_HINT after setting 2: %llu\n", (unsigned long long)hint);
    hint = 99;
    EXPECT_ERR("F_SET_RW_HINT 99", fcntl(fd, F_SET_RW_HINT, &hint), EINVAL);
    EXPECT_ERR("F_GET_RW_HINT bad pointer", fcntl(fd, F_GET_RW_HINT, (void *)8), EFAULT);
    int d = dup(fd);
    int other = open(path, O_RDONLY);
    CHECK(d >= 0 && other >= 0);
    printf("F_DUPFD_QUERY: dup %d, same fd %d, another open %d\n", fcntl(fd, F_DUPFD_QUERY_, d),
           fcntl(fd, F_DUPFD_QUERY_, fd), fcntl(fd, F_DUPFD_QUERY_, other));
    unlink(path);
    int created = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    CHECK(created >= 0);
    int again = open(path, O_RDWR | O_CREAT, 0600);
    CHECK(again >= 0);
    printf("F_CREATED_QUERY: new %d, existing %d\n", fcntl(created, F_CREATED_QUERY_), fcntl(again, F_CREATED_QUERY_));
    unlink(path);
    return 0;
}
