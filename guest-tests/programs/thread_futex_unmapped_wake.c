/* A private futex waiter whose word's page another thread then unmaps (or maps PROT_NONE over)
 * is still woken by FUTEX_WAKE on the same address: a private futex is keyed by the process
 * and the address alone (futex(2); kernel/futex/core.c get_futex_key reads no memory for it),
 * so the wake returns 1 and the wait returns 0. 5 rounds of each. */
#include "common.h"
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static uint32_t *word;
static long waited;
static int started;

static long futex(uint32_t *w, int op, uint32_t val)
{
    return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void *waiter(void *arg)
{
    (void)arg;
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    waited = futex(word, FUTEX_WAIT, 0);
    return NULL;
}

/* One round; `none`: map PROT_NONE where the page was. 1 if the wake woke the waiter. */
static int round_with(int none)
{
    word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(word != MAP_FAILED);
    *word = 0;
    started = 0;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, waiter, NULL) == 0);
    while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
        ;
    usleep(20000); /* into the wait */
    CHECK(munmap(word, 4096) == 0);
    if (none)
        CHECK(mmap(word, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == word);
    long woken = 0;
    for (int i = 0; i < 100 && woken == 0; i++) {
        woken = futex(word, FUTEX_WAKE, 1);
        if (woken == 0)
            usleep(1000); /* the waiter had not begun waiting yet */
    }
    CHECK(pthread_join(t, NULL) == 0);
    munmap(word, 4096);
    return woken == 1 && waited == 0;
}

int main(void)
{
    int a = 0, b = 0;
    for (int i = 0; i < 5; i++) {
        a += round_with(0);
        b += round_with(1);
    }
    printf("wake after munmap woke the waiter: %d of 5\n", a);
    printf("wake after a PROT_NONE remap woke the waiter: %d of 5\n", b);
    return 0;
}
