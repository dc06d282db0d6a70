/* The vsyscall-gate experiment in the guest: ns per call of getppid through the arch's raw trap
 * instruction and through the vDSO's generic gate entry `__kernel_vsyscall`, and of
 * clock_gettime(CLOCK_MONOTONIC) through the vDSO's clock_gettime symbol and through the raw
 * system call.
 *
 * Usage: gatebench [N]   (N calls per measurement, default 1000)
 *
 * The timings go to stderr, one "name value" line each, value in ns per call or "n/a" when the
 * entry does not exist (no vDSO, or no `__kernel_vsyscall` in it: natively and under qemu-user
 * only i386 kernels have one):
 *
 *     getppid_trap_ns 123.4
 *     getppid_gate_ns n/a
 *     clock_gettime_vdso_ns 20.1
 *     clock_gettime_syscall_ns 301.5
 *
 * stdout carries only what is the same everywhere: the sanity checks. getppid through the gate
 * must return what the trap returns (and that what libc's getppid returns); every vDSO
 * clock_gettime must return 0, never go back, and lie between two system call reads taken
 * around it (with 10 ms slack). A failed check prints FAIL and exits 1.
 *
 * The vDSO is searched by this program's own small ELF reader: the image at
 * getauxval(AT_SYSINFO_EHDR), its PT_DYNAMIC's dynamic symbol table, looked up through
 * DT_GNU_HASH or DT_HASH, with the symbol version checked against DT_VERSYM/DT_VERDEF
 * (layouts: the ELF gABI and the GNU hash section as binutils writes it). The gate calling
 * convention is endgate's (issue 6): the syscall number and arguments in the trap's registers,
 * entered with the arch's call instruction, result in the trap's result register. */
#include "common.h"
#include <elf.h>
#include <errno.h>
#include <sys/mman.h>
#include <link.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* The kernel's timespec of the plain clock_gettime syscall and vDSO entry: two longs (the
 * 32-bit arches' old_timespec32, the 64-bit arches' __kernel_timespec). */
struct kts {
    long tv_sec;
    long tv_nsec;
};

/* Raw system calls and the gate call, one small assembly function each per arch (ordinary C
 * ABI functions, so the compiler knows what they clobber):
 *   long trap_getppid(void);
 *   long gate_getppid(void *entry);      getppid through __kernel_vsyscall at `entry`
 *   long trap_clock_gettime(long clk, struct kts *ts);
 * They return the raw result: a value, or -errno. */
long trap_getppid(void);
long gate_getppid(void *entry);
long trap_clock_gettime(long clk, struct kts *ts);

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl trap_getppid\n.type trap_getppid,@function\n"
        "trap_getppid:\n"
        "  mov $" STR(SYS_getppid) ", %eax\n"
        "  syscall\n"
        "  ret\n"
        ".globl gate_getppid\n.type gate_getppid,@function\n"
        "gate_getppid:\n"
        "  sub $8, %rsp\n"          /* keep %rsp 16-byte aligned at the call */
        "  mov %rdi, %rcx\n"
        "  mov $" STR(SYS_getppid) ", %eax\n"
        "  call *%rcx\n"
        "  add $8, %rsp\n"
        "  ret\n"
        ".globl trap_clock_gettime\n.type trap_clock_gettime,@function\n"
        "trap_clock_gettime:\n"
        "  mov $" STR(SYS_clock_gettime) ", %eax\n"
        "  syscall\n"
        "  ret\n");
#define VDSO_CLOCK "__vdso_clock_gettime"
#define VDSO_CLOCK_VERSION "LINUX_2.6"
#elif defined(__i386__)
__asm__(".text\n"
        ".globl trap_getppid\n.type trap_getppid,@function\n"
        "trap_getppid:\n"
        "  mov $" STR(SYS_getppid) ", %eax\n"
        "  int $0x80\n"
        "  ret\n"
        ".globl gate_getppid\n.type gate_getppid,@function\n"
        "gate_getppid:\n"
        "  mov 4(%esp), %ecx\n"
        "  sub $12, %esp\n"         /* keep %esp 16-byte aligned at the call */
        "  mov $" STR(SYS_getppid) ", %eax\n"
        "  call *%ecx\n"
        "  add $12, %esp\n"
        "  ret\n"
        ".globl trap_clock_gettime\n.type trap_clock_gettime,@function\n"
        "trap_clock_gettime:\n"
        "  push %ebx\n"
        "  mov 8(%esp), %ebx\n"
        "  mov 12(%esp), %ecx\n"
        "  mov $" STR(SYS_clock_gettime) ", %eax\n"
        "  int $0x80\n"
        "  pop %ebx\n"
        "  ret\n");
