/* rseq(2): the registration checks (length, alignment, flags, EBUSY, EINVAL, EPERM, EFAULT,
 * unregistering), the CPU fields the kernel keeps (cpu_id_start, cpu_id, node_id as getcpu
 * gives them, mm_cid), libc's own registration where libc makes one (glibc 2.35+ where it
 * defines RSEQ_SIG: not riscv64 in 2.36) and sched_getcpu, a critical section aborted to its
 * abort_ip when a signal (here its own SIGSEGV) is delivered inside it, a descriptor cleared
 * when the signal comes outside it, and the SIGSEGV a malformed descriptor earns. The thread
 * is pinned to the CPU it runs on, so the CPU numbers are stable. */
#include "common.h"
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define MYSIG 0x53053053u
#define RSEQ_FLAG_UNREGISTER 1

/* struct rseq and struct rseq_cs of include/uapi/linux/rseq.h (Linux 6.3: node_id, mm_cid). */
struct area {
    uint32_t cpu_id_start, cpu_id;
    uint64_t rseq_cs;
    uint32_t flags, node_id, mm_cid, pad;
} __attribute__((aligned(32)));

struct cs {
    uint32_t version, flags;
    uint64_t start_ip, post_commit_offset, abort_ip;
} __attribute__((aligned(32)));

/* int rseq_try(volatile int *p): loads *p inside a critical section [rseq_cs_start,
 * rseq_cs_end) and returns 0; its abort handler, after the signature, returns 1. */
extern int rseq_try(volatile int *p);
extern char rseq_cs_start[], rseq_cs_end[], rseq_cs_abort[];

#define SIGWORD ".balign 4\n .long 0x53053053\n"
#if defined(__x86_64__)
asm(".text\n .globl rseq_try, rseq_cs_start, rseq_cs_end, rseq_cs_abort\n .type rseq_try,@function\n"
    "rseq_try:\nrseq_cs_start:\n movl (%rdi), %eax\nrseq_cs_end:\n xorl %eax, %eax\n ret\n" SIGWORD
    "rseq_cs_abort:\n movl $1, %eax\n ret\n");
#elif defined(__i386__)
asm(".text\n .globl rseq_try, rseq_cs_start, rseq_cs_end, rseq_cs_abort\n .type rseq_try,@function\n"
    "rseq_try:\n movl 4(%esp), %ecx\nrseq_cs_start:\n movl (%ecx), %eax\nrseq_cs_end:\n xorl %eax, %eax\n ret\n" SIGWORD
    "rseq_cs_abort:\n movl $1, %eax\n ret\n");
#elif defined(__aarch64__)
asm(".text\n .globl rseq_try, rseq_cs_start, rseq_cs_end, rseq_cs_abort\n .type rseq_try,%function\n"
    "rseq_try:\nrseq_cs_start:\n ldr w0, [x0]\nrseq_cs_end:\n mov w0, #0\n ret\n" SIGWORD
    "rseq_cs_abort:\n mov w0, #1\n ret\n");
#elif defined(__arm__)
asm(".text\n .arm\n .globl rseq_try, rseq_cs_start, rseq_cs_end, rseq_cs_abort\n .type rseq_try,%function\n"
    "rseq_try:\nrseq_cs_start:\n ldr r0, [r0]\nrseq_cs_end:\n mov r0, #0\n bx lr\n" SIGWORD
    "rseq_cs_abort:\n mov r0, #1\n bx lr\n"
#ifdef __thumb__
    " .thumb\n"
#endif
);
#elif defined(__riscv)
asm(".text\n .globl rseq_try, rseq_cs_start, rseq_cs_end, rseq_cs_abort\n .type rseq_try,@function\n"
    "rseq_try:\nrseq_cs_start:\n lw a0, 0(a0)\nrseq_cs_end:\n li a0, 0\n ret\n" SIGWORD
    "rseq_cs_abort:\n li a0, 1\n ret\n");
#elif defined(__s390x__)
asm(".text\n .globl rseq_try, rseq_cs_start, rseq_cs_end, rseq_cs_abort\n .type rseq_try,@function\n"
    "rseq_try:\nrseq_cs_start:\n l %r2,0(%r2)\nrseq_cs_end:\n lghi %r2,0\n br %r14\n" SIGWORD
    "rseq_cs_abort:\n lghi %r2,1\n br %r14\n");
#elif defined(__mips__)
asm(".text\n .set push\n .set noreorder\n .globl rseq_try, rseq_cs_start, rseq_cs_end, rseq_cs_abort\n"
    " .type rseq_try,@function\n"
    "rseq_try:\nrseq_cs_start:\n lw $2, 0($4)\nrseq_cs_end:\n jr $31\n move $2, $0\n" SIGWORD
    "rseq_cs_abort:\n jr $31\n li $2, 1\n .set pop\n");
