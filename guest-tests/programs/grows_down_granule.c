/* A MAP_GROWSDOWN mapping that starts at a 64 GiB boundary (endgate's 64-bit guests keep each
 * 64 GiB granule at one host offset) grows across it: a load three pages below reads zero
 * without a signal, and the grown mapping is one range (a load running from the new pages
 * into the old ones reads both). Boundaries from 2.5 TiB to 125 TiB; addresses the kernel
 * refuses (a 32-bit guest, a 47-bit host's upper half) are skipped, so every system prints
 * the same. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

struct __attribute__((packed)) u64p { uint64_t v; };

static sigjmp_buf env;
static volatile int faulted;

static void on_segv(int sig)
{
    (void)sig;
    faulted = 1;
    siglongjmp(env, 1);
}

/* The byte at p, or -1 if the load faults. */
static int load(volatile const char *p)
{
    volatile int v = -1;
    faulted = 0;
    if (sigsetjmp(env, 1) == 0)
        v = *p;
    return v;
}

int main(void)
{
    signal(SIGSEGV, on_segv);
    int wrong = 0;
    if (sizeof(void *) == 8) {
        const uint64_t granule = 1ULL << 36;
        for (uint64_t g = 40; g < 2000; g += 160) {
            uintptr_t b = (uintptr_t)(g * granule);
            char *m = mmap((void *)b, 4096, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_GROWSDOWN, -1, 0);
            if (m != (char *)b) {
                if (m != MAP_FAILED)
                    munmap(m, 4096);
                continue;
            }
            memset(m, 0x7e, 16);
            int v = load(m - 3 * 4096 + 5);
            if (v != 0 || faulted) {
                wrong++;
                printf("granule %llu: the load below gave %d\n", (unsigned long long)g, v);
                continue;
            }
            m[-1] = 0x11;
            uint64_t across = ((volatile const struct u64p *)(m - 4))->v;
            static const unsigned char want[8] = {0, 0, 0, 0x11, 0x7e, 0x7e, 0x7e, 0x7e};
            if (memcmp(&across, want, 8) != 0) {
                wrong++;
                printf("granule %llu: across the boundary %#llx\n", (unsigned long long)g,
                       (unsigned long long)across);
            }
        }
    }
    printf("grows-down mappings grew across 64 GiB boundaries: all right %d\n", wrong == 0);
    return 0;
}
