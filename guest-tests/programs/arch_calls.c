/* The calls only some arches have, each checked on its own arch and printing the same lines
 * everywhere: riscv_flush_icache and riscv_hwprobe (riscv64); s390_runtime_instr,
 * s390_guarded_storage and s390_sthyi (s390x, a CPU without those facilities and no
 * hypervisor); sysmips and cachectl (mips64el); modify_ldt with a segment loaded from the LDT
 * (i386); x86_64's numbers 205 and 211 (sys_ni). */
#include "common.h"
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define OK(label, cond)                                                                 \
    do {                                                                                \
        CHECK(cond);                                                                    \
        printf("%s: ok\n", label);                                                      \
    } while (0)

#if defined(__riscv)
struct pair {
    int64_t key;
    uint64_t value;
};
#ifndef SYS_riscv_hwprobe
#define SYS_riscv_hwprobe 258
#endif
#ifndef SYS_riscv_flush_icache
#define SYS_riscv_flush_icache 259
#endif

static void arch_checks(void)
{
    static char code[64];
    CHECK(syscall(SYS_riscv_flush_icache, code, code + sizeof code, 0) == 0);
    CHECK(syscall(SYS_riscv_flush_icache, code, code + sizeof code, 1) == 0);
    CHECK(syscall(SYS_riscv_flush_icache, 0, ~0UL, 0) == 0);
    CHECK(syscall(SYS_riscv_flush_icache, code, code, 2) == -1 && errno == EINVAL);
    OK("instruction cache flush", 1);

    struct pair p[4] = {{3, 7}, {4, 7}, {9999, 7}, {9, 7}};
    CHECK(syscall(SYS_riscv_hwprobe, p, 4, 0, NULL, 0) == 0);
    CHECK(p[0].key == 3 && p[0].value == 1);          /* base behaviour: IMA */
    CHECK(p[1].key == 4 && (p[1].value & 3) == 3);    /* F and D, C */
    CHECK(p[2].key == -1 && p[2].value == 0);         /* unknown key */
    CHECK(p[3].key == 9 && p[3].value <= 4);          /* misaligned scalar performance */
    CHECK(syscall(SYS_riscv_hwprobe, p, 1, 0, NULL, 2) == -1 && errno == EINVAL);
    unsigned long none = 0;
    CHECK(syscall(SYS_riscv_hwprobe, p, 1, sizeof none, &none, 0) == -1 && errno == EINVAL);
    /* WHICH_CPUS: the harts with base behaviour IMA are all of them; an unknown key, none. */
    unsigned long cpus = 1;
    struct pair q[1] = {{3, 1}};
    CHECK(syscall(SYS_riscv_hwprobe, q, 1, sizeof cpus, &cpus, 1) == 0 && cpus == 1);
    struct pair u[1] = {{9999, 0}};
    CHECK(syscall(SYS_riscv_hwprobe, u, 1, sizeof cpus, &cpus, 1) == 0 && cpus == 0 && u[0].key == -1);
    OK("hardware probe", 1);
}
#elif defined(__s390x__)
#ifndef SYS_s390_runtime_instr
#define SYS_s390_runtime_instr 342
#endif
#ifndef SYS_s390_guarded_storage
#define SYS_s390_guarded_storage 378
#endif
#ifndef SYS_s390_sthyi
#define SYS_s390_sthyi 380
#endif

static void arch_checks(void)
{
    CHECK(syscall(SYS_s390_runtime_instr, 1, 0) == -1 && errno == EOPNOTSUPP);
    CHECK(syscall(SYS_s390_guarded_storage, 0, NULL) == -1 && errno == EOPNOTSUPP);
    OK("instruction cache flush", 1);
    static unsigned char page[4096];
    uint64_t rc = 99;
    CHECK(syscall(SYS_s390_sthyi, 0, page, &rc, 0) == 0 && rc == 0);
    uint16_t total = page[8] << 8 | page[9], hdr = page[10] << 8 | page[11];
    CHECK(total == 168 && hdr == 48);
    CHECK(syscall(SYS_s390_sthyi, 1, page, &rc, 0) == -1 && errno == EOPNOTSUPP);
    CHECK(syscall(SYS_s390_sthyi, 0, page, &rc, 1) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_s390_sthyi, 0, (void *)8, &rc, 0) == -1 && errno == EFAULT);
    OK("hardware probe", 1);
}
#elif defined(__mips__)
#define MIPS_ATOMIC_SET 2001
#define MIPS_FIXADE 7
#define FLUSH_CACHE 3

