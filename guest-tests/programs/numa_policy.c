/* NUMA policy and page moves on a machine of one node (node 0): set_mempolicy/get_mempolicy
 * of the thread, mbind and get_mempolicy(MPOL_F_ADDR) of a mapping, MPOL_F_NODE and
 * MPOL_F_MEMS_ALLOWED, set_mempolicy_home_node, migrate_pages and move_pages with their
 * status array, and the EINVAL/EFAULT/ENODEV/EIO cases of mm/mempolicy.c and mm/migrate.c. */
#include "common.h"
#include <sys/mman.h>
#include <sys/syscall.h>

#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_PREFERRED_MANY 5
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_F_NODE 1
#define MPOL_F_ADDR 2
#define MPOL_F_MEMS_ALLOWED 4
#define MPOL_MF_STRICT 1
#define MPOL_MF_MOVE 2

static long get(int *mode, unsigned long *mask, unsigned long maxnode, void *addr, unsigned long flags)
{
    return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}

static long set(int mode, unsigned long *mask, unsigned long maxnode)
{
    return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

static long bind(void *addr, unsigned long len, int mode, unsigned long *mask, unsigned long maxnode, unsigned flags)
{
    return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}

/* Prints the thread's policy: mode (with flags, in hex) and the first node word. */
static void show(const char *label)
{
    int mode = -1;
    unsigned long mask[2] = {0x55, 0x55};
    CHECK(get(&mode, mask, 65, NULL, 0) == 0);
    printf("%s: mode %#x nodes %#lx\n", label, mode, mask[0]);
}

static void show_at(const char *label, void *addr)
{
    int mode = -1;
    unsigned long mask[2] = {0x55, 0x55};
    CHECK(get(&mode, mask, 65, addr, MPOL_F_ADDR) == 0);
    printf("%s: mode %#x nodes %#lx\n", label, mode, mask[0]);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        /* Started by execve below: the thread's policy carried over. */
        show("after execve");
        return 0;
    }
    long page = sysconf(_SC_PAGESIZE);
    unsigned long n0 = 1, n1 = 2, n01 = 3;
    int mode;
    unsigned long mask[4];

    /* The thread's policy. */
    show("default");
    mask[0] = mask[1] = 0x77;
    CHECK(get(&mode, mask, 65, NULL, MPOL_F_MEMS_ALLOWED) == 0);
    printf("mems allowed: %#lx\n", mask[0]);
    EXPECT_ERR("maxnode 0", get(&mode, mask, 0, NULL, 0), EINVAL);
    EXPECT_ERR("mask past a page", get(&mode, mask, 100000, NULL, 0), EINVAL);
    EXPECT_ERR("unknown flag", get(&mode, mask, 65, NULL, 8), EINVAL);
    EXPECT_ERR("addr without MPOL_F_ADDR", get(&mode, NULL, 0, &mode, 0), EINVAL);
    EXPECT_ERR("MEMS_ALLOWED with ADDR", get(&mode, NULL, 0, &mode, MPOL_F_MEMS_ALLOWED | MPOL_F_ADDR), EINVAL);
    EXPECT_ERR("MPOL_F_NODE of the default policy", get(&mode, NULL, 0, NULL, MPOL_F_NODE), EINVAL);
    EXPECT_ERR("mode to a bad pointer", get((int *)8, NULL, 0, NULL, 0), EFAULT);
    EXPECT_ERR("mask to a bad pointer", get(NULL, (unsigned long *)8, 65, NULL, 0), EFAULT);

    CHECK(set(MPOL_BIND, &n0, 65) == 0);
    show("bind {0}");
    EXPECT_ERR("bind {1}", set(MPOL_BIND, &n1, 65), EINVAL);
    CHECK(set(MPOL_BIND, &n01, 65) == 0);
    show("bind {0,1}");
    CHECK(set(MPOL_BIND | MPOL_F_STATIC_NODES, &n01, 65) == 0);
    show("bind static {0,1}");
    CHECK(set(MPOL_BIND | MPOL_F_RELATIVE_NODES, &n1, 65) == 0);
    show("bind relative {1}");
    EXPECT_ERR("static and relative", set(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, &n0, 65), EINVAL);
    CHECK(set(MPOL_PREFERRED, NULL, 0) == 0);
    show("preferred, no nodes");
    CHECK(set(MPOL_PREFERRED, &n01, 65) == 0);
    show("preferred {0,1}");
    EXPECT_ERR("preferred static, no nodes", set(MPOL_PREFERRED | MPOL_F_STATIC_NODES, NULL, 0), EINVAL);
    EXPECT_ERR("local {0}", set(MPOL_LOCAL, &n0, 65), EINVAL);
    CHECK(set(MPOL_LOCAL, NULL, 0) == 0);
    show("local");
    CHECK(set(MPOL_INTERLEAVE, &n0, 65) == 0);
    CHECK(get(&mode, NULL, 0, NULL, MPOL_F_NODE) == 0);
    printf("interleave: next node %d\n", mode);
    CHECK(set(MPOL_PREFERRED_MANY | MPOL_F_NUMA_BALANCING, &n0, 65) == 0);
    show("preferred many, numa balancing");
    EXPECT_ERR("interleave numa balancing", set(MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, &n0, 65), EINVAL);
    EXPECT_ERR("mode 7", set(7, &n0, 65), EINVAL);
    EXPECT_ERR("default {0}", set(MPOL_DEFAULT, &n0, 65), EINVAL);
    EXPECT_ERR("nodes from a bad pointer", set(MPOL_BIND, (unsigned long *)8, 65), EFAULT);
    EXPECT_ERR("maxnode past a page", set(MPOL_BIND, &n0, 40000), EINVAL);
    static unsigned long big[40];
    big[0] = 1;
    big[1] = 1;
    CHECK(set(MPOL_BIND, big, 200) == 0);
    show("bind {0,64}");
    big[1] = 0;
    big[20] = 1;
    EXPECT_ERR("node 1280", set(MPOL_BIND, big, 2000), EINVAL);
    CHECK(set(MPOL_DEFAULT, NULL, 0) == 0);
    show("back to default");

    /* A mapping's policy. */
    char *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    char *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(none != MAP_FAILED);
    CHECK(bind(m + page, page, MPOL_BIND, &n0, 65, 0) == 0);
    show_at("mbind page 1", m + page);
    show_at("page 0", m);
    show_at("page 2", m + 2 * page);
    EXPECT_ERR("mbind unaligned", bind(m + 1, page, MPOL_BIND, &n0, 65, 0), EINVAL);
    CHECK(bind(m, 0, MPOL_BIND, &n0, 65, 0) == 0);
    EXPECT_ERR("mbind unknown flag", bind(m, page, MPOL_BIND, &n0, 65, 8), EINVAL);
    EXPECT_ERR("mbind no nodes", bind(m, page, MPOL_BIND, NULL, 0, 0), EINVAL);
    EXPECT_ERR("mbind {1}", bind(m, page, MPOL_BIND, &n1, 65, 0), EINVAL);
    CHECK(bind(m, page, MPOL_BIND, &n0, 65, MPOL_MF_STRICT | MPOL_MF_MOVE) == 0);
    /* A hole in the range: EFAULT, but not for the default policy. */
    CHECK(munmap(m + 2 * page, page) == 0);
    EXPECT_ERR("mbind over a hole", bind(m, 4 * page, MPOL_BIND, &n0, 65, 0), EFAULT);
    CHECK(bind(m, 4 * page, MPOL_DEFAULT, NULL, 0, 0) == 0);
    show_at("after default over the hole", m + page);
    EXPECT_ERR("mbind default, nothing mapped", bind(m + 2 * page, page, MPOL_DEFAULT, NULL, 0, 0), EFAULT);
    EXPECT_ERR("get_mempolicy of a hole", get(&mode, NULL, 0, m + 2 * page, MPOL_F_ADDR), EFAULT);
    /* STRICT alone finds a present page outside the nodes (relative {1} is node 0 for the
     * policy, but the page's node 0 is not in {1}). */
    m[0] = 1;
    EXPECT_ERR("strict, misplaced page", bind(m, page, MPOL_BIND | MPOL_F_RELATIVE_NODES, &n1, 65, MPOL_MF_STRICT), EIO);
    CHECK(bind(m, page, MPOL_BIND | MPOL_F_RELATIVE_NODES, &n1, 65, MPOL_MF_STRICT | MPOL_MF_MOVE) == 0);
    show_at("relative {1} on page 0", m);

    /* The node of a page. */
    CHECK(get(&mode, NULL, 0, m, MPOL_F_NODE | MPOL_F_ADDR) == 0);
    printf("node of page 0: %d\n", mode);
    CHECK(get(&mode, NULL, 0, m + 3 * page, MPOL_F_NODE | MPOL_F_ADDR) == 0);
    printf("node of untouched page 3: %d\n", mode);
    EXPECT_ERR("node of a PROT_NONE page", get(&mode, NULL, 0, none, MPOL_F_NODE | MPOL_F_ADDR), EFAULT);

    /* Home node. */
    CHECK(bind(m + page, page, MPOL_BIND, &n0, 65, 0) == 0);
    CHECK(syscall(SYS_set_mempolicy_home_node, m + page, page, 0, 0) == 0);
    printf("home node: ok\n");
    EXPECT_ERR("home node of no policy", syscall(SYS_set_mempolicy_home_node, m + 3 * page, page, 0, 0), ENOENT);
    EXPECT_ERR("home node 1", syscall(SYS_set_mempolicy_home_node, m + page, page, 1, 0), EINVAL);
    EXPECT_ERR("home node flags", syscall(SYS_set_mempolicy_home_node, m + page, page, 0, 1), EINVAL);
    CHECK(bind(m + page, page, MPOL_INTERLEAVE, &n0, 65, 0) == 0);
    EXPECT_ERR("home node of interleave", syscall(SYS_set_mempolicy_home_node, m + page, page, 0, 0), EOPNOTSUPP);

    /* migrate_pages: nothing to move on one node. */
    CHECK(syscall(SYS_migrate_pages, 0, 65, &n0, &n0) == 0);
    CHECK(syscall(SYS_migrate_pages, getpid(), 65, &n1, &n0) == 0);
    printf("migrate_pages: ok\n");
    EXPECT_ERR("migrate_pages to no node", syscall(SYS_migrate_pages, 0, 0, NULL, NULL), EINVAL);
    EXPECT_ERR("migrate_pages of no process", syscall(SYS_migrate_pages, 999999999, 65, &n0, &n0), ESRCH);

    /* move_pages: status per page. */
    static int on_data = 1;
    void *pages[5] = {m, m + 3 * page, m + 2 * page, none, &on_data};
    int status[5], nodes[5] = {0, 0, 0, 0, 0};
    memset(status, 0x55, sizeof status);
    CHECK(syscall(SYS_move_pages, 0, 5, pages, NULL, status, 0) == 0);
    printf("move_pages status: %d %s %s %s %d\n", status[0], errname(-status[1]), errname(-status[2]),
           errname(-status[3]), status[4]);
    volatile char c = m[3 * page];
    (void)c;
    CHECK(syscall(SYS_move_pages, 0, 1, &pages[1], NULL, status, 0) == 0);
    printf("zero page: %s\n", errname(-status[0]));
    memset(status, 0x55, sizeof status);
    CHECK(syscall(SYS_move_pages, 0, 5, pages, nodes, status, MPOL_MF_MOVE) == 0);
    printf("moved to node 0: %d %s %s %s %d\n", status[0], errname(-status[1]), errname(-status[2]),
           errname(-status[3]), status[4]);
    nodes[2] = 1;
    memset(status, 0x55, sizeof status);
    EXPECT_ERR("move to node 1", syscall(SYS_move_pages, 0, 5, pages, nodes, status, 0), ENODEV);
    printf("statuses before it: %d %s, after: %s\n", status[0], errname(-status[1]),
           status[2] == 0x55555555 ? "untouched" : "written");
    EXPECT_ERR("move_pages flags", syscall(SYS_move_pages, 0, 1, pages, NULL, status, 8), EINVAL);
    EXPECT_ERR("move_pages of no process", syscall(SYS_move_pages, 999999999, 1, pages, NULL, status, 0), ESRCH);
    EXPECT_ERR("move_pages bad array", syscall(SYS_move_pages, 0, 1, (void *)8, NULL, status, 0), EFAULT);
    EXPECT_ERR("move_pages bad status", syscall(SYS_move_pages, 0, 1, pages, NULL, (void *)8, 0), EFAULT);
    CHECK(syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0) == 0);

    /* execve keeps the thread's policy. */
    CHECK(set(MPOL_BIND | MPOL_F_STATIC_NODES, &n01, 65) == 0);
    fflush(stdout);
    char *args[] = {argv[0], "after-exec", NULL};
    execv("/proc/self/exe", args);
    printf("execv: %s\n", errname(errno));
    return 1;
}
