/* sysinfo and sysconf: plausible memory sizes, uptime and processor counts. */
#include "common.h"
#include <sys/sysinfo.h>

int main(void)
{
    struct sysinfo si;
    CHECK(sysinfo(&si) == 0);
    unsigned long long unit = si.mem_unit ? si.mem_unit : 1;
    printf("mem_unit non-zero: %d\n", si.mem_unit > 0);
    printf("totalram above 64MiB: %d\n", si.totalram * unit > (64ULL << 20));
    printf("freeram <= totalram: %d\n", si.freeram <= si.totalram);
    printf("uptime positive: %d\n", si.uptime > 0);
    printf("procs positive: %d\n", si.procs > 0);
    /* Every field after the first few checked too: struct sysinfo's longs are 4 or 8 bytes
     * per arch, with padding at the end on 32-bit ones. */
    printf("sharedram and bufferram <= totalram: %d\n", si.sharedram <= si.totalram && si.bufferram <= si.totalram);
    printf("freeswap <= totalswap: %d\n", si.freeswap <= si.totalswap);
    printf("freehigh <= totalhigh: %d\n", si.freehigh <= si.totalhigh);
    printf("mem_unit is a power of two: %d\n", si.mem_unit && (si.mem_unit & (si.mem_unit - 1)) == 0);
    /* 1 (byte counts); a 64-bit kernel gives a 32-bit program the page size when its memory
     * or swap does not fit 32 bits (kernel/sys.c, compat sysinfo). */
    printf("mem_unit is 1 or the page size: %d\n", si.mem_unit == 1 || si.mem_unit == (unsigned)sysconf(_SC_PAGESIZE));
    struct sysinfo again;
    CHECK(sysinfo(&again) == 0);
    printf("second call: same totalram and mem_unit, uptime not behind: %d\n",
           again.totalram == si.totalram && again.mem_unit == si.mem_unit && again.uptime >= si.uptime);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    printf("online processors positive: %d\n", n > 0);
    printf("get_nprocs positive: %d\n", get_nprocs() > 0);
    printf("page size: %ld\n", sysconf(_SC_PAGESIZE));
    printf("_SC_CLK_TCK: %ld\n", sysconf(_SC_CLK_TCK));
    EXPECT_ERR("bad pointer", sysinfo((struct sysinfo *)16), EFAULT);
    return 0;
}
