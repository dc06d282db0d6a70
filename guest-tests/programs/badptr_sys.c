/* Bad pointers to the time, signal, process, polling and other system calls (issue 15
 * part 3): clock_gettime(64), clock_getres, gettimeofday, nanosleep,
 * clock_nanosleep(64), getitimer, setitimer, timerfd_settime/gettime, rt_sigaction,
 * rt_sigprocmask, rt_sigpending, sigaltstack, rt_sigtimedwait, rt_sigsuspend,
 * rt_sigqueueinfo, signalfd4, uname, sysinfo, getrlimit, setrlimit, prlimit64, getrusage,
 * times, getresuid, getresgid, getcpu, pipe2, pipe, wait4, waitid, poll, ppoll, select,
 * pselect6, epoll_ctl, epoll_wait, epoll_pwait, futex, getrandom, sched_getaffinity,
 * sched_setaffinity, sched_getparam, sched_setparam, sched_rr_get_interval, capget, capset,
 * mincore, prctl PR_GET_NAME/PR_SET_NAME, get_robust_list.
 *
 * Each is called with NULL, an unmapped page, a read-only page (for what the kernel writes)
 * or a struct straddling the end of a mapping (badptr.h), and prints what it returned; the
 * expected output (made natively) records Linux's answers.  The 32-bit arches' time64 calls
 * print under the same label as the plain call, which the 64-bit arches make instead.
 * Where Linux only range-checks a pointer it may never use, the answer is not EFAULT: a
 * private FUTEX_WAKE with no waiter returns 0 whatever the address, epoll_wait with nothing
 * ready returns 0, a NULL rem of a nanosleep that is not interrupted is never written.
 * Left out: time(2) (absent on most arches); settimeofday (endgate refuses it with EPERM
 * without reading its arguments, syscall/unserved.rs, where Linux first copies the timeval); sched_getaffinity into a straddling buffer (how
 * much Linux copies depends on the host's CPU count).  Sources: the man pages of these calls
 * ("EFAULT ... points outside the accessible address space") and Linux's kernel/time,
 * kernel/signal.c, kernel/sys.c, kernel/exit.c, fs/select.c, fs/eventpoll.c, kernel/futex. */
#include "badptr.h"
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <poll.h>
#include <time.h>

#ifdef SYS_clock_gettime64
#define NR_CLOCK_GETTIME SYS_clock_gettime64
#define NR_CLOCK_GETRES SYS_clock_getres_time64
#define NR_CLOCK_NANOSLEEP SYS_clock_nanosleep_time64
#define NR_PPOLL SYS_ppoll_time64
#define NR_PSELECT6 SYS_pselect6_time64
#define NR_SIGTIMEDWAIT SYS_rt_sigtimedwait_time64
#define NR_TIMERFD_SETTIME SYS_timerfd_settime64
#define NR_TIMERFD_GETTIME SYS_timerfd_gettime64
#define NR_FUTEX SYS_futex_time64
#define NR_RR_INTERVAL SYS_sched_rr_get_interval_time64
#else
#define NR_CLOCK_GETTIME SYS_clock_gettime
#define NR_CLOCK_GETRES SYS_clock_getres
#define NR_CLOCK_NANOSLEEP SYS_clock_nanosleep
#define NR_PPOLL SYS_ppoll
#define NR_PSELECT6 SYS_pselect6
#define NR_SIGTIMEDWAIT SYS_rt_sigtimedwait
#define NR_TIMERFD_SETTIME SYS_timerfd_settime
#define NR_TIMERFD_GETTIME SYS_timerfd_gettime
#define NR_FUTEX SYS_futex
#define NR_RR_INTERVAL SYS_sched_rr_get_interval
#endif

static void child_exits(int code)
{
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0)
        _exit(code);
    /* let it become a zombie, so that the waits below do not block */
    siginfo_t si;
    CHECK(waitid(P_PID, p, &si, WEXITED | WNOWAIT) == 0);
}

