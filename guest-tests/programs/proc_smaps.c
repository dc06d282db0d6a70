/* /proc/self/smaps and smaps_rollup describe the program's own mappings in the kernel's
 * format (Documentation/filesystems/proc.rst): one entry per /proc/self/maps line, the same
 * field lines in every entry, sizes true for the mappings (resident pages, locked pages),
 * VmFlags from their permissions. Prints field names, counts and ok lines. */
#include "common.h"
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

static char smaps[1 << 20], maps[1 << 18], rollup[8192];

static size_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        CHECK(r >= 0);
        if (r == 0)
            break;
        n += (size_t)r;
        CHECK(n < cap - 1);
    }
    buf[n] = 0;
    close(fd);
    return n;
}

/* The entry of the mapping that starts at `start`, or NULL. */
static char *entry_of(uintptr_t start)
{
    char want[32];
    snprintf(want, sizeof want, "%08lx-", (unsigned long)start);
    char *p = smaps;
    while (p && *p) {
        if (strncmp(p, want, strlen(want)) == 0)
            return p;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

/* The kB value of field `name` in the entry at `e` (before the next header). */
static long field(const char *e, const char *name)
{
    const char *p = strchr(e, '\n') + 1;
    size_t n = strlen(name);
    while (*p && strncmp(p, "VmFlags:", 8) != 0) {
        if (strncmp(p, name, n) == 0 && p[n] == ':')
            return strtol(p + n + 1, NULL, 10);
        p = strchr(p, '\n') + 1;
    }
    return -1;
}

static int has_flag(const char *e, const char *flag)
{
    const char *p = strstr(e, "VmFlags:");
    CHECK(p);
    const char *end = strchr(p, '\n');
    char f[4] = {' ', flag[0], flag[1], 0};
    const char *q = strstr(p + 8, f);
    return q && q < end && (q[3] == ' ' || q[3] == '\n');
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    /* Three mappings with PROT_NONE pages between them, so that none merges with another. */
    char *base = mmap(NULL, 16 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(base != MAP_FAILED);
    int fixed = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
    char *p = mmap(base + pg, 4 * pg, PROT_READ | PROT_WRITE, fixed, -1, 0);
    char *q = mmap(base + 6 * pg, 2 * pg, PROT_READ | PROT_WRITE, fixed, -1, 0);
    char *r = mmap(base + 9 * pg, 3 * pg, PROT_READ, fixed, -1, 0);
    CHECK(p != MAP_FAILED && q != MAP_FAILED && r != MAP_FAILED);
    p[0] = 1;
    p[2 * pg] = 1;
    CHECK(mlock(q, 2 * pg) == 0);

    slurp("/proc/self/maps", maps, sizeof maps);
    slurp("/proc/self/smaps", smaps, sizeof smaps);
    slurp("/proc/self/smaps_rollup", rollup, sizeof rollup);

    /* One entry per maps line, each with the same field names in the same order. */
    int nmaps = 0, nheaders = 0, bad = 0;
    for (char *l = maps; *l; l = strchr(l, '\n') + 1)
        nmaps++;
    char first_names[1024] = "", names[1024] = "";
    for (char *l = smaps; *l; l = strchr(l, '\n') + 1) {
        char *nl = strchr(l, '\n');
        CHECK(nl);
        char *colon = memchr(l, ':', (size_t)(nl - l));
        char *space = memchr(l, ' ', (size_t)(nl - l));
        if (colon && (!space || colon < space)) {
            size_t n = (size_t)(colon - l);
            if (strncmp(l, "VmFlags", n) == 0 && n == 7) {
                if (nheaders == 1)
                    strcpy(first_names, names);
                else if (strcmp(first_names, names) != 0)
                    bad++;
            } else if (strncmp(l, "ProtectionKey", n) != 0) {
                size_t have = strlen(names);
                if (have + n + 2 < sizeof names)
                    snprintf(names + have, sizeof names - have, " %.*s", (int)n, l);
            }
        } else {
            nheaders++;
            names[0] = 0;
        }
    }
    printf("entries match maps lines: %s\n", nheaders == nmaps ? "ok" : "no");
    printf("fields:%s\n", first_names);
    printf("same fields in every entry: %s\n", bad == 0 ? "ok" : "no");

    char *ep = entry_of((uintptr_t)p), *eq = entry_of((uintptr_t)q), *er = entry_of((uintptr_t)r);
    CHECK(ep && eq && er);
    printf("touched: Size %ld Rss %ld Anonymous %ld Private_Dirty %ld Locked %ld\n", field(ep, "Size") / 4,
           field(ep, "Rss") / 4, field(ep, "Anonymous") / 4, field(ep, "Private_Dirty") / 4, field(ep, "Locked"));
    printf("touched flags: rd %d wr %d ex %d mr %d mw %d me %d ac %d lo %d gd %d\n", has_flag(ep, "rd"),
           has_flag(ep, "wr"), has_flag(ep, "ex"), has_flag(ep, "mr"), has_flag(ep, "mw"), has_flag(ep, "me"),
           has_flag(ep, "ac"), has_flag(ep, "lo"), has_flag(ep, "gd"));
    printf("locked: Size %ld Rss %ld Locked %ld lo %d\n", field(eq, "Size") / 4, field(eq, "Rss") / 4,
           field(eq, "Locked") / 4, has_flag(eq, "lo"));
    printf("read-only: Size %ld Rss %ld rd %d wr %d\n", field(er, "Size") / 4, field(er, "Rss"), has_flag(er, "rd"),
           has_flag(er, "wr"));
    /* The main stack grows down. */
    char *st = strstr(smaps, "[stack]");
    CHECK(st);
    printf("stack gd: %d\n", has_flag(st, "gd"));

    /* smaps_rollup: one [rollup] header, then the sums. */
    char *nl = strchr(rollup, '\n');
    CHECK(nl);
    printf("rollup header: %s\n", nl - rollup > 8 && strncmp(nl - 8, "[rollup]", 8) == 0 ? "ok" : "no");
    printf("rollup fields:");
    long rss = -1, pss = -1, locked = -1;
    for (char *l = nl + 1; *l; l = strchr(l, '\n') + 1) {
        char *c = strchr(l, ':');
        CHECK(c);
        printf(" %.*s", (int)(c - l), l);
        long v = strtol(c + 1, NULL, 10);
        if (strncmp(l, "Rss:", 4) == 0)
            rss = v;
        if (strncmp(l, "Pss:", 4) == 0)
            pss = v;
        if (strncmp(l, "Locked:", 7) == 0)
            locked = v;
    }
    printf("\n");
    printf("rollup sums: %s\n", rss >= 16 && pss > 0 && pss <= rss && locked >= 8 ? "ok" : "no");
    return 0;
}
