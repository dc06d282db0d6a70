#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/statfs.h>
int main(void) {
    int fd = open("sparse.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror("open"); return 1; }
    off_t big = 5LL << 30, at = (9LL << 29) + 12;
    printf("ftruncate 5GiB: %d\n", ftruncate(fd, big));
    printf("pwrite at 4.5GiB+12: %zd\n", pwrite(fd, "XYZ", 3, at));
    printf("lseek end: %lld\n", (long long)lseek(fd, 0, SEEK_END));
    printf("lseek set 4GiB+1: %lld\n", (long long)lseek(fd, (4LL << 30) + 1, SEEK_SET));
    printf("lseek cur -2: %lld\n", (long long)lseek(fd, -2, SEEK_CUR));
    char buf[8] = {0};
    printf("pread: %zd %s\n", pread(fd, buf, 3, at), buf);
    lseek(fd, at + 1, SEEK_SET);
    memset(buf, 0, sizeof buf);
    printf("read: %zd %s\n", read(fd, buf, 2), buf);
    struct stat st;
    int r = fstat(fd, &st);
    printf("fstat: %d size %lld\n", r, (long long)st.st_size);
    r = stat("sparse.bin", &st);
    printf("stat: %d size %lld regular %d\n", r, (long long)st.st_size, S_ISREG(st.st_mode));
    char *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 9LL << 29);
    printf("mmap at 4.5GiB: %s %.3s\n", p == MAP_FAILED ? "failed" : "ok", p == MAP_FAILED ? "" : p + 12);
    printf("truncate 4GiB+3: %d\n", truncate("sparse.bin", (4LL << 30) + 3));
    stat("sparse.bin", &st);
    printf("size now %lld\n", (long long)st.st_size);
    struct statfs sf;
    r = fstatfs(fd, &sf);
    printf("fstatfs: %d bsize>0 %d\n", r, sf.f_bsize > 0);
    printf("fallocate: %d\n", fallocate(fd, 0, 6LL << 30, 4096));
    fstat(fd, &st);
    printf("size after fallocate %lld\n", (long long)st.st_size);
    close(fd);
    unlink("sparse.bin");
    return 0;
}
