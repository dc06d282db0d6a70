/* Supplementary groups: getgroups' count query, a too-small buffer (EINVAL), and, as root,
 * a setgroups/getgroups round trip with gids above 65535 (32-bit arches once had 16-bit
 * gid_t calls; glibc uses the 32-bit ones) and the list restored. Needs root for the round
 * trip: the suite's expected output is made as root, and the program says so otherwise. */
#include "common.h"
#include <grp.h>
#include <sys/types.h>

int main(void)
{
    int n = getgroups(0, NULL);
    CHECK(n >= 0);
    gid_t *orig = malloc(sizeof(gid_t) * (n + 1));
    CHECK(orig != NULL);
    CHECK(getgroups(n, orig) == n);
    printf("getgroups count matches the list: ok\n");

    if (geteuid() != 0) {
        printf("not root: setgroups round trip skipped\n");
        return 0;
    }
    gid_t set[5] = {7, 70000, 3, 4000000000u, 12};
    CHECK(setgroups(5, set) == 0);
    gid_t got[8];
    memset(got, 0xff, sizeof got);
    int m = getgroups(8, got);
    printf("after setgroups of 5: getgroups returns %d:", m);
    for (int i = 0; i < m; i++)
        printf(" %u", (unsigned)got[i]);
    printf("\n");
    printf("count query: %d\n", getgroups(0, NULL));
    EXPECT_ERR("getgroups with room for 2 of 5", getgroups(2, got), EINVAL);
    printf("entries past the count untouched: %d\n", got[5] == (gid_t)-1 && got[7] == (gid_t)-1);
    CHECK(setgroups(0, NULL) == 0);
    printf("after setgroups(0): %d groups\n", getgroups(0, NULL));
    EXPECT_ERR("setgroups with a bad pointer", setgroups(3, (gid_t *)16), EFAULT);
    CHECK(setgroups(n, orig) == 0);
    CHECK(getgroups(0, NULL) == n);
    printf("restored: ok\n");
    return 0;
}
