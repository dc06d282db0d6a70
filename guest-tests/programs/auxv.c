/* The auxiliary vector: page size, AT_RANDOM, AT_PHDR/AT_PHNUM against dl_iterate_phdr,
 * AT_EXECFN against argv[0], AT_ENTRY against _start, and the ids. */
#include "common.h"
#include <link.h>
#include <sys/auxv.h>

/* The ELF entry point's symbol: __start on mips, _start elsewhere. */
#if defined(__mips__)
extern char __start[];
#define ENTRY_SYMBOL __start
#else
extern char _start[];
#define ENTRY_SYMBOL _start
#endif

static const void *seen_phdr;
static size_t seen_phnum;

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    seen_phdr = info->dlpi_phdr;
    seen_phnum = info->dlpi_phnum;
    return 1; /* the main program comes first; stop */
}

int main(int argc, char **argv)
{
    (void)argc;
    unsigned long pagesz = getauxval(AT_PAGESZ);
    CHECK(pagesz >= 4096 && (pagesz & (pagesz - 1)) == 0);
    CHECK(pagesz == (unsigned long)sysconf(_SC_PAGESIZE));
    printf("AT_PAGESZ: power of two, matches sysconf\n");

    const unsigned char *rnd = (const unsigned char *)getauxval(AT_RANDOM);
    CHECK(rnd != NULL);
    int nonzero = 0;
    for (int i = 0; i < 16; i++)
        nonzero |= rnd[i];
    CHECK(nonzero);
    printf("AT_RANDOM: non-null, 16 readable bytes\n");

    CHECK(dl_iterate_phdr(first_object, NULL) == 1);
    CHECK(seen_phdr == (const void *)getauxval(AT_PHDR));
    CHECK(seen_phnum == getauxval(AT_PHNUM));
    CHECK(getauxval(AT_PHENT) == sizeof(ElfW(Phdr)));
    printf("AT_PHDR/AT_PHNUM/AT_PHENT: consistent with dl_iterate_phdr\n");

    const char *execfn = (const char *)getauxval(AT_EXECFN);
    CHECK(execfn != NULL);
    CHECK(strcmp(execfn, argv[0]) == 0);
    printf("AT_EXECFN: equals argv[0]\n");

    CHECK(getauxval(AT_ENTRY) == (unsigned long)ENTRY_SYMBOL);
    printf("AT_ENTRY: equals _start\n");

    CHECK(getauxval(AT_UID) == getuid());
    CHECK(getauxval(AT_EUID) == geteuid());
    CHECK(getauxval(AT_GID) == getgid());
    CHECK(getauxval(AT_EGID) == getegid());
    CHECK(getauxval(AT_SECURE) == 0);
    printf("AT_UID/EUID/GID/EGID/SECURE: consistent\n");

    errno = 0;
    CHECK(getauxval(0x7fff) == 0 && errno == ENOENT);
    printf("unknown type: 0 with ENOENT\n");
    return 0;
}
