//! Mounts and the root directory, passed to the host: `mount`, `umount`/`umount2`,
//! `pivot_root`, `chroot`, and the file-descriptor mount API (`fsopen`, `fsconfig`, `fsmount`,
//! `fspick`, `open_tree`, `move_mount`, `mount_setattr`, `listmount`, `statmount`).
//!
//! The guest's mounts are the host process's: the host decides (`EPERM` without
//! `CAP_SYS_ADMIN` in the mount namespace's user namespace; a guest that wants to change
//! nothing outside itself makes a private mount namespace first, as natively). Paths go
//! through [`super::path`] (the `-L` sysroot), names that are not paths (file system types,
//! `fsconfig` keys and string values, a `tmpfs` "source") are handed on as they are. The
//! numbers are the same on every arch (include/uapi/linux/mount.h: `MS_*`, `MNT_*`,
//! `MOVE_MOUNT_*`, `MOUNT_ATTR_*`, `FSCONFIG_*`; `OPEN_TREE_CLOEXEC` is `O_CLOEXEC`, one
//! value on every arch endgate runs); the structs are made of `__u32` and `__u64` members
//! aligned to their size, so only a guest of the other byte order (s390x) needs them
//! converted: `struct mount_attr`, `struct mnt_id_req`, `struct statmount` and `listmount`'s
//! array of ids.
//!
//! Before a call that can take paths away from endgate (a mount over `/proc`, an unmount, a
//! new root) endgate takes its own handles ([`super::selfref::ensure`]); after `chroot` and
//! `pivot_root` the sysroot no longer applies ([`super::selfref::mark_root_changed`]).

use std::ffi::CString;

use syscalls::Errno;

use super::path::{host_path, host_path_in, Last};
use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::{Endian, GuestAddr, PAGE_SIZE, PATH_MAX};

/// A page in bytes, as a length (`PAGE_SIZE`).
const PAGE: usize = 4096;

/// A string argument that is not a path (a file system type, a mount source that is not a
/// path, an `fsconfig` key), or `None` for NULL: at most `max` bytes with its NUL, `EINVAL`
/// beyond (`strndup_user`), `EFAULT`.
fn opt_string(t: &Task, addr: GuestAddr, max: usize) -> Result<Option<CString>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    let raw = t.mm.read_cstr(addr, max).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })?;
    // `read_cstr` stops at the first NUL.
    Ok(Some(CString::new(raw).unwrap_or_default()))
}

/// A source that is either a path (a block device, a bind mount's directory: mapped like any
/// path) or a name (`none`, `tmpfs`: an absolute path only maps when it exists under the
/// sysroot, so a name stays as it is).
fn opt_source(t: &Task, addr: GuestAddr) -> Result<Option<CString>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    let raw = t.mm.read_cstr(addr, PATH_MAX).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::EINVAL } else { e })?;
    Ok(Some(mapped(t, raw)))
}

/// A path the host keeps by name (a mount's source, `fsconfig`'s `FSCONFIG_SET_PATH`): the
/// host file's own path (under `--root`, what the lookup found inside the guest's root), or
/// the name as it is when nothing is found.
fn mapped(t: &Task, raw: Vec<u8>) -> CString {
    if super::rootfs::active() {
        if raw.first() != Some(&b'/') {
            return CString::new(raw).unwrap_or_default();
        }
        let p = super::rootfs::host_file(&raw);
        return CString::new(p.into_os_string().into_encoded_bytes()).unwrap_or_default();
    }
    super::path::lookup(t, libc::AT_FDCWD, raw, super::path::Last::Follow)
        .map(super::path::HostPath::into_cstring)
        .unwrap_or_default()
}

/// `CAP_SYS_CHROOT` (include/uapi/linux/capability.h).
const CAP_SYS_CHROOT: u32 = 18;

fn ptr_or_null(s: &Option<CString>) -> *const libc::c_char {
    s.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
}

/// `mount`'s data: up to a page, as much of it as is readable (fs/namespace.c
/// `copy_mount_options`); `EFAULT` if none is.
fn mount_data(t: &Task, addr: GuestAddr) -> Result<Option<Vec<u8>>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    let mut data = vec![0u8; PAGE];
    let mut got = 0usize;
    while got < data.len() {
        let at = addr + got as u64;
        let in_page = usize::try_from(PAGE_SIZE - at.get() % PAGE_SIZE).unwrap_or(PAGE);
        let n = in_page.min(data.len() - got);
        if t.mm.read_bytes(at, &mut data[got..got + n]).is_err() {
            break;
        }
        got += n;
    }
    if got == 0 {
        return Err(Errno::EFAULT);
    }
    Ok(Some(data))
}

