// The aarch64 CPU features a guest can see and use: AT_HWCAP/AT_HWCAP2 bits, the ID register
// fields Linux derives them from (read with `mrs`, which the kernel emulates for EL0), and
// instructions of those features, each checked against plain C. Prints one line per check;
// the same lines under any CPU that has these features (qemu-aarch64's default `max`).
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

// HWCAP_* and HWCAP2_* (arch/arm64/include/uapi/asm/hwcap.h) come with <sys/auxv.h>.

static uint64_t id_aa64isar0(void) {
    uint64_t v;
    __asm__ volatile("mrs %0, ID_AA64ISAR0_EL1" : "=r"(v));
    return v;
}

static void check(const char *what, int ok) { printf("%s: %s\n", what, ok ? "ok" : "FAILED"); }

int main(void) {
    unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
    static const struct {
        const char *name;
        unsigned long bit;
    } want[] = {
        {"aes", HWCAP_AES},         {"sha2", HWCAP_SHA2},   {"crc32", HWCAP_CRC32}, {"atomics", HWCAP_ATOMICS},
        {"fphp", HWCAP_FPHP},       {"cpuid", HWCAP_CPUID}, {"asimdrdm", HWCAP_ASIMDRDM},
        {"jscvt", HWCAP_JSCVT},     {"lrcpc", HWCAP_LRCPC}, {"sha3", HWCAP_SHA3},   {"asimddp", HWCAP_ASIMDDP},
        {"sha512", HWCAP_SHA512},
    };
    for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) printf("hwcap %s: %s\n", want[i].name, hwcap & want[i].bit ? "yes" : "no");
    printf("hwcap2 frint: %s\n", hwcap2 & HWCAP2_FRINT ? "yes" : "no");

    // ID_AA64ISAR0_EL1.ATOMIC [23:20] = 2: LSE atomics (what HWCAP_ATOMICS stands for).
    uint64_t isar0 = id_aa64isar0();
    printf("id_aa64isar0 atomic: %u\n", (unsigned)(isar0 >> 20 & 0xf));
    printf("id_aa64isar0 dp: %u\n", (unsigned)(isar0 >> 44 & 0xf));

    // LSE: ldaddal, casal, swpal.
    int64_t word = 40, old;
    __asm__ volatile(".arch armv8.1-a\n\tldaddal %x2, %x0, [%1]" : "=&r"(old) : "r"(&word), "r"((int64_t)2) : "memory");
    check("ldaddal", old == 40 && word == 42);
    int64_t expect = 42;
    __asm__ volatile(".arch armv8.1-a\n\tcasal %x0, %x2, [%1]" : "+r"(expect) : "r"(&word), "r"((int64_t)7) : "memory");
    check("casal", expect == 42 && word == 7);
    int64_t swapped = 9;
    __asm__ volatile(".arch armv8.1-a\n\tswpal %x2, %x0, [%1]" : "=&r"(old) : "r"(&word), "r"(swapped) : "memory");
    check("swpal", old == 7 && word == 9);

    // Dot product: sdot v0.4s, v1.16b, v2.16b.
    int8_t a[16], b[16];
    int32_t acc[4] = {1, 2, 3, 4}, want_acc[4] = {1, 2, 3, 4};
    for (int i = 0; i < 16; i++) {
        a[i] = (int8_t)(i * 7 - 50);
        b[i] = (int8_t)(100 - i * 13);
        want_acc[i / 4] += a[i] * b[i];
    }
    __asm__ volatile(".arch armv8.2-a+dotprod\n\t"
                     "ld1 {v1.16b}, [%1]\n\t"
                     "ld1 {v2.16b}, [%2]\n\t"
                     "ld1 {v0.4s}, [%0]\n\t"
                     "sdot v0.4s, v1.16b, v2.16b\n\t"
                     "st1 {v0.4s}, [%0]"
                     :
                     : "r"(acc), "r"(a), "r"(b)
                     : "v0", "v1", "v2", "memory");
    check("sdot", !memcmp(acc, want_acc, sizeof acc));

    // JSCVT: fjcvtzs (JavaScript's double-to-int32, wrapping modulo 2^32).
    double d = 4294967296.0 + 5.75;
    int32_t js;
    __asm__ volatile(".arch armv8.3-a\n\tfjcvtzs %w0, %d1" : "=r"(js) : "w"(d) : "cc");
    check("fjcvtzs", js == 5);
    return 0;
}
