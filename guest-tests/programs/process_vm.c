/* process_vm_readv/process_vm_writev (process_vm_readv(2)) on the process itself, one of its
 * threads, a forked child and a program it execs, with Linux's partial-transfer counts (bytes
 * moved until the first fault, EFAULT when none); process_madvise on its own pidfd and a
 * child's; process_mrelease, which only reaps a dying process. */
#include "common.h"
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define PG 4096

static long vm_read(pid_t pid, struct iovec *l, unsigned long ln, struct iovec *r, unsigned long rn, unsigned long fl)
{
    return syscall(SYS_process_vm_readv, pid, l, ln, r, rn, fl);
}
static long vm_write(pid_t pid, struct iovec *l, unsigned long ln, struct iovec *r, unsigned long rn)
{
    return syscall(SYS_process_vm_writev, pid, l, ln, r, rn, 0UL);
}
static long pmadvise(int pidfd, struct iovec *v, size_t n, int adv, unsigned fl)
{
    return syscall(SYS_process_madvise, pidfd, v, n, adv, fl);
}

static void *thread_main(void *arg)
{
    *(pid_t *)arg = (pid_t)syscall(SYS_gettid);
    pause();
    return NULL;
}

/* The exec'd target: reports where its marker is, then waits until told to end. */
static int target(void)
{
    static char mark[32] = "exec'd target's memory";
    uintptr_t at = (uintptr_t)mark;
    if (write(1, &at, sizeof at) != sizeof at)
        return 1;
    char c;
    if (read(0, &c, 1) != 1)
        return 1;
    return strcmp(mark, "rewritten") == 0 ? 0 : 2;
}

/* Reads and writes the memory of a separately exec'd program (another emulator process of its
 * own, under an emulator). */