int main(void)
{
    badptr_setup();
    char buf[512];
    memset(buf, 0, sizeof buf);

    /* time */
    T("clock_gettime NULL", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, NUL));
    T("clock_gettime UNM", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, UNM));
    T("clock_gettime RO", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, RO));
    T("clock_gettime E4", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, E4));
    T("clock_gettime64|clock_gettime UNM", syscall(NR_CLOCK_GETTIME, CLOCK_REALTIME, UNM));
    T("clock_gettime64|clock_gettime E8", syscall(NR_CLOCK_GETTIME, CLOCK_REALTIME, E8));
    T("clock_getres NULL (allowed)", syscall(SYS_clock_getres, CLOCK_MONOTONIC, NUL));
    T("clock_getres UNM", syscall(SYS_clock_getres, CLOCK_MONOTONIC, UNM));
    T("clock_getres64|clock_getres RO", syscall(NR_CLOCK_GETRES, CLOCK_MONOTONIC, RO));
    T("gettimeofday tv UNM", syscall(SYS_gettimeofday, UNM, NUL));
    T("gettimeofday tz UNM", syscall(SYS_gettimeofday, buf, UNM));
    T("gettimeofday both NULL", syscall(SYS_gettimeofday, NUL, NUL));
    T("gettimeofday tv RO", syscall(SYS_gettimeofday, RO, NUL));
    struct timespec ts0 = {0, 1000};
    T("nanosleep req NULL", syscall(SYS_nanosleep, NUL, NUL));
    T("nanosleep req UNM", syscall(SYS_nanosleep, UNM, NUL));
    T("nanosleep req E4", syscall(SYS_nanosleep, E4, NUL));
    T("nanosleep rem UNM, not interrupted", syscall(SYS_nanosleep, &ts0, UNM));
    T("clock_nanosleep req UNM", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, UNM, NUL));
    T("clock_nanosleep64|clock_nanosleep req NULL", syscall(NR_CLOCK_NANOSLEEP, CLOCK_MONOTONIC, 0, NUL, NUL));
    T("clock_nanosleep64|clock_nanosleep req E8", syscall(NR_CLOCK_NANOSLEEP, CLOCK_MONOTONIC, 0, E8, NUL));
    T("getitimer UNM", syscall(SYS_getitimer, ITIMER_REAL, UNM));
    T("getitimer RO", syscall(SYS_getitimer, ITIMER_REAL, RO));
    T("setitimer new UNM", syscall(SYS_setitimer, ITIMER_REAL, UNM, NUL));
    struct itimerval itv = {{0, 0}, {0, 0}};
    T("setitimer old UNM", syscall(SYS_setitimer, ITIMER_REAL, &itv, UNM));
    int tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    CHECK(tfd >= 0);
    T("timerfd_settime new UNM", syscall(SYS_timerfd_settime, tfd, 0, UNM, NUL));
    T("timerfd_settime64|timerfd_settime new NULL", syscall(NR_TIMERFD_SETTIME, tfd, 0, NUL, NUL));
    T("timerfd_gettime UNM", syscall(SYS_timerfd_gettime, tfd, UNM));
    T("timerfd_gettime64|timerfd_gettime RO", syscall(NR_TIMERFD_GETTIME, tfd, RO));

    /* signals */
    T("rt_sigaction act UNM", syscall(SYS_rt_sigaction, SIGUSR1, UNM, NUL, KSIGSET));
    T("rt_sigaction act E4", syscall(SYS_rt_sigaction, SIGUSR1, E4, NUL, KSIGSET));
    T("rt_sigaction oldact UNM", syscall(SYS_rt_sigaction, SIGUSR1, NUL, UNM, KSIGSET));
    T("rt_sigaction oldact RO", syscall(SYS_rt_sigaction, SIGUSR1, NUL, RO, KSIGSET));
    T("rt_sigaction both NULL", syscall(SYS_rt_sigaction, SIGUSR1, NUL, NUL, KSIGSET));
    T("rt_sigprocmask set UNM", syscall(SYS_rt_sigprocmask, SIG_BLOCK, UNM, NUL, KSIGSET));
    T("rt_sigprocmask set E4", syscall(SYS_rt_sigprocmask, SIG_BLOCK, EDGE - KSIGSET / 2, NUL, KSIGSET));
    T("rt_sigprocmask oldset UNM", syscall(SYS_rt_sigprocmask, SIG_BLOCK, NUL, UNM, KSIGSET));
    T("rt_sigprocmask oldset RO", syscall(SYS_rt_sigprocmask, SIG_BLOCK, NUL, RO, KSIGSET));
    T("rt_sigpending UNM", syscall(SYS_rt_sigpending, UNM, KSIGSET));
    T("rt_sigpending RO", syscall(SYS_rt_sigpending, RO, KSIGSET));
    T("sigaltstack ss UNM", syscall(SYS_sigaltstack, UNM, NUL));
    T("sigaltstack old_ss UNM", syscall(SYS_sigaltstack, NUL, UNM));
    T("sigaltstack old_ss RO", syscall(SYS_sigaltstack, NUL, RO));
    T("sigaltstack old_ss E4", syscall(SYS_sigaltstack, NUL, E4));
    struct timespec zero = {0, 0};
    T("rt_sigtimedwait set UNM", syscall(NR_SIGTIMEDWAIT, UNM, NUL, &zero, KSIGSET));
    char set[16] = {0};
    set[0] = 1 << (SIGUSR2 - 1) % 8; /* any signal; none is pending */
    T("rt_sigtimedwait timeout UNM", syscall(NR_SIGTIMEDWAIT, set, NUL, UNM, KSIGSET));
    T("rt_sigsuspend mask UNM", syscall(SYS_rt_sigsuspend, UNM, KSIGSET));
    T("rt_sigqueueinfo info UNM", syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR1, UNM));
    T("signalfd4 mask UNM", syscall(SYS_signalfd4, -1, UNM, KSIGSET, 0));

    /* system and process information */
    T("uname NULL", syscall(SYS_uname, NUL));
    T("uname UNM", syscall(SYS_uname, UNM));
    T("uname RO", syscall(SYS_uname, RO));
    T("uname E8", syscall(SYS_uname, E8));
    T("sysinfo UNM", syscall(SYS_sysinfo, UNM));
    T("sysinfo RO", syscall(SYS_sysinfo, RO));
