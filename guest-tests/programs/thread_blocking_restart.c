/* A thread waiting in a system call while other threads exist, interrupted by a signal
 * (signal(7), "Interruption of system calls and library functions by signal handlers"):
 * read(2) of an empty pipe and openat(2) of a FIFO with no writer wait until the other end
 * acts. With a handler installed with SA_RESTART the call goes on waiting after the handler
 * and returns what the other end gives (the byte written; a descriptor); without
 * SA_RESTART it fails with EINTR once a signal arrives during the wait.
 *
 * The main thread cannot see when the waiter's call has begun, so it sends SIGUSR1 again
 * every 10 ms: without SA_RESTART until the call returns (the first signal may come before
 * the call starts), with SA_RESTART at least twice before it gives the other end. */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

static int pipefd[2];
static char fifo[64];
static int use_fifo;
static volatile int handled;
static volatile int done;
static long result;
static int result_errno;

static void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

static void *waiter(void *arg)
{
    (void)arg;
    char c = 0;
    if (use_fifo) {
        result = syscall(SYS_openat, AT_FDCWD, fifo, O_RDONLY | O_CLOEXEC);
        result_errno = errno;
        if (result >= 0) {
            CHECK(close((int)result) == 0);
            result = 0;
        }
    } else {
        result = syscall(SYS_read, pipefd[0], &c, 1);
        result_errno = errno;
        if (result == 1)
            result = c;
    }
    __atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void sleep_ms(int ms)
{
    struct timespec t = { 0, ms * 1000000L };
    nanosleep(&t, NULL);
}

static void run(int restart, int fifo_case)
{
    use_fifo = fifo_case;
    handled = 0;
    done = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = restart ? SA_RESTART : 0;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(pipe2(pipefd, O_CLOEXEC) == 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, waiter, NULL) == 0);
    int writer = -1;
    if (restart) {
        while (handled < 2) {
            CHECK(pthread_kill(t, SIGUSR1) == 0);
            sleep_ms(10);
        }
        sleep_ms(10);
        CHECK(!__atomic_load_n(&done, __ATOMIC_SEQ_CST));
        if (fifo_case)
            CHECK((writer = open(fifo, O_WRONLY | O_CLOEXEC)) >= 0);
        else
            CHECK(write(pipefd[1], "z", 1) == 1);
    } else {
        while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST)) {
            CHECK(pthread_kill(t, SIGUSR1) == 0);
            sleep_ms(10);
        }
    }
    CHECK(pthread_join(t, NULL) == 0);
    if (writer >= 0)
        CHECK(close(writer) == 0);
    printf("%s, %s: ", fifo_case ? "openat of a FIFO" : "read of a pipe", restart ? "SA_RESTART" : "no SA_RESTART");
    if (result < 0)
        printf("%s\n", errname(result_errno));
    else if (fifo_case)
        printf("opened\n");
    else
        printf("read '%c'\n", (char)result);
    CHECK(close(pipefd[0]) == 0 && close(pipefd[1]) == 0);
}

int main(void)
{
    snprintf(fifo, sizeof fifo, "/tmp/eg_restart_fifo_%d", (int)getpid());
    CHECK(mkfifo(fifo, 0600) == 0);
    run(1, 0);
    run(0, 0);
    run(1, 1);
    run(0, 1);
    CHECK(unlink(fifo) == 0);
    return 0;
}