static void exec_target(void)
{
    int out[2], in[2];
    CHECK(pipe(out) == 0 && pipe(in) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(in[0], 0);
        char *argv[] = { "process_vm", "target", NULL };
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(out[1]);
    close(in[0]);
    uintptr_t at = 0;
    CHECK(read(out[0], &at, sizeof at) == sizeof at);
    char buf[32] = { 0 };
    struct iovec l = { buf, sizeof buf }, r = { (void *)at, sizeof buf };
    printf("exec'd program's memory: %ld [%s]\n", syscall(SYS_process_vm_readv, pid, &l, 1UL, &r, 1UL, 0UL), buf);
    struct iovec w = { "rewritten", 10 };
    r.iov_len = 10;
    printf("write it: %ld\n", syscall(SYS_process_vm_writev, pid, &w, 1UL, &r, 1UL, 0UL));
    CHECK(write(in[1], "x", 1) == 1);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    printf("exec'd program saw the write: %d\n", WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "target") == 0)
        return target();
    setvbuf(stdout, NULL, _IONBF, 0);
    char *p = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    for (int i = 0; i < 2 * PG; i++)
        p[i] = (char)('a' + i % 26);
    CHECK(munmap(p + 2 * PG, PG) == 0);
    char buf[3 * PG];
    pid_t me = getpid();

    struct iovec l = { buf, sizeof buf }, r = { p + 10, 5 };
    memset(buf, 0, sizeof buf);
    printf("read 5: %ld [%.5s]\n", vm_read(me, &l, 1, &r, 1, 0), buf);
    struct iovec l2[2] = { { buf, 2 }, { buf + 100, 3 } }, r2[2] = { { p, 1 }, { p + 1, 4 } };
    printf("scatter: %ld [%.2s|%.3s]\n", vm_read(me, l2, 2, r2, 2, 0), buf, buf + 100);
    r.iov_base = p + 2 * PG - 96;
    r.iov_len = 200;
    printf("remote across a hole: %ld\n", vm_read(me, &l, 1, &r, 1, 0));
    struct iovec bad_second[2] = { { p, 10 }, { p + 2 * PG, 10 } };
    printf("second remote iovec unmapped: %ld\n", vm_read(me, &l, 1, bad_second, 2, 0));
    struct iovec bad_first[2] = { { p + 2 * PG, 10 }, { p, 10 } };
    EXPECT_ERR("first remote iovec unmapped", vm_read(me, &l, 1, bad_first, 2, 0), EFAULT);
    struct iovec lx = { p + 2 * PG - 6, 100 }, rx = { buf, 100 };
    printf("local across a hole: %ld\n", vm_read(me, &lx, 1, &rx, 1, 0));
    struct iovec lbad = { (void *)8, 10 };
    r.iov_base = p;
    r.iov_len = 10;
    EXPECT_ERR("local unmapped", vm_read(me, &lbad, 1, &r, 1, 0), EFAULT);

    /* Writes. */
    struct iovec w = { "XYZ", 3 }, rw = { p + 1, 3 };
    printf("write 3: %ld [%.5s]\n", vm_write(me, &w, 1, &rw, 1), p);
    CHECK(mprotect(p, PG, PROT_READ) == 0);
    EXPECT_ERR("write to read-only", vm_write(me, &w, 1, &rw, 1), EFAULT);
    CHECK(mprotect(p, PG, PROT_NONE) == 0);
    EXPECT_ERR("read of PROT_NONE", vm_read(me, &l, 1, &rw, 1, 0), EFAULT);
    CHECK(mprotect(p, PG, PROT_READ | PROT_WRITE) == 0);

    /* Arguments. */
    EXPECT_ERR("flags", vm_read(me, &l, 1, &rw, 1, 1), EINVAL);
    EXPECT_ERR("1025 remote iovecs", vm_read(me, &l, 1, &rw, 1025, 0), EINVAL);
    EXPECT_ERR("bad remote iovec array", vm_read(me, &l, 1, (struct iovec *)8, 1, 0), EFAULT);
    EXPECT_ERR("no such process", vm_read(0x3ffffff0, &l, 1, &rw, 1, 0), ESRCH);
    struct iovec zero = { buf, 0 };
    printf("nothing to move, no such process: %ld %ld\n", vm_read(0x3ffffff0, &zero, 1, &rw, 1, 0),
           vm_read(0x3ffffff0, &l, 1, &zero, 1, 0));

    /* A thread's tid names the same memory. */
    pthread_t th;
    volatile pid_t tid = 0;
    CHECK(pthread_create(&th, NULL, thread_main, (void *)&tid) == 0);
    while (tid == 0)
        sched_yield();
    r.iov_base = p + 4;
    r.iov_len = 4;
    memset(buf, 0, 8);
    printf("through a thread's tid: %ld [%.4s]\n", vm_read(tid, &l, 1, &r, 1, 0), buf);

    /* A forked child: its own copy of the memory. */
    int ready[2], go[2];
    CHECK(pipe(ready) == 0 && pipe(go) == 0);
    static char shared_name[32] = "parent's value";
    pid_t child = fork();
    if (child == 0) {
        strcpy(shared_name, "child's value");
        CHECK(write(ready[1], "r", 1) == 1);
        char c;
        CHECK(read(go[0], &c, 1) == 1);
        _exit(strcmp(shared_name, "written by parent") == 0 ? 0 : 1);
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    struct iovec cr = { shared_name, sizeof shared_name };
    memset(buf, 0, 64);
    printf("child's memory: %ld [%s], mine [%s]\n", vm_read(child, &l, 1, &cr, 1, 0), buf, shared_name);
    struct iovec cw = { "written by parent", 18 };
    printf("write child's memory: %ld\n", vm_write(child, &cw, 1, &cr, 1));
    struct iovec far = { p + 2 * PG, 16 }; /* unmapped before the fork */
    EXPECT_ERR("child's unmapped page", vm_read(child, &l, 1, &far, 1, 0), EFAULT);

    /* process_madvise and process_mrelease. */
    int self = (int)syscall(SYS_pidfd_open, me, 0);
    int cfd = (int)syscall(SYS_pidfd_open, child, 0);
    CHECK(self >= 0 && cfd >= 0);
    struct iovec mv = { p, 2 * PG };
    printf("madvise self WILLNEED: %ld\n", pmadvise(self, &mv, 1, MADV_WILLNEED, 0));
    printf("madvise self COLD: %ld\n", pmadvise(self, &mv, 1, MADV_COLD, 0));
    long dn = pmadvise(self, &mv, 1, MADV_DONTNEED, 0);
    printf("madvise self DONTNEED: %ld, page reads %d\n", dn, p[0]);
    EXPECT_ERR("madvise self unknown advice", pmadvise(self, &mv, 1, 1000, 0), EINVAL);
    EXPECT_ERR("madvise flags", pmadvise(self, &mv, 1, MADV_COLD, 1), EINVAL);
    EXPECT_ERR("madvise bad pidfd", pmadvise(99, &mv, 1, MADV_COLD, 0), EBADF);
    struct iovec hole = { p, 3 * PG };
    EXPECT_ERR("madvise over a hole", pmadvise(self, &hole, 1, MADV_COLD, 0), ENOMEM);
    struct iovec two[2] = { { p, PG }, { p + 2 * PG, PG } };
    printf("madvise, second range a hole: %ld\n", pmadvise(self, two, 2, MADV_COLD, 0));
    struct iovec cv = { shared_name, 1 };
    cv.iov_base = (void *)((uintptr_t)shared_name & ~(uintptr_t)(PG - 1));
    cv.iov_len = PG;
    printf("madvise child COLD: %ld\n", pmadvise(cfd, &cv, 1, MADV_COLD, 0));
    EXPECT_ERR("madvise child DONTNEED", pmadvise(cfd, &cv, 1, MADV_DONTNEED, 0), EINVAL);
    EXPECT_ERR("mrelease self", syscall(SYS_process_mrelease, self, 0), EINVAL);
    EXPECT_ERR("mrelease live child", syscall(SYS_process_mrelease, cfd, 0), EINVAL);
    EXPECT_ERR("mrelease flags", syscall(SYS_process_mrelease, cfd, 1), EINVAL);
    EXPECT_ERR("mrelease bad fd", syscall(SYS_process_mrelease, 99, 0), EBADF);

    CHECK(write(go[1], "g", 1) == 1);
    int st;
    CHECK(waitpid(child, &st, 0) == child);
    printf("child saw the write: %d\n", WIFEXITED(st) && WEXITSTATUS(st) == 0);
    EXPECT_ERR("mrelease reaped child", syscall(SYS_process_mrelease, cfd, 0), ESRCH);
    exec_target();
    printf("done\n");
    return 0;
}
