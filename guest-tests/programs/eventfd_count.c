/* An eventfd carries one u64 counter that reads and writes exchange in the caller's byte
 * order (eventfd(2)): an initial value of 5 plus a written 0x10002 reads back as 0x10007 through
 * a dup of the fd. */
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/eventfd.h>
int main(void) {
    int fd = eventfd(5, 0);
    uint64_t v = 0x10002;
    if (write(fd, &v, 8) != 8) return 1;
    int d = dup(fd);
    if (read(d, &v, 8) != 8) return 2;
    printf("eventfd count %llu\n", (unsigned long long)v);
    return v != 0x10007;
}