#define VDSO_CLOCK "__vdso_clock_gettime"
#define VDSO_CLOCK_VERSION "LINUX_2.6"
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl trap_getppid\n.type trap_getppid,%function\n"
        "trap_getppid:\n"
        "  mov x8, #" STR(SYS_getppid) "\n"
        "  svc #0\n"
        "  ret\n"
        ".globl gate_getppid\n.type gate_getppid,%function\n"
        "gate_getppid:\n"
        "  stp x29, x30, [sp, #-16]!\n"
        "  mov x29, sp\n"
        "  mov x9, x0\n"
        "  mov x8, #" STR(SYS_getppid) "\n"
        "  blr x9\n"
        "  ldp x29, x30, [sp], #16\n"
        "  ret\n"
        ".globl trap_clock_gettime\n.type trap_clock_gettime,%function\n"
        "trap_clock_gettime:\n"
        "  mov x8, #" STR(SYS_clock_gettime) "\n"
        "  svc #0\n"
        "  ret\n");
#define VDSO_CLOCK "__kernel_clock_gettime"
#define VDSO_CLOCK_VERSION "LINUX_2.6.39"
#elif defined(__riscv) && __riscv_xlen == 64
__asm__(".text\n"
        ".globl trap_getppid\n.type trap_getppid,@function\n"
        "trap_getppid:\n"
        "  li a7, " STR(SYS_getppid) "\n"
        "  ecall\n"
        "  ret\n"
        ".globl gate_getppid\n.type gate_getppid,@function\n"
        "gate_getppid:\n"
        "  addi sp, sp, -16\n"
        "  sd ra, 8(sp)\n"
        "  mv t0, a0\n"
        "  li a7, " STR(SYS_getppid) "\n"
        "  jalr ra, 0(t0)\n"
        "  ld ra, 8(sp)\n"
        "  addi sp, sp, 16\n"
        "  ret\n"
        ".globl trap_clock_gettime\n.type trap_clock_gettime,@function\n"
        "trap_clock_gettime:\n"
        "  li a7, " STR(SYS_clock_gettime) "\n"
        "  ecall\n"
        "  ret\n");
#define VDSO_CLOCK "__vdso_clock_gettime"
#define VDSO_CLOCK_VERSION "LINUX_4.15"
#elif defined(__arm__)
/* Written so that it assembles in ARM and in Thumb-2 state (Debian's armhf gcc emits Thumb-2);
 * `.type %function` lets the linker mark Thumb entry points for interworking. */
__asm__(".text\n"
        ".syntax unified\n"
        ".globl trap_getppid\n.type trap_getppid,%function\n"
        "trap_getppid:\n"
        "  push {r7, lr}\n"
        "  movw r7, #" STR(SYS_getppid) "\n"
        "  svc #0\n"
        "  pop {r7, pc}\n"
        ".globl gate_getppid\n.type gate_getppid,%function\n"
        "gate_getppid:\n"
        "  push {r4, r5, r7, lr}\n"  /* 16 bytes: the stack stays 8-byte aligned */
        "  mov r4, r0\n"
        "  movw r7, #" STR(SYS_getppid) "\n"
        "  blx r4\n"
        "  pop {r4, r5, r7, pc}\n"
        ".globl trap_clock_gettime\n.type trap_clock_gettime,%function\n"
        "trap_clock_gettime:\n"
        "  push {r7, lr}\n"
        "  movw r7, #" STR(SYS_clock_gettime) "\n"
        "  svc #0\n"
        "  pop {r7, pc}\n");
