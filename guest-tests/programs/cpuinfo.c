/* /proc/cpuinfo describes the CPU the program runs on: the feature names it lists are the
 * AT_HWCAP bits the program was given (arm64, arm, s390x: "Features"/"features"; riscv:
 * the "isa" letters; x86: "flags" against CPUID leaf 1), and it lists one entry per online
 * processor. */
#define _GNU_SOURCE 1
#include "common.h"
#include <sys/auxv.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static char text[1 << 20];

/* The value of the first line starting with `key`, or NULL. */
static char *field(const char *key)
{
    static char val[4096];
    size_t kl = strlen(key);
    for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, key, kl) == 0) {
            char *c = strchr(l, ':');
            if (!c)
                continue;
            c++;
            while (*c == ' ' || *c == '\t')
                c++;
            size_t n = strcspn(c, "\n");
            memcpy(val, c, n < sizeof val - 1 ? n : sizeof val - 1);
            val[n < sizeof val - 1 ? n : sizeof val - 1] = 0;
            return val;
        }
    }
    return NULL;
}

static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

/* Every named bit is listed iff it is set. */
__attribute__((unused)) static int names_match(const char *list, unsigned long bits, const char *const *names, int count)
{
    if (!list)
        return 0;
    for (int b = 0; b < count; b++)
        if (names[b][0] && has_word(list, names[b]) != (int)((bits >> b) & 1))
            return 0;
    return 1;
}

static int count_lines(const char *prefix)
{
    int n = 0;
    size_t pl = strlen(prefix);
    for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        n += strncmp(l, prefix, pl) == 0;
    return n;
}

int main(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    CHECK(f != NULL);
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    unsigned long hw = getauxval(AT_HWCAP);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int consistent, entries;
#if defined(__aarch64__)
    static const char *const names[] = { "fp", "asimd", "evtstrm", "aes", "pmull", "sha1", "sha2", "crc32", "atomics",
                                         "fphp", "asimdhp", "cpuid", "asimdrdm", "jscvt", "fcma", "lrcpc", "dcpop", "sha3",
                                         "sm3", "sm4", "asimddp", "sha512", "sve", "asimdfhm", "dit", "uscat", "ilrcpc",
                                         "flagm", "ssbs", "sb", "paca", "pacg" };
    consistent = names_match(field("Features"), hw, names, 32);
    entries = count_lines("processor");
#elif defined(__arm__)
    static const char *const names[] = { "swp", "half", "thumb", "26bit", "fastmult", "fpa", "vfp", "edsp",
                                         "java", "iwmmxt", "crunch", "thumbee", "neon", "vfpv3", "vfpv3d16", "tls",
                                         "vfpv4", "idiva", "idivt", "vfpd32", "lpae", "evtstrm" };
    consistent = names_match(field("Features"), hw, names, 22);
    entries = count_lines("processor");
#elif defined(__riscv)
    const char *isa = field("isa");
    consistent = isa && strncmp(isa, "rv64", 4) == 0;
    for (int c = 'a'; consistent && c <= 'z'; c++)
        if (c != 's' && c != 'u' && ((hw >> (c - 'a')) & 1) != (strchr(isa + 4, c) != NULL && strcspn(isa + 4, "_") > (size_t)(strchr(isa + 4, c) - (isa + 4))))
            consistent = 0;
    entries = count_lines("processor");
#elif defined(__s390x__)
    static const char *const names[] = { "esan3", "zarch", "stfle", "msa", "ldisp", "eimm", "dfp", "edat",
                                         "etf3eh", "highgprs", "te", "vx", "vxd", "vxe", "gs", "vxe2",
                                         "vxp", "sort", "dflt", "vxp2", "nnpa", "pcimio", "sie" };
    consistent = names_match(field("features"), hw, names, 23) && strcmp(field("vendor_id"), "IBM/S390") == 0;
    entries = count_lines("processor ");
#elif defined(__mips__)
    const char *isa = field("isa");
    consistent = isa && has_word(isa, "mips64r2") && field("cpu model") != NULL;
    entries = count_lines("processor");
#elif defined(__x86_64__) || defined(__i386__)
    static const char *const edx[] = { "fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", "", "sep",
                                       "mtrr", "pge", "mca", "cmov", "pat", "pse36", "pn", "clflush", "", "dts", "acpi",
                                       "mmx", "fxsr", "sse", "sse2", "ss", "ht", "tm", "ia64", "pbe" };
    static const char *const ecx[] = { "pni", "pclmulqdq", "dtes64", "monitor", "ds_cpl", "vmx", "smx", "est", "tm2",
                                       "ssse3", "cid", "sdbg", "fma", "cx16", "xtpr", "pdcm", "", "pcid", "dca", "sse4_1",
                                       "sse4_2", "x2apic", "movbe", "popcnt", "tsc_deadline_timer", "aes", "xsave", "",
                                       "avx", "f16c", "rdrand", "hypervisor" };
    unsigned a = 0, b = 0, c = 0, d = 0;
    __get_cpuid(1, &a, &b, &c, &d);
    const char *fl = field("flags");
    /* Linux hides some bits it does not use (monitor, ds_cpl…): check the ones it shows. */
    consistent = fl != NULL;
    for (int i = 0; consistent && i < 32; i++) {
        if (edx[i][0] && has_word(fl, edx[i]) && !((d >> i) & 1))
            consistent = 0;
        if (ecx[i][0] && has_word(fl, ecx[i]) && !((c >> i) & 1))
            consistent = 0;
    }
    (void)hw;
    entries = count_lines("processor");
#endif
    printf("cpuinfo features agree with the CPU: %d\n", consistent);
    printf("cpuinfo lists one entry per online processor: %d\n", entries == ncpu);
    return 0;
}
