/* The bss past an ELF segment's file part is anonymous memory in /proc/self/maps, as Linux maps
 * it (fs/binfmt_elf.c: the pages after the last page with file bytes come from an anonymous
 * mapping): no name, offset 0, device 00:00, inode 0. The program's initialized data stays a
 * mapping of its file. */
#include <stdio.h>
#include <string.h>

static char bss_block[256 * 1024]; /* whole pages past the file's part of the segment */
int data_word = 42;                /* in the file's part */

/* The mapping holding addr: its name (the rest of the line), offset, device and inode. */
static int find(unsigned long addr, char *name, size_t n, unsigned long *off, char *dev, unsigned long *ino)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long s, e, o, inode;
        char perms[8], d[16];
        int pos = 0;
        if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &s, &e, perms, &o, d, &inode, &pos) < 6) continue;
        if (addr < s || addr >= e) continue;
        line[strcspn(line, "\n")] = 0;
        snprintf(name, n, "%s", pos ? line + pos : "");
        *off = o;
        snprintf(dev, 16, "%s", d);
        *ino = inode;
        found = 1;
    }
    fclose(f);
    return found;
}

int main(void)
{
    char name[4096], dev[16];
    unsigned long off, ino;
    bss_block[sizeof bss_block - 1] = 1;
    if (!find((unsigned long)&bss_block[sizeof bss_block - 1], name, sizeof name, &off, dev, &ino)) {
        puts("bss: not in maps");
        return 1;
    }
    printf("bss: name empty %s, offset 0 %s, device 00:00 %s, inode 0 %s\n", name[0] ? "no" : "yes",
           off ? "no" : "yes", strcmp(dev, "00:00") ? "no" : "yes", ino ? "no" : "yes");
    if (!find((unsigned long)&data_word, name, sizeof name, &off, dev, &ino)) {
        puts("data: not in maps");
        return 1;
    }
    printf("data: a file %s, inode set %s, data %d\n", name[0] == '/' ? "yes" : "no", ino ? "yes" : "no", data_word);
    return 0;
}
