/* MIPS n64's system-call ABI, through the `syscall` instruction itself: the number in v0, the
 * result in v0 with a3 as the error flag (0: v0 is the value; 1: v0 is the positive errno,
 * in MIPS's numbering), and `pipe` (n64 5021, arch/mips/kernel/syscall.c `sysm_pipe`) taking
 * no argument and returning the read end in v0 and the write end in v1. */
#include "common.h"
#include <sys/syscall.h>

struct res {
    long v0, v1, a3;
};

static struct res raw(long nr, long a0)
{
    register long v0 __asm__("$2") = nr;
    register long v1 __asm__("$3") = 0x5555;
    register long ra0 __asm__("$4") = a0;
    register long ra3 __asm__("$7") = 77;
    __asm__ volatile("syscall"
                     : "+r"(v0), "+r"(v1), "+r"(ra3), "+r"(ra0)
                     :
                     : "memory", "$5", "$6", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15", "$24",
                       "$25", "hi", "lo");
    return (struct res){v0, v1, ra3};
}

int main(void)
{
    struct res r = raw(__NR_close, -1);
    printf("close(-1): a3 %ld, v0 is EBADF: %s\n", r.a3, r.v0 == EBADF ? "yes" : "no");
    r = raw(99999, 0);
    printf("number 99999: a3 %ld, v0 is ENOSYS: %s\n", r.a3, r.v0 == ENOSYS ? "yes" : "no");
    r = raw(__NR_getpid, 0);
    printf("getpid: a3 %ld, v0 is the pid: %s\n", r.a3, r.v0 == getpid() ? "yes" : "no");
    r = raw(__NR_pipe, 0);
    printf("pipe: a3 %ld, two descriptors in v0 and v1: %s\n", r.a3, r.v0 >= 0 && r.v1 >= 0 && r.v0 != r.v1 ? "yes" : "no");
    char c = 0;
    CHECK(write(r.v1, "p", 1) == 1);
    CHECK(read(r.v0, &c, 1) == 1);
    printf("a byte written to v1's end is read from v0's: %s\n", c == 'p' ? "yes" : "no");
    return 0;
}
