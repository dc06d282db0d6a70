/* Code written through one mapping runs through another: a JIT's double mapping (W^X), where a
 * memfd is mapped twice, writable and executable, the code is stored through the writable view
 * and called through the executable one after the arch's instruction-cache flush of the
 * executable range (`__builtin___clear_cache`: aarch64 `ic ivau`, arm and MIPS `cacheflush`,
 * riscv `fence.i` and its flush call). Then the file itself is rewritten with pwrite and the
 * range flushed again. Then a SysV shared-memory segment attached twice, writable and
 * `SHM_EXEC|SHM_RDONLY`, is used the same way. Each call must run the code stored last.
 *
 * The emulator sees no store to the page it translated from (the stores go to the other view,
 * or come from the kernel), so only the flush can tell it; x86 and s390x need no flush (their
 * instruction fetch snoops every store), which is where an emulator that does not compare
 * the views' memory still runs the old code. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include "common.h"
#include "jit.h"

static int call(unsigned char *x, size_t n)
{
    __builtin___clear_cache((char *)x, (char *)x + n);
    int (*f)(void) = (int (*)(void))(uintptr_t)x;
    return f();
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    int fd = memfd_create("code_alias", 0);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, page) == 0);
    unsigned char *w = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unsigned char *x = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    CHECK(w != MAP_FAILED && x != MAP_FAILED);

    unsigned sum = 0;
    for (unsigned k = 1; k <= 50; k++) {
        size_t n = assemble(w, k);
        int r = call(x, n);
        if (r != (int)k) {
            printf("store through the writable view %u: the call returned %d\n", k, r);
            return 1;
        }
        sum += (unsigned)r;
    }
    printf("stored through the writable view 50 times, sum %u\n", sum);

    unsigned char code[64];
    for (unsigned k = 60; k < 70; k++) {
        size_t n = assemble(code, k);
        CHECK(pwrite(fd, code, n, 0) == (ssize_t)n);
        int r = call(x, n);
        if (r != (int)k) {
            printf("pwrite %u: the call returned %d\n", k, r);
            return 1;
        }
    }
    printf("rewritten with pwrite 10 times\n");
    CHECK(munmap(w, page) == 0 && munmap(x, page) == 0 && close(fd) == 0);

    int id = shmget(IPC_PRIVATE, (size_t)page, IPC_CREAT | 0600);
    CHECK(id >= 0);
    unsigned char *sw = shmat(id, NULL, 0);
    unsigned char *sx = shmat(id, NULL, SHM_EXEC | SHM_RDONLY);
    CHECK(shmctl(id, IPC_RMID, NULL) == 0);
    CHECK(sw != (void *)-1 && sx != (void *)-1);
    for (unsigned k = 70; k < 90; k++) {
        size_t n = assemble(sw, k);
        int r = call(sx, n);
        if (r != (int)k) {
            printf("store through the writable attach %u: the call returned %d\n", k, r);
            return 1;
        }
    }
    printf("stored through the writable attach of a SysV segment 20 times\n");
    CHECK(shmdt(sw) == 0 && shmdt(sx) == 0);
    return 0;
}
