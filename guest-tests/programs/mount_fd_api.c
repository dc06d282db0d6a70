/* The file-descriptor mount API in a private mount namespace: fsopen/fsconfig/fsmount and
 * move_mount make a tmpfs, open_tree(OPEN_TREE_CLONE) copies it elsewhere, mount_setattr
 * makes the copy read-only, fspick reconfigures the first read-only; statmount reads its
 * superblock magic and type name and listmount finds it among its parent's mounts (both
 * structs carry 64-bit members: a guest of the other byte order sees its own). statmount
 * and listmount came in Linux 6.8: without them the program says ENOSYS, as natively. */
#include "common.h"
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#define TMPFS_MAGIC 0x01021994

#ifndef __NR_statmount
#if defined(__mips__)
#define __NR_statmount 5457
#define __NR_listmount 5458
#else
#define __NR_statmount 457
#define __NR_listmount 458
#endif
#endif

/* include/uapi/linux/mount.h (Linux 6.8) */
struct mnt_id_req {
    uint32_t size;
    uint32_t spare;
    uint64_t mnt_id;
    uint64_t param;
};
struct statmount_head {
    uint32_t size;
    uint32_t mnt_opts;
    uint64_t mask;
    uint32_t sb_dev_major;
    uint32_t sb_dev_minor;
    uint64_t sb_magic;
    uint32_t sb_flags;
    uint32_t fs_type;
    uint64_t mnt_id;
    uint64_t mnt_parent_id;
};
#define STATMOUNT_SB_BASIC 0x1u
#define STATMOUNT_MNT_BASIC 0x2u
#define STATMOUNT_FS_TYPE 0x20u
#define STATX_MNT_ID_UNIQUE 0x4000u
#define STATMOUNT_STR_OFFSET 512

static int is_tmpfs(const char *p)
{
    struct statfs sf;
    return statfs(p, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

/* The mount's 64-bit unique id (statx STATX_MNT_ID_UNIQUE), or 0. */
static uint64_t mount_id(const char *p)
{
    struct statx sx;
    if (statx(AT_FDCWD, p, 0, STATX_MNT_ID_UNIQUE, &sx) != 0 || !(sx.stx_mask & STATX_MNT_ID_UNIQUE))
        return 0;
    return sx.stx_mnt_id;
}

int main(void)
{
    if (unshare(CLONE_NEWNS) != 0) {
        printf("unshare(CLONE_NEWNS): %s: mount tests skipped\n", errname(errno));
        return 0;
    }
    CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
    CHECK(mkdir("a", 0755) == 0);
    CHECK(mkdir("b", 0755) == 0);

    EXPECT_ERR("fsopen of an unknown type", fsopen("nosuchfs", FSOPEN_CLOEXEC), ENODEV);
    int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
    CHECK(fs >= 0);
    EXPECT_ERR("fsconfig with an unknown command", fsconfig(fs, 99, NULL, NULL, 0), EOPNOTSUPP);
    EXPECT_ERR("fsconfig SET_FLAG with a value", fsconfig(fs, FSCONFIG_SET_FLAG, "ro", "x", 0), EINVAL);
    CHECK(fsconfig(fs, FSCONFIG_SET_STRING, "size", "1m", 0) == 0);
    CHECK(fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) == 0);
    CHECK(fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0);
    int mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV);
    CHECK(mnt >= 0);
    CHECK(move_mount(mnt, "", AT_FDCWD, "a", MOVE_MOUNT_F_EMPTY_PATH) == 0);
    close(mnt);
    close(fs);
    printf("fsopen/fsconfig/fsmount/move_mount: tmpfs at a: %s\n", is_tmpfs("a") ? "yes" : "no");
    int fd = open("a/file", O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);

    int tree = open_tree(AT_FDCWD, "a", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    CHECK(tree >= 0);
    CHECK(move_mount(tree, "", AT_FDCWD, "b", MOVE_MOUNT_F_EMPTY_PATH) == 0);
    close(tree);
    printf("open_tree clone at b shows a's file: %s\n", access("b/file", F_OK) == 0 ? "yes" : "no");

    struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
    EXPECT_ERR("mount_setattr with a short struct", mount_setattr(AT_FDCWD, "b", 0, &attr, 8), EINVAL);
    CHECK(mount_setattr(AT_FDCWD, "b", 0, &attr, sizeof attr) == 0);
    EXPECT_ERR("create on b after mount_setattr(RDONLY)", open("b/new", O_WRONLY | O_CREAT, 0644), EROFS);
    printf("a is still writable: %s\n", access("a", W_OK) == 0 ? "yes" : "no");

    int pick = fspick(AT_FDCWD, "a", FSPICK_CLOEXEC);
    CHECK(pick >= 0);
    CHECK(fsconfig(pick, FSCONFIG_SET_FLAG, "ro", NULL, 0) == 0);
    CHECK(fsconfig(pick, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) == 0);
    close(pick);
    EXPECT_ERR("create on a after fspick reconfigure ro", open("a/new", O_WRONLY | O_CREAT, 0644), EROFS);

    uint64_t id = mount_id("a"), parent = mount_id(".");
    printf("unique mount ids: %s\n", id && parent && id != parent ? "ok" : "none");
    struct mnt_id_req req = {.size = 24, .mnt_id = id, .param = STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC | STATMOUNT_FS_TYPE};
    union {
        struct statmount_head h;
        char raw[4096];
    } sm;
    memset(&sm, 0, sizeof sm);
    long r = syscall(__NR_statmount, &req, &sm, sizeof sm, 0);
    if (r != 0) {
        printf("statmount: %s\n", errname(errno));
    } else {
        printf("statmount: size fits: %s, magic is tmpfs: %s, type %s, id matches: %s, parent matches: %s\n",
               sm.h.size > STATMOUNT_STR_OFFSET && sm.h.size <= sizeof sm ? "yes" : "no",
               sm.h.sb_magic == TMPFS_MAGIC ? "yes" : "no", sm.raw + STATMOUNT_STR_OFFSET + sm.h.fs_type,
               sm.h.mnt_id == id ? "yes" : "no", sm.h.mnt_parent_id == parent ? "yes" : "no");
    }
    struct mnt_id_req small = {.size = 8};
    errno = 0;
    r = syscall(__NR_statmount, &small, &sm, sizeof sm, 0);
    printf("statmount with a short request: %s\n", r == -1 ? errname(errno) : "no error");

    uint64_t ids[64];
    struct mnt_id_req lreq = {.size = 24, .mnt_id = parent};
    r = syscall(__NR_listmount, &lreq, ids, 64, 0);
    if (r < 0) {
        printf("listmount: %s\n", errname(errno));
    } else {
        int found_a = 0, found_b = 0;
        uint64_t idb = mount_id("b");
        for (long i = 0; i < r; i++) {
            found_a |= ids[i] == id;
            found_b |= ids[i] == idb;
        }
        printf("listmount of the parent finds a: %s, b: %s\n", found_a ? "yes" : "no", found_b ? "yes" : "no");
    }

    CHECK(umount2("b", 0) == 0);
    CHECK(umount2("a", 0) == 0);
    printf("unmounted: %s\n", !is_tmpfs("a") && !is_tmpfs("b") ? "yes" : "no");
    return 0;
}
