//! File handles (name_to_handle_at(2), open_by_handle_at(2)): served by the host kernel,
//! which makes and resolves the handles; endgate converts `struct file_handle`'s header
//! (`__u32 handle_bytes; int handle_type;`, then `handle_bytes` opaque bytes: include/linux/fs.h
//! `MAX_HANDLE_SZ` 128) to the guest's byte order, maps the path as `openat` does, and the open
//! flags to the host's numbering.
//!
//! The handle's bytes are the file system's, and most are opaque to programs, which pass back
//! what they got. Some are built by programs from numbers, though: a cgroup's handle is its
//! 64-bit id as the CPU stores it (`FILEID_KERNFS`, fs/kernfs/mount.c), which `ss` and systemd
//! make from the id a socket diagnostic or `statx` gave them, to open the cgroup's directory.
//! So for a guest of the other byte order the words of the handle types whose layout the
//! kernel defines in the CPU's order (include/linux/exportfs.h `enum fid_type`: `FILEID_INO32_GEN`
//! and its parent form, 32-bit words; `FILEID_INO64_GEN` and its parent form, a 64-bit inode and
//! a 32-bit generation each; `FILEID_KERNFS`, one 64-bit id) are converted both ways
//! ([`body_words`]); other types' bytes pass as they are.

use syscalls::Errno;

use super::path::{host_path_at, Last};
use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::GuestAddr;

/// `MAX_HANDLE_SZ`.
const MAX_HANDLE_SZ: u32 = 128;

/// The widths in bytes of the CPU-order words a handle of type `ty` starts with (see the
/// module doc); empty for a type whose bytes are opaque.
fn body_words(ty: u32) -> &'static [usize] {
    match ty {
        // FILEID_INO32_GEN, FILEID_INO32_GEN_PARENT.
        1 => &[4, 4],
        2 => &[4, 4, 4, 4],
        // FILEID_INO64_GEN, FILEID_INO64_GEN_PARENT.
        0x81 => &[8, 4],
        0x82 => &[8, 4, 8, 4],
        // FILEID_KERNFS.
        0xfe => &[8],
        _ => &[],
    }
}

/// Reverses the bytes of each word of a handle of type `ty` in `body`, for a guest whose byte
/// order is not the host's (a word the body is too short for is left).
fn convert_body(t: &Task, ty: u32, body: &mut [u8]) {
    if (t.mm.endian() == crate::mm::Endian::Little) == cfg!(target_endian = "little") {
        return;
    }
    swap_body(ty, body);
}

/// Reverses the bytes of each CPU-order word ([`body_words`]) of a handle of type `ty` (in the
/// host's numbering) in `body`: a handle's bytes as the guest of the other byte order gets
/// them, from `name_to_handle_at` or in a fanotify event's file-identifier record
/// (`super::fanotify`), and back.
pub(crate) fn swap_body(ty: u32, body: &mut [u8]) {
    let mut at = 0;
    for &w in body_words(ty) {
        let Some(word) = body.get_mut(at..at + w) else { return };
        word.reverse();
        at += w;
    }
}

/// The guest's `struct file_handle` at `addr` as the host's bytes (header + handle), with its
/// `handle_bytes`. Errors: `EFAULT`, `EINVAL` (more than `MAX_HANDLE_SZ` bytes, or none when
/// `need_bytes`).
fn read_handle(t: &Task, addr: GuestAddr, copy_body: bool) -> Result<Vec<u8>, Errno> {
    let bytes = t.mm.read_u32(addr)?;
    if bytes > MAX_HANDLE_SZ || (copy_body && bytes == 0) {
        return Err(Errno::EINVAL);
    }
    let mut host = vec![0u8; 8 + bytes as usize];
    host[..4].copy_from_slice(&bytes.to_ne_bytes());
    if copy_body {
        let ty = t.mm.read_u32(addr + 4)?;
        host[4..8].copy_from_slice(&ty.to_ne_bytes());
        t.mm.read_bytes(addr + 8, &mut host[8..])?;
        convert_body(t, ty, &mut host[8..]);
    }
    Ok(host)
}

/// `name_to_handle_at(int dirfd, const char *path, struct file_handle *handle, int *mount_id,
/// int flags)`. With too small a `handle_bytes` the kernel fails with `EOVERFLOW` and writes the
/// size it needs, which the guest gets too. Errors: `EFAULT`, `EINVAL`, `EOVERFLOW`, the host's
/// (`ENOENT`, `EOPNOTSUPP`…).
pub fn name_to_handle_at(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    // name_to_handle_at follows a last link only with `AT_SYMLINK_FOLLOW`.
    let last = if a.int(4) & libc::AT_SYMLINK_FOLLOW != 0 { Last::Follow } else { Last::NoFollow };
    let path = if a.int(4) & libc::AT_EMPTY_PATH != 0 {
        host_path_at(t, a.int(0), a.ptr(1), 0)?
    } else {
        super::path::host_path_in(t, a.int(0), a.ptr(1), last)?
    };
    let mut h = read_handle(t, a.ptr(2), false)?;
    t.mm.check_writable(a.ptr(3), 4)?;
    let mut mount_id: i32 = 0;
    // SAFETY: a NUL-terminated path, a local handle buffer of its declared size, a local id.
    let r = host_ret(unsafe {
        libc::syscall(libc::SYS_name_to_handle_at, a.int(0), path.as_ptr(), h.as_mut_ptr(), &mut mount_id, a.int(4))
    });
    let bytes = u32::from_ne_bytes(h[..4].try_into().expect("4 bytes"));
    if r.is_ok() || r == Err(Errno::EOVERFLOW) {
        t.mm.write_u32(a.ptr(2), bytes)?;
    }
    r?;
    let ty = u32::from_ne_bytes(h[4..8].try_into().expect("4 bytes"));
    t.mm.write_u32(a.ptr(2) + 4, ty)?;
    convert_body(t, ty, &mut h[8..8 + bytes as usize]);
    t.mm.write_bytes(a.ptr(2) + 8, &h[8..8 + bytes as usize])?;
    t.mm.write_i32(a.ptr(3), mount_id)?;
    Ok(0)
}

/// `open_by_handle_at(int mount_fd, struct file_handle *handle, int flags)`: a descriptor for
/// the file a handle names. Errors: `EFAULT`, `EINVAL`, the host's (`EPERM` without
/// `CAP_DAC_READ_SEARCH`, `ESTALE`, `EBADF`).
pub fn open_by_handle_at(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let h = read_handle(t, a.ptr(1), true)?;
    let flags = (t.arch.info().open_flags_to_host)(u64::from(a.uint(2)));
    let fd = host_ret(super::blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_open_by_handle_at,
        &[a.int_arg(0), h.as_ptr() as u64, crate::abi::bits64(flags)],
    ))?;
    // A handle names a file anywhere on its file system: under `--root`, only one inside the
    // guest's root (or a bind point) opens, where chroot(2) would let any out.
    if !super::rootfs::fd_inside(crate::abi::int32(fd)) {
        // SAFETY: the descriptor the host just made, not yet the guest's.
        unsafe { libc::close(crate::abi::int32(fd)) };
        return Err(Errno::EACCES);
    }
    Ok(fd)
}
