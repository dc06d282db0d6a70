/* mmap's prot and flag checks as Linux makes them (mm/mmap.c do_mmap, ksys_mmap_pgoff):
 * unknown prot bits are ignored; MAP_SHARED ignores unknown flags while MAP_SHARED_VALIDATE of a
 * file refuses them with EOPNOTSUPP (the arch's LEGACY_MAP_MASK); anonymous memory takes
 * MAP_SHARED, MAP_PRIVATE and MAP_DROPPABLE but not MAP_SHARED_VALIDATE; MAP_GROWSDOWN of a
 * file and MAP_HUGETLB of a file outside hugetlbfs are EINVAL. Then wipe-on-fork: a
 * MAP_DROPPABLE mapping and a range given MADV_WIPEONFORK read as zeros in a forked child,
 * MADV_KEEPONFORK undoes it, and a file mapping refuses it. */
#include "common.h"
#include <stdint.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/wait.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
/* include/uapi/linux/mman.h (Linux 6.11); glibc 2.36's headers do not have it. */
#define MAP_DROPPABLE_ 0x08
/* Bits no arch's mmap defines. */
#define UNKNOWN_A 0x200000
#define UNKNOWN_B 0x800000

static void ok(const char *label, void *p)
{
    printf("%s: %s\n", label, p == MAP_FAILED ? errname(errno) : "ok");
    if (p == MAP_FAILED)
        exit(1);
}

