/* The guest of emulator/tests/gdb.rs: the values the GDB script checks are the ones the test
 * builds it with (-DOLD, -DSIX, -DSTATUS: the watched variable's old value, the factor of its
 * new one, the exit status), never endgate's. Built static with -g -O0 by the test. */
#include <pthread.h>
#include <unistd.h>

#ifndef OLD
#define OLD 41
#endif
#ifndef SIX
#define SIX 6
#endif
#ifndef STATUS
#define STATUS 7
#endif

volatile long watched = OLD;
volatile int worker_ready;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int done;

/* Called while both threads live; the script breaks here for `info threads`. */
void both_threads(void) {
    __asm__ volatile("" ::: "memory");
}

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    worker_ready = 1;
    pthread_cond_broadcast(&cond);
    while (!done)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    return 0;
}

int main(void) {
    pthread_t t;
    volatile long six = SIX; /* the script's stepi stops in here, before the watched store */
    watched = six * 7;
    if (pthread_create(&t, 0, worker, 0) != 0)
        return 1;
    pthread_mutex_lock(&lock);
    while (!worker_ready)
        pthread_cond_wait(&cond, &lock);
    both_threads();
    done = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    pthread_join(t, 0);
    write(1, "gdb guest\n", 10);
    return STATUS;
}
