/* A file system on a loop device: a loop device attached to a file (LOOP_CTL_GET_FREE,
 * LOOP_CONFIGURE, retried when a parallel run takes the same device first, as losetup does),
 * its size read with BLKGETSIZE64 and BLKGETSIZE, a tiny ext2 image written onto the device
 * by this program (no mkfs in a guest), mounted read-only in a private mount namespace, a
 * file read back from it, unmounted and the device detached. Where the machine does not
 * allow it (no loop driver, no CAP_SYS_ADMIN, no ext2) one line says why and the rest is
 * skipped. ext2's layout: Documentation/filesystems/ext2.rst and include/linux/ext2_fs.h. */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define BLK 1024u
#define NBLOCKS 64u
#define NINODES 16u
#define FILE_INO 12u
static const char greeting[] = "hello from an ext2 image\n";

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/* Block 1 superblock, 2 group descriptors, 3 block bitmap, 4 inode bitmap, 5-6 inode table
 * (16 inodes of 128 bytes), 7 the root directory, 8 the file's data; one block group. */
static void make_ext2(uint8_t *img)
{
    memset(img, 0, NBLOCKS * BLK);
    const unsigned used_blocks = 8; /* blocks 1..8 */
    uint8_t *sb = img + BLK;
    put32(sb + 0, NINODES);                    /* s_inodes_count */
    put32(sb + 4, NBLOCKS);                    /* s_blocks_count */
    put32(sb + 12, NBLOCKS - 1 - used_blocks); /* s_free_blocks_count */
    put32(sb + 16, NINODES - FILE_INO);        /* s_free_inodes_count */
    put32(sb + 20, 1);                         /* s_first_data_block */
    put32(sb + 24, 0);                         /* s_log_block_size: 1024 */
    put32(sb + 32, 8192);                      /* s_blocks_per_group */
    put32(sb + 36, 8192);                      /* s_frags_per_group */
    put32(sb + 40, NINODES);                   /* s_inodes_per_group */
    put16(sb + 54, 0xffff);                    /* s_max_mnt_count: -1 */
    put16(sb + 56, 0xef53);                    /* s_magic */
    put16(sb + 58, 1);                         /* s_state: clean */
    put16(sb + 60, 1);                         /* s_errors: continue */
    put32(sb + 76, 1);                         /* s_rev_level: dynamic */
    put32(sb + 84, 11);                        /* s_first_ino */
    put16(sb + 88, 128);                       /* s_inode_size */

    uint8_t *gd = img + 2 * BLK;
    put32(gd + 0, 3);                          /* bg_block_bitmap */
    put32(gd + 4, 4);                          /* bg_inode_bitmap */
    put32(gd + 8, 5);                          /* bg_inode_table */
    put16(gd + 12, NBLOCKS - 1 - used_blocks); /* bg_free_blocks_count */
    put16(gd + 14, NINODES - FILE_INO);        /* bg_free_inodes_count */
    put16(gd + 16, 1);                         /* bg_used_dirs_count */

    /* Bit n of the block bitmap is block n+1; bits past the group's last block are set. */
    uint8_t *bb = img + 3 * BLK;
    for (unsigned bit = 0; bit < BLK * 8; bit++)
        if (bit < used_blocks || bit >= NBLOCKS - 1)
            bb[bit / 8] |= (uint8_t)(1u << (bit % 8));
    uint8_t *ib = img + 4 * BLK;
    for (unsigned bit = 0; bit < BLK * 8; bit++)
        if (bit < FILE_INO || bit >= NINODES)
            ib[bit / 8] |= (uint8_t)(1u << (bit % 8));

    uint8_t *root = img + 5 * BLK + (2 - 1) * 128;
    put16(root + 0, 040755);
    put32(root + 4, BLK); /* i_size */
    put16(root + 26, 2);  /* i_links_count: . and .. */
    put32(root + 28, 2);  /* i_blocks, in 512-byte sectors */
    put32(root + 40, 7);  /* i_block[0] */
    uint8_t *file = img + 5 * BLK + (FILE_INO - 1) * 128;
    put16(file + 0, 0100644);
    put32(file + 4, sizeof greeting - 1);
    put16(file + 26, 1);
    put32(file + 28, 2);
    put32(file + 40, 8);

    uint8_t *d = img + 7 * BLK;
    put32(d + 0, 2);
    put16(d + 4, 12);
    d[6] = 1;
    d[8] = '.';
    put32(d + 12, 2);
    put16(d + 16, 12);
    d[18] = 2;
    memcpy(d + 20, "..", 2);
    put32(d + 24, FILE_INO);
    put16(d + 28, BLK - 24);
    d[30] = 9;
    memcpy(d + 32, "hello.txt", 9);

    memcpy(img + 8 * BLK, greeting, sizeof greeting - 1);
}

