/* Resource limits: getrlimit/prlimit agree, setrlimit round-trips, and a lowered
 * RLIMIT_NOFILE makes open fail with EMFILE. */
#include "common.h"
#include <fcntl.h>
#include <sys/resource.h>

int main(void)
{
    struct rlimit rl, rl2;
    CHECK(getrlimit(RLIMIT_STACK, &rl) == 0);
    printf("stack: cur <= max: %d, cur at least 64KiB: %d\n", rl.rlim_cur <= rl.rlim_max,
           rl.rlim_cur >= 65536);
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
    CHECK(prlimit(0, RLIMIT_NOFILE, NULL, &rl2) == 0);
    printf("prlimit agrees with getrlimit: %d\n", rl.rlim_cur == rl2.rlim_cur && rl.rlim_max == rl2.rlim_max);

    struct rlimit low = {16, rl.rlim_max};
    struct rlimit old;
    CHECK(prlimit(0, RLIMIT_NOFILE, &low, &old) == 0);
    CHECK(old.rlim_cur == rl.rlim_cur);
    CHECK(getrlimit(RLIMIT_NOFILE, &rl2) == 0);
    printf("after lowering: cur=%llu\n", (unsigned long long)rl2.rlim_cur);
    int last = -1;
    for (;;) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0)
            break;
        last = fd;
    }
    printf("open at the limit: %s, highest fd %d\n", errname(errno), last);
    EXPECT_ERR("dup at the limit", dup(0), EMFILE);
    for (int fd = 3; fd <= last; fd++)
        close(fd);
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
    CHECK(getrlimit(RLIMIT_NOFILE, &rl2) == 0 && rl2.rlim_cur == rl.rlim_cur);
    printf("restored: ok\n");

    CHECK(getrlimit(RLIMIT_CORE, &rl) == 0);
    struct rlimit bad = {10, 5};
    EXPECT_ERR("cur above max", setrlimit(RLIMIT_CORE, &bad), EINVAL);
    EXPECT_ERR("bad resource", getrlimit((__rlimit_resource_t)999, &rl), EINVAL);
    return 0;
}
