//! Guest path arguments: reading them from guest memory and mapping them to host paths.
//!
//! An absolute guest path is looked up under the `-L` sysroot first and used from there when
//! it exists (qemu-user's rule); otherwise, and for relative paths, the host path is the guest
//! path. `/proc/self/exe` names the guest program, not endgate. Once the guest has changed
//! its root (`chroot`, `pivot_root`), its absolute paths are paths in that root and the
//! sysroot no longer applies ([`super::selfref::root_changed`]).

use std::ffi::CString;

use syscalls::Errno;

use crate::guest::Task;
use crate::mm::{GuestAddr, PATH_MAX};

/// `true` if `p` names the calling process's executable link (`/proc/self/exe` or
/// `/proc/<our pid>/exe`).
pub fn is_proc_self_exe(p: &[u8]) -> bool {
    if p == b"/proc/self/exe" || p == b"/proc/thread-self/exe" {
        return true;
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    p == format!("/proc/{pid}/exe").as_bytes()
}

/// Reads the guest path at `addr` and returns the host path to use. Errors: `EFAULT`,
/// `ENAMETOOLONG`.
pub fn host_path(task: &Task, addr: GuestAddr) -> Result<CString, Errno> {
    let raw = task.mm.read_cstr(addr, PATH_MAX)?;
    Ok(map_path(task, raw))
}

/// Like [`host_path`] for calls that take `AT_*` flags: with `AT_SYMLINK_NOFOLLOW` in `flags`,
/// `/proc/self/exe` stays the host's own link, so `lstat` sees a symlink as it does natively
/// (only following it leads to the guest program).
pub fn host_path_at(task: &Task, addr: GuestAddr, flags: i32) -> Result<CString, Errno> {
    let raw = task.mm.read_cstr(addr, PATH_MAX)?;
    if flags & libc::AT_SYMLINK_NOFOLLOW != 0 && is_proc_self_exe(&raw) {
        return Ok(CString::new(raw).unwrap_or_default());
    }
    Ok(map_path(task, raw))
}

/// [`map_path`] for an open that does not follow a trailing symlink (`O_NOFOLLOW`) or no
/// magic link at all (`openat2`'s `RESOLVE_NO_SYMLINKS`/`RESOLVE_NO_MAGICLINKS`):
/// `/proc/self/exe` stays the host's own link, so the host answers `ELOOP` (or, for
/// `O_PATH|O_NOFOLLOW`, a descriptor of the link) as Linux does for the link itself.
pub fn map_open_path(task: &Task, raw: Vec<u8>, no_follow: bool) -> CString {
    if no_follow && is_proc_self_exe(&raw) {
        return CString::new(raw).unwrap_or_default();
    }
    map_path(task, raw)
}

/// Maps an already-read guest path to the host path.
pub fn map_path(task: &Task, raw: Vec<u8>) -> CString {
    if is_proc_self_exe(&raw) {
        return CString::new(task.exe.host_path.as_os_str().as_encoded_bytes().to_vec()).unwrap_or_default();
    }
    if raw.first() == Some(&b'/') && !super::selfref::root_changed() {
        if let (Some(root), Ok(s)) = (&task.opts.sysroot, std::str::from_utf8(&raw)) {
            let p = crate::syscall::path::sysroot_path(&task.opts, s);
            if p.starts_with(root) {
                if let Ok(c) = CString::new(p.into_os_string().into_encoded_bytes()) {
                    return c;
                }
            }
        }
    }
    // `read_cstr` stops at the first NUL, so there is none inside.
    CString::new(raw).unwrap_or_default()
}

/// Like [`host_path`], but a NULL pointer gives `None` (for `utimensat(fd, NULL, …)`).
pub fn host_path_opt(task: &Task, addr: GuestAddr) -> Result<Option<CString>, Errno> {
    if addr.is_null() {
        Ok(None)
    } else {
        host_path(task, addr).map(Some)
    }
}

/// Host path for a guest absolute path under the `-L` sysroot, if it exists there.
pub fn sysroot_path(opts: &crate::guest::Options, guest: &str) -> std::path::PathBuf {
    if let Some(root) = opts.sysroot.as_ref().filter(|_| !super::selfref::root_changed()) {
        if guest.starts_with('/') {
            let p = root.join(guest.trim_start_matches('/'));
            if p.symlink_metadata().is_ok() {
                return p;
            }
        }
    }
    std::path::PathBuf::from(guest)
}
