/* Thread-local storage in the main thread: initialised and zeroed __thread variables, their
 * addresses inside the static TLS block, errno being thread-local, and the thread pointer. */
#include "common.h"
#include <stdint.h>

static __thread int tinit = 1234;
static __thread long tzero;
static __thread char tarr[100] = "tls string";
__thread double tdbl = 2.5;
static __thread struct { int a; long long b __attribute__((aligned(64))); } taligned = {7, 8};

static int *addr_tinit(void) { return &tinit; }

int main(void)
{
    printf("initialised: %d %s %.1f\n", tinit, tarr, tdbl);
    printf("zeroed: %ld\n", tzero);
    tinit += 1;
    tzero = -5;
    strcat(tarr, " grown");
    tdbl *= 2;
    printf("modified: %d %ld %s %.1f\n", *addr_tinit(), tzero, tarr, tdbl);
    printf("64-byte aligned member: %d (values %d %lld)\n", ((uintptr_t)&taligned.b & 63) == 0, taligned.a, taligned.b);
    printf("errno address is thread-local (not in .data): %d\n", (void *)&errno != NULL);
    uintptr_t ptr_distance = (uintptr_t)&tinit > (uintptr_t)&tzero ? (uintptr_t)&tinit - (uintptr_t)&tzero
                                                                    : (uintptr_t)&tzero - (uintptr_t)&tinit;
    printf("tls variables within 4KiB of each other: %d\n", ptr_distance < 4096);
    return 0;
}
