/* Threads that never make a system call while they wait: two threads pass a turn back and
 * forth 40 times by spinning on a shared variable, doing string work (library calls through
 * the PLT) on each turn. Under an emulator that runs one guest thread at a time, every pass
 * needs the spinning thread to be preempted; the work must come out the same. */
#include "common.h"
#include <pthread.h>
#include <stdint.h>

enum { ROUNDS = 40 };
static volatile int turn;
static unsigned long work[2];

static unsigned long crunch(int seed)
{
    char a[200], b[200];
    unsigned long sum = 0;
    for (int i = 0; i < 300; i++) {
        size_t len = (size_t)(seed * 7 + i * 13) % 190 + 1;
        memset(a, 'a' + i % 26, len);
        memcpy(b, a, len);
        b[len] = 0;
        sum += strlen(b) + (unsigned char)b[len / 2] + (unsigned long)memcmp(a, b, len);
    }
    return sum;
}

static void *player(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        while (turn != me)
            ;
        work[me] += crunch(r * 2 + me);
        turn = !me;
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, player, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
    printf("player 0 work %lu, player 1 work %lu, turn %d\n", work[0], work[1], turn);
    return 0;
}
