#include <stdio.h>
#include <stdint.h>
typedef int (kuser_cmpxchg_t)(int oldval, int newval, volatile int *ptr);
typedef int (kuser_cmpxchg64_t)(const int64_t *oldval, const int64_t *newval, volatile int64_t *ptr);
typedef void *(kuser_get_tls_t)(void);
typedef void (kuser_dmb_t)(void);
#define kuser_cmpxchg (*(kuser_cmpxchg_t *)0xffff0fc0)
#define kuser_cmpxchg64 (*(kuser_cmpxchg64_t *)0xffff0f60)
#define kuser_get_tls (*(kuser_get_tls_t *)0xffff0fe0)
#define kuser_dmb (*(kuser_dmb_t *)0xffff0fa0)
static __thread int tvar = 5;
int main(void) {
    printf("version %d\n", *(int32_t *)0xffff0ffc);
    void *tp; __asm__ volatile("mrc p15, 0, %0, c13, c0, 3" : "=r"(tp));
    printf("get_tls matches mrc: %d, nonzero: %d, tls var %d\n", kuser_get_tls() == tp, tp != 0, tvar);
    printf("thread pointer matches: %d\n", kuser_get_tls() == __builtin_thread_pointer());
    volatile int v = 10;
    int r = kuser_cmpxchg(10, 20, &v);
    printf("cmpxchg 10->20: ret %d, v %d\n", r, v);
    r = kuser_cmpxchg(10, 30, &v);
    printf("cmpxchg 10->30 (stale): ret!=0 %d, v %d\n", r != 0, v);
    volatile int64_t w = 0x100000002LL; int64_t o = 0x100000002LL, n = 0x300000004LL;
    r = kuser_cmpxchg64(&o, &n, &w);
    printf("cmpxchg64: ret %d, w %llx\n", r, (long long)w);
    r = kuser_cmpxchg64(&o, &n, &w);
    printf("cmpxchg64 stale: ret!=0 %d, w %llx\n", r != 0, (long long)w);
    kuser_dmb();
    printf("barrier ok\n");
    int count = 0;
    for (int i = 0; i < 1000; i++) { int old; do { old = v; } while (kuser_cmpxchg(old, old + 1, &v)); count++; }
    printf("loop: v %d count %d\n", v, count);
    return 0;
}
