/* Code written as data into a writable and executable mapping runs, and rewriting it runs the
 * new code: the emulator must notice stores into code it has already translated.
 *
 * A tiny "return K" function is assembled for the build's own architecture into an RWX page,
 * called, rewritten with another K at the same address, and called again, many times; data
 * stored next to the code on the same page is read back. The first stores happen before any
 * instruction has been fetched from the page (endgate then maps the page for data without
 * execute permission until the first fetch), and each rewrite follows an mprotect of another
 * page, which makes endgate drop its TLB, so the rewrite's stores find no cached entry. */
#include <stdint.h>
#include <sys/mman.h>

#include "common.h"
#include "jit.h"

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *buf = mmap(NULL, page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(buf != MAP_FAILED);
    volatile unsigned *data = (volatile unsigned *)(buf + page / 2);
    unsigned char *other = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(other != MAP_FAILED);

    /* Data first: stores and loads on the page before any code runs from it. */
    for (unsigned i = 0; i < 1000; i++) {
        data[i % 64] = i;
    }
    CHECK(data[999 % 64] == 999);

    unsigned sum = 0;
    for (unsigned k = 1; k <= 100; k++) {
        CHECK(mprotect(other, page, k % 2 ? PROT_READ : PROT_READ | PROT_WRITE) == 0);
        size_t n = assemble(buf, k % 128);
        __builtin___clear_cache((char *)buf, (char *)buf + n);
        int (*f)(void) = (int (*)(void))(uintptr_t)buf;
        int r = f();
        if (r != (int)(k % 128)) {
            printf("call %u returned %d, expected %u\n", k, r, k % 128);
            return 1;
        }
        sum += (unsigned)r;
        data[k % 64] += (unsigned)r; /* a store to the code page between the runs */
    }
    printf("rewritten 100 times, sum %u, data %u\n", sum, data[1] + data[2]);
    CHECK(munmap(buf, page) == 0 && munmap(other, page) == 0);
    return 0;
}
