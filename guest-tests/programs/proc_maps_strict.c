/* /proc/self/maps, every line parsed with the kernel's exact format (fs/proc/task_mmu.c
 * show_map_vma): "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu " then, for a named mapping,
 * spaces up to the column of the name (73 for a 64-bit kernel, which 32-bit programs on it
 * see too; 49 for a 32-bit kernel) and the name; ranges ascending and disjoint. The main
 * stack, the heap, the vDSO and the program's text are where Linux puts them. */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>

static char maps[1 << 18];

static int hexrun(const char **p, int min)
{
    int n = 0;
    while ((**p >= '0' && **p <= '9') || (**p >= 'a' && **p <= 'f'))
        (*p)++, n++;
    return n >= min;
}

static unsigned long long hexval(const char *a, const char *b)
{
    unsigned long long v = 0;
    for (; a < b; a++)
        v = v * 16 + (unsigned long long)(*a <= '9' ? *a - '0' : *a - 'a' + 10);
    return v;
}

struct line {
    unsigned long long start, end;
    char perms[5];
    const char *name; /* "" when none */
};

/* Parses one line (without its newline) strictly; 0 if it breaks the format. */
static int parse(const char *l, size_t len, struct line *out, unsigned long long prev_end)
{
    const char *p = l, *a = p;
    if (!hexrun(&p, 8) || *p != '-')
        return 0;
    out->start = hexval(a, p);
    if ((size_t)(p - a) > 8 && *a == '0')
        return 0; /* %08lx pads to 8 digits, no more */
    a = ++p;
    if (!hexrun(&p, 8) || *p != ' ')
        return 0;
    out->end = hexval(a, p);
    if ((size_t)(p - a) > 8 && *a == '0')
        return 0;
    p++;
    if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') || (p[2] != 'x' && p[2] != '-') ||
        (p[3] != 's' && p[3] != 'p') || p[4] != ' ')
        return 0;
    memcpy(out->perms, p, 4);
    out->perms[4] = 0;
    p += 5;
    a = p;
    if (!hexrun(&p, 8) || *p != ' ' || ((size_t)(p - a) > 8 && *a == '0'))
        return 0;
    p++;
    a = p;
    if (!hexrun(&p, 2) || *p != ':' || ((size_t)(p - a) > 2 && *a == '0'))
        return 0;
    p++;
    a = p;
    if (!hexrun(&p, 2) || *p != ' ' || ((size_t)(p - a) > 2 && *a == '0'))
        return 0;
    p++;
    a = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == a || (p - a > 1 && *a == '0') || *p != ' ')
        return 0;
    p++;
    size_t prefix = (size_t)(p - l);
    if (prefix == len) {
        out->name = "";
    } else {
        /* Padding: the name starts at the kernel's column, or one space after a longer
         * prefix. */
        size_t col = (size_t)(p - l);
        while (col < len && l[col] == ' ')
            col++;
        size_t want64 = prefix < 73 ? 73 : prefix + 1;
        size_t want32 = prefix < 49 ? 49 : prefix + 1;
        int ok = col == want64 || (sizeof(void *) == 4 && col == want32);
        if (!ok || col >= len)
            return 0;
        out->name = l + col;
    }
    if (out->start % 4096 || out->end % 4096 || out->start >= out->end || out->start < prev_end)
        return 0;
    return 1;
}

int main(void)
{
    static char exe[4096];
    ssize_t en = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(en > 0);
    exe[en] = 0;
    void *brk_now = sbrk(0);
    int local = 0;
    uintptr_t stack_addr = (uintptr_t)&local, text_addr = (uintptr_t)&main, heap_addr = (uintptr_t)brk_now - 1;

    int fd = open("/proc/self/maps", O_RDONLY);
    CHECK(fd >= 0);
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, maps + n, sizeof maps - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    CHECK(n > 0 && maps[n - 1] == '\n');

    int lines = 0, bad = 0, heap = 0, stack = 0, vdso = 0, stack_has_sp = 0, heap_has_brk = 0, text = 0;
    unsigned long long prev_end = 0;
    for (char *l = maps; *l;) {
        char *nl = strchr(l, '\n');
        struct line x;
        size_t len = (size_t)(nl - l);
        *nl = 0;
        lines++;
        if (!parse(l, len, &x, prev_end)) {
            printf("bad line: %s\n", l);
            bad++;
        } else {
            prev_end = x.end;
            int in = 0;
            if (strcmp(x.name, "[heap]") == 0) {
                heap++;
                heap_has_brk |= heap_addr >= x.start && heap_addr < x.end;
            }
            if (strcmp(x.name, "[stack]") == 0) {
                stack++;
                stack_has_sp |= stack_addr >= x.start && stack_addr < x.end;
            }
            if (strcmp(x.name, "[vdso]") == 0)
                vdso += strcmp(x.perms, "r-xp") == 0;
            in = text_addr >= x.start && text_addr < x.end;
            if (in && strcmp(x.perms, "r-xp") == 0 && strcmp(x.name, exe) == 0)
                text++;
        }
        l = nl + 1;
    }
    printf("lines parsed: %s\n", lines > 5 ? "ok" : "no");
    printf("lines breaking the format: %d\n", bad);
    printf("[heap]: %d, holds the break: %d\n", heap, heap_has_brk);
    printf("[stack]: %d, holds a local: %d\n", stack, stack_has_sp);
    printf("[vdso] r-xp: %d\n", vdso);
    printf("program text r-xp, named by its path: %d\n", text);
    return 0;
}
