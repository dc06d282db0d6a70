/* sigaction round trips, no signal delivered: install handlers with various flags and masks,
 * read them back (as the old action of the next call and with a NULL new action) and check
 * handler, flags and mask are what was set. The kernel's struct sigaction differs per arch
 * (field order on mips, sa_restorer, mask width), so this checks an emulator's translation. */
#include "common.h"
#include <signal.h>

/* glibc adds SA_RESTORER itself on arches that have it: not part of what the test sets. */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

static void h1(int sig) { (void)sig; }
static void h2(int sig, siginfo_t *si, void *uc) { (void)sig, (void)si, (void)uc; }

static int same_mask(const sigset_t *a, const sigset_t *b)
{
    for (int s = 1; s < 65; s++)
        if (sigismember(a, s) != sigismember(b, s))
            return 0;
    return 1;
}

/* The members of m among a fixed list of signals, by name: signal numbers differ per arch
 * (mips), so the list's order, not the numbers', decides the output. */
static void show_mask(const char *label, const sigset_t *m)
{
    static const int list[] = {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGCHLD, SIGCONT};
    printf("%s:", label);
    int count = 0;
    for (unsigned i = 0; i < sizeof list / sizeof *list; i++)
        if (sigismember(m, list[i]) == 1)
            printf(" %s", sigabbrev_np(list[i]));
    for (int s = 1; s < 65; s++)
        count += sigismember(m, s) == 1;
    printf(" (%d of signals 1-64)\n", count);
}

int main(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h1;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGCHLD);
    sa.sa_flags = SA_RESTART | SA_NODEFER;
    CHECK(sigaction(SIGUSR1, &sa, &old) == 0);
    printf("SIGUSR1 was SIG_DFL: %d\n", old.sa_handler == SIG_DFL);

    memset(&old, 0xa5, sizeof old);
    CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
    printf("handler read back: %d\n", old.sa_handler == h1);
    printf("flags read back: RESTART %d NODEFER %d SIGINFO %d others %d\n", !!(old.sa_flags & SA_RESTART),
           !!(old.sa_flags & SA_NODEFER), !!(old.sa_flags & SA_SIGINFO),
           (old.sa_flags & ~(SA_RESTART | SA_NODEFER | SA_RESTORER)) != 0);
    show_mask("mask read back", &old.sa_mask);
    printf("mask equal: %d\n", same_mask(&old.sa_mask, &sa.sa_mask));

    struct sigaction si;
    memset(&si, 0, sizeof si);
    si.sa_sigaction = h2;
    sigfillset(&si.sa_mask);
    si.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    CHECK(sigaction(SIGUSR1, &si, &old) == 0);
    printf("old action was h1: %d\n", old.sa_handler == h1);
    CHECK(sigaction(SIGUSR1, NULL, &old) == 0);
    printf("SA_SIGINFO handler read back: %d\n", old.sa_sigaction == h2);
    printf("flags: SIGINFO %d ONSTACK %d RESETHAND %d RESTART %d\n", !!(old.sa_flags & SA_SIGINFO),
           !!(old.sa_flags & SA_ONSTACK), !!(old.sa_flags & SA_RESETHAND), !!(old.sa_flags & SA_RESTART));
    /* A full mask reads back without SIGKILL and SIGSTOP, which cannot be blocked. */
    printf("full mask minus KILL and STOP: KILL %d STOP %d USR2 %d SEGV %d RTMIN %d 64 %d\n",
           sigismember(&old.sa_mask, SIGKILL), sigismember(&old.sa_mask, SIGSTOP),
           sigismember(&old.sa_mask, SIGUSR2), sigismember(&old.sa_mask, SIGSEGV),
           sigismember(&old.sa_mask, SIGRTMIN), sigismember(&old.sa_mask, 64));

    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, 64);
    sa.sa_flags = 0;
    CHECK(sigaction(SIGRTMIN + 2, &sa, NULL) == 0);
    CHECK(sigaction(SIGRTMIN + 2, NULL, &old) == 0);
    printf("real-time signal: SIG_IGN %d, signal 64 in its mask %d\n", old.sa_handler == SIG_IGN,
           sigismember(&old.sa_mask, 64));

    CHECK(sigaction(SIGPIPE, &sa, NULL) == 0);
    sa.sa_handler = SIG_DFL;
    CHECK(sigaction(SIGPIPE, &sa, &old) == 0);
    printf("SIGPIPE old was SIG_IGN: %d\n", old.sa_handler == SIG_IGN);

    sigset_t set, got;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGRTMIN + 1);
    CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);
    CHECK(sigprocmask(SIG_SETMASK, NULL, &got) == 0);
    printf("sigprocmask round trip: %d\n", same_mask(&set, &got));

    EXPECT_ERR("sigaction SIGKILL", sigaction(SIGKILL, &sa, NULL), EINVAL);
    EXPECT_ERR("sigaction SIGSTOP", sigaction(SIGSTOP, &sa, NULL), EINVAL);
    EXPECT_ERR("sigaction signal 0", sigaction(0, &sa, NULL), EINVAL);
    EXPECT_ERR("sigaction signal 200", sigaction(200, &sa, NULL), EINVAL);
    CHECK(sigaction(SIGKILL, NULL, &old) == 0);
    printf("reading SIGKILL's action is allowed: SIG_DFL %d\n", old.sa_handler == SIG_DFL);
    return 0;
}