/// `mount(const char *source, const char *target, const char *fstype, unsigned long flags,
/// const void *data)` (mount(2)). Errors: the host's (`EPERM`, `ENODEV`, `ENOENT`,
/// `ENOTBLK`, `EBUSY`, `EINVAL`…), `EFAULT`.
pub fn mount(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let source = opt_source(t, a.ptr(0))?;
    let target = host_path(t, a.ptr(1))?;
    if target.resolved().is_some_and(super::rootfs::in_bind) {
        // Under `--root`, /proc, /sys and /dev are the host's, mounted already: a guest
        // mounting there (a bootstrap's `mount -t proc proc /proc`) sees that done.
        return Ok(0);
    }
    let fstype = opt_string(t, a.ptr(2), PAGE)?;
    let data = mount_data(t, a.ptr(4))?;
    super::selfref::ensure();
    let data_ptr = data.as_ref().map_or(std::ptr::null(), |d| d.as_ptr());
    // SAFETY: NUL-terminated strings or NULL, a page of data or NULL, all alive across the call.
    host_ret(unsafe {
        libc::syscall(
            libc::SYS_mount,
            ptr_or_null(&source),
            target.as_ptr(),
            ptr_or_null(&fstype),
            a.ulong(3),
            data_ptr,
        )
    })
}

/// `umount2(const char *target, int flags)` (umount(2)). Errors: the host's (`EINVAL` for
/// unknown flags, `EBUSY`, `EPERM`…).
pub fn umount2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // `UMOUNT_NOFOLLOW` (8): a last link is not followed.
    let last = if a.int(1) & 8 != 0 { super::path::Last::NoFollow } else { super::path::Last::FollowName };
    let target = super::path::host_path_in(cpu.get_data(), libc::AT_FDCWD, a.ptr(0), last)?;
    if target.resolved().is_some_and(super::rootfs::in_bind) {
        // Under `--root`, the host's /proc, /sys and /dev stay mounted.
        return Ok(0);
    }
    super::selfref::ensure();
    // SAFETY: a NUL-terminated path.
    host_ret(unsafe { libc::syscall(libc::SYS_umount2, target.as_ptr(), a.int_arg(1)) })
}

/// `umount(const char *target)`, the old form (`umount2(target, 0)`).
pub fn umount(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    umount2(cpu, &a.with([a.raw(0), 0, 0, 0, 0, 0]))
}

/// `pivot_root(const char *new_root, const char *put_old)` (pivot_root(2)). Errors: the
/// host's.
pub fn pivot_root(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    if super::rootfs::active() {
        // The guest's root is not a host mount endgate could swap (docs/root.md).
        return Err(Errno::EINVAL);
    }
    let new_root = host_path(t, a.ptr(0))?;
    let put_old = host_path(t, a.ptr(1))?;
    super::selfref::ensure();
    // SAFETY: NUL-terminated paths.
    let r = host_ret(unsafe { libc::syscall(libc::SYS_pivot_root, new_root.as_ptr(), put_old.as_ptr()) })?;
    super::selfref::mark_root_changed();
    Ok(r)
}

/// `chroot(const char *path)` (chroot(2)). Errors: the host's (`EPERM`, `ENOENT`,
/// `ENOTDIR`…).
pub fn chroot(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = host_path(cpu.get_data(), a.ptr(0))?;
    if let Some(r) = path.resolved() {
        // Under `--root` the guest's root is endgate's to move: no host chroot, but the
        // permission Linux asks for (CAP_SYS_CHROOT, after the lookup's own errors).
        // Under `--fakeroot` the guest holds every capability it asks capget about.
        if !super::capability::has_effective(CAP_SYS_CHROOT) && !super::fakeroot::on() {
            return Err(Errno::EPERM);
        }
        super::rootfs::chroot(r)?;
        return Ok(0);
    }
    super::selfref::ensure();
    // SAFETY: a NUL-terminated path.
    let r = host_ret(i64::from(unsafe { libc::chroot(path.as_ptr()) }))?;
    super::selfref::mark_root_changed();
    Ok(r)
}

/// `fsopen(const char *fsname, unsigned int flags)`: a file system context descriptor.
/// Errors: the host's (`ENODEV`, `EPERM`, `EINVAL`).
pub fn fsopen(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let name = opt_string(cpu.get_data(), a.ptr(0), PAGE)?;
    // SAFETY: a NUL-terminated string or NULL.
    host_ret(unsafe { libc::syscall(libc::SYS_fsopen, ptr_or_null(&name), u64::from(a.uint(1))) })
}

