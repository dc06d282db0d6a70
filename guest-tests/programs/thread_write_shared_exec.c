/* A write(2) or pwrite(2) to a file while another thread maps the page it is about to write
 * MAP_SHARED|PROT_EXEC and runs it (or makes an existing read-only view of it executable):
 * once the write has returned, the view shows the new code, as Linux shares the page cache
 * between the file and its mappings (mmap(2)). One thread writes 16 MiB of zeros followed by
 * a page holding `return 2`; before each round the page holds `return 1`, and the main thread
 * maps it and calls it while the write runs (it may see either), then calls it again after
 * the write returned and the instruction cache was synchronized: it must return 2.
 * An emulator that writes without its lock must still drop what it translated from the new
 * mapping. */
#include "common.h"
#include "jit.h"
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>

#define BIG (16L << 20)
enum { ROUNDS = 8 };
static int fd;
static unsigned char *buf;
static volatile int started;
static int use_pwrite;

static void *writer(void *arg)
{
    (void)arg;
    __atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
    long r;
    if (use_pwrite) {
        r = pwrite(fd, buf, BIG + 4096, 0);
    } else {
        CHECK(lseek(fd, 0, SEEK_SET) == 0);
        r = write(fd, buf, BIG + 4096);
    }
    CHECK(r == BIG + 4096);
    return NULL;
}

/* Calls the code at `p` (jit.h's encodings are ARM, not Thumb, on arm: bit 0 stays clear). */
static int call(void *p)
{
    return ((int (*)(void))p)();
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/eg_write_shared_exec_%d", (int)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    CHECK(fd >= 0);
    CHECK(unlink(path) == 0);
    buf = mmap(NULL, BIG + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(buf != MAP_FAILED);
    size_t len = assemble(buf + BIG, 2);
    unsigned char one[64];
    CHECK(assemble(one, 1) == len);
    CHECK(ftruncate(fd, BIG + 4096) == 0);
    int stale = 0, wrong = 0;
    for (int i = 0; i < ROUNDS; i++) {
        use_pwrite = i & 1;
        int via_mprotect = (i >> 1) & 1;
        CHECK(pwrite(fd, one, len, BIG) == (long)len);
        unsigned char *p = NULL;
        if (via_mprotect) {
            p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, BIG);
            CHECK(p != MAP_FAILED);
        }
        __atomic_store_n(&started, 0, __ATOMIC_SEQ_CST);
        pthread_t t;
        CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
        while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
            ;
        if (via_mprotect) {
            CHECK(mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0);
        } else {
            p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, BIG);
            CHECK(p != MAP_FAILED);
        }
        int first = call(p);
        if (first != 1 && first != 2)
            wrong++;
        CHECK(pthread_join(t, NULL) == 0);
        __builtin___clear_cache((char *)p, (char *)p + len);
        if (call(p) != 2)
            stale++;
        CHECK(munmap(p, 4096) == 0);
    }
    printf("%d rounds (write and pwrite; new and mprotected views)\n", ROUNDS);
    printf("old code after the write returned: %d\n", stale);
    printf("neither old nor new code during it: %d\n", wrong);
    return 0;
}
