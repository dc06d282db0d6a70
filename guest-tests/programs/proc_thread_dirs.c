/* A second thread's own /proc directories: /proc/TID (which `ls /proc` does not list but which
 * opens), /proc/self/task/TID and /proc/PID/task/TID name the same program and show the same
 * memory map as /proc/self, and their status is the thread's (Pid is the TID, Tgid the PID). */
#include "common.h"
#include <limits.h>
#include <pthread.h>

/* Reads a whole /proc file into one of two static buffers (no malloc between two reads of a
 * map, which could change it). */
static char bufs[2][1 << 17];

static char *slurp(const char *path, int which)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *b = bufs[which];
    size_t n = fread(b, 1, sizeof bufs[which] - 1, f);
    fclose(f);
    b[n] = 0;
    return b;
}

static long field(const char *status, const char *name)
{
    const char *p = strstr(status, name);
    return p ? strtol(p + strlen(name), NULL, 10) : -1;
}

static void *thread(void *arg)
{
    (void)arg;
    int pid = getpid(), tid = gettid();
    char exe[PATH_MAX + 1], p[128], got[PATH_MAX + 1];
    ssize_t n = readlink("/proc/self/exe", exe, PATH_MAX);
    CHECK(n > 0);
    exe[n] = 0;
    const char *exes[] = {"/proc/TID/exe", "/proc/self/task/TID/exe"};
    const char *exe_fmt[] = {"/proc/%d/exe", "/proc/self/task/%d/exe"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, exe_fmt[i], tid);
        n = readlink(p, got, PATH_MAX);
        got[n > 0 ? n : 0] = 0;
        printf("%s: %s\n", exes[i], n > 0 && strcmp(got, exe) == 0 ? "the program" : "other");
    }
    snprintf(p, sizeof p, "/proc/%d/task/%d/exe", pid, tid);
    n = readlink(p, got, PATH_MAX);
    got[n > 0 ? n : 0] = 0;
    printf("/proc/PID/task/TID/exe: %s\n", n > 0 && strcmp(got, exe) == 0 ? "the program" : "other");
    const char *maps[] = {"/proc/TID/maps", "/proc/self/task/TID/maps"};
    const char *maps_fmt[] = {"/proc/%d/maps", "/proc/self/task/%d/maps"};
    for (int i = 0; i < 2; i++) {
        char *mine = slurp("/proc/self/maps", 0);
        snprintf(p, sizeof p, maps_fmt[i], tid);
        char *theirs = slurp(p, 1);
        printf("%s: %s\n", maps[i], mine && theirs && strcmp(mine, theirs) == 0 ? "the process's map" : "other");
    }
    snprintf(p, sizeof p, "/proc/%d/status", tid);
    char *st = slurp(p, 0);
    CHECK(st != NULL);
    printf("/proc/TID/status: Pid is the TID: %s, Tgid is the PID: %s\n",
           field(st, "\nPid:") == tid ? "yes" : "no", field(st, "\nTgid:") == pid ? "yes" : "no");
    return NULL;
}

int main(void)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    return 0;
}
