/* Found by a user's programs: the guest's /proc/self files however the path is spelled
 * (path_resolution(7): empty and "." components, ".." under /proc, a directory fd, the working
 * directory), signal 0 through the queueing calls (the kill(2) existence check, which
 * sigqueue(3) documents too), and the per-thread capability prctl options (prctl(2):
 * PR_CAP_AMBIENT, PR_GET_KEEPCAPS, PR_GET_SECUREBITS, PR_CAPBSET_READ). Every answer is
 * compared with the canonical spelling's, so nothing host- or arch-specific is printed. */
#include "common.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static char canon_exe[4096];

static const char *same_exe(const char *how, ssize_t n, const char *buf)
{
    (void)how;
    if (n < 0)
        return errname(errno);
    return (size_t)n == strlen(canon_exe) && memcmp(buf, canon_exe, (size_t)n) == 0 ? "same" : "differs";
}

/* The first line of a maps file: the guest's lowest mapping. */
static int first_line(int fd, char *out, size_t len)
{
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, out, len - 1);
    close(fd);
    if (n <= 0)
        return -1;
    out[n] = 0;
    char *nl = strchr(out, '\n');
    if (nl)
        *nl = 0;
    return 0;
}

int main(void)
{
    ssize_t n = readlink("/proc/self/exe", canon_exe, sizeof canon_exe - 1);
    CHECK(n > 0);
    canon_exe[n] = 0;
    char buf[4096], pid_path[64];
    const char *spellings[] = { "/proc/./self/exe", "//proc//self/exe", "/proc/self/./exe", "/../proc/self/exe" };
    for (unsigned i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        n = readlink(spellings[i], buf, sizeof buf);
        printf("readlink %s: %s\n", spellings[i], same_exe(spellings[i], n, buf));
    }
    snprintf(pid_path, sizeof pid_path, "/proc/%d/../self/exe", (int)getpid());
    n = readlink(pid_path, buf, sizeof buf);
    printf("readlink /proc/PID/../self/exe: %s\n", same_exe("pid", n, buf));
    int proc = open("/proc", O_RDONLY | O_DIRECTORY);
    CHECK(proc >= 0);
    n = readlinkat(proc, "self/exe", buf, sizeof buf);
    printf("readlinkat(/proc, self/exe): %s\n", same_exe("dirfd", n, buf));
    int self = open("/proc/self", O_RDONLY | O_DIRECTORY);
    CHECK(self >= 0);
    n = readlinkat(self, "exe", buf, sizeof buf);
    printf("readlinkat(/proc/self, exe): %s\n", same_exe("dirfd", n, buf));
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir("/proc/self") == 0);
    n = readlink("exe", buf, sizeof buf);
    printf("readlink exe in /proc/self: %s\n", same_exe("cwd", n, buf));
    CHECK(chdir(cwd) == 0);

    char canon_maps[512], other[512];
    CHECK(first_line(open("/proc/self/maps", O_RDONLY), canon_maps, sizeof canon_maps) == 0);
    const char *maps[] = { "/proc/./self/maps", "//proc/self/maps", "/proc/self//maps", "/proc/self/./maps" };
    for (unsigned i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        int r = first_line(open(maps[i], O_RDONLY), other, sizeof other);
        printf("open %s: %s\n", maps[i], r < 0 ? errname(errno) : strcmp(other, canon_maps) == 0 ? "same first line" : "differs");
    }
    int r = first_line(openat(proc, "./self/maps", O_RDONLY), other, sizeof other);
    printf("openat(/proc, ./self/maps): %s\n", r < 0 ? errname(errno) : strcmp(other, canon_maps) == 0 ? "same first line" : "differs");
    EXPECT_ERR("maps with a trailing slash", open("/proc/self/maps/", O_RDONLY), ENOTDIR);
    close(proc);
    close(self);

    /* Signal 0: permission and existence only. */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    printf("rt_sigqueueinfo(self, 0): %ld\n", syscall(SYS_rt_sigqueueinfo, getpid(), 0, &si));
    printf("rt_tgsigqueueinfo(self, 0): %ld\n", syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), 0, &si));
    union sigval v = { .sival_int = 1 };
    printf("sigqueue(self, 0): %d\n", sigqueue(getpid(), 0, v));
    EXPECT_ERR("sigqueue(no such pid, 0)", sigqueue(0x3ffffff0, 0, v), ESRCH);
    EXPECT_ERR("rt_sigqueueinfo(self, 0, bad info)", syscall(SYS_rt_sigqueueinfo, getpid(), 0, (void *)16), EFAULT);

    /* Capability prctls of the calling thread. */
    printf("PR_CAP_AMBIENT IS_SET(CAP_CHOWN): %d\n", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0));
    printf("PR_CAP_AMBIENT CLEAR_ALL: %d\n", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
    EXPECT_ERR("PR_CAP_AMBIENT IS_SET(cap 1000)", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 1000, 0, 0), EINVAL);
    EXPECT_ERR("PR_CAP_AMBIENT bad op", prctl(PR_CAP_AMBIENT, 99, 0, 0, 0), EINVAL);
    printf("PR_GET_KEEPCAPS: %d\n", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
    int set = prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
    printf("PR_SET_KEEPCAPS 1: %d, then %d\n", set, prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
    printf("PR_SET_KEEPCAPS 0: %d\n", prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0));
    printf("PR_GET_SECUREBITS: %d\n", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
    printf("PR_CAPBSET_READ(CAP_CHOWN) is 0 or 1: %s\n", prctl(PR_CAPBSET_READ, 0, 0, 0, 0) >= 0 ? "yes" : "no");
    printf("PR_GET_TIMING: %d\n", prctl(PR_GET_TIMING, 0, 0, 0, 0));
    printf("PR_GET_THP_DISABLE: %d\n", prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
    return 0;
}
