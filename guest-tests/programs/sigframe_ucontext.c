/* A handler reads and edits the interrupted context through its ucontext_t argument, and
 * rt_sigreturn resumes from the edited context:
 * - uc_sigmask holds the mask of the interrupted code; a handler that changes it changes the
 *   mask in force after it returns;
 * - a SIGSEGV handler sees the faulting load's address as the saved program counter and the
 *   bad address in si_addr (its page on s390x), writes the load's result into the saved
 *   destination register and moves the saved program counter past the load, so the program
 *   carries on as if the load had read 42;
 * - a handler that raises another signal runs that signal's handler nested inside its own. */
#include "common.h"
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>

/* probe_load(p) returns *p; probe_insn is the load, probe_end the instruction after it. */
long probe_load(long *p);
extern char probe_insn[], probe_end[];

#if defined(__x86_64__)
__asm__(".text\n.globl probe_load\n.type probe_load, @function\nprobe_load:\n"
        ".globl probe_insn\nprobe_insn: movq (%rdi), %rax\n"
        ".globl probe_end\nprobe_end: ret\n");
#define UC_PC(uc) ((uc)->uc_mcontext.gregs[REG_RIP])
#define UC_RET(uc) ((uc)->uc_mcontext.gregs[REG_RAX])
#elif defined(__i386__)
__asm__(".text\n.globl probe_load\n.type probe_load, @function\nprobe_load:\n"
        "movl 4(%esp), %ecx\n"
        ".globl probe_insn\nprobe_insn: movl (%ecx), %eax\n"
        ".globl probe_end\nprobe_end: ret\n");
#define UC_PC(uc) ((uc)->uc_mcontext.gregs[REG_EIP])
#define UC_RET(uc) ((uc)->uc_mcontext.gregs[REG_EAX])
#elif defined(__aarch64__)
__asm__(".text\n.globl probe_load\n.type probe_load, %function\nprobe_load:\n"
        ".globl probe_insn\nprobe_insn: ldr x0, [x0]\n"
        ".globl probe_end\nprobe_end: ret\n");
#define UC_PC(uc) ((uc)->uc_mcontext.pc)
#define UC_RET(uc) ((uc)->uc_mcontext.regs[0])
#elif defined(__riscv)
__asm__(".text\n.globl probe_load\n.type probe_load, @function\nprobe_load:\n"
        ".globl probe_insn\nprobe_insn: ld a0, 0(a0)\n"
        ".globl probe_end\nprobe_end: ret\n");
#define UC_PC(uc) ((uc)->uc_mcontext.__gregs[REG_PC])
#define UC_RET(uc) ((uc)->uc_mcontext.__gregs[REG_A0])
#elif defined(__arm__)
__asm__(".text\n.arm\n.globl probe_load\n.type probe_load, %function\nprobe_load:\n"
        ".globl probe_insn\nprobe_insn: ldr r0, [r0]\n"
        ".globl probe_end\nprobe_end: bx lr\n");
#define UC_PC(uc) ((uc)->uc_mcontext.arm_pc)
#define UC_RET(uc) ((uc)->uc_mcontext.arm_r0)
#elif defined(__s390x__)
__asm__(".text\n.globl probe_load\n.type probe_load, @function\nprobe_load:\n"
        ".globl probe_insn\nprobe_insn: lg %r2, 0(%r2)\n"
        ".globl probe_end\nprobe_end: br %r14\n");
#define UC_PC(uc) ((uc)->uc_mcontext.psw.addr)
#define UC_RET(uc) ((uc)->uc_mcontext.gregs[2])
#elif defined(__mips__)
__asm__(".text\n.set push\n.set noreorder\n.globl probe_load\n.type probe_load, @function\n"
        "probe_load:\n.globl probe_insn\nprobe_insn: ld $2, 0($4)\n"
        ".globl probe_end\nprobe_end: jr $31\nnop\n.set pop\n");
#define UC_PC(uc) ((uc)->uc_mcontext.pc)
#define UC_RET(uc) ((uc)->uc_mcontext.gregs[2])
#else
#error "no probe_load for this architecture"
#endif

static volatile int mask_seen, pc_seen, addr_seen, code_seen, order_pos;
static char order[8];
static void *bad, *bad_reported;

static void on_usr1_mask(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ucv;
    mask_seen = sigismember(&uc->uc_sigmask, SIGUSR2) + 2 * !sigismember(&uc->uc_sigmask, SIGUSR1);
    sigdelset(&uc->uc_sigmask, SIGUSR2);
    sigaddset(&uc->uc_sigmask, SIGINT);
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    ucontext_t *uc = ucv;
    pc_seen = (uintptr_t)UC_PC(uc) == (uintptr_t)probe_insn;
    addr_seen = si->si_addr == bad_reported;
    code_seen = si->si_code == SEGV_MAPERR;
    UC_RET(uc) = 42;
    UC_PC(uc) = (uintptr_t)probe_end;
}

static void on_usr2_nested(int sig)
{
    (void)sig;
    order[order_pos++] = '2';
}

static void on_usr1_nested(int sig)
{
    (void)sig;
    order[order_pos++] = '<';
    raise(SIGUSR2);
    order[order_pos++] = '>';
}

int main(void)
{
    struct sigaction sa;
    sigset_t set, cur;

    /* uc_sigmask: read, then edited. */
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_usr1_mask;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    CHECK(sigprocmask(SIG_SETMASK, NULL, &cur) == 0);
    printf("uc_sigmask is the interrupted mask: %d\n", mask_seen == 3);
    printf("after return: SIGUSR2 unblocked %d, SIGINT blocked %d\n", !sigismember(&cur, SIGUSR2),
           sigismember(&cur, SIGINT));
    sigemptyset(&set);
    CHECK(sigprocmask(SIG_SETMASK, &set, NULL) == 0);

    /* A faulting load completed by the handler. */
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    CHECK(munmap(map, page) == 0);
    bad = map + 64;
#if defined(__s390x__)
    /* s390x reports only the page of a translation exception (the kernel masks the
     * exception's address with __FAIL_ADDR_MASK). */
    bad_reported = map;
#else
    bad_reported = bad;
#endif
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    long v = probe_load(bad);
    printf("load completed by the handler returned 42: %d\n", v == 42);
    printf("saved pc was the faulting load: %d\n", pc_seen);
    printf("si_addr is the bad address: %d, si_code SEGV_MAPERR: %d\n", addr_seen, code_seen);
    long good = 7;
    printf("the same load on a good address: %ld\n", probe_load(&good));

    /* Nested handlers. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr2_nested;
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    sa.sa_handler = on_usr1_nested;
    CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0);
    printf("nested handlers ran in the order %s\n", order);
    return 0;
}