#define VDSO_CLOCK "__vdso_clock_gettime"
#define VDSO_CLOCK_VERSION "LINUX_2.6"
#elif defined(__s390x__)
/* Like glibc: `svc NR` when the number fits the 8-bit immediate, else `svc 0` with r1 = NR. */
__asm__(".text\n"
        ".globl trap_getppid\n.type trap_getppid,@function\n"
        "trap_getppid:\n"
        "  svc " STR(SYS_getppid) "\n"
        "  br %r14\n"
        ".globl gate_getppid\n.type gate_getppid,@function\n"
        "gate_getppid:\n"
        "  stg %r14, 112(%r15)\n"    /* r14 into the caller's register save area */
        "  aghi %r15, -160\n"        /* our own frame: the gate may use its save area */
        "  lgr %r4, %r2\n"
        "  lghi %r1, " STR(SYS_getppid) "\n"
        "  basr %r14, %r4\n"
        "  aghi %r15, 160\n"
        "  lg %r14, 112(%r15)\n"
        "  br %r14\n"
        ".globl trap_clock_gettime\n.type trap_clock_gettime,@function\n"
        "trap_clock_gettime:\n"
        "  lghi %r1, " STR(SYS_clock_gettime) "\n"
        "  svc 0\n"
        "  br %r14\n");
#define VDSO_CLOCK "__kernel_clock_gettime"
#define VDSO_CLOCK_VERSION "LINUX_2.6.29"
#elif defined(__mips__) && _MIPS_SIM == _ABI64
/* n64: number in v0; on return a3 != 0 means v0 holds a positive errno. */
__asm__(".text\n"
        ".set push\n.set noreorder\n"
        ".globl trap_getppid\n.type trap_getppid,@function\n.ent trap_getppid\n"
        "trap_getppid:\n"
        "  li $v0, " STR(SYS_getppid) "\n"
        "  syscall\n"
        "  bnez $a3, 1f\n"
        "  nop\n"
        "  jr $ra\n"
        "  nop\n"
        "1: jr $ra\n"
        "  dsubu $v0, $zero, $v0\n"
        ".end trap_getppid\n"
        ".globl gate_getppid\n.type gate_getppid,@function\n.ent gate_getppid\n"
        "gate_getppid:\n"
        "  daddiu $sp, $sp, -16\n"
        "  sd $ra, 8($sp)\n"
        "  move $t9, $a0\n"
        "  jalr $t9\n"
        "  li $v0, " STR(SYS_getppid) "\n" /* delay slot: runs before the gate */
        "  ld $ra, 8($sp)\n"
        "  bnez $a3, 1f\n"
        "  daddiu $sp, $sp, 16\n"
        "  jr $ra\n"
        "  nop\n"
        "1: jr $ra\n"
        "  dsubu $v0, $zero, $v0\n"
        ".end gate_getppid\n"
        ".globl trap_clock_gettime\n.type trap_clock_gettime,@function\n.ent trap_clock_gettime\n"
        "trap_clock_gettime:\n"
        "  li $v0, " STR(SYS_clock_gettime) "\n"
        "  syscall\n"
        "  bnez $a3, 1f\n"
        "  nop\n"
        "  jr $ra\n"
        "  nop\n"
        "1: jr $ra\n"
        "  dsubu $v0, $zero, $v0\n"
        ".end trap_clock_gettime\n"
        ".set pop\n");
#define VDSO_CLOCK "__vdso_clock_gettime"
#define VDSO_CLOCK_VERSION "LINUX_2.6"
#else
#error "gatebench: no trap and gate code for this architecture"
#endif

/* ---- A small vDSO symbol lookup ---- */

/* DT_HASH words are 64-bit on s390x (and alpha), 32-bit elsewhere. */
#if defined(__s390x__)
typedef uint64_t hash_word;
#else
typedef uint32_t hash_word;
#endif

struct vdso {
    uintptr_t bias;           /* load address - link-time address */
    const ElfW(Sym) *symtab;
    const char *strtab;
    const hash_word *hash;    /* DT_HASH, or NULL */
    const uint32_t *gnu_hash; /* DT_GNU_HASH, or NULL */
    const ElfW(Half) *versym; /* DT_VERSYM, or NULL */
    const ElfW(Verdef) *verdef;
};

