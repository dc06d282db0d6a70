/* Bad pointers to the file and file-system calls (issue 15 part 3): read, write, pread64,
 * pwrite64, readv, writev, preadv, pwritev, sendfile, copy_file_range, the stat family (fstat,
 * fstat64, stat, lstat, newfstatat/fstatat64, statx, statfs, fstatfs), getdents64, getdents,
 * readlink(at), open(at), openat2, mkdir(at), mknodat, unlink(at), rmdir, rename(at/at2),
 * link(at), symlink(at), chdir, access/faccessat, fchmodat, truncate, utimensat, getxattr,
 * inotify_add_watch, memfd_create, getcwd, execve, and ioctl FIONREAD/TCGETS.
 *
 * Each is called with NULL, an unmapped page, a read-only page (for buffers the kernel writes)
 * and a buffer straddling the end of a mapping (badptr.h), and prints what it returned, so the
 * expected output (made natively) records Linux's answers: EFAULT, or a short count where
 * Linux copies what it can (a read from a regular file into a buffer that runs off the
 * mapping returns the bytes before the edge, a pipe read gives EFAULT and keeps the data).
 * Calls a 64-bit arch lacks (open, stat, getdents, rename, ...) fall back to their *at twin
 * there, under the same label, so every arch prints the same lines.  Sources: the man pages
 * read(2), write(2), readv(2), stat(2), statx(2), getdents(2), readlink(2), open(2),
 * getcwd(2), execve(2), ioctl_tty(2) ("EFAULT: buf is outside your accessible address space")
 * and Linux's fs/read_write.c, fs/pipe.c, fs/stat.c, fs/namei.c. */
#include "badptr.h"
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <termios.h>

#ifdef SYS_newfstatat
#define SYS_FSTATAT SYS_newfstatat
#else
#define SYS_FSTATAT SYS_fstatat64
#endif

