/* Every entry of /proc/self/fd, /proc/self/fdinfo and /proc/self/task/TID/fd names a
 * descriptor the program holds (proc(5)): dup(2) of each succeeds. An emulator's own
 * descriptors, which the guest cannot use, are not listed. */
#define _GNU_SOURCE 1
#include "common.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>

static void check(const char *path)
{
    DIR *d = opendir(path);
    CHECK(d != NULL);
    int listed = 0, refused = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        listed++;
        int fd = atoi(e->d_name);
        int copy = dup(fd);
        if (copy < 0) {
            refused++;
            printf("  %s: entry %s: dup: %s\n", path, e->d_name, strerror(errno));
        } else {
            close(copy);
        }
    }
    closedir(d);
    printf("%s: some listed %d, listed but not held %d\n", strncmp(path, "/proc/self/task/", 16) != 0 ? path : "/proc/self/task/TID/fd",
           listed > 0, refused);
}

int main(void)
{
    char task[64];
    check("/proc/self/fd");
    check("/proc/self/fdinfo");
    snprintf(task, sizeof task, "/proc/self/task/%ld/fd", (long)syscall(SYS_gettid));
    check(task);
    return 0;
}
