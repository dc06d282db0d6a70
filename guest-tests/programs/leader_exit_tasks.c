/* After the main thread calls pthread_exit, the process lives on in its other thread, and
 * /proc/self/task lists what Linux lists: the ended leader (a zombie until the whole group
 * ends) and the live thread, nothing else. */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include "common.h"

static pid_t pid;

static void *survivor(void *arg)
{
    usleep(200000);
    long self = syscall(SYS_gettid);
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    int leader = 0, me = 0, other = 0;
    char leader_state = '?';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        long tid = atol(e->d_name);
        if (tid == pid) {
            leader++;
            char p[64], buf[4096] = {0};
            snprintf(p, sizeof p, "/proc/self/task/%ld/status", tid);
            int fd = open(p, O_RDONLY);
            CHECK(fd >= 0);
            CHECK(read(fd, buf, sizeof buf - 1) > 0);
            close(fd);
            char *s = strstr(buf, "State:");
            CHECK(s != NULL);
            sscanf(s, "State: %c", &leader_state);
        } else if (tid == self) {
            me++;
        } else {
            other++;
        }
    }
    closedir(d);
    printf("after main's pthread_exit: the leader listed %d time(s), state %c; this thread %d; others %d\n", leader,
           leader_state, me, other);
    return arg;
}

int main(void)
{
    pid = getpid();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, survivor, NULL) == 0);
    pthread_exit(NULL);
}