/* A free loop device attached to fd f: another process may take the number
 * LOOP_CTL_GET_FREE gave before our LOOP_CONFIGURE (EBUSY), then we ask again. */
static char dname[32];

static int attach(int ctl, int f)
{
    for (int tries = 0; tries < 200; tries++) {
        int n = ioctl(ctl, LOOP_CTL_GET_FREE);
        if (n < 0)
            return -1;
        snprintf(dname, sizeof dname, "/dev/loop%d", n);
        int d = open(dname, O_RDWR | O_CLOEXEC);
        if (d < 0) {
            if (errno == ENOENT || errno == ENXIO || errno == EBUSY) {
                usleep(10000); /* its node not made yet, or just removed */
                continue;
            }
            return -1;
        }
        struct loop_config cfg = { .fd = (uint32_t)f, .block_size = 512 };
        cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
        strcpy((char *)cfg.info.lo_file_name, "fs.img");
        if (ioctl(d, LOOP_CONFIGURE, &cfg) == 0)
            return d;
        int e = errno;
        close(d);
        if (e != EBUSY) {
            errno = e;
            return -1;
        }
    }
    errno = EBUSY;
    return -1;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0) {
        printf("loop: no /dev/loop-control (%s): skipped\n", errname(errno));
        return 0;
    }
    int f = open("fs.img", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    CHECK(f >= 0 && ftruncate(f, 1 << 20) == 0);
    int dev = attach(ctl, f);
    if (dev < 0) {
        printf("loop: no free device to attach (%s): skipped\n", errname(errno));
        return 0;
    }
    uint64_t size = 0;
    unsigned long sectors = 0;
    CHECK(ioctl(dev, BLKGETSIZE64, &size) == 0 && ioctl(dev, BLKGETSIZE, &sectors) == 0);
    printf("loop: BLKGETSIZE64 %llu, BLKGETSIZE %lu sectors\n", (unsigned long long)size, sectors);

    static uint8_t img[NBLOCKS * BLK];
    make_ext2(img);
    CHECK(pwrite(dev, img, sizeof img, 0) == (ssize_t)sizeof img && fsync(dev) == 0);
    printf("loop: wrote a %u KiB ext2 image onto the device\n", NBLOCKS * BLK / 1024);

    if (unshare(CLONE_NEWNS) != 0) {
        printf("unshare(CLONE_NEWNS): %s: mount skipped\n", errname(errno));
    } else {
        CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
        CHECK(mkdir("mnt", 0755) == 0);
        if (mount(dname, "mnt", "ext2", MS_RDONLY, NULL) != 0) {
            printf("mount of the ext2 image: %s: skipped\n", errname(errno));
        } else {
            struct statfs sfs;
            CHECK(statfs("mnt", &sfs) == 0);
            printf("mount: ext2 magic %d, block size %ld, %ld blocks\n", sfs.f_type == 0xef53, (long)sfs.f_bsize,
                   (long)sfs.f_blocks);
            struct stat st;
            CHECK(stat("mnt/hello.txt", &st) == 0);
            printf("mount: hello.txt inode %lu, size %lld, mode %o\n", (unsigned long)st.st_ino,
                   (long long)st.st_size, (unsigned)st.st_mode);
            int h = open("mnt/hello.txt", O_RDONLY | O_CLOEXEC);
            CHECK(h >= 0);
            char buf[64] = { 0 };
            CHECK(read(h, buf, sizeof buf - 1) == (ssize_t)(sizeof greeting - 1));
            close(h);
            printf("mount: read back: %s", buf);
            EXPECT_ERR("mount: creating a file on the read-only mount", open("mnt/new", O_CREAT | O_WRONLY, 0644),
                       EROFS);
            CHECK(umount2("mnt", 0) == 0);
            printf("umount: ok\n");
        }
    }
    CHECK(ioctl(dev, LOOP_CLR_FD, 0) == 0);
    close(dev);
    close(ctl);
    close(f);
    printf("loop: detached\n");
    return 0;
}
