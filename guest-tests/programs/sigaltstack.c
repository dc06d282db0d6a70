/* sigaltstack: set and read back, a SA_ONSTACK handler runs on the alternate stack
 * (SS_ONSTACK seen inside), and SS_DISABLE. */
#include "common.h"
#include <signal.h>
#include <stdint.h>

static char *alt;
static size_t alt_size;
static volatile int on_alt, flags_inside;

static void handler(int sig)
{
    (void)sig;
    char local;
    on_alt = (uintptr_t)&local >= (uintptr_t)alt && (uintptr_t)&local < (uintptr_t)alt + alt_size;
    stack_t cur;
    sigaltstack(NULL, &cur);
    flags_inside = cur.ss_flags;
}

int main(void)
{
    stack_t ss, old;
    CHECK(sigaltstack(NULL, &old) == 0);
    printf("initially disabled: %d\n", old.ss_flags == SS_DISABLE);

    alt_size = 64 * 1024;
    alt = malloc(alt_size);
    CHECK(alt != NULL);
    ss.ss_sp = alt;
    ss.ss_size = alt_size;
    ss.ss_flags = 0;
    CHECK(sigaltstack(&ss, NULL) == 0);
    CHECK(sigaltstack(NULL, &old) == 0);
    printf("read back: sp ok %d, size ok %d, flags %d\n", old.ss_sp == alt, old.ss_size == alt_size, old.ss_flags);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_ONSTACK;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    printf("handler on the alternate stack: %d, SS_ONSTACK inside: %d\n", on_alt, flags_inside == SS_ONSTACK);

    sa.sa_flags = 0;
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    CHECK(raise(SIGUSR2) == 0);
    printf("handler without SA_ONSTACK on the alternate stack: %d\n", on_alt);

    ss.ss_size = 1024;
    EXPECT_ERR("too small", sigaltstack(&ss, NULL), ENOMEM);
    ss.ss_size = alt_size;
    ss.ss_flags = 12345;
    EXPECT_ERR("bad flags", sigaltstack(&ss, NULL), EINVAL);

    ss.ss_flags = SS_DISABLE;
    CHECK(sigaltstack(&ss, NULL) == 0);
    CHECK(sigaltstack(NULL, &old) == 0);
    printf("after SS_DISABLE: disabled %d\n", old.ss_flags == SS_DISABLE);
    return 0;
}
