/* Directory listing: opendir/readdir (getdents64) over a directory of created files,
 * names printed sorted, d_type checked, rewinddir, and enough entries to need several calls. */
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list(const char *path, char **names, int max, int *dirs)
{
    DIR *d = opendir(path);
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    *dirs = 0;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        CHECK(n < max);
        if (e->d_type == DT_DIR)
            (*dirs)++;
        else
            CHECK(e->d_type == DT_REG || e->d_type == DT_LNK || e->d_type == DT_UNKNOWN);
        names[n++] = strdup(e->d_name);
    }
    rewinddir(d);
    int again = 0;
    while (readdir(d))
        again++;
    CHECK(again == n + 2);
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    return n;
}

int main(void)
{
    char dir[] = "gdXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK(chdir(dir) == 0);
    const char *small[] = {"zeta", "alpha", "Mixed.Case", "with space", "b"};
    for (unsigned i = 0; i < sizeof small / sizeof *small; i++) {
        int fd = open(small[i], O_CREAT | O_WRONLY, 0644);
        CHECK(fd >= 0);
        close(fd);
    }
    CHECK(mkdir("subdir", 0755) == 0);
    CHECK(symlink("alpha", "link-to-alpha") == 0);

    char *names[600];
    int dirs;
    int n = list(".", names, 600, &dirs);
    printf("%d entries, %d directory:\n", n, dirs);
    for (int i = 0; i < n; i++) {
        printf("  %s\n", names[i]);
        free(names[i]);
    }

    /* Many long names: more than one getdents64 buffer full. */
    CHECK(mkdir("many", 0755) == 0);
    char name[300];
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof name, "many/entry-%03d-%0100d", i, i);
        int fd = open(name, O_CREAT | O_WRONLY, 0644);
        CHECK(fd >= 0);
        close(fd);
    }
    n = list("many", names, 600, &dirs);
    printf("many: %d entries, %d directories\n", n, dirs);
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "entry-%03d-%0100d", i, i);
        CHECK(strcmp(names[i], name) == 0);
        snprintf(name, sizeof name, "many/%s", names[i]);
        CHECK(unlink(name) == 0);
        free(names[i]);
    }
    printf("many: names all present and in order after sorting\n");
    CHECK(rmdir("many") == 0);

    EXPECT_ERR("opendir on a file", (long)(opendir("alpha") ? 0 : -1), ENOTDIR);
    EXPECT_ERR("opendir missing", (long)(opendir("missing") ? 0 : -1), ENOENT);

    for (unsigned i = 0; i < sizeof small / sizeof *small; i++)
        unlink(small[i]);
    unlink("link-to-alpha");
    rmdir("subdir");
    CHECK(chdir("..") == 0 && rmdir(dir) == 0);
    return 0;
}