/* Sets up `v` from the image at AT_SYSINFO_EHDR; 0 if there is none or it is not usable. */
static int vdso_open(struct vdso *v)
{
    memset(v, 0, sizeof *v);
    uintptr_t base = getauxval(AT_SYSINFO_EHDR);
    if (base == 0)
        return 0;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return 0;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
    const ElfW(Dyn) *dyn = NULL;
    int have_load = 0;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && !have_load) {
            v->bias = base + ph[i].p_offset - ph[i].p_vaddr;
            have_load = 1;
        } else if (ph[i].p_type == PT_DYNAMIC) {
            dyn = (const ElfW(Dyn) *)(base + ph[i].p_offset);
        }
    }
    if (!have_load || dyn == NULL)
        return 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t p = v->bias + dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_SYMTAB: v->symtab = (const ElfW(Sym) *)p; break;
        case DT_STRTAB: v->strtab = (const char *)p; break;
        case DT_HASH: v->hash = (const hash_word *)p; break;
        case DT_GNU_HASH: v->gnu_hash = (const uint32_t *)p; break;
        case DT_VERSYM: v->versym = (const ElfW(Half) *)p; break;
        case DT_VERDEF: v->verdef = (const ElfW(Verdef) *)p; break;
        }
    }
    if (v->symtab == NULL || v->strtab == NULL || (v->hash == NULL && v->gnu_hash == NULL))
        return 0;
    if (v->versym == NULL)
        v->verdef = NULL;
    return 1;
}

/* Whether dynamic symbol `i` has version `version` (NULL: any version). */
static int version_matches(const struct vdso *v, uint32_t i, const char *version)
{
    if (version == NULL || v->versym == NULL || v->verdef == NULL)
        return 1;
    unsigned idx = v->versym[i] & 0x7fff;
    const ElfW(Verdef) *d = v->verdef;
    for (;;) {
        if (!(d->vd_flags & VER_FLG_BASE) && d->vd_ndx == idx) {
            const ElfW(Verdaux) *aux = (const ElfW(Verdaux) *)((const char *)d + d->vd_aux);
            return strcmp(v->strtab + aux->vda_name, version) == 0;
        }
        if (d->vd_next == 0)
            return 0;
        d = (const ElfW(Verdef) *)((const char *)d + d->vd_next);
    }
}

/* Whether symbol `i` is a defined function or object called `name` with `version`. */
static int symbol_is(const struct vdso *v, uint32_t i, const char *name, const char *version)
{
    const ElfW(Sym) *s = &v->symtab[i];
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    if (s->st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT))
        return 0;
    if (bind != STB_GLOBAL && bind != STB_WEAK)
        return 0;
    return strcmp(v->strtab + s->st_name, name) == 0 && version_matches(v, i, version);
}

static uint32_t elf_hash(const char *name)
{
    uint32_t h = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h << 4) + *p;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

static uint32_t gnu_hash(const char *name)
{
    uint32_t h = 5381;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = h * 33 + *p;
    return h;
}

/* The run-time address of dynamic symbol `i`: SHN_ABS values are absolute (as glibc treats
 * them), others are link-time addresses moved by the load bias. */
static void *symbol_address(const struct vdso *v, uint32_t i)
{
    const ElfW(Sym) *s = &v->symtab[i];
    return (void *)(s->st_shndx == SHN_ABS ? s->st_value : v->bias + s->st_value);
}

/* The address of `name`@`version` in the vDSO, or NULL. */
static void *vdso_sym(const struct vdso *v, const char *name, const char *version)
{
    if (v->gnu_hash) {
        /* nbuckets, symoffset, bloom_size, bloom_shift, bloom[bloom_size], buckets, chains */
        const uint32_t *g = v->gnu_hash;
        uint32_t nbuckets = g[0], symoffset = g[1], bloom_size = g[2];
        const uint32_t *buckets = (const uint32_t *)((const char *)(g + 4) + bloom_size * sizeof(ElfW(Addr)));
        const uint32_t *chains = buckets + nbuckets;
        uint32_t h = gnu_hash(name);
        uint32_t i = nbuckets ? buckets[h % nbuckets] : 0;
        if (i < symoffset)
            return NULL;
        for (;; i++) {
            uint32_t c = chains[i - symoffset];
            if ((c | 1) == (h | 1) && symbol_is(v, i, name, version))
                return symbol_address(v, i);
            if (c & 1)
                return NULL;
        }
    }
    /* DT_HASH: nbucket, nchain, buckets[nbucket], chains[nchain] */
    hash_word nbucket = v->hash[0];
    const hash_word *bucket = v->hash + 2, *chain = bucket + nbucket;
    if (nbucket == 0)
        return NULL;
    for (hash_word i = bucket[elf_hash(name) % nbucket]; i != STN_UNDEF; i = chain[i])
        if (symbol_is(v, (uint32_t)i, name, version))
            return symbol_address(v, (uint32_t)i);
    return NULL;
}

/* ---- Timing ---- */

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long kts_ns(struct kts t) { return (long long)t.tv_sec * 1000000000LL + t.tv_nsec; }