static void arch_checks(void)
{
    static int word = 5;
    CHECK(syscall(SYS_sysmips, MIPS_ATOMIC_SET, &word, 9) == 5 && word == 9);
    CHECK(syscall(SYS_sysmips, MIPS_ATOMIC_SET, (char *)&word + 1, 9) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_sysmips, FLUSH_CACHE, 0, 0) == 0);
    CHECK(syscall(SYS_cachectl, &word, 4, 0) == -1 && errno == ENOSYS);
    OK("instruction cache flush", 1);
    CHECK(syscall(SYS_sysmips, MIPS_FIXADE, 3, 0) == 0);
    CHECK(syscall(SYS_sysmips, MIPS_FIXADE, 4, 0) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_sysmips, 12345, 0, 0) == -1 && errno == EINVAL);
    OK("hardware probe", 1);
}
#elif defined(__i386__)
struct user_desc_bits {
    unsigned int entry_number, base_addr, limit;
    unsigned int seg_32bit : 1, contents : 2, read_exec_only : 1, limit_in_pages : 1, seg_not_present : 1,
        useable : 1;
};

static void arch_checks(void)
{
    static unsigned char buf[64];
    CHECK(syscall(SYS_modify_ldt, 0, buf, sizeof buf) == 0); /* no LDT yet */
    memset(buf, 0x55, sizeof buf);
    CHECK(syscall(SYS_modify_ldt, 2, buf, sizeof buf) == sizeof buf && buf[0] == 0 && buf[63] == 0);
    CHECK(syscall(SYS_modify_ldt, 7, buf, sizeof buf) == -1 && errno == ENOSYS);
    static int data[4] = {11, 22, 33, 44};
    struct user_desc_bits d = {0};
    d.entry_number = 3;
    d.base_addr = (unsigned int)(uintptr_t)&data[1];
    d.limit = 15;
    d.seg_32bit = 1;
    CHECK(syscall(SYS_modify_ldt, 0x11, &d, sizeof d) == 0);
    unsigned sel = 3 << 3 | 4 | 3, v;
    __asm__ volatile("push %%fs\n\tmov %1, %%fs\n\tmovl %%fs:4, %0\n\tpop %%fs" : "=r"(v) : "r"(sel));
    CHECK(v == 33);
    OK("instruction cache flush", 1);
    memset(buf, 0x55, sizeof buf);
    CHECK(syscall(SYS_modify_ldt, 0, buf, sizeof buf) == sizeof buf);
    CHECK(buf[3 * 8] == 15 && buf[4 * 8] == 0 && buf[63] == 0);
    CHECK(syscall(SYS_modify_ldt, 0x11, &d, 15) == -1 && errno == EINVAL);
    d.entry_number = 8192;
    CHECK(syscall(SYS_modify_ldt, 0x11, &d, sizeof d) == -1 && errno == EINVAL);
    d.entry_number = 3;
    d.contents = 3;
    CHECK(syscall(SYS_modify_ldt, 0x11, &d, sizeof d) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_modify_ldt, 1, (void *)8, 16) == -1 && errno == EFAULT);
    OK("hardware probe", 1);
}
#elif defined(__x86_64__)
struct user_desc_bits {
    unsigned int entry_number, base_addr, limit;
    unsigned int seg_32bit : 1, contents : 2, read_exec_only : 1, limit_in_pages : 1, seg_not_present : 1,
        useable : 1, lm : 1;
};

static void arch_checks(void)
{
    CHECK(syscall(211, NULL) == -1 && errno == ENOSYS); /* get_thread_area */
    CHECK(syscall(205, NULL) == -1 && errno == ENOSYS); /* set_thread_area */
    /* modify_ldt: Linux returns an unsigned int, so an error is a large positive value. */
    static unsigned char buf[64];
    CHECK(syscall(SYS_modify_ldt, 0, buf, sizeof buf) == 0);
    CHECK(syscall(SYS_modify_ldt, 7, buf, sizeof buf) == (long)(unsigned)-ENOSYS);
    CHECK(syscall(SYS_modify_ldt, 2, buf, sizeof buf) == sizeof buf && buf[0] == 0);
    static int data[4] = {11, 22, 33, 44};
    CHECK((uintptr_t)data >> 32 == 0);
    struct user_desc_bits d = {0};
    d.entry_number = 5;
    d.base_addr = (unsigned int)(uintptr_t)&data[1];
    d.limit = 15;
    d.seg_32bit = 1;
    CHECK(syscall(SYS_modify_ldt, 0x11, &d, sizeof d) == 0);
    unsigned short sel = 5 << 3 | 4 | 3, old;
    unsigned v;
    __asm__ volatile("mov %%gs, %0" : "=r"(old));
    __asm__ volatile("mov %1, %%gs\n\tmovl %%gs:4, %0" : "=r"(v) : "r"(sel));
    __asm__ volatile("mov %0, %%gs" ::"r"(old));
    CHECK(v == 33);
    OK("instruction cache flush", 1);
    memset(buf, 0x55, sizeof buf);
    CHECK(syscall(SYS_modify_ldt, 0, buf, sizeof buf) == sizeof buf);
    CHECK(buf[5 * 8] == 15 && buf[6 * 8] == 0 && buf[63] == 0);
    CHECK(syscall(SYS_modify_ldt, 0x11, &d, 15) == (long)(unsigned)-EINVAL);
    OK("hardware probe", 1);
}
#else
static void arch_checks(void)
{
    OK("instruction cache flush", 1);
    OK("hardware probe", 1);
}
#endif

int main(void)
{
    arch_checks();
    return 0;
}
