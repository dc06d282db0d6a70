/* Two processes (a fork) each add 1 a million times to counters in memory they share: one in a
 * MAP_SHARED anonymous mapping, with __atomic fetch-add and a compare-and-swap loop, one in a
 * SysV shared memory segment, under a process-shared pthread mutex. The kernel makes atomic
 * instructions atomic across processes; every counter must end at exactly 2,000,000. */
#include "common.h"
#include <pthread.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>

enum { N = 1000000 };

struct shared {
    long fetch_added, cas_added;
};
struct locked {
    pthread_mutex_t mu;
    long count;
};

static void work(struct shared *s, struct locked *l)
{
    for (int i = 0; i < N; i++) {
        __atomic_fetch_add(&s->fetch_added, 1, __ATOMIC_RELAXED);
        long old = __atomic_load_n(&s->cas_added, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&s->cas_added, &old, old + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            ;
    }
    for (int i = 0; i < N / 4; i++) {
        pthread_mutex_lock(&l->mu);
        l->count++;
        pthread_mutex_unlock(&l->mu);
    }
}

int main(void)
{
    struct shared *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED);
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    CHECK(id >= 0);
    struct locked *l = shmat(id, NULL, 0);
    CHECK(l != (void *)-1);
    CHECK(shmctl(id, IPC_RMID, NULL) == 0);
    pthread_mutexattr_t a;
    CHECK(pthread_mutexattr_init(&a) == 0);
    CHECK(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) == 0);
    CHECK(pthread_mutex_init(&l->mu, &a) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    work(s, l);
    if (pid == 0)
        _exit(0);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("shared __atomic_fetch_add: %ld\n", s->fetch_added);
    printf("shared __atomic_compare_exchange: %ld\n", s->cas_added);
    printf("process-shared mutex: %ld\n", l->count);
    return 0;
}
