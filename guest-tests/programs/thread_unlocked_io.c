/* Descriptor calls made by three threads while the main thread changes the mapping their
 * buffers and paths lie in: read(2) and pread(2) of a file into that page, pwrite(2) from it,
 * fstat(2) into it, stat and openat(2) of a path stored in it (and close(2) of what opened),
 * epoll_ctl(2) with an event in it and epoll_pwait(2) (timeout 0) returning events into it,
 * readlinkat(2) of a symbolic link whose path is in it into it, getdents64(2) of a small
 * directory into it, and lseek(2) beside them. The page goes through four states, 100 rounds: read-write,
 * read-only (mprotect), unmapped (munmap), mapped again read-only (a new, zero page at the
 * same address). In each state the main thread waits until every worker has made a whole
 * round of calls, then checks the page.
 *
 * What Linux guarantees (read(2), write(2), stat(2), open(2), epoll_ctl(2), epoll_wait(2),
 * mprotect(2), munmap(2)):
 * - a read of a file into a buffer it cannot write copies nothing and fails with EFAULT, so
 *   do fstat and epoll_pwait (with an event ready); each succeeds in the writable page;
 * - pwrite of a buffer it cannot read fails with EFAULT; from a read-only page it writes;
 * - stat, openat and readlinkat of a path they cannot read fail with EFAULT; of the empty
 *   string (the new zero page) with ENOENT; readlinkat and getdents64 into a buffer they
 *   cannot write fail with EFAULT; epoll_ctl reading an event it cannot read fails with EFAULT, an
 *   all-zero event is a valid one;
 * - once mprotect(PROT_READ) or munmap has returned, no call stores into the page: the bytes
 *   of the read-only page and of the new zero page stay as the main thread saw them;
 * - every descriptor a worker opens it closes: the process ends with the descriptors it had.
 * An emulator that serves such calls without its own locks must keep all of this while the
 * mappings change under it. */
#include "common.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { WORKERS = 3, ROUNDS = 100, SLOT = 512 };
#include "page_states.h"
/* The calls, in the order they are printed. */
enum { READ, PREAD, PWRITE, FSTAT, STAT, OPEN, EPOLL_CTL, EPOLL_WAIT, READLINK, GETDENTS, LSEEK, CALLS };
static const char *const call_name[CALLS] = { "read",       "pread",      "pwrite",    "fstat",
                                              "stat",       "openat",     "epoll_ctl", "epoll_pwait",
                                              "readlinkat", "getdents64", "lseek" };

/* The file the workers read, a symbolic link to LINK_TEXT and a directory with one file. */
static char path[64], link_path[80], dir_path[80];
#define LINK_TEXT "eg-link-text"
/* Where the link's path lies in the page (the file's path is at its start). */
enum { LINK_AT = 128 };
/* Per state and call: the results seen, as bits. */
enum { OK_BIT = 1, EFAULT_BIT = 2, ENOENT_BIT = 4, OTHER_BIT = 8 };
static int seen[STATES][CALLS];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

/* The result bit of a call that returned r (errno e when r is -1); `want` is its success. */
static int result_bit(long r, int e, long want)
{
    if (r == want)
        return OK_BIT;
    if (r != -1)
        return OTHER_BIT;
    return e == EFAULT ? EFAULT_BIT : e == ENOENT ? ENOENT_BIT : OTHER_BIT;
}

