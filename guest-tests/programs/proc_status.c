/* /proc/self/status describes the program: its address space sizes (VmSize, VmPeak, VmRSS,
 * VmLck, VmData, VmStk, VmExe), its threads, its signal sets in its own numbering, its ids;
 * /proc/self/task/TID/{stat,status,comm,maps} exist for each of its threads, also through a
 * directory fd and /proc/<pid>. Prints ok lines. */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static char buf[65536];

static char *slurp_at(int dirfd, const char *path)
{
    int fd = openat(dirfd, path, O_RDONLY);
    if (fd < 0)
        return NULL;
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = 0;
    return buf;
}

static char *slurp(const char *path)
{
    return slurp_at(AT_FDCWD, path);
}

/* The text after "Name:\t" in the status text `s`, or NULL. */
static const char *value(const char *s, const char *name)
{
    size_t n = strlen(name);
    for (const char *l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
        if (strncmp(l, name, n) == 0 && l[n] == ':')
            return l + n + 1;
    return NULL;
}

static long num(const char *path, const char *name)
{
    const char *v = value(slurp(path), name);
    CHECK(v);
    return strtol(v, NULL, 10);
}

/* Signal `sig` is in the set `name` of the status text `s` (its low 64 bits are the last 16
 * hex digits; the set is _NSIG bits wide). */
static int in_set(const char *s, const char *name, int sig)
{
    const char *v = value(s, name);
    CHECK(v);
    while (*v == '\t' || *v == ' ')
        v++;
    size_t len = strcspn(v, "\n");
    CHECK(len >= 16 && len % 8 == 0);
    unsigned long long low = strtoull(v + len - 16, NULL, 16);
    return (int)((low >> (sig - 1)) & 1);
}

static int pipefd[2];
static volatile pid_t child_tid;

static void *thread_main(void *arg)
{
    (void)arg;
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGUSR2);
    pthread_sigmask(SIG_SETMASK, &s, NULL);
    child_tid = (pid_t)syscall(SYS_gettid);
    char c;
    CHECK(read(pipefd[0], &c, 1) == 1);
    return NULL;
}

static void on_int(int s)
{
    (void)s;
}

/* The files of thread `tid`: stat starts with its id, status names it, comm is the program's,
 * maps has as many lines as the process's. */
static int task_files_ok(pid_t tid, const char *comm)
{
    char path[64];
    int ok = 1;
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    ok &= slurp(path) && atoi(buf) == tid;
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    ok &= slurp(path) && value(buf, "Pid") && atoi(value(buf, "Pid")) == tid && atoi(value(buf, "Tgid")) == getpid();
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    ok &= slurp(path) && strncmp(buf, comm, strlen(comm)) == 0;
    snprintf(path, sizeof path, "/proc/self/task/%d/maps", (int)tid);
    int lines = 0;
    if (slurp(path))
        for (char *l = buf; *l; l = strchr(l, '\n') + 1)
            lines++;
    int own = 0;
    slurp("/proc/self/maps");
    for (char *l = buf; *l; l = strchr(l, '\n') + 1)
        own++;
    ok &= lines > 0 && lines == own;
    return ok;
}

