/* String and memory functions over many lengths and alignments (they use vector code paths):
 * strlen, memcpy, memmove overlap, memset, memcmp, memchr, strchr/strrchr, strstr, strcmp,
 * strncpy, strtok_r, strtol family, snprintf truncation. */
#include "common.h"
#include <limits.h>
#include <ctype.h>
#include <stdint.h>
#include <strings.h>

/* Truncation is the point of one snprintf below. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* 64-bit FNV-1a on every arch (unsigned long is 32 bits on arm and i386). */
static uint64_t hash(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

int main(void)
{
    static char buf[4096 + 64];
    static char dst[4096 + 64];
    uint64_t acc = 0;
    for (size_t align = 0; align < 16; align++) {
        for (size_t len = 0; len < 300; len += 7) {
            char *s = buf + align;
            memset(buf, 'x', sizeof buf);
            for (size_t i = 0; i < len; i++)
                s[i] = 'a' + (i * 7 + align) % 26;
            s[len] = 0;
            CHECK(strlen(s) == len);
            memset(dst, 0, sizeof dst);
            memcpy(dst + (15 - align), s, len + 1);
            CHECK(strcmp(dst + (15 - align), s) == 0);
            CHECK(memcmp(dst + (15 - align), s, len) == 0);
            if (len) {
                CHECK(memchr(s, s[len - 1], len) != NULL);
                CHECK(strrchr(s, s[len - 1]) == s + len - 1 || s[len - 1] == s[len - 1]);
            }
            CHECK(strchr(s, 0) == s + len);
            CHECK(memchr(s, 'X', len) == NULL);
            acc = acc * 31 + hash((unsigned char *)s, len);
        }
    }
    printf("strlen/memcpy/strcmp over alignments: hash %016llx\n", (unsigned long long)acc);

    char ov[64] = "0123456789abcdefghijklmnopqrstuvwxyz";
    memmove(ov + 5, ov, 20);
    printf("memmove forward overlap: %s\n", ov);
    memmove(ov, ov + 7, 20);
    printf("memmove backward overlap: %s\n", ov);

    printf("memcmp sign: %d %d %d\n", memcmp("abc", "abd", 3) < 0, memcmp("b", "a", 1) > 0, memcmp("\x80", "\x7f", 1) > 0);
    printf("strcmp sign: %d %d %d\n", strcmp("abc", "abcd") < 0, strcmp("b", "a") > 0, strcmp("\xff", "a") > 0);
    printf("strncmp/strcasecmp: %d %d\n", strncmp("abcdef", "abcxyz", 3), strcasecmp("HeLLo", "hello"));
    printf("strstr: %s | %s | %p\n", strstr("the haystack with needle inside", "needle"),
           strstr("aaaaaaaaab", "aaab"), (void *)strstr("abc", "abd"));

    char tok[] = "alpha, beta,,gamma ,delta";
    char *save, *t;
    printf("strtok_r:");
    for (t = strtok_r(tok, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        printf(" [%s]", t);
    printf("\n");

    char small[8];
    int n = snprintf(small, sizeof small, "%s-%d", "truncated", 12345);
    printf("snprintf truncation: returned %d, got <%s>\n", n, small);
    char pad[16];
    memset(pad, 'Z', sizeof pad);
    strncpy(pad, "abc", 8);
    printf("strncpy pads with NUL: %d %d %c\n", pad[3] == 0, pad[7] == 0, pad[8]);

    char *end;
    printf("strtol: %ld %ld %ld %ld\n", strtol("  -123xyz", &end, 10), strtol("0x1F", NULL, 16),
           strtol("0777", NULL, 0), strtol("z", NULL, 36));
    printf("strtol rest: <%s>\n", end);
    errno = 0;
    long big = strtol("99999999999999999999", NULL, 10);
    printf("strtol overflow: LONG_MAX %d, ERANGE %d\n", big == LONG_MAX, errno == ERANGE);
    printf("strtoull: %llu, strtoll negative: %lld\n", strtoull("18446744073709551615", NULL, 10),
           strtoll("-9223372036854775808", NULL, 10));
    printf("atoi: %d, toupper: %c, strdup: %s\n", atoi("  77 trombones"), toupper('q'), strdup("copy"));
    char *sp = strdup("  spaced out  ");
    printf("strspn/strcspn: %zu %zu\n", strspn(sp, " "), strcspn(sp + 2, " "));
    free(sp);
    return 0;
}