#endif

static long sys_rseq(void *area, unsigned len, int flags, unsigned sig)
{
    return syscall(SYS_rseq, area, len, flags, sig);
}

static struct area mine;
static struct cs section;
static unsigned my_cpu, my_node;

static void getcpu_now(unsigned *cpu, unsigned *node)
{
    CHECK(syscall(SYS_getcpu, cpu, node, NULL) == 0);
}

static void pin_here(void)
{
    getcpu_now(&my_cpu, &my_node);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(my_cpu, &set);
    CHECK(sched_setaffinity(0, sizeof set, &set) == 0);
    getcpu_now(&my_cpu, &my_node);
}

static struct area *libc_area(void)
{
#ifdef RSEQ_SIG
    if (__rseq_size > 0)
        return (struct area *)((char *)__builtin_thread_pointer() + __rseq_offset);
#endif
    return NULL;
}

static int fields_true(volatile struct area *a)
{
    unsigned cpu, node;
    getcpu_now(&cpu, &node);
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    return a->cpu_id == cpu && a->cpu_id_start == cpu && a->node_id == node && a->mm_cid < (uint32_t)ncpu;
}

static void libc_registration(void)
{
    struct area *a = libc_area();
    if (a) {
#ifdef RSEQ_SIG
        CHECK(fields_true(a));
        CHECK(sched_getcpu() == (int)my_cpu);
        CHECK(sys_rseq(a, 32, 0, RSEQ_SIG) == -1 && errno == EBUSY);
        CHECK(sys_rseq(a, 32, 0, RSEQ_SIG + 1) == -1 && errno == EPERM);
        CHECK(sys_rseq(&mine, sizeof mine, 0, RSEQ_SIG) == -1 && errno == EINVAL);
        CHECK(sys_rseq(a, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) == 0);
        CHECK(a->cpu_id == (uint32_t)-1 && a->cpu_id_start == 0);
#endif
    }
    printf("libc's registration, where libc makes one: fields true, EBUSY again, unregistered\n");
}

static void libc_reregister(void)
{
#ifdef RSEQ_SIG
    struct area *a = libc_area();
    if (a)
        CHECK(sys_rseq(a, 32, 0, RSEQ_SIG) == 0 && fields_true(a));
#endif
    printf("sched_getcpu agrees with getcpu: %s\n", sched_getcpu() == (int)my_cpu ? "yes" : "no");
}

static void registration(void)
{
    static struct area bigger[2];
    EXPECT_ERR("misaligned area", sys_rseq((char *)&mine + 8, sizeof mine, 0, MYSIG), EINVAL);
    EXPECT_ERR("length 16", sys_rseq(&mine, 16, 0, MYSIG), EINVAL);
    EXPECT_ERR("flags 2", sys_rseq(&mine, sizeof mine, 2, MYSIG), EINVAL);
    EXPECT_ERR("unmapped area", sys_rseq((void *)64, 32, 0, MYSIG), EFAULT);
    EXPECT_ERR("unregister with none registered", sys_rseq(&mine, sizeof mine, RSEQ_FLAG_UNREGISTER, MYSIG), EINVAL);
    mine.rseq_cs = 0x1234;
    mine.cpu_id = (uint32_t)-1;
    printf("register: %ld\n", sys_rseq(&mine, sizeof mine, 0, MYSIG));
    printf("  stale rseq_cs cleared: %s\n", mine.rseq_cs == 0 ? "yes" : "no");
    printf("  cpu_id, cpu_id_start, node_id as getcpu gives them, mm_cid below the CPU count: %s\n",
           fields_true(&mine) ? "yes" : "no");
    EXPECT_ERR("the same again", sys_rseq(&mine, sizeof mine, 0, MYSIG), EBUSY);
    EXPECT_ERR("the same with another signature", sys_rseq(&mine, sizeof mine, 0, MYSIG + 1), EPERM);
    EXPECT_ERR("the same with another length", sys_rseq(&mine, 64, 0, MYSIG), EINVAL);
    EXPECT_ERR("another area", sys_rseq(&bigger[1], sizeof mine, 0, MYSIG), EINVAL);
}

static volatile int segv_hits, usr1_hits;
static sigjmp_buf escape;

static void on_segv(int sig)
{
    (void)sig;
    /* Returning re-runs the faulting load unless the section was aborted: the second time,
     * leave by longjmp. */
    if (++segv_hits > 1)
        siglongjmp(escape, 1);
}