#ifdef SYS_getrlimit
    T("getrlimit|prlimit64 UNM", syscall(SYS_getrlimit, RLIMIT_NOFILE, UNM));
    T("setrlimit|prlimit64 UNM", syscall(SYS_setrlimit, RLIMIT_NOFILE, UNM));
#else
    T("getrlimit|prlimit64 UNM", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NUL, UNM));
    T("setrlimit|prlimit64 UNM", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, UNM, NUL));
#endif
    T("prlimit64 new UNM", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, UNM, NUL));
    T("prlimit64 old UNM", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NUL, UNM));
    T("prlimit64 old RO", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NUL, RO));
    T("prlimit64 old E8", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NUL, E8));
    T("getrusage UNM", syscall(SYS_getrusage, RUSAGE_SELF, UNM));
    T("getrusage RO", syscall(SYS_getrusage, RUSAGE_SELF, RO));
    T("times UNM", syscall(SYS_times, UNM));
    T("times RO", syscall(SYS_times, RO));
    T("getresuid UNM", syscall(SYS_getresuid, UNM, buf, buf + 8));
    T("getresgid RO", syscall(SYS_getresgid, buf, buf + 8, RO));
    T("getcpu cpu UNM", syscall(SYS_getcpu, UNM, NUL, NUL));
    T("getcpu node RO", syscall(SYS_getcpu, NUL, RO, NUL));
    T("getcpu both NULL", syscall(SYS_getcpu, NUL, NUL, NUL));
    T("prctl PR_GET_NAME UNM", syscall(SYS_prctl, PR_GET_NAME, UNM, 0, 0, 0));
    T("prctl PR_GET_NAME RO", syscall(SYS_prctl, PR_GET_NAME, RO, 0, 0, 0));
    T("prctl PR_SET_NAME UNM", syscall(SYS_prctl, PR_SET_NAME, UNM, 0, 0, 0));
    T("get_robust_list head UNM", syscall(SYS_get_robust_list, 0, UNM, buf));
    T("get_robust_list len RO", syscall(SYS_get_robust_list, 0, buf, RO));
    T("capget header UNM", syscall(SYS_capget, UNM, NUL));
    unsigned hdr[2] = {0x20080522, 0};
    T("capget data UNM", syscall(SYS_capget, hdr, UNM));
    T("capget data RO", syscall(SYS_capget, hdr, RO));
    T("capset data UNM", syscall(SYS_capset, hdr, UNM));

    /* pipes */
    T("pipe2 NULL", syscall(SYS_pipe2, NUL, 0));
    T("pipe2 UNM", syscall(SYS_pipe2, UNM, 0));
    T("pipe2 RO", syscall(SYS_pipe2, RO, 0));
    T("pipe2 E4", syscall(SYS_pipe2, E4, 0));
#if defined(SYS_pipe) && !defined(__mips__)
    T("pipe|pipe2 UNM", syscall(SYS_pipe, UNM));
#else
    T("pipe|pipe2 UNM", syscall(SYS_pipe2, UNM, 0));
