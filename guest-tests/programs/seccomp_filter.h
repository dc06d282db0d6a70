/* Helpers for the seccomp tests: the arch's AUDIT_ARCH_* value, the arch's program counter in
 * a signal frame, and installing a filter. */
#ifndef GUEST_TESTS_SECCOMP_FILTER_H
#define GUEST_TESTS_SECCOMP_FILTER_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#define FRAME_PC(uc) ((uc)->uc_mcontext.gregs[REG_RIP])
#elif defined(__i386__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_I386
#define FRAME_PC(uc) ((uc)->uc_mcontext.gregs[REG_EIP])
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#define FRAME_PC(uc) ((uc)->uc_mcontext.pc)
#elif defined(__riscv)
#define TEST_AUDIT_ARCH AUDIT_ARCH_RISCV64
#define FRAME_PC(uc) ((uc)->uc_mcontext.__gregs[0])
#elif defined(__arm__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_ARM
#define FRAME_PC(uc) ((uc)->uc_mcontext.arm_pc)
#elif defined(__s390x__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_S390X
#define FRAME_PC(uc) ((uc)->uc_mcontext.psw.addr)
#elif defined(__mips__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_MIPSEL64
#define FRAME_PC(uc) ((uc)->uc_mcontext.pc)
#endif

/* Loads the arch word and kills the process on another arch (the usual first lines). */
#define CHECK_ARCH                                                                          \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),                \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),                         \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),                                \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

/* If the call is nr, return action; else go on. */
#define ON_NR(nr, action)                                                                   \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, (action))

#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static inline long install(struct sock_filter *f, unsigned short n, unsigned flags)
{
    struct sock_fprog p = {.len = n, .filter = f};
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &p);
}

#define INSTALL(f, flags) install((f), sizeof(f) / sizeof((f)[0]), (flags))

#endif
