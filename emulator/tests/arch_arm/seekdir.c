/* readdir, telldir and seekdir over a directory large enough for hashed positions, with
   glibc's default 32-bit off_t on armhf: every position must fit and seek back exactly. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void) {
    mkdir("d", 0755);
    char name[64];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "d/file-with-a-longer-name-%03d", i);
        FILE *f = fopen(name, "w");
        if (f) fclose(f);
    }
    DIR *d = opendir("d");
    int n = 0, seek_ok = 0, checked = 0;
    long pos[400];
    char names[400][64];
    struct dirent *e;
    errno = 0;
    while (n < 400) {
        pos[n] = telldir(d);
        if (!(e = readdir(d))) break;
        snprintf(names[n++], 64, "%s", e->d_name);
    }
    printf("entries %d, readdir errno %s\n", n, errno ? strerror(errno) : "none");
    for (int i = n - 1; i >= 0; i -= 37) {
        seekdir(d, pos[i]);
        e = readdir(d);
        checked++;
        seek_ok += e && !strcmp(e->d_name, names[i]);
    }
    printf("seekdir back: %d of %d\n", seek_ok, checked);
    rewinddir(d);
    int again = 0;
    while (readdir(d)) again++;
    printf("after rewinddir: %d\n", again);
    closedir(d);
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "d/file-with-a-longer-name-%03d", i);
        unlink(name);
    }
    rmdir("d");
    return 0;
}
