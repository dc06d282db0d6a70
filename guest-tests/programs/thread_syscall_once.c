/* One thread writes 4 bytes at a time to a file, 20,000 times, while a second thread keeps
 * changing a mapping's protection (each mprotect makes an emulator that runs threads at once
 * stop the others and have them catch up). Every write must happen exactly once: the file
 * ends 80,000 bytes long and every write returns 4. On i386 every system call goes through
 * the vDSO's __kernel_vsyscall, whose return instruction reads the stack right after the call
 * was served: an emulator that ran that instruction again after catching up served the call
 * twice. */
#include "common.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>

enum { N = 20000 };
static volatile int stop;

static void *toggler(void *arg)
{
    (void)arg;
    long ps = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    for (int i = 0; !stop; i++)
        CHECK(mprotect(p, ps, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE) == 0);
    return NULL;
}

int main(void)
{
    char path[] = "/tmp/thread_syscall_once_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(unlink(path) == 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, toggler, NULL) == 0);
    long bad = 0;
    for (int i = 0; i < N; i++)
        if (write(fd, "abcd", 4) != 4)
            bad++;
    stop = 1;
    CHECK(pthread_join(t, NULL) == 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    printf("writes that did not return 4: %ld\n", bad);
    printf("file size: %lld\n", (long long)st.st_size);
    return 0;
}
