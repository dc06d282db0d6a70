/* Robust mutexes whose owner dies: the kernel walks a thread's robust list (set_robust_list)
 * when the thread ends (kernel/futex/core.c exit_robust_list, handle_futex_death): a word the
 * thread owns gets FUTEX_OWNER_DIED with the owner cleared, and a waiter is woken, so the next
 * pthread_mutex_lock returns EOWNERDEAD; pthread_mutex_consistent then makes the mutex usable
 * again. Each case ends an owner a different way: a thread that returns holding the mutex
 * (plain and PTHREAD_PRIO_INHERIT; the lock word is printed too), a thread that exits while
 * another thread is blocked on the mutex; then process-shared mutexes in MAP_SHARED memory
 * held by a fork child that _exits, kills itself with SIGKILL, faults (SIGSEGV), ends with
 * exit_group while another of its threads holds the mutex, exits while the parent is blocked
 * on the mutex, or execs (the kernel walks the lists at exec too), itself or while another of
 * its threads holds the mutex. Steps are ordered with pipes and joins; a blocked waiter is
 * seen by the FUTEX_WAITERS bit it sets in the lock word before it sleeps. Every first lock
 * after a death is timed (10 s), so a mutex left locked prints ETIMEDOUT instead of hanging. */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include "common.h"

#define FUTEX_WAITERS 0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define FUTEX_TID_MASK 0x3fffffffu

static const char *self_path = "/proc/self/exe";
static volatile uintptr_t bad_address = 0;

/* The futex word of a glibc mutex: __data.__lock, its first member on every arch. */
static unsigned lock_word(pthread_mutex_t *m)
{
    return __atomic_load_n((unsigned *)m, __ATOMIC_SEQ_CST);
}

static void init(pthread_mutex_t *m, int pshared, int pi)
{
    pthread_mutexattr_t at;
    CHECK(pthread_mutexattr_init(&at) == 0);
    CHECK(pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST) == 0);
    if (pshared)
        CHECK(pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED) == 0);
    if (pi)
        CHECK(pthread_mutexattr_setprotocol(&at, PTHREAD_PRIO_INHERIT) == 0);
    CHECK(pthread_mutex_init(m, &at) == 0);
    pthread_mutexattr_destroy(&at);
}

static int timed_lock(pthread_mutex_t *m)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    return pthread_mutex_timedlock(m, &ts);
}

/* The caller of a lock that returned EOWNERDEAD makes the mutex consistent and unlocks it;
 * writes what each step returned. */
static void make_consistent(pthread_mutex_t *m, int r, char *out, size_t n)
{
    if (r != EOWNERDEAD) {
        snprintf(out, n, "lock %s", r ? errname(r) : "0");
        if (r == 0)
            pthread_mutex_unlock(m);
        return;
    }
    int c = pthread_mutex_consistent(m);
    int u = pthread_mutex_unlock(m);
    snprintf(out, n, "lock EOWNERDEAD, consistent %d, unlock %d", c, u);
}

/* The lock after the owner died, then the mutex made consistent, then locked again. */
static void recover(const char *label, pthread_mutex_t *m)
{
    char steps[128];
    make_consistent(m, timed_lock(m), steps, sizeof steps);
    int again = timed_lock(m);
    if (again == 0)
        pthread_mutex_unlock(m);
    printf("%s: %s, relock %s\n", label, steps, again ? errname(again) : "0");
    fflush(stdout);
}

/* Waits until a waiter blocks on `m`: it sets FUTEX_WAITERS in the word before it sleeps. */
static void wait_for_waiter(pthread_mutex_t *m)
{
    struct timespec ms = {0, 1000000};
    for (int i = 0; !(lock_word(m) & FUTEX_WAITERS); i++) {
        if (i == 20000) {
            printf("FAIL: no waiter blocked on the mutex\n");
            exit(1);
        }
        nanosleep(&ms, NULL);
    }
}

static void read_byte(int fd)
{
    char c;
    CHECK(read(fd, &c, 1) == 1);
}

static void write_byte(int fd)
{
    CHECK(write(fd, "x", 1) == 1);
}

/* ---- threads of this process ---- */

static pthread_mutex_t private_mutex;
static int owner_tid;

static void *lock_and_return(void *arg)
{
    owner_tid = gettid();
    CHECK(pthread_mutex_lock(arg) == 0);
    return NULL;
}

static void thread_returns(int pi)
{
    const char *label = pi ? "thread returns holding a PI mutex" : "thread returns holding it";
    init(&private_mutex, 0, pi);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, lock_and_return, &private_mutex) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    unsigned w = lock_word(&private_mutex);
    printf("%s: word %s, owner %s\n", label, w & FUTEX_OWNER_DIED ? "FUTEX_OWNER_DIED" : "no FUTEX_OWNER_DIED",
           (w & FUTEX_TID_MASK) == 0 ? "cleared" : (int)(w & FUTEX_TID_MASK) == owner_tid ? "the dead thread" : "other");
    recover(label, &private_mutex);
}

struct owner_arg {
    pthread_mutex_t *m;
    int locked, go;
};

static void *lock_wait_exit(void *p)
{
    struct owner_arg *a = p;
    CHECK(pthread_mutex_lock(a->m) == 0);
    write_byte(a->locked);
    read_byte(a->go);
    pthread_exit(NULL);
}