/* The first byte of `p` as a forked child reads it. */
static int child_reads(volatile unsigned char *p)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
        _exit(p[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    return WEXITSTATUS(st);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    char path[] = "/tmp/mmap_flags.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    CHECK(ftruncate(fd, 8192) == 0);
    long pg = sysconf(_SC_PAGESIZE);

    /* prot: only PROT_READ/WRITE/EXEC count (calc_vm_prot_bits). */
    ok("anon prot READ|0x100", mmap(0, pg, PROT_READ | 0x100, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ok("anon prot 0x80000000", mmap(0, pg, (int)0x80000000u, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ok("anon prot READ|PROT_GROWSDOWN", mmap(0, pg, PROT_READ | PROT_GROWSDOWN, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ok("file validate prot READ|0x100", mmap(0, pg, PROT_READ | 0x100, MAP_SHARED_VALIDATE, fd, 0));
    void *q = mmap(0, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(q != MAP_FAILED);
    EXPECT_ERR("mprotect READ|0x100", mprotect(q, pg, PROT_READ | 0x100), EINVAL);
    /* PROT_GROWSDOWN needs a MAP_GROWSDOWN mapping, PROT_GROWSUP a grows-up one (none here). */
    EXPECT_ERR("mprotect PROT_GROWSDOWN of a plain mapping", mprotect(q, pg, PROT_READ | PROT_GROWSDOWN), EINVAL);
    EXPECT_ERR("mprotect PROT_GROWSUP", mprotect(q, pg, PROT_READ | PROT_GROWSUP), EINVAL);
    char *gd = mmap(0, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);
    CHECK(gd != MAP_FAILED);
    CHECK(mprotect(gd + 3 * pg, pg, PROT_READ | PROT_GROWSDOWN) == 0);
    printf("mprotect PROT_GROWSDOWN of a grows-down mapping: ok\n");

    /* Flags of a file mapping. */
    ok("file shared unknown flag", mmap(0, pg, PROT_READ, MAP_SHARED | UNKNOWN_A, fd, 0));
    ok("file private unknown flag", mmap(0, pg, PROT_READ, MAP_PRIVATE | UNKNOWN_A, fd, 0));
    ok("file validate", mmap(0, pg, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE, fd, 0));
    ok("file validate legacy flags",
       mmap(0, pg, PROT_READ, MAP_SHARED_VALIDATE | MAP_POPULATE | MAP_NORESERVE | MAP_STACK | MAP_NONBLOCK, fd, 0));
    EXPECT_ERR("file validate unknown flag A", mmap(0, pg, PROT_READ, MAP_SHARED_VALIDATE | UNKNOWN_A, fd, 0), EOPNOTSUPP);
    EXPECT_ERR("file validate unknown flag B", mmap(0, pg, PROT_READ, MAP_SHARED_VALIDATE | UNKNOWN_B, fd, 0), EOPNOTSUPP);
    char *two = mmap(0, 2 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(two != MAP_FAILED);
    /* The address is checked before the flags: an occupied range is EEXIST. */
    EXPECT_ERR("file validate FIXED_NOREPLACE over a mapping",
               mmap(two + pg, pg, PROT_READ, MAP_SHARED_VALIDATE | MAP_FIXED_NOREPLACE, fd, 0), EEXIST);
    CHECK(munmap(two, 2 * pg) == 0);
    EXPECT_ERR("file validate FIXED_NOREPLACE", mmap(two, pg, PROT_READ, MAP_SHARED_VALIDATE | MAP_FIXED_NOREPLACE, fd, 0),
               EOPNOTSUPP);
    ok("file shared FIXED_NOREPLACE", mmap(two, pg, PROT_READ, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0));
    EXPECT_ERR("file validate GROWSDOWN", mmap(0, pg, PROT_READ, MAP_SHARED_VALIDATE | MAP_GROWSDOWN, fd, 0), EINVAL);
    EXPECT_ERR("file private GROWSDOWN", mmap(0, pg, PROT_READ, MAP_PRIVATE | MAP_GROWSDOWN, fd, 0), EINVAL);
    EXPECT_ERR("file shared HUGETLB", mmap(0, pg, PROT_READ, MAP_SHARED | MAP_HUGETLB, fd, 0), EINVAL);
    EXPECT_ERR("file droppable", mmap(0, pg, PROT_READ, MAP_DROPPABLE_, fd, 0), EINVAL);
    EXPECT_ERR("file type 0", mmap(0, pg, PROT_READ, 0, fd, 0), EINVAL);
    EXPECT_ERR("file type 0xf", mmap(0, pg, PROT_READ, 0xf, fd, 0), EINVAL);

    /* The descriptor first (EBADF), whatever else is wrong; an O_PATH one is not mappable. */
    EXPECT_ERR("bad fd with a bad type", mmap(0, pg, PROT_READ, 0xf, 99, 0), EBADF);
    EXPECT_ERR("bad fd with length 0", mmap(0, 0, PROT_READ, MAP_SHARED, 99, 0), EBADF);
    int opath = open("/", O_PATH);
    CHECK(opath >= 0);
    EXPECT_ERR("O_PATH fd", mmap(0, pg, PROT_READ, MAP_PRIVATE, opath, 0), EBADF);
#ifdef MAP_SYNC
    /* MAP_SYNC is the file system's to refuse, after the access checks: shmem takes it. */
    int mfd = memfd_create("sync", 0);
    CHECK(mfd >= 0 && ftruncate(mfd, pg) == 0);
    ok("memfd shared MAP_SYNC", mmap(0, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_SYNC, mfd, 0));
    char mp[64];
    snprintf(mp, sizeof mp, "/proc/self/fd/%d", mfd);
    int mro = open(mp, O_RDONLY);
    CHECK(mro >= 0);
    EXPECT_ERR("read-only memfd, PROT_WRITE, MAP_SHARED|MAP_SYNC",
               mmap(0, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_SYNC, mro, 0), EACCES);
#else
    /* MIPS has no MAP_SYNC: the same lines, as its Linux has nothing to check. */
    printf("memfd shared MAP_SYNC: ok\nread-only memfd, PROT_WRITE, MAP_SHARED|MAP_SYNC: EACCES\n");
#endif

    /* Flags of anonymous memory. */
    ok("anon shared unknown flag", mmap(0, pg, PROT_READ, MAP_SHARED | MAP_ANONYMOUS | UNKNOWN_A, -1, 0));
    EXPECT_ERR("anon validate", mmap(0, pg, PROT_READ, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0), EINVAL);
    EXPECT_ERR("anon shared GROWSDOWN", mmap(0, pg, PROT_READ, MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0), EINVAL);
    EXPECT_ERR("anon type 0", mmap(0, pg, PROT_READ, MAP_ANONYMOUS, -1, 0), EINVAL);
    EXPECT_ERR("anon droppable LOCKED",
               mmap(0, pg, PROT_READ | PROT_WRITE, MAP_DROPPABLE_ | MAP_ANONYMOUS | MAP_LOCKED, -1, 0), EINVAL);
    EXPECT_ERR("anon droppable GROWSDOWN",
               mmap(0, pg, PROT_READ | PROT_WRITE, MAP_DROPPABLE_ | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0), EINVAL);

    /* MAP_DROPPABLE memory is wiped in a forked child (VM_WIPEONFORK). */
    unsigned char *d = mmap(0, pg, PROT_READ | PROT_WRITE, MAP_DROPPABLE_ | MAP_ANONYMOUS, -1, 0);
    ok("anon droppable", d);
    d[0] = 0x5a;
    printf("droppable: child reads %#x, parent %#x\n", child_reads(d), d[0]);
    EXPECT_ERR("keeponfork of droppable memory", madvise(d, pg, MADV_KEEPONFORK), EINVAL);

    /* MADV_WIPEONFORK and MADV_KEEPONFORK. */
    unsigned char *w = mmap(0, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(w != MAP_FAILED);
    w[0] = 0x11;
    w[pg] = 0x22;
    w[2 * pg] = 0x33;
    CHECK(madvise(w + pg, pg, MADV_WIPEONFORK) == 0);
    printf("wipeonfork middle page: child reads %#x %#x %#x\n", child_reads(w), child_reads(w + pg), child_reads(w + 2 * pg));
    CHECK(madvise(w + pg, pg, MADV_KEEPONFORK) == 0);
    printf("keeponfork: child reads %#x\n", child_reads(w + pg));
    CHECK(madvise(w, 0, MADV_WIPEONFORK) == 0);
    printf("wipeonfork of 0 bytes: ok\n");
    char *f = mmap(0, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    CHECK(f != MAP_FAILED);
    EXPECT_ERR("wipeonfork of a file mapping", madvise(f, pg, MADV_WIPEONFORK), EINVAL);
    char *s = mmap(0, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED);
    EXPECT_ERR("wipeonfork of shared memory", madvise(s, pg, MADV_WIPEONFORK), EINVAL);
    CHECK(munmap(w + pg, pg) == 0);
    EXPECT_ERR("wipeonfork over a hole", madvise(w, 3 * pg, MADV_WIPEONFORK), ENOMEM);

    /* MADV_DONTFORK: the child does not have the range (a touch is SIGSEGV); MADV_DOFORK
     * gives it back to later children. */
    unsigned char *df = mmap(0, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(df != MAP_FAILED);
    df[0] = 0x44;
    CHECK(madvise(df, pg, MADV_DONTFORK) == 0);
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0)
        _exit(df[0]);
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    printf("dontfork: child killed by SIGSEGV %d\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
    CHECK(madvise(df, pg, MADV_DOFORK) == 0);
    printf("dofork: child reads %#x\n", child_reads(df));
    return 0;
}
