/* Scheduling calls (sched(7)) and the file-system ids: policies and priorities read and set
 * for the calling thread (SCHED_BATCH and back, which any process may do), the priority
 * ranges, sched_getattr's struct in the guest's byte order, and setfsuid/setfsgid(-1) as the
 * query they are (the current ids). */
#define _GNU_SOURCE 1
#include "common.h"
#include <sched.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <time.h>

struct attr {
    unsigned size, policy;
    unsigned long long flags;
    int nice;
    unsigned priority;
    unsigned long long runtime, deadline, period;
    unsigned util_min, util_max;
};

int main(void)
{
    printf("policy: %s\n", sched_getscheduler(0) == SCHED_OTHER ? "SCHED_OTHER" : "other");
    struct sched_param p = { 1 };
    CHECK(sched_getparam(0, &p) == 0);
    printf("priority: %d\n", p.sched_priority);
    printf("FIFO range: %d..%d, OTHER range: %d..%d\n", sched_get_priority_min(SCHED_FIFO),
           sched_get_priority_max(SCHED_FIFO), sched_get_priority_min(SCHED_OTHER), sched_get_priority_max(SCHED_OTHER));
    EXPECT_ERR("range of an unknown policy", sched_get_priority_max(12345), EINVAL);
    struct timespec ts;
    printf("rr interval: %d\n", sched_rr_get_interval(0, &ts));
    p.sched_priority = 0;
    printf("to SCHED_BATCH: %d\n", sched_setscheduler(0, SCHED_BATCH, &p));
    printf("policy now: %s\n", sched_getscheduler(0) == SCHED_BATCH ? "SCHED_BATCH" : "other");
    struct attr at;
    memset(&at, 0xff, sizeof at);
    CHECK(syscall(SYS_sched_getattr, 0, &at, sizeof at, 0) == 0);
    printf("getattr: size %u, policy %s, priority %u, nice in range %d\n", at.size,
           at.policy == SCHED_BATCH ? "SCHED_BATCH" : "other", at.priority, at.nice >= -20 && at.nice <= 19);
    printf("back to SCHED_OTHER: %d\n", sched_setscheduler(0, SCHED_OTHER, &p));
    printf("setparam: %d\n", sched_setparam(0, &p));
    EXPECT_ERR("getparam into NULL", sched_getparam(0, NULL), EINVAL);
    EXPECT_ERR("getparam of no such pid", sched_getparam(0x3ffffff0, &p), ESRCH);
    EXPECT_ERR("setscheduler with a bad policy", sched_setscheduler(0, 12345, &p), EINVAL);
    memset(&at, 0, sizeof at);
    at.size = 48;
    at.policy = SCHED_OTHER;
    printf("setattr: %ld\n", syscall(SYS_sched_setattr, 0, &at, 0));
    printf("setfsuid(-1) is the euid: %s\n", setfsuid(-1) == (int)geteuid() ? "yes" : "no");
    printf("setfsgid(-1) is the egid: %s\n", setfsgid(-1) == (int)getegid() ? "yes" : "no");
    return 0;
}