#endif
    int p[2];
    CHECK(pipe(p) == 0);
    printf("pipe after the faults: fds %d %d\n", p[0], p[1]);

    /* children: the child is reaped before the status is written */
    child_exits(3);
    T("wait4 status UNM", syscall(SYS_wait4, -1, UNM, 0, NUL));
    T("wait4 again", syscall(SYS_wait4, -1, NUL, WNOHANG, NUL));
    child_exits(4);
    T("wait4 rusage RO", syscall(SYS_wait4, -1, NUL, 0, RO));
    T("wait4 again", syscall(SYS_wait4, -1, NUL, WNOHANG, NUL));
    child_exits(5);
    T("waitid infop UNM", syscall(SYS_waitid, P_ALL, 0, UNM, WEXITED, NUL));
    T("waitid again", syscall(SYS_waitid, P_ALL, 0, buf, WEXITED | WNOHANG, NUL));
    child_exits(6);
    T("waitid rusage UNM", syscall(SYS_waitid, P_ALL, 0, buf, WEXITED, UNM));
    T("waitid again", syscall(SYS_waitid, P_ALL, 0, buf, WEXITED | WNOHANG, NUL));

    /* polling */
    CHECK(write(p[1], "x", 1) == 1);
    struct pollfd pf = {p[0], POLLIN, 0};
#if defined(SYS_poll)
    T("poll|ppoll fds UNM", syscall(SYS_poll, UNM, 1, 0));
    T("poll|ppoll fds RO", syscall(SYS_poll, RO, 1, 0));
    T("poll|ppoll fds NULL nfds 0", syscall(SYS_poll, NUL, 0, 0));
#else
    T("poll|ppoll fds UNM", syscall(SYS_ppoll, UNM, 1, &zero, NUL, KSIGSET));
    T("poll|ppoll fds RO", syscall(SYS_ppoll, RO, 1, &zero, NUL, KSIGSET));
    T("poll|ppoll fds NULL nfds 0", syscall(SYS_ppoll, NUL, 0, &zero, NUL, KSIGSET));
#endif
    T("ppoll fds UNM", syscall(SYS_ppoll, UNM, 1, NUL, NUL, KSIGSET));
    T("ppoll64|ppoll timeout UNM", syscall(NR_PPOLL, &pf, 1, UNM, NUL, KSIGSET));
    T("ppoll64|ppoll sigmask UNM", syscall(NR_PPOLL, &pf, 1, NUL, UNM, KSIGSET));
    T("ppoll fds E4", syscall(SYS_ppoll, E4, 1, NUL, NUL, KSIGSET));
    unsigned long rfds[16] = {0};
    rfds[0] = 1UL << p[0];
#if defined(SYS__newselect)
#define NR_SELECT SYS__newselect
#elif defined(SYS_select) && !defined(__i386__)
#define NR_SELECT SYS_select
#endif
#ifdef NR_SELECT
    T("select|pselect6 readfds UNM", syscall(NR_SELECT, p[0] + 1, UNM, NUL, NUL, NUL));
    T("select|pselect6 writefds RO", syscall(NR_SELECT, p[0] + 1, NUL, RO, NUL, NUL));
    T("select|pselect6 timeout UNM", syscall(NR_SELECT, p[0] + 1, rfds, NUL, NUL, UNM));
#else
    T("select|pselect6 readfds UNM", syscall(SYS_pselect6, p[0] + 1, UNM, NUL, NUL, NUL, NUL));
    T("select|pselect6 writefds RO", syscall(SYS_pselect6, p[0] + 1, NUL, RO, NUL, NUL, NUL));
    T("select|pselect6 timeout UNM", syscall(SYS_pselect6, p[0] + 1, rfds, NUL, NUL, UNM, NUL));
#endif
    T("pselect6 exceptfds UNM", syscall(SYS_pselect6, p[0] + 1, NUL, NUL, UNM, NUL, NUL));
    T("pselect6 sigmask block UNM", syscall(SYS_pselect6, p[0] + 1, rfds, NUL, NUL, NUL, UNM));
    /* a timeout Linux cannot write back: the result stands (fs/select.c "sticky") */
    struct timespec64_ { long long s, ns; } z64 = {0, 0};
    ro_put(&z64, sizeof z64);
    T("pselect6_64|pselect6 timeout RO (not written back)", syscall(NR_PSELECT6, p[0] + 1, rfds, NUL, NUL, RO, NUL));
    T("ppoll64|ppoll timeout RO (not written back)", syscall(NR_PPOLL, &pf, 1, RO, NUL, KSIGSET));
    ro_reset();
    T("pselect6 readfds E4 nfds 64", syscall(SYS_pselect6, 64, E4, NUL, NUL, NUL, NUL));
    int ep = epoll_create1(0);
    CHECK(ep >= 0);
    T("epoll_ctl event UNM", syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], UNM));
    T("epoll_ctl event NULL", syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], NUL));
    T("epoll_ctl DEL event UNM (not read)", syscall(SYS_epoll_ctl, ep, EPOLL_CTL_DEL, p[0], UNM));
    struct epoll_event ev = {.events = EPOLLOUT};
    CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0);
    T("epoll_pwait nothing ready, events UNM", syscall(SYS_epoll_pwait, ep, UNM, 1, 0, NUL, KSIGSET));
    ev.events = EPOLLIN;
    CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev) == 0);
    T("epoll_pwait events UNM", syscall(SYS_epoll_pwait, ep, UNM, 1, 0, NUL, KSIGSET));
    T("epoll_pwait events RO", syscall(SYS_epoll_pwait, ep, RO, 1, 0, NUL, KSIGSET));
    T("epoll_pwait sigmask UNM", syscall(SYS_epoll_pwait, ep, buf, 1, 0, UNM, KSIGSET));