static void on_usr1(int sig)
{
    (void)sig;
    usr1_hits++;
}

static void arm_section(void)
{
    section = (struct cs){ 0, 0, (uintptr_t)rseq_cs_start, (uintptr_t)rseq_cs_end - (uintptr_t)rseq_cs_start,
                           (uintptr_t)rseq_cs_abort };
    __atomic_store_n(&mine.rseq_cs, (uint64_t)(uintptr_t)&section, __ATOMIC_SEQ_CST);
}

static void abort_on_signal(void)
{
    struct sigaction sa = { 0 };
    sa.sa_handler = on_segv;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    sa.sa_handler = on_usr1;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    int r = -1;
    /* A preemption before the load aborts too (without the signal): try again then. */
    for (int tries = 0; tries < 100; tries++) {
        segv_hits = 0;
        arm_section();
        if (sigsetjmp(escape, 1) == 0)
            r = rseq_try(NULL);
        else
            r = -1;
        if (segv_hits > 0)
            break;
    }
    printf("SIGSEGV inside the section: handler ran %d time(s), returned to abort_ip: %s\n", segv_hits,
           r == 1 ? "yes" : "no");
    printf("  rseq_cs cleared: %s\n", mine.rseq_cs == 0 ? "yes" : "no");
    arm_section();
    CHECK(raise(SIGUSR1) == 0);
    printf("signal outside the section: handler ran %d time(s), rseq_cs cleared: %s\n", usr1_hits,
           mine.rseq_cs == 0 ? "yes" : "no");
    volatile int x = 5;
    arm_section();
    printf("no signal: the section completes: %d\n", rseq_try(&x));
    mine.rseq_cs = 0;
    signal(SIGSEGV, SIG_DFL);
}

/* In a child: a signal delivered with a malformed rseq_cs set ends it by SIGSEGV. */
static void malformed(const char *what, const struct cs *c)
{
    fflush(stdout);
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0) {
        static struct cs bad;
        bad = *c;
        __atomic_store_n(&mine.rseq_cs, (uint64_t)(uintptr_t)&bad, __ATOMIC_SEQ_CST);
        raise(SIGUSR1);
        _exit(0);
    }
    int st;
    CHECK(waitpid(p, &st, 0) == p);
    printf("%s: %s\n", what, WIFSIGNALED(st) ? (WTERMSIG(st) == SIGSEGV ? "SIGSEGV" : "another signal") : "no signal");
}

static void malformed_descriptors(void)
{
    static uint32_t nosig[4];
    uintptr_t s = (uintptr_t)rseq_cs_start, len = (uintptr_t)rseq_cs_end - s;
    malformed("abort_ip without the signature", &(struct cs){ 0, 0, s, len, (uintptr_t)&nosig[2] });
    malformed("version 1", &(struct cs){ 1, 0, s, len, (uintptr_t)rseq_cs_abort });
    malformed("abort_ip inside the section", &(struct cs){ 0, 0, s, len + 64, (uintptr_t)rseq_cs_abort });
    /* A fork child keeps its parent's registration. */
    fflush(stdout);
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0) {
        errno = 0;
        long r = sys_rseq(&mine, sizeof mine, 0, MYSIG);
        printf("fork child registers again: %s\n", r == -1 ? errname(errno) : "accepted");
        fflush(stdout);
        _exit(0);
    }
    int st;
    CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st));
}

static void unregister(void)
{
    EXPECT_ERR("unregister with another signature", sys_rseq(&mine, sizeof mine, RSEQ_FLAG_UNREGISTER, MYSIG + 1),
               EPERM);
    EXPECT_ERR("unregister with another length", sys_rseq(&mine, 64, RSEQ_FLAG_UNREGISTER, MYSIG), EINVAL);
    EXPECT_ERR("unregister with another flag", sys_rseq(&mine, sizeof mine, RSEQ_FLAG_UNREGISTER | 2, MYSIG), EINVAL);
    printf("unregister: %ld\n", sys_rseq(&mine, sizeof mine, RSEQ_FLAG_UNREGISTER, MYSIG));
    printf("  cpu_id is RSEQ_CPU_ID_UNINITIALIZED again: %s\n",
           mine.cpu_id == (uint32_t)-1 && mine.cpu_id_start == 0 ? "yes" : "no");
    EXPECT_ERR("unregister again", sys_rseq(&mine, sizeof mine, RSEQ_FLAG_UNREGISTER, MYSIG), EINVAL);
}

int main(void)
{
    pin_here();
    libc_registration();
    registration();
    abort_on_signal();
    malformed_descriptors();
    unregister();
    libc_reregister();
    return 0;
}