/// `fspick(int dirfd, const char *path, unsigned int flags)`: the context of an existing
/// mount. Errors: the host's.
pub fn fspick(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // `FSPICK_SYMLINK_NOFOLLOW` (2).
    let last = if a.uint(2) & 2 != 0 { Last::NoFollow } else { Last::FollowName };
    let path = host_path_in(cpu.get_data(), a.int(0), a.ptr(1), last)?;
    let (dirfd, name) = path.at(a.int(0));
    // SAFETY: a NUL-terminated path.
    let fd = host_ret(unsafe { libc::syscall(libc::SYS_fspick, dirfd, name.as_ptr(), u64::from(a.uint(2))) })?;
    drop(path);
    Ok(u64::from(super::rootfs::lowest(crate::abi::int32(fd)).unsigned_abs()))
}

/// `fsmount(int fsfd, unsigned int flags, unsigned int attr_flags)`: a detached mount.
/// Errors: the host's.
pub fn fsmount(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_fsmount, a.int_arg(0), u64::from(a.uint(1)), u64::from(a.uint(2))) })
}

/// `fsconfig` commands (include/uapi/linux/mount.h `enum fsconfig_command`).
mod cmd {
    pub const SET_FLAG: u32 = 0;
    pub const SET_STRING: u32 = 1;
    pub const SET_BINARY: u32 = 2;
    pub const SET_PATH: u32 = 3;
    pub const SET_PATH_EMPTY: u32 = 4;
    pub const SET_FD: u32 = 5;
    pub const CMD_CREATE: u32 = 6;
    pub const CMD_RECONFIGURE: u32 = 7;
    pub const CMD_CREATE_EXCL: u32 = 8;
}

/// `fsconfig(int fd, unsigned int cmd, const char *key, const void *value, int aux)`: the
/// value is a string, a blob of `aux` bytes, a path (relative to the descriptor `aux`), or
/// nothing, by `cmd`. The argument checks the kernel makes before it reads anything are
/// made here too (`EINVAL`, `EOPNOTSUPP` for an unknown command); then the host's.
pub fn fsconfig(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    use cmd::*;
    let t = cpu.get_data();
    let (fd, command, aux) = (a.int(0), a.uint(1), a.int(4));
    let (key, value) = (a.ptr(2), a.ptr(3));
    if fd < 0 {
        return Err(Errno::EINVAL);
    }
    let bad = match command {
        SET_FLAG => key.is_null() || !value.is_null() || aux != 0,
        SET_STRING => key.is_null() || value.is_null() || aux != 0,
        SET_BINARY => key.is_null() || value.is_null() || aux <= 0 || aux > 1024 * 1024,
        SET_PATH | SET_PATH_EMPTY => key.is_null() || value.is_null() || (aux != libc::AT_FDCWD && aux < 0),
        SET_FD => key.is_null() || !value.is_null() || aux < 0,
        CMD_CREATE | CMD_RECONFIGURE | CMD_CREATE_EXCL => !key.is_null() || !value.is_null() || aux != 0,
        _ => return Err(Errno::EOPNOTSUPP),
    };
    if bad {
        return Err(Errno::EINVAL);
    }
    let key = opt_string(t, key, 256)?;
    let value: Option<Vec<u8>> = match command {
        SET_STRING => opt_string(t, value, 256)?.map(CString::into_bytes_with_nul),
        SET_BINARY => Some(t.mm.read_vec(value, usize::try_from(aux).unwrap_or(0))?),
        SET_PATH | SET_PATH_EMPTY => {
            let raw = t.mm.read_cstr(value, PATH_MAX)?;
            Some(mapped(t, raw).into_bytes_with_nul())
        }
        _ => None,
    };
    let value_ptr = value.as_ref().map_or(std::ptr::null(), |v| v.as_ptr());
    // SAFETY: a NUL-terminated key or NULL and a value buffer or NULL, alive across the call.
    host_ret(unsafe {
        libc::syscall(libc::SYS_fsconfig, a.int_arg(0), u64::from(command), ptr_or_null(&key), value_ptr, a.int_arg(4))
    })
}