static void *waiter(void *m)
{
    static char steps[128];
    make_consistent(m, timed_lock(m), steps, sizeof steps);
    return steps;
}

static void thread_exits_while_waited_for(void)
{
    int locked[2], go[2];
    CHECK(pipe(locked) == 0 && pipe(go) == 0);
    init(&private_mutex, 0, 0);
    struct owner_arg a = {&private_mutex, locked[1], go[0]};
    pthread_t owner, w;
    CHECK(pthread_create(&owner, NULL, lock_wait_exit, &a) == 0);
    read_byte(locked[0]);
    CHECK(pthread_create(&w, NULL, waiter, &private_mutex) == 0);
    wait_for_waiter(&private_mutex);
    write_byte(go[1]);
    CHECK(pthread_join(owner, NULL) == 0);
    void *steps;
    CHECK(pthread_join(w, &steps) == 0);
    int again = timed_lock(&private_mutex);
    if (again == 0)
        pthread_mutex_unlock(&private_mutex);
    printf("waiter blocked when the owner thread exits: %s, relock %s\n", (char *)steps, again ? errname(again) : "0");
    fflush(stdout);
    close(locked[0]), close(locked[1]), close(go[0]), close(go[1]);
}

/* ---- fork children holding a process-shared mutex ---- */

static pthread_mutex_t *shared_mutex;

enum end { END_EXIT, END_SIGKILL, END_SEGV, END_EXEC };

static void child_ends(enum end how)
{
    switch (how) {
    case END_EXIT:
        _exit(0);
    case END_SIGKILL:
        kill(getpid(), SIGKILL);
        break;
    case END_SEGV: {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        *(volatile int *)bad_address = 1;
        break;
    }
    case END_EXEC: {
        char *args[] = {"robust_mutex", "exec-child", NULL};
        execv(self_path, args);
        break;
    }
    }
    _exit(99);
}

static void report_child(const char *label, pid_t pid)
{
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    char how[64];
    if (WIFEXITED(st))
        snprintf(how, sizeof how, "child exited %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(how, sizeof how, "child killed by SIG%s", sigabbrev_np(WTERMSIG(st)));
    else
        snprintf(how, sizeof how, "child status %#x", st);
    char l[160];
    snprintf(l, sizeof l, "%s: %s", label, how);
    recover(l, shared_mutex);
}

/* A fresh process-shared mutex, then fork: the child's pid, or 0 in the child. */
static pid_t fork_with_fresh_mutex(void)
{
    init(shared_mutex, 1, 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    return pid;
}

static void child_holds(const char *label, enum end how)
{
    pid_t pid = fork_with_fresh_mutex();
    if (pid == 0) {
        if (pthread_mutex_lock(shared_mutex) != 0)
            _exit(98);
        child_ends(how);
    }
    report_child(label, pid);
}

static int thread_locked_pipe;

static void *lock_and_stay(void *m)
{
    CHECK(pthread_mutex_lock(m) == 0);
    write_byte(thread_locked_pipe);
    for (;;)
        pause();
}

/* A child whose second thread holds the mutex while its first thread ends the process. */
static void child_thread_holds(const char *label, enum end how)
{
    pid_t pid = fork_with_fresh_mutex();
    if (pid == 0) {
        int p[2];
        CHECK(pipe(p) == 0);
        thread_locked_pipe = p[1];
        pthread_t t;
        CHECK(pthread_create(&t, NULL, lock_and_stay, shared_mutex) == 0);
        read_byte(p[0]);
        if (how == END_EXIT)
            exit(0);
        child_ends(how);
    }
    report_child(label, pid);
}

static void child_exits_while_parent_waits(void)
{
    int locked[2], go[2];
    CHECK(pipe(locked) == 0 && pipe(go) == 0);
    pid_t pid = fork_with_fresh_mutex();
    if (pid == 0) {
        if (pthread_mutex_lock(shared_mutex) != 0)
            _exit(98);
        write_byte(locked[1]);
        read_byte(go[0]);
        _exit(0);
    }
    read_byte(locked[0]);
    pthread_t w;
    CHECK(pthread_create(&w, NULL, waiter, shared_mutex) == 0);
    wait_for_waiter(shared_mutex);
    write_byte(go[1]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    void *steps;
    CHECK(pthread_join(w, &steps) == 0);
    printf("parent thread blocked when the owner child exits: child exited %d, waiter %s\n",
           WIFEXITED(st) ? WEXITSTATUS(st) : -1, (char *)steps);
    fflush(stdout);
    close(locked[0]), close(locked[1]), close(go[0]), close(go[1]);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "exec-child") == 0)
        return 0;
    shared_mutex = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(shared_mutex != MAP_FAILED);

    thread_returns(0);
    thread_returns(1);
    thread_exits_while_waited_for();

    child_holds("child _exit holding it", END_EXIT);
    child_holds("child SIGKILLs itself holding it", END_SIGKILL);
    child_holds("child faults holding it", END_SEGV);
    child_holds("child execs holding it", END_EXEC);
    child_thread_holds("child exit_group while its thread holds it", END_EXIT);
    child_thread_holds("child execs while its thread holds it", END_EXEC);
    child_exits_while_parent_waits();
    return 0;
}
