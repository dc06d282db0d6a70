/* Kernel key management through raw system calls (add_key(2), request_key(2), keyctl(2); uapi
 * linux/keyctl.h), inside a new anonymous session keyring so the output does not depend on the
 * keys of the user running it: user keys added, described, read, updated, searched, linked
 * and unlinked, moved, revoked and invalidated; a keyring's contents (key_serial_t values);
 * permissions and timeouts; the errors for bad pointers, unknown types and operations. */
#include "common.h"
#include <linux/keyctl.h>
#include <stdint.h>
#include <sys/syscall.h>

typedef int32_t key_serial_t;

static long add_key(const char *type, const char *desc, const void *p, size_t n, key_serial_t ring)
{
    return syscall(SYS_add_key, type, desc, p, n, ring);
}
static long request_key(const char *type, const char *desc, const char *info, key_serial_t ring)
{
    return syscall(SYS_request_key, type, desc, info, ring);
}
static long kc(int op, unsigned long a, unsigned long b, unsigned long c, unsigned long d)
{
    return syscall(SYS_keyctl, op, a, b, c, d);
}

/* The description's type and name ("user;uid;gid;perm;name" -> "user ... name"). */
static void show_desc(const char *label, key_serial_t k)
{
    char buf[256];
    long n = kc(KEYCTL_DESCRIBE, k, (unsigned long)buf, sizeof buf, 0);
    if (n < 0) {
        printf("%s: %s\n", label, errname(errno));
        return;
    }
    char *type = strtok(buf, ";");
    strtok(NULL, ";");
    strtok(NULL, ";");
    char *perm = strtok(NULL, ";");
    char *name = strtok(NULL, "");
    printf("%s: type %s perm %s name %s (len %ld)\n", label, type, perm, name ? name : "", n);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    long ses = kc(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0);
    if (ses < 0) {
        printf("keyrings not available: skipped\n");
        return 0;
    }
    CHECK(kc(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0, 0) == ses);
    show_desc("session", (key_serial_t)ses);

    key_serial_t k1 = (key_serial_t)add_key("user", "endgate:one", "payload-1", 9, KEY_SPEC_SESSION_KEYRING);
    CHECK(k1 > 0);
    show_desc("k1", k1);
    char buf[256];
    memset(buf, 0, sizeof buf);
    printf("read k1: %ld [%s]\n", kc(KEYCTL_READ, k1, (unsigned long)buf, sizeof buf, 0), buf);
    memset(buf, 0, sizeof buf);
    printf("read k1 short: %ld [%s]\n", kc(KEYCTL_READ, k1, (unsigned long)buf, 4, 0), buf);
    printf("read k1 NULL: %ld\n", kc(KEYCTL_READ, k1, 0, 0, 0));
    printf("describe into small buffer: %ld\n", kc(KEYCTL_DESCRIBE, k1, (unsigned long)buf, 3, 0));

    /* Adding the same description again updates the key in place. */
    key_serial_t again = (key_serial_t)add_key("user", "endgate:one", "payload-2!", 10, KEY_SPEC_SESSION_KEYRING);
    memset(buf, 0, sizeof buf);
    kc(KEYCTL_READ, k1, (unsigned long)buf, sizeof buf, 0);
    printf("add again: same key %d, payload [%s]\n", again == k1, buf);
    CHECK(kc(KEYCTL_UPDATE, k1, (unsigned long)"third", 5, 0) == 0);
    memset(buf, 0, sizeof buf);
    kc(KEYCTL_READ, k1, (unsigned long)buf, sizeof buf, 0);
    printf("updated payload [%s]\n", buf);

    EXPECT_ERR("user key without payload", add_key("user", "endgate:two", "", 0, KEY_SPEC_SESSION_KEYRING), EINVAL);
    key_serial_t k2 = (key_serial_t)add_key("user", "endgate:two", "b", 1, KEY_SPEC_SESSION_KEYRING);
    CHECK(k2 > 0);

    /* A keyring's contents are key_serial_t values. */
    key_serial_t ring = (key_serial_t)add_key("keyring", "endgate:ring", NULL, 0, KEY_SPEC_SESSION_KEYRING);
    CHECK(ring > 0);
    show_desc("ring", ring);
    CHECK(kc(KEYCTL_LINK, k1, ring, 0, 0) == 0);
    CHECK(kc(KEYCTL_LINK, k2, ring, 0, 0) == 0);
    key_serial_t ids[8] = { 0 };
    long n = kc(KEYCTL_READ, ring, (unsigned long)ids, sizeof ids, 0);
    printf("ring holds %ld bytes: k1 %d k2 %d\n", n, ids[0] == k1 || ids[1] == k1, ids[0] == k2 || ids[1] == k2);
    printf("search ring for two: %d\n",
           kc(KEYCTL_SEARCH, ring, (unsigned long)"user", (unsigned long)"endgate:two", 0) == k2);
    EXPECT_ERR("search for a missing key", kc(KEYCTL_SEARCH, ring, (unsigned long)"user", (unsigned long)"nope", 0),
               ENOKEY);
    printf("request_key finds k1: %d\n", request_key("user", "endgate:one", NULL, 0) == k1);
    EXPECT_ERR("request_key of a missing key", request_key("user", "endgate:none", NULL, 0), ENOKEY);
    CHECK(kc(KEYCTL_UNLINK, k2, ring, 0, 0) == 0);
    printf("after unlink: %ld bytes\n", kc(KEYCTL_READ, ring, (unsigned long)ids, sizeof ids, 0));
    EXPECT_ERR("unlink again", kc(KEYCTL_UNLINK, k2, ring, 0, 0), ENOENT);

    /* Move k1 from the ring to a second ring. */
    key_serial_t ring2 = (key_serial_t)add_key("keyring", "endgate:ring2", NULL, 0, KEY_SPEC_SESSION_KEYRING);
    CHECK(kc(KEYCTL_MOVE, k1, ring, ring2, 0) == 0);
    printf("moved: ring %ld bytes, ring2 %ld bytes\n", kc(KEYCTL_READ, ring, (unsigned long)ids, sizeof ids, 0),
           kc(KEYCTL_READ, ring2, (unsigned long)ids, sizeof ids, 0));

    /* Permissions and timeouts. */
    CHECK(kc(KEYCTL_SETPERM, k2, 0x3f010000, 0, 0) == 0);
    show_desc("k2 after setperm", k2);
    CHECK(kc(KEYCTL_SET_TIMEOUT, k2, 1000, 0, 0) == 0);
    CHECK(kc(KEYCTL_CHOWN, k2, (unsigned long)-1, (unsigned long)-1, 0) == 0);
    printf("get_security: %d\n", kc(KEYCTL_GET_SECURITY, k2, (unsigned long)buf, sizeof buf, 0) >= 0);
    long old = kc(KEYCTL_SET_REQKEY_KEYRING, KEY_REQKEY_DEFL_NO_CHANGE, 0, 0, 0);
    printf("set_reqkey_keyring no change: %d\n", old >= 0);

    /* Revoked and invalidated keys. */
    CHECK(kc(KEYCTL_REVOKE, k2, 0, 0, 0) == 0);
    EXPECT_ERR("read revoked", kc(KEYCTL_READ, k2, (unsigned long)buf, sizeof buf, 0), EKEYREVOKED);
    key_serial_t k3 = (key_serial_t)add_key("user", "endgate:three", "x", 1, KEY_SPEC_SESSION_KEYRING);
    CHECK(kc(KEYCTL_INVALIDATE, k3, 0, 0, 0) == 0);
    CHECK(kc(KEYCTL_CLEAR, ring2, 0, 0, 0) == 0);
    printf("cleared ring2: %ld bytes\n", kc(KEYCTL_READ, ring2, (unsigned long)ids, sizeof ids, 0));

    unsigned char caps[4] = { 0 };
    long capn = kc(KEYCTL_CAPABILITIES, (unsigned long)caps, 2, 0, 0);
    printf("capabilities: %ld bytes, CAPABILITIES bit %d\n", capn, caps[0] & KEYCTL_CAPS0_CAPABILITIES);

    /* Errors. */
    EXPECT_ERR("add_key unknown type", add_key("no-such-type", "d", "p", 1, KEY_SPEC_SESSION_KEYRING), ENODEV);
    EXPECT_ERR("add_key bad type pointer", add_key((char *)8, "d", "p", 1, KEY_SPEC_SESSION_KEYRING), EFAULT);
    EXPECT_ERR("add_key bad payload", add_key("user", "d", (char *)8, 4, KEY_SPEC_SESSION_KEYRING), EFAULT);
    EXPECT_ERR("add_key payload too long", add_key("user", "d", (char *)8, 2 << 20, KEY_SPEC_SESSION_KEYRING),
               EINVAL);
    EXPECT_ERR("add_key empty type", add_key("", "d", "p", 1, KEY_SPEC_SESSION_KEYRING), EINVAL);
    EXPECT_ERR("add_key bad keyring", add_key("user", "d", "p", 1, 0x7ffffff0), ENOKEY);
    EXPECT_ERR("keyctl unknown op", kc(99, 0, 0, 0, 0), EOPNOTSUPP);
    EXPECT_ERR("describe bad buffer", kc(KEYCTL_DESCRIBE, ring, 8, 100, 0), EFAULT);
    EXPECT_ERR("describe no such key", kc(KEYCTL_DESCRIBE, 0x7ffffff0, (unsigned long)buf, sizeof buf, 0), ENOKEY);
    EXPECT_ERR("update bad payload", kc(KEYCTL_UPDATE, k3, 8, 4, 0), EFAULT);
    EXPECT_ERR("search bad type", kc(KEYCTL_SEARCH, ring, 8, (unsigned long)"x", 0), EFAULT);
    EXPECT_ERR("join bad name", kc(KEYCTL_JOIN_SESSION_KEYRING, 8, 0, 0, 0), EFAULT);
    printf("done\n");
    return 0;
}