/// `open_tree(int dirfd, const char *path, unsigned int flags)`: a descriptor for a mount or
/// a copy of it (`OPEN_TREE_CLONE`). Errors: the host's.
pub fn open_tree(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let last = if a.int(2) & libc::AT_SYMLINK_NOFOLLOW != 0 { Last::NoFollow } else { Last::FollowName };
    let path = host_path_in(cpu.get_data(), a.int(0), a.ptr(1), last)?;
    let (dirfd, name) = path.at(a.int(0));
    // SAFETY: a NUL-terminated path.
    let fd = host_ret(unsafe { libc::syscall(libc::SYS_open_tree, dirfd, name.as_ptr(), u64::from(a.uint(2))) })?;
    drop(path);
    Ok(u64::from(super::rootfs::lowest(crate::abi::int32(fd)).unsigned_abs()))
}

/// `move_mount(int from_dirfd, const char *from_path, int to_dirfd, const char *to_path,
/// unsigned int flags)`. Errors: the host's.
pub fn move_mount(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    // `MOVE_MOUNT_F_SYMLINKS` (1) and `MOVE_MOUNT_T_SYMLINKS` (0x10) follow a last link.
    let follow = |bit: u32| if a.uint(4) & bit != 0 { Last::FollowName } else { Last::NoFollow };
    let from = host_path_in(t, a.int(0), a.ptr(1), follow(1))?;
    let to = host_path_in(t, a.int(2), a.ptr(3), follow(0x10))?;
    let (from_dir, from_name) = from.at(a.int(0));
    let (to_dir, to_name) = to.at(a.int(2));
    super::selfref::ensure();
    // SAFETY: NUL-terminated paths.
    host_ret(unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            from_dir,
            from_name.as_ptr(),
            to_dir,
            to_name.as_ptr(),
            u64::from(a.uint(4)),
        )
    })
}

/// Swaps every `__u64` (`u64s`) or `__u32` of a struct in place, for a guest of the other byte
/// order; `widths` gives each member's width from the start, in bytes, and what follows the
/// listed members is taken as `__u64`s.
fn swap_members(buf: &mut [u8], widths: &[usize]) {
    let mut at = 0;
    let mut next = widths.iter().copied();
    while at < buf.len() {
        let w = next.next().unwrap_or(8);
        if at + w > buf.len() {
            break;
        }
        buf[at..at + w].reverse();
        at += w;
    }
}

fn big(t: &Task) -> bool {
    t.mm.endian() == Endian::Big
}

/// `struct mount_attr` (`__u64 attr_set, attr_clr, propagation, userns_fd`), `MOUNT_ATTR_SIZE_VER0`.
const MOUNT_ATTR_SIZE_VER0: u64 = 32;

/// `mount_setattr(int dirfd, const char *path, unsigned int flags, struct mount_attr *attr,
/// size_t size)` (mount_setattr(2)). Errors: `EINVAL` (size below 32), `E2BIG` (above a
/// page), `EFAULT`, the host's.
pub fn mount_setattr(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let size = a.ulong(4);
    if size > PAGE_SIZE {
        return Err(Errno::E2BIG);
    }
    if size < MOUNT_ATTR_SIZE_VER0 {
        return Err(Errno::EINVAL);
    }
    let mut attr = t.mm.read_vec(a.ptr(3), usize::try_from(size).unwrap_or(0))?;
    if big(t) {
        swap_members(&mut attr, &[]);
    }
    let last = if a.int(2) & libc::AT_SYMLINK_NOFOLLOW != 0 { Last::NoFollow } else { Last::FollowName };
    let path = host_path_in(t, a.int(0), a.ptr(1), last)?;
    let (dirfd, name) = path.at(a.int(0));
    super::selfref::ensure();
    // SAFETY: a NUL-terminated path and a struct of `size` bytes.
    host_ret(unsafe {
        libc::syscall(libc::SYS_mount_setattr, dirfd, name.as_ptr(), u64::from(a.uint(2)), attr.as_ptr(), attr.len())
    })
}

/// `statmount` and `listmount`'s numbers on the host (the `libc` crate has none yet): 457
/// and 458 in the table every host arch endgate builds for shares since Linux 6.8.
const SYS_STATMOUNT: libc::c_long = 457;
const SYS_LISTMOUNT: libc::c_long = 458;

/// `struct mnt_id_req` (`__u32 size; __u32 mnt_ns_fd; __u64 mnt_id, param, mnt_ns_id`):
/// `MNT_ID_REQ_SIZE_VER0` is 24.
const MNT_ID_REQ_SIZE_VER0: u32 = 24;
const MNT_ID_REQ_WIDTHS: &[usize] = &[4, 4, 8, 8, 8];