int main(void)
{
    badptr_setup();
    char buf[256];
    int f = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(f >= 0);
    CHECK(write(f, "0123456789abcdefghijklmnopqrstuv", 32) == 32);
    int p[2];
    CHECK(pipe(p) == 0);

    /* read */
    T("read file NULL", syscall(SYS_read, f, NUL, 16));
    T("read file UNM", syscall(SYS_read, f, UNM, 16));
    T("read file RO", syscall(SYS_read, f, RO, 16));
    T("read file NULL count 0", syscall(SYS_read, f, NUL, 0));
    CHECK(lseek(f, 0, SEEK_SET) == 0);
    T("read file E8 count 16", syscall(SYS_read, f, E8, 16));
    printf("  bytes before the edge: %.8s, offset now %ld\n", E8, (long)lseek(f, 0, SEEK_CUR));
    CHECK(write(p[1], "pipedata", 8) == 8);
    T("read pipe UNM", syscall(SYS_read, p[0], UNM, 8));
    T("read pipe RO", syscall(SYS_read, p[0], RO, 8));
    memset(E8 - 8, 'e', 16);
    T("read pipe E4 count 8", syscall(SYS_read, p[0], E4, 8));
    T("  pipe data kept", syscall(SYS_read, p[0], buf, 8));
    int z = open("/dev/zero", O_RDONLY);
    CHECK(z >= 0);
    T("read /dev/zero E8 count 16", syscall(SYS_read, z, E8, 16));
    T("read /dev/zero RO", syscall(SYS_read, z, RO, 16));

    /* write */
    T("write pipe NULL", syscall(SYS_write, p[1], NUL, 8));
    T("write pipe UNM", syscall(SYS_write, p[1], UNM, 8));
    T("write pipe NULL count 0", syscall(SYS_write, p[1], NUL, 0));
    CHECK(lseek(f, 0, SEEK_SET) == 0);
    T("write file UNM", syscall(SYS_write, f, UNM, 8));
    memset(E8, 'W', 8);
    T("write file E8 count 16", syscall(SYS_write, f, E8, 16));
    CHECK(pread(f, buf, 10, 0) == 10);
    printf("  file starts: %.10s\n", buf);

    /* pread64 / pwrite64 at offset 0 (all the offset registers are 0 on every ABI) */
    T("pread64 NULL", syscall(SYS_pread64, f, NUL, 8, 0, 0, 0));
    T("pread64 UNM", syscall(SYS_pread64, f, UNM, 8, 0, 0, 0));
    T("pread64 RO", syscall(SYS_pread64, f, RO, 8, 0, 0, 0));
    T("pread64 E4 count 8", syscall(SYS_pread64, f, E4, 8, 0, 0, 0));
    T("pwrite64 UNM", syscall(SYS_pwrite64, f, UNM, 8, 0, 0, 0));
    T("pwrite64 E4 count 8", syscall(SYS_pwrite64, f, E4, 8, 0, 0, 0));

    /* readv / writev / preadv / pwritev */
    struct iovec iv[2] = {{buf, 4}, {UNM, 4}};
    struct iovec ivn = {NUL, 4};
    CHECK(lseek(f, 0, SEEK_SET) == 0);
    T("readv iov array NULL", syscall(SYS_readv, f, NUL, 1));
    T("readv iov array UNM", syscall(SYS_readv, f, UNM, 1));
    T("readv iov array E8 count 2", syscall(SYS_readv, f, E8, 2));
    T("readv iov base NULL", syscall(SYS_readv, f, &ivn, 1));
    T("readv iov array NULL count 0", syscall(SYS_readv, f, NUL, 0));
    T("readv file second iov UNM", syscall(SYS_readv, f, iv, 2));
    CHECK(write(p[1], "pipedata", 8) == 8);
    T("readv pipe second iov UNM", syscall(SYS_readv, p[0], iv, 2));
    T("  pipe data left", syscall(SYS_read, p[0], buf, 8));
    T("writev iov array UNM", syscall(SYS_writev, p[1], UNM, 1));
    T("writev iov base NULL", syscall(SYS_writev, p[1], &ivn, 1));
    T("writev pipe second iov UNM", syscall(SYS_writev, p[1], iv, 2));
    CHECK(lseek(f, 0, SEEK_SET) == 0);
    T("writev file second iov UNM", syscall(SYS_writev, f, iv, 2));
    T("preadv iov array UNM", syscall(SYS_preadv, f, UNM, 1, 0, 0));
    T("preadv iov base UNM", syscall(SYS_preadv, f, &iv[1], 1, 0, 0));
    T("preadv file second iov UNM", syscall(SYS_preadv, f, iv, 2, 0, 0));
    T("pwritev iov array UNM", syscall(SYS_pwritev, f, UNM, 1, 0, 0));
    T("pwritev iov base NULL", syscall(SYS_pwritev, f, &ivn, 1, 0, 0));

    /* sendfile, copy_file_range: offset pointers */
    int g = open("copy", O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(g >= 0);
#ifdef SYS_sendfile64
    T("sendfile offset UNM", syscall(SYS_sendfile64, g, f, UNM, 4));
#else
    T("sendfile offset UNM", syscall(SYS_sendfile, g, f, UNM, 4));
#endif
    T("copy_file_range off_in UNM", syscall(SYS_copy_file_range, f, UNM, g, NUL, 4, 0));
    T("copy_file_range off_out UNM", syscall(SYS_copy_file_range, f, NUL, g, UNM, 4, 0));

    /* the stat family */
    T("fstat UNM", syscall(SYS_fstat, f, UNM));
    T("fstat NULL", syscall(SYS_fstat, f, NUL));
    T("fstat RO", syscall(SYS_fstat, f, RO));
    T("fstat E8", syscall(SYS_fstat, f, E8));
#ifdef SYS_fstat64
    T("fstat64|fstat UNM", syscall(SYS_fstat64, f, UNM));
    T("fstat64|fstat E8", syscall(SYS_fstat64, f, E8));
#else
    T("fstat64|fstat UNM", syscall(SYS_fstat, f, UNM));
    T("fstat64|fstat E8", syscall(SYS_fstat, f, E8));
#endif
    T("fstatat path NULL", syscall(SYS_FSTATAT, AT_FDCWD, NUL, buf, 0));
    T("fstatat path UNM", syscall(SYS_FSTATAT, AT_FDCWD, UNM, buf, 0));
    T("fstatat path E8 (no NUL before the edge)", syscall(SYS_FSTATAT, AT_FDCWD, PE8, buf, 0));
    T("fstatat buf UNM", syscall(SYS_FSTATAT, AT_FDCWD, "data", UNM, 0));
    T("fstatat buf RO", syscall(SYS_FSTATAT, AT_FDCWD, "data", RO, 0));
    T("fstatat buf E8", syscall(SYS_FSTATAT, AT_FDCWD, "data", E8, 0));
    T("fstatat empty path fd buf UNM", syscall(SYS_FSTATAT, f, "", UNM, AT_EMPTY_PATH));
#ifdef SYS_stat
    T("stat|fstatat path UNM", syscall(SYS_stat, UNM, buf));
    T("stat|fstatat buf RO", syscall(SYS_stat, "data", RO));
#else
    T("stat|fstatat path UNM", syscall(SYS_FSTATAT, AT_FDCWD, UNM, buf, 0));
    T("stat|fstatat buf RO", syscall(SYS_FSTATAT, AT_FDCWD, "data", RO, 0));
#endif
#ifdef SYS_lstat
    T("lstat|fstatat path NULL", syscall(SYS_lstat, NUL, buf));
    T("lstat|fstatat buf UNM", syscall(SYS_lstat, "data", UNM));
#else
    T("lstat|fstatat path NULL", syscall(SYS_FSTATAT, AT_FDCWD, NUL, buf, AT_SYMLINK_NOFOLLOW));
    T("lstat|fstatat buf UNM", syscall(SYS_FSTATAT, AT_FDCWD, "data", UNM, AT_SYMLINK_NOFOLLOW));
#endif
#ifdef SYS_stat64
    T("stat64|fstatat buf E4", syscall(SYS_stat64, "data", E4));
#else
    T("stat64|fstatat buf E4", syscall(SYS_FSTATAT, AT_FDCWD, "data", E4, 0));
#endif
    T("statx path NULL", syscall(SYS_statx, AT_FDCWD, NUL, 0, 0x7ff, buf));
    T("statx path UNM", syscall(SYS_statx, AT_FDCWD, UNM, 0, 0x7ff, buf));
    T("statx buf NULL", syscall(SYS_statx, AT_FDCWD, "data", 0, 0x7ff, NUL));
    T("statx buf UNM", syscall(SYS_statx, AT_FDCWD, "data", 0, 0x7ff, UNM));
    T("statx buf RO", syscall(SYS_statx, AT_FDCWD, "data", 0, 0x7ff, RO));
    T("statx buf E8", syscall(SYS_statx, AT_FDCWD, "data", 0, 0x7ff, E8));
    T("fstatfs buf UNM", syscall(SYS_fstatfs, f, UNM));
    T("fstatfs buf RO", syscall(SYS_fstatfs, f, RO));
    T("statfs path UNM", syscall(SYS_statfs, UNM, buf));
    T("statfs buf NULL", syscall(SYS_statfs, ".", NUL));
    T("fstatfs buf E4", syscall(SYS_fstatfs, f, E4));

    /* directories */
    int d = open(".", O_RDONLY | O_DIRECTORY);
    CHECK(d >= 0);
    T("getdents64 NULL", syscall(SYS_getdents64, d, NUL, 4096));
    T("getdents64 UNM", syscall(SYS_getdents64, d, UNM, 4096));
    T("getdents64 RO", syscall(SYS_getdents64, d, RO, 4096));
    T("getdents64 E4 count 64", syscall(SYS_getdents64, d, E4, 64));
    CHECK(lseek(d, 0, SEEK_SET) == 0);
#ifdef SYS_getdents
    T("getdents|getdents64 UNM", syscall(SYS_getdents, d, UNM, 4096));
#else
    T("getdents|getdents64 UNM", syscall(SYS_getdents64, d, UNM, 4096));
#endif
    T("getdents64 after the faults: some entries", syscall(SYS_getdents64, d, buf, sizeof buf) > 0);
    T("getcwd NULL", syscall(SYS_getcwd, NUL, 4096));
    T("getcwd UNM", syscall(SYS_getcwd, UNM, 4096));
    T("getcwd RO", syscall(SYS_getcwd, RO, 4096));
    T("getcwd E4 size 4096 (the path is longer)", syscall(SYS_getcwd, E4, 4096));
    /* Linux copies only the path: a buffer whose size runs past the mapping is fine */
    TOK("getcwd EDGE-512 size 4096 (the path fits)", syscall(SYS_getcwd, EDGE - 512, 4096));
    T("chdir UNM", syscall(SYS_chdir, UNM));
    T("chdir NULL", syscall(SYS_chdir, NUL));

    /* links */
    CHECK(symlink("data", "link") == 0);
    T("readlinkat path UNM", syscall(SYS_readlinkat, AT_FDCWD, UNM, buf, 64));
    T("readlinkat buf NULL", syscall(SYS_readlinkat, AT_FDCWD, "link", NUL, 64));
    T("readlinkat buf UNM", syscall(SYS_readlinkat, AT_FDCWD, "link", UNM, 64));
    T("readlinkat buf RO", syscall(SYS_readlinkat, AT_FDCWD, "link", RO, 64));
    T("readlinkat buf E4 size 64", syscall(SYS_readlinkat, AT_FDCWD, "link", E4, 64));
    T("readlinkat /proc/self/exe buf RO", syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/exe", RO, 64));
    T("readlinkat /proc/self/cwd buf UNM", syscall(SYS_readlinkat, AT_FDCWD, "/proc/self/cwd", UNM, 64));
#ifdef SYS_readlink
    T("readlink|readlinkat buf UNM", syscall(SYS_readlink, "link", UNM, 64));
    T("readlink|readlinkat path NULL", syscall(SYS_readlink, NUL, buf, 64));
#else
    T("readlink|readlinkat buf UNM", syscall(SYS_readlinkat, AT_FDCWD, "link", UNM, 64));
    T("readlink|readlinkat path NULL", syscall(SYS_readlinkat, AT_FDCWD, NUL, buf, 64));
#endif
    T("symlinkat target UNM", syscall(SYS_symlinkat, UNM, AT_FDCWD, "l2"));
    T("symlinkat linkpath NULL", syscall(SYS_symlinkat, "data", AT_FDCWD, NUL));
    T("linkat oldpath UNM", syscall(SYS_linkat, AT_FDCWD, UNM, AT_FDCWD, "l3", 0));
    T("linkat newpath E8", syscall(SYS_linkat, AT_FDCWD, "data", AT_FDCWD, PE8, 0));
#ifdef SYS_symlink
    T("symlink|symlinkat target NULL", syscall(SYS_symlink, NUL, "l4"));
#else
    T("symlink|symlinkat target NULL", syscall(SYS_symlinkat, NUL, AT_FDCWD, "l4"));
#endif
#ifdef SYS_link
    T("link|linkat newpath UNM", syscall(SYS_link, "data", UNM));
#else
    T("link|linkat newpath UNM", syscall(SYS_linkat, AT_FDCWD, "data", AT_FDCWD, UNM, 0));
#endif

    /* paths */
    T("openat path NULL", syscall(SYS_openat, AT_FDCWD, NUL, O_RDONLY));
    T("openat path UNM", syscall(SYS_openat, AT_FDCWD, UNM, O_RDONLY));
    T("openat path E8", syscall(SYS_openat, AT_FDCWD, PE8, O_RDONLY));
    T("openat O_CREAT path UNM", syscall(SYS_openat, AT_FDCWD, UNM, O_RDWR | O_CREAT, 0644));
    T("openat2 how UNM", syscall(SYS_openat2, AT_FDCWD, "data", UNM, 24));
    memset(buf, 0, 24); /* struct open_how: flags, mode, resolve all 0 */
    T("openat2 path NULL", syscall(SYS_openat2, AT_FDCWD, NUL, buf, 24));
#ifdef SYS_open
    T("open|openat path UNM", syscall(SYS_open, UNM, O_RDONLY));
    T("open|openat path NULL", syscall(SYS_open, NUL, O_RDONLY));
#else
    T("open|openat path UNM", syscall(SYS_openat, AT_FDCWD, UNM, O_RDONLY));
    T("open|openat path NULL", syscall(SYS_openat, AT_FDCWD, NUL, O_RDONLY));
#endif
    T("mkdirat path UNM", syscall(SYS_mkdirat, AT_FDCWD, UNM, 0755));
    T("mknodat path NULL", syscall(SYS_mknodat, AT_FDCWD, NUL, S_IFREG | 0644, 0));
    T("unlinkat path UNM", syscall(SYS_unlinkat, AT_FDCWD, UNM, 0));
    T("unlinkat rmdir path E8", syscall(SYS_unlinkat, AT_FDCWD, PE8, AT_REMOVEDIR));
    T("renameat2 oldpath UNM", syscall(SYS_renameat2, AT_FDCWD, UNM, AT_FDCWD, "x", 0));
    T("renameat2 newpath NULL", syscall(SYS_renameat2, AT_FDCWD, "data", AT_FDCWD, NUL, 0));
#ifdef SYS_mkdir
    T("mkdir|mkdirat path NULL", syscall(SYS_mkdir, NUL, 0755));
#else
    T("mkdir|mkdirat path NULL", syscall(SYS_mkdirat, AT_FDCWD, NUL, 0755));
#endif
#ifdef SYS_unlink
    T("unlink|unlinkat path E8", syscall(SYS_unlink, PE8));
#else
    T("unlink|unlinkat path E8", syscall(SYS_unlinkat, AT_FDCWD, PE8, 0));
#endif
#ifdef SYS_rmdir
    T("rmdir|unlinkat path UNM", syscall(SYS_rmdir, UNM));
#else
    T("rmdir|unlinkat path UNM", syscall(SYS_unlinkat, AT_FDCWD, UNM, AT_REMOVEDIR));
#endif
#ifdef SYS_rename
    T("rename|renameat2 newpath UNM", syscall(SYS_rename, "data", UNM));
#else
    T("rename|renameat2 newpath UNM", syscall(SYS_renameat2, AT_FDCWD, "data", AT_FDCWD, UNM, 0));
#endif
#ifdef SYS_renameat
    T("renameat|renameat2 oldpath NULL", syscall(SYS_renameat, AT_FDCWD, NUL, AT_FDCWD, "x"));
#else
    T("renameat|renameat2 oldpath NULL", syscall(SYS_renameat2, AT_FDCWD, NUL, AT_FDCWD, "x", 0));
#endif
#ifdef SYS_access
    T("access|faccessat path UNM", syscall(SYS_access, UNM, F_OK));
#else
    T("access|faccessat path UNM", syscall(SYS_faccessat, AT_FDCWD, UNM, F_OK));
#endif
    T("faccessat path NULL", syscall(SYS_faccessat, AT_FDCWD, NUL, F_OK));
    T("faccessat2 path E8", syscall(SYS_faccessat2, AT_FDCWD, PE8, F_OK, 0));
    T("fchmodat path UNM", syscall(SYS_fchmodat, AT_FDCWD, UNM, 0644));
    T("fchownat path UNM", syscall(SYS_fchownat, AT_FDCWD, UNM, -1, -1, 0));
#ifdef SYS_truncate64
    T("truncate path UNM", syscall(SYS_truncate64, UNM, 0, 0, 0));
#else
    T("truncate path UNM", syscall(SYS_truncate, UNM, 0));
#endif
#ifdef SYS_utimensat_time64
    T("utimensat times UNM", syscall(SYS_utimensat_time64, AT_FDCWD, "data", UNM, 0));
    T("utimensat path UNM", syscall(SYS_utimensat_time64, AT_FDCWD, UNM, NUL, 0));
    T("utimensat times E8", syscall(SYS_utimensat_time64, AT_FDCWD, "data", E8, 0));
#else
    T("utimensat times UNM", syscall(SYS_utimensat, AT_FDCWD, "data", UNM, 0));
    T("utimensat path UNM", syscall(SYS_utimensat, AT_FDCWD, UNM, NUL, 0));
    T("utimensat times E8", syscall(SYS_utimensat, AT_FDCWD, "data", E8, 0));
#endif
    T("utimensat time32 times UNM", syscall(SYS_utimensat, AT_FDCWD, "data", UNM, 0));
    T("getxattr path UNM", syscall(SYS_getxattr, UNM, "user.x", buf, 16));
    T("getxattr name UNM", syscall(SYS_getxattr, "data", UNM, buf, 16));
    T("setxattr value UNM", syscall(SYS_setxattr, "data", "user.x", UNM, 16, 0));
    int in = inotify_init1(0);
    CHECK(in >= 0);
    T("inotify_add_watch path UNM", syscall(SYS_inotify_add_watch, in, UNM, 0xfff));
    T("memfd_create name UNM", syscall(SYS_memfd_create, UNM, 0));
    T("memfd_create name E8", syscall(SYS_memfd_create, PE8, 0));

    /* execve fails before the point of no return */
    char *argv[] = {"x", NULL};
    T("execve path UNM", syscall(SYS_execve, UNM, argv, NUL));
    T("execve path NULL", syscall(SYS_execve, NUL, argv, NUL));
    T("execve argv UNM", syscall(SYS_execve, "/proc/self/exe", UNM, NUL));
    char *badv[] = {"x", UNM, NULL};
    T("execve argv[1] UNM", syscall(SYS_execve, "/proc/self/exe", badv, NUL));
    T("execve envp UNM", syscall(SYS_execve, "/proc/self/exe", argv, UNM));

    /* ioctl */
    CHECK(write(p[1], "abc", 3) == 3);
    T("ioctl FIONREAD NULL", syscall(SYS_ioctl, p[0], FIONREAD, NUL));
    T("ioctl FIONREAD UNM", syscall(SYS_ioctl, p[0], FIONREAD, UNM));
    T("ioctl FIONREAD RO", syscall(SYS_ioctl, p[0], FIONREAD, RO));
    T("ioctl FIONBIO UNM", syscall(SYS_ioctl, p[0], FIONBIO, UNM));
    T("ioctl TCGETS on a pipe, arg UNM", syscall(SYS_ioctl, p[0], TCGETS, UNM));
    int m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
    CHECK(m >= 0);
    T("ioctl TCGETS pty UNM", syscall(SYS_ioctl, m, TCGETS, UNM));
    T("ioctl TCGETS pty RO", syscall(SYS_ioctl, m, TCGETS, RO));
    T("ioctl TCSETS pty UNM", syscall(SYS_ioctl, m, TCSETS, UNM));
    T("ioctl TIOCGWINSZ pty NULL", syscall(SYS_ioctl, m, TIOCGWINSZ, NUL));
    T("ioctl TIOCSWINSZ pty UNM", syscall(SYS_ioctl, m, TIOCSWINSZ, UNM));
    T("ioctl TIOCGPTN pty UNM", syscall(SYS_ioctl, m, TIOCGPTN, UNM));

    badptr_finish();
    return 0;
}
