/* arm64 Linux runs user code with the top byte of addresses ignored (TCR_EL1.TBI0): loads
 * and stores through a pointer with a tag in bits 56-63 reach the untagged address (heap and
 * stack, every width, all 256 tags); a faulting tagged load reports the address without its
 * tag (no SA_EXPOSE_TAGBITS). */
#include "common.h"
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

static sigjmp_buf env;
static void *volatile fault_addr;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    fault_addr = si->si_addr;
    siglongjmp(env, 1);
}

static void *tag(void *p, unsigned t)
{
    return (void *)(((uintptr_t)p & ((1ULL << 56) - 1)) | (uintptr_t)t << 56);
}

int main(void)
{
    uint64_t *heap = malloc(64);
    CHECK(heap != NULL);
    heap[0] = 0x1122334455667788ULL;
    volatile uint64_t *t = tag(heap, 0x5a);
    printf("tagged 64-bit load: %#llx\n", (unsigned long long)t[0]);
    t[1] = 9;
    printf("tagged 64-bit store: %llu\n", (unsigned long long)heap[1]);
    volatile uint8_t *b = tag(heap, 0xff);
    printf("tagged byte load: %#x\n", b[0]);
    volatile uint32_t *w = tag(heap, 0x01);
    w[4] = 0xdeadbeef;
    printf("tagged 32-bit store: %#x\n", ((uint32_t *)heap)[4]);
    int on_stack = 42;
    printf("tagged stack load: %d\n", *(volatile int *)tag(&on_stack, 0x80));
    int same = 1;
    for (unsigned i = 0; i < 256; i++)
        same &= ((volatile uint64_t *)tag(heap, i))[0] == 0x1122334455667788ULL;
    printf("every tag reads the same: %d\n", same);

    char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    fault_addr = NULL;
    if (sigsetjmp(env, 1) == 0)
        (void)*(volatile char *)tag(page + 24, 0x3c);
    printf("tagged load from PROT_NONE: si_addr untagged %d\n", fault_addr == (void *)(page + 24));
    free(heap);
    return 0;
}