/// The guest's `struct mnt_id_req` in the host's byte order (fs/namespace.c
/// `copy_mnt_id_req`): `E2BIG` above a page, `EINVAL` below 24 bytes, `EFAULT`.
fn mnt_id_req(t: &Task, addr: GuestAddr) -> Result<Vec<u8>, Errno> {
    let size = t.mm.read_u32(addr)?;
    if u64::from(size) > PAGE_SIZE {
        return Err(Errno::E2BIG);
    }
    if size < MNT_ID_REQ_SIZE_VER0 {
        return Err(Errno::EINVAL);
    }
    let mut req = t.mm.read_vec(addr, size as usize)?;
    if big(t) {
        swap_members(&mut req, MNT_ID_REQ_WIDTHS);
    }
    Ok(req)
}

/// `listmount(const struct mnt_id_req *req, u64 *mnt_ids, size_t nr_mnt_ids, unsigned int
/// flags)`: the ids of the mounts below one, in the guest's byte order. Errors: the host's,
/// `EFAULT`.
pub fn listmount(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let req = mnt_id_req(t, a.ptr(0))?;
    let n = a.ulong(2);
    let bytes = n.checked_mul(8).ok_or(Errno::EFAULT)?;
    t.mm.check_writable(a.ptr(1), bytes)?;
    let mut ids = vec![0u64; usize::try_from(n).map_err(|_| Errno::EFAULT)?];
    // SAFETY: a request of its own size and room for `n` ids.
    let got =
        host_ret(unsafe { libc::syscall(SYS_LISTMOUNT, req.as_ptr(), ids.as_mut_ptr(), n, u64::from(a.uint(3))) })?;
    for (i, id) in ids.iter().take(usize::try_from(got).unwrap_or(0)).enumerate() {
        t.mm.write_u64(a.ptr(1) + 8 * i as u64, *id)?;
    }
    Ok(got)
}

/// The members of `struct statmount`'s fixed part (512 bytes) by width, as of Linux 6.18
/// (include/uapi/linux/mount.h): `size, mnt_opts, mask, sb_dev_major, sb_dev_minor, sb_magic,
/// sb_flags, fs_type, mnt_id, mnt_parent_id, mnt_id_old, mnt_parent_id_old, mnt_attr,
/// mnt_propagation, mnt_peer_group, mnt_master, propagate_from, mnt_root, mnt_point,
/// mnt_ns_id, fs_subtype, sb_source, opt_num, opt_array, opt_sec_num, opt_sec_array,
/// supported_mask, mnt_uidmap_num, mnt_uidmap, mnt_gidmap_num, mnt_gidmap`, then spare
/// `__u64`s; the strings after it are bytes.
const STATMOUNT_WIDTHS: &[usize] =
    &[4, 4, 8, 4, 4, 8, 4, 4, 8, 8, 4, 4, 8, 8, 8, 8, 8, 4, 4, 8, 4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4];
const STATMOUNT_FIXED: usize = 512;

/// `statmount(const struct mnt_id_req *req, struct statmount *buf, size_t bufsize, unsigned
/// int flags)`: one mount's attributes and strings; the fixed part in the guest's byte order.
/// Errors: the host's (`EOVERFLOW` for a buffer too small…), `EFAULT`.
pub fn statmount(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let req = mnt_id_req(t, a.ptr(0))?;
    let size = a.ulong(2);
    let buf = t.buf_out(a.ptr(1), size)?;
    // SAFETY: a request of its own size and `size` writable bytes of guest memory.
    let r = host_ret(unsafe { libc::syscall(SYS_STATMOUNT, req.as_ptr(), buf, size, u64::from(a.uint(3))) })?;
    if big(t) {
        let fixed = usize::try_from(size).unwrap_or(0).min(STATMOUNT_FIXED);
        // SAFETY: `fixed` of the `size` bytes just checked writable.
        let s = unsafe { std::slice::from_raw_parts_mut(buf, fixed) };
        swap_members(s, STATMOUNT_WIDTHS);
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statmount_members_fill_the_fixed_part_as_the_header_lays_them_out() {
        // mnt_gidmap ends at byte 168; 43 spare u64s make 512.
        assert_eq!(STATMOUNT_WIDTHS.iter().sum::<usize>() + 43 * 8, STATMOUNT_FIXED);
        let mut at = 0;
        for w in STATMOUNT_WIDTHS {
            assert_eq!(at % w, 0, "member at {at} is aligned to its width");
            at += w;
        }
    }

    #[test]
    fn members_swap_by_width() {
        let mut b = [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0];
        swap_members(&mut b, &[4, 4]);
        assert_eq!(b, [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3]);
    }
}