static void report(const char *name, long long elapsed, long n)
{
    fprintf(stderr, "%s %.1f\n", name, n > 0 ? (double)elapsed / (double)n : 0.0);
}

typedef int (*vdso_clock_fn)(long clk, struct kts *ts);

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    CHECK(n >= 1);
    setvbuf(stderr, NULL, _IOLBF, 0);

    struct vdso v;
    int have_vdso = vdso_open(&v);
    void *gate = have_vdso ? vdso_sym(&v, "__kernel_vsyscall", NULL) : NULL;
#if defined(__i386__)
    if (gate == NULL)
        gate = (void *)getauxval(AT_SYSINFO);
#endif
    vdso_clock_fn vclock = have_vdso ? (vdso_clock_fn)vdso_sym(&v, VDSO_CLOCK, VDSO_CLOCK_VERSION) : NULL;

    /* getppid through the trap: must agree with libc's. */
    long ppid = trap_getppid();
    CHECK(ppid == (long)getppid());
    long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        CHECK(trap_getppid() == ppid);
    report("getppid_trap_ns", now_ns() - t0, n);

    /* getppid through the gate: must agree with the trap. */
    if (gate) {
        CHECK(gate_getppid(gate) == ppid);
        t0 = now_ns();
        for (long i = 0; i < n; i++)
            CHECK(gate_getppid(gate) == ppid);
        report("getppid_gate_ns", now_ns() - t0, n);
    } else {
        fprintf(stderr, "getppid_gate_ns n/a\n");
    }

    /* clock_gettime through the vDSO: 0, never back, and between two syscall reads. */
    if (vclock) {
        struct kts before, mid, after, last;
        CHECK(trap_clock_gettime(CLOCK_MONOTONIC, &before) == 0);
        CHECK(vclock(CLOCK_MONOTONIC, &mid) == 0);
        CHECK(trap_clock_gettime(CLOCK_MONOTONIC, &after) == 0);
        CHECK(mid.tv_nsec >= 0 && mid.tv_nsec < 1000000000L);
        CHECK(kts_ns(mid) >= kts_ns(before) - 10000000LL);
        CHECK(kts_ns(mid) <= kts_ns(after) + 10000000LL);
        last = mid;
        t0 = now_ns();
        for (long i = 0; i < n; i++) {
            struct kts t;
            CHECK(vclock(CLOCK_MONOTONIC, &t) == 0);
            CHECK(kts_ns(t) >= kts_ns(last));
            last = t;
        }
        long long el = now_ns() - t0;
        CHECK(trap_clock_gettime(CLOCK_MONOTONIC, &after) == 0);
        CHECK(kts_ns(last) <= kts_ns(after) + 10000000LL);
        report("clock_gettime_vdso_ns", el, n);
        /* A clock the vDSO does not read itself (a CPU-time clock) is the system call's, so a
         * pointer it cannot write is -EFAULT, not a fault of the vDSO's store. */
        long pg = sysconf(_SC_PAGESIZE);
        void *ro = mmap(NULL, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(ro != MAP_FAILED);
        CHECK(vclock(CLOCK_PROCESS_CPUTIME_ID, (struct kts *)ro) == -EFAULT);
        CHECK(vclock(CLOCK_THREAD_CPUTIME_ID, (struct kts *)ro) == -EFAULT);
        CHECK(munmap(ro, (size_t)pg) == 0);
    } else {
        fprintf(stderr, "clock_gettime_vdso_ns n/a\n");
    }

    /* clock_gettime through the system call: 0 and never back. */
    struct kts last;
    CHECK(trap_clock_gettime(CLOCK_MONOTONIC, &last) == 0);
    t0 = now_ns();
    for (long i = 0; i < n; i++) {
        struct kts t;
        CHECK(trap_clock_gettime(CLOCK_MONOTONIC, &t) == 0);
        CHECK(kts_ns(t) >= kts_ns(last));
        last = t;
    }
    report("clock_gettime_syscall_ns", now_ns() - t0, n);

    printf("gatebench: getppid through the trap matches libc's, through the gate (where present) "
           "matches the trap\n");
    printf("gatebench: vDSO clock_gettime (where present) monotonic and between system call reads, "
           "-EFAULT for a CPU-time clock into a read-only page\n");
    printf("gatebench: timings on stderr: getppid_trap_ns getppid_gate_ns clock_gettime_vdso_ns "
           "clock_gettime_syscall_ns\n");
    return 0;
}