static void *worker(void *arg)
{
    long w = (long)arg;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    CHECK(fd >= 0);
    int pipefd[2];
    CHECK(pipe2(pipefd, O_CLOEXEC) == 0);
    CHECK(write(pipefd[1], "x", 1) == 1); /* always readable */
    int ep = epoll_create1(EPOLL_CLOEXEC);
    CHECK(ep >= 0);
    struct epoll_event ready = { .events = EPOLLIN, .data.u64 = 42 };
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, pipefd[0], &ready) == 0);
    int watched[2];
    CHECK(pipe2(watched, O_CLOEXEC) == 0);
    int dir = open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(dir >= 0);
    while (!stop) {
        int s = state;
        char *slot = page + 256 + SLOT * w;
        int bits[CALLS];
        CHECK(lseek(fd, 0, SEEK_SET) == 0);
        long r = syscall(SYS_read, fd, slot, 16);
        bits[READ] = result_bit(r, errno, 16);
        r = pread(fd, slot + 16, 16, 16);
        bits[PREAD] = result_bit(r, errno, 16);
        r = pwrite(fd, slot, 16, 4096 + 16 * w);
        bits[PWRITE] = result_bit(r, errno, 16);
#ifdef SYS_fstat
        r = syscall(SYS_fstat, fd, slot + 32);
#else
        r = fstat(fd, (struct stat *)(slot + 32));
#endif
        bits[FSTAT] = result_bit(r, errno, 0);
        struct stat st;
        r = fstatat(AT_FDCWD, page, &st, 0);
        bits[STAT] = result_bit(r, errno, 0);
        r = syscall(SYS_openat, AT_FDCWD, page, O_RDONLY | O_CLOEXEC);
        int opened = (int)r;
        bits[OPEN] = result_bit(r >= 0 ? 0 : r, errno, 0);
        if (opened >= 0)
            CHECK(close(opened) == 0);
        r = epoll_ctl(ep, EPOLL_CTL_ADD, watched[0], (struct epoll_event *)(slot + 192));
        bits[EPOLL_CTL] = result_bit(r, errno, 0);
        if (r == 0)
            CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, watched[0], NULL) == 0);
        r = syscall(SYS_epoll_pwait, ep, slot + 224, 4, 0, NULL, 8);
        bits[EPOLL_WAIT] = result_bit(r, errno, 1);
        r = syscall(SYS_readlinkat, AT_FDCWD, page + LINK_AT, slot + 288, 32);
        bits[READLINK] = result_bit(r, errno, (long)strlen(LINK_TEXT));
        CHECK(lseek(dir, 0, SEEK_SET) == 0);
        r = syscall(SYS_getdents64, dir, slot + 320, 192);
        bits[GETDENTS] = result_bit(r > 0 ? 0 : r, errno, 0);
        r = lseek(fd, 8, SEEK_SET);
        bits[LSEEK] = result_bit(r, errno, 8);
        int s2 = state;
        if (s == s2 && s != CHANGING) {
            /* The state did not change during the calls: each result is the state's. */
            pthread_mutex_lock(&seen_lock);
            for (int c = 0; c < CALLS; c++)
                seen[s][c] |= bits[c];
            pthread_mutex_unlock(&seen_lock);
        }
        __atomic_add_fetch(&calls[w], 1, __ATOMIC_SEQ_CST);
    }
    CHECK(close(fd) == 0 && close(ep) == 0);
    CHECK(close(pipefd[0]) == 0 && close(pipefd[1]) == 0);
    CHECK(close(watched[0]) == 0 && close(watched[1]) == 0);
    CHECK(close(dir) == 0);
    return NULL;
}

/* The number of open descriptors (/proc/self/fd, less the directory's own). */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3;
}

/* The paths the workers stat, open and read as a link, written again into the page once it
 * is writable. */
static void refill_path(void)
{
    strcpy(page, path);
    strcpy(page + LINK_AT, link_path);
}

int main(void)
{
    pagesize = sysconf(_SC_PAGESIZE);
    strcpy(path, "/tmp/eg_unlocked_io_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    char data[8192];
    for (int i = 0; i < (int)sizeof data; i++)
        data[i] = (char)('a' + i % 26);
    CHECK(write(fd, data, sizeof data) == (long)sizeof data);
    CHECK(close(fd) == 0);
    snprintf(link_path, sizeof link_path, "%s.link", path);
    CHECK(symlink(LINK_TEXT, link_path) == 0);
    snprintf(dir_path, sizeof dir_path, "%s.dir", path);
    CHECK(mkdir(dir_path, 0700) == 0);
    char file_in_dir[96];
    snprintf(file_in_dir, sizeof file_in_dir, "%s/f", dir_path);
    int f = open(file_in_dir, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK(f >= 0 && close(f) == 0);
    int fds_before = open_fds();
    page = mmap(NULL, pagesize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    refill_path();
    struct page_rounds seen_rounds = run_page_rounds(worker, ROUNDS, refill_path);
    CHECK(unlink(path) == 0 && unlink(link_path) == 0 && unlink(file_in_dir) == 0 && rmdir(dir_path) == 0);
    printf("%d rounds of %d states, %d workers\n", ROUNDS, STATES, WORKERS);
    for (int s = 0; s < STATES; s++) {
        printf("%s:", state_name[s]);
        for (int c = 0; c < CALLS; c++) {
            static const char *const outcome_name[] = { "ok", "EFAULT", "ENOENT", "other", NULL };
            printf("%s ", c ? "," : "");
            print_outcomes(call_name[c], seen[s][c], outcome_name);
        }
        printf("\n");
    }
    printf("read-only page stored to: %ld rounds\n", seen_rounds.changed_ro);
    printf("new page stored to: %ld rounds\n", seen_rounds.changed_fresh);
    printf("remap failed: %ld\n", seen_rounds.remap_failed);
    printf("descriptors left open: %d\n", open_fds() - fds_before);
    return 0;
}
