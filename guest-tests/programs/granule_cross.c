/* Loads across 64 GiB boundaries of the guest address space, all over it (endgate's 64-bit
 * guests read memory through one host offset per 64 GiB granule): a page mapped on each side
 * (the lower one mapped first, or the upper one), then only the lower one. Every unaligned
 * 2-, 4- and 8-byte load that starts before the boundary reads the bytes of both pages; with
 * the upper page unmapped it faults with SEGV_MAPERR at an address of the access past the
 * boundary. Each case uses granules no earlier case touched (a granule's first mapping is
 * where an emulator places it). Addresses the kernel refuses (a 32-bit guest, a 47-bit host's
 * upper half) are skipped, so every system prints the same. */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

struct __attribute__((packed)) u16p { uint16_t v; };
struct __attribute__((packed)) u32p { uint32_t v; };
struct __attribute__((packed)) u64p { uint64_t v; };

static sigjmp_buf env;
static volatile int fault_code;
static void *volatile fault_addr;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    fault_code = si->si_code;
    fault_addr = si->si_addr;
    siglongjmp(env, 1);
}

static char *map_at(uintptr_t at, int byte)
{
    char *p = mmap((void *)at, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (p != (char *)at) {
        munmap(p, 4096);
        return NULL;
    }
    memset(p, byte, 4096);
    return p;
}

static int wrong;

/* The `size`-byte load at p (0 if it faults: fault_code says). */
static uint64_t load(volatile const char *p, int size)
{
    volatile uint64_t got = 0;
    fault_code = 0;
    fault_addr = NULL;
    if (sigsetjmp(env, 1) == 0) {
        if (size == 2)
            got = ((volatile const struct u16p *)p)->v;
        else if (size == 4)
            got = ((volatile const struct u32p *)p)->v;
        else
            got = ((volatile const struct u64p *)p)->v;
    }
    return got;
}

/* The loads that start `back` bytes below the boundary `b`; hi: the page above is mapped. */
static void loads(uintptr_t b, int hi)
{
    for (int back = 1; back < 8; back++) {
        volatile const char *p = (const char *)(b - back);
        for (int size = 2; size <= 8; size *= 2) {
            if (back >= size)
                continue;
            uint64_t want = 0;
            for (int i = size - 1; i >= 0; i--)
                want = want << 8 | (i < back ? 0x5a : 0xa5);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            want = 0;
            for (int i = 0; i < size; i++)
                want = want << 8 | (i < back ? 0x5a : 0xa5);
#endif
            uint64_t got = load(p, size);
            if (hi) {
                if (fault_code != 0 || got != want) {
                    wrong++;
                    printf("load of %d at %#lx: %#llx, fault %d\n", size, (unsigned long)(b - back),
                           (unsigned long long)got, fault_code);
                }
            } else if (fault_code != SEGV_MAPERR || (uintptr_t)fault_addr < b ||
                       (uintptr_t)fault_addr >= b + 8) {
                wrong++;
                printf("load of %d at %#lx into a hole: code %d at %p\n", size, (unsigned long)(b - back),
                       fault_code, fault_addr);
            }
        }
    }
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
    if (sizeof(void *) == 8) {
        const uint64_t granule = 1ULL << 36;
        /* Granule boundaries from 4 TiB to 256 TiB, 64 granules apart: the lower page mapped
         * first, the upper one first, the lower one alone. */
        for (uint64_t g = 64; g + 4 < 4096; g += 64) {
            for (int order = 0; order < 3; order++) {
                uintptr_t b = (uintptr_t)((g + 2 * order) * granule);
                char *lo = NULL, *hi = NULL;
                if (order == 1) {
                    hi = map_at(b, 0xa5);
                    lo = map_at(b - 4096, 0x5a);
                } else {
                    lo = map_at(b - 4096, 0x5a);
                    if (order == 0)
                        hi = map_at(b, 0xa5);
                }
                if (lo && (hi || order == 2)) {
                    loads(b, order != 2);
                }
                if (lo)
                    munmap(lo, 4096);
                if (hi)
                    munmap(hi, 4096);
            }
        }
    }
    printf("loads across granule boundaries: all right %d\n", wrong == 0);
    return 0;
}