int main(int argc, char **argv)
{
    (void)argc;
    long pg = sysconf(_SC_PAGESIZE);
    const char *s = slurp("/proc/self/status");
    const char *want[] = {"Name",   "Tgid",   "Pid",     "PPid",    "VmPeak",  "VmSize", "VmLck",
                          "VmHWM",  "VmRSS",  "RssAnon", "RssFile", "RssShmem", "VmData", "VmStk",
                          "VmExe",  "VmLib",  "VmSwap",  "Threads", "SigQ",    "SigPnd", "ShdPnd",
                          "SigBlk", "SigIgn", "SigCgt"};
    int missing = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!value(s, want[i])) {
            printf("missing %s\n", want[i]);
            missing++;
        }
    printf("fields present: %s\n", missing == 0 ? "ok" : "no");
    printf("ids: %s\n", atoi(value(s, "Pid")) == getpid() && atoi(value(s, "Tgid")) == getpid() &&
                                atoi(value(s, "PPid")) == getppid()
                            ? "ok"
                            : "no");
    printf("stack, data, text sizes nonzero: %s\n",
           num("/proc/self/status", "VmStk") > 0 && num("/proc/self/status", "VmData") > 0 &&
                   num("/proc/self/status", "VmExe") > 0
               ? "ok"
               : "no");

    /* 64 MiB mapped: VmSize grows by exactly that; touching 4 MiB of it raises VmRSS. */
    long size0 = num("/proc/self/status", "VmSize");
    long rss0 = num("/proc/self/status", "VmRSS");
    long anon0 = num("/proc/self/status", "RssAnon");
    size_t len = 64 << 20;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    printf("VmSize after a 64 MiB mmap: +%ld kB\n", num("/proc/self/status", "VmSize") - size0);
    for (size_t i = 0; i < (4 << 20); i += (size_t)pg)
        m[i] = 1;
    long drss = num("/proc/self/status", "VmRSS") - rss0;
    long danon = num("/proc/self/status", "RssAnon") - anon0;
    printf("VmRSS after touching 4 MiB: %s\n", drss >= 4096 && drss < 4096 + 512 ? "ok" : "no");
    printf("RssAnon after touching 4 MiB: %s\n", danon >= 4096 && danon < 4096 + 512 ? "ok" : "no");
    CHECK(munmap(m, len) == 0);
    printf("VmSize after munmap: %+ld kB\n", num("/proc/self/status", "VmSize") - size0);
    printf("VmPeak keeps the peak: %s\n", num("/proc/self/status", "VmPeak") >= size0 + 65536 ? "ok" : "no");
    printf("VmHWM at least VmRSS: %s\n", num("/proc/self/status", "VmHWM") >= num("/proc/self/status", "VmRSS") ? "ok" : "no");

    long lck0 = num("/proc/self/status", "VmLck");
    char *l = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(l != MAP_FAILED && mlock(l, 2 * pg) == 0);
    printf("VmLck after mlock of 2 pages: +%ld pages\n", (num("/proc/self/status", "VmLck") - lck0) * 1024 / pg);
    CHECK(munlock(l, 2 * pg) == 0);

    /* Signal sets, in the program's own signal numbers. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
    CHECK(signal(SIGUSR2, SIG_IGN) != SIG_ERR);
    CHECK(signal(SIGINT, on_int) != SIG_ERR);
    CHECK(raise(SIGUSR1) == 0);
    s = slurp("/proc/self/status");
    printf("SigBlk: USR1 %d USR2 %d\n", in_set(s, "SigBlk", SIGUSR1), in_set(s, "SigBlk", SIGUSR2));
    printf("SigIgn: USR2 %d INT %d\n", in_set(s, "SigIgn", SIGUSR2), in_set(s, "SigIgn", SIGINT));
    printf("SigCgt: INT %d USR2 %d TERM %d\n", in_set(s, "SigCgt", SIGINT), in_set(s, "SigCgt", SIGUSR2),
           in_set(s, "SigCgt", SIGTERM));
    printf("SigPnd or ShdPnd: USR1 %d\n", in_set(s, "SigPnd", SIGUSR1) | in_set(s, "ShdPnd", SIGUSR1));
    CHECK(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
    CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0);

    /* Threads, and each thread's files. */
    printf("Threads: %ld\n", num("/proc/self/status", "Threads"));
    CHECK(pipe(pipefd) == 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_main, NULL) == 0);
    while (child_tid == 0)
        sched_yield();
    printf("Threads with a second thread: %ld\n", num("/proc/self/status", "Threads"));
    DIR *d = opendir("/proc/self/task");
    CHECK(d);
    int entries = 0, listed_child = 0;
    for (struct dirent *de; (de = readdir(d));)
        if (de->d_name[0] != '.') {
            entries++;
            listed_child |= atoi(de->d_name) == child_tid;
        }
    closedir(d);
    printf("/proc/self/task entries: %d, the second thread among them: %d\n", entries, listed_child);
    char comm[16];
    snprintf(comm, sizeof comm, "%s", base_name(argv[0]));
    printf("main thread's task files: %s\n", task_files_ok(getpid(), comm) ? "ok" : "no");
    printf("second thread's task files: %s\n", task_files_ok(child_tid, comm) ? "ok" : "no");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)child_tid);
    /* The thread blocks SIGUSR2 once it has started; wait for it. */
    for (int i = 0; i < 1000 && !in_set(slurp(path), "SigBlk", SIGUSR2); i++)
        usleep(1000);
    s = slurp(path);
    printf("second thread SigBlk: USR2 %d USR1 %d\n", in_set(s, "SigBlk", SIGUSR2), in_set(s, "SigBlk", SIGUSR1));
    CHECK(write(pipefd[1], "x", 1) == 1);
    CHECK(pthread_join(th, NULL) == 0);

    /* The same file through a directory fd and through /proc/<pid>. */
    long size = num("/proc/self/status", "VmSize");
    int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
    CHECK(dir >= 0);
    const char *v = value(slurp_at(dir, "status"), "VmSize");
    printf("through a dir fd: %s\n", v && labs(strtol(v, NULL, 10) - size) < 1024 ? "ok" : "no");
    snprintf(path, sizeof path, "/proc/%d/status", (int)getpid());
    printf("through /proc/<pid>: %s\n", labs(num(path, "VmSize") - size) < 1024 ? "ok" : "no");
    return 0;
}