#ifdef SYS_epoll_wait
    T("epoll_wait|epoll_pwait events E4", syscall(SYS_epoll_wait, ep, E4, 1, 0));
#else
    T("epoll_wait|epoll_pwait events E4", syscall(SYS_epoll_pwait, ep, E4, 1, 0, NUL, KSIGSET));
#endif

    /* futex */
    T("futex WAKE_PRIVATE UNM (no waiter, never read)", syscall(NR_FUTEX, UNM, FUTEX_WAKE_PRIVATE, 1, NUL, NUL, 0));
    T("futex WAKE shared UNM", syscall(NR_FUTEX, UNM, FUTEX_WAKE, 1, NUL, NUL, 0));
    T("futex WAIT_PRIVATE UNM", syscall(NR_FUTEX, UNM, FUTEX_WAIT_PRIVATE, 0, NUL, NUL, 0));
    T("futex WAIT_PRIVATE NULL", syscall(NR_FUTEX, NUL, FUTEX_WAIT_PRIVATE, 0, NUL, NUL, 0));
    T("futex WAIT_PRIVATE RO, value differs", syscall(NR_FUTEX, RO, FUTEX_WAIT_PRIVATE, 0, NUL, NUL, 0));
    int fw = 0;
    T("futex WAIT_PRIVATE timeout UNM", syscall(NR_FUTEX, &fw, FUTEX_WAIT_PRIVATE, 0, UNM, NUL, 0));
    T("futex WAKE_OP uaddr2 UNM", syscall(NR_FUTEX, &fw, FUTEX_WAKE_OP_PRIVATE, 1, 1, UNM, FUTEX_OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 0)));
    T("futex CMP_REQUEUE uaddr UNM", syscall(NR_FUTEX, UNM, FUTEX_CMP_REQUEUE_PRIVATE, 1, 1, &fw, 0));

    /* getrandom */
    T("getrandom NULL", syscall(SYS_getrandom, NUL, 16, 0));
    T("getrandom UNM", syscall(SYS_getrandom, UNM, 16, 0));
    T("getrandom RO", syscall(SYS_getrandom, RO, 16, 0));
    T("getrandom E8 count 16", syscall(SYS_getrandom, E8, 16, 0));
    T("getrandom NULL count 0", syscall(SYS_getrandom, NUL, 0, 0));

    /* scheduling */
    T("sched_getaffinity mask UNM", syscall(SYS_sched_getaffinity, 0, 128, UNM));
    T("sched_getaffinity mask RO", syscall(SYS_sched_getaffinity, 0, 128, RO));
    T("sched_setaffinity mask UNM", syscall(SYS_sched_setaffinity, 0, 128, UNM));
    T("sched_setaffinity mask NULL", syscall(SYS_sched_setaffinity, 0, 128, NUL));
    T("sched_getparam UNM", syscall(SYS_sched_getparam, 0, UNM));
    T("sched_getparam RO", syscall(SYS_sched_getparam, 0, RO));
    T("sched_setparam UNM", syscall(SYS_sched_setparam, 0, UNM));
    T("sched_setscheduler param UNM", syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, UNM));
    T("sched_getattr UNM", syscall(SYS_sched_getattr, 0, UNM, 56, 0));
    T("sched_rr_get_interval UNM", syscall(SYS_sched_rr_get_interval, 0, UNM));
    T("sched_rr_get_interval64|sched_rr_get_interval RO", syscall(NR_RR_INTERVAL, 0, RO));

    /* memory */
    unsigned char vec[4];
    T("mincore vec UNM", syscall(SYS_mincore, EDGE - pg, pg, UNM));
    T("mincore vec RO", syscall(SYS_mincore, EDGE - pg, pg, RO));
    T("mincore addr UNM", syscall(SYS_mincore, UNM, pg, vec));
    T("mincore range runs into UNM", syscall(SYS_mincore, EDGE - pg, 2 * pg, vec));

    badptr_finish();
    return 0;
}
