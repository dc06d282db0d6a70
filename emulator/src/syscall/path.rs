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

/// `true` if `p` names the calling process's executable link (`/proc/self/exe`,
/// `/proc/thread-self/exe` or `/proc/<our pid>/exe`, however the absolute path is spelled:
/// `//proc/./self/exe` too, see [`proc_lexical`]).
pub fn is_proc_self_exe(p: &[u8]) -> bool {
    let p = proc_lexical(p).unwrap_or_else(|| p.to_vec());
    if p == b"/proc/self/exe" || p == b"/proc/thread-self/exe" {
        return true;
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    p == format!("/proc/{pid}/exe").as_bytes()
}

/// An absolute path under `/proc` with its empty and `.` components dropped and each `..`
/// taking off the component before it, as the kernel's walk resolves them there (`self` and
/// `<pid>` are links to a directory right under `/proc`, so `..` after them is `/proc`);
/// `None` for a relative path, one outside `/proc`, one ending in `/`, or a `..` after `thread-self` (a link two
/// levels deeper), which endgate leaves to the host.
pub fn proc_lexical(p: &[u8]) -> Option<Vec<u8>> {
    // A trailing slash asks for a directory (the host's walk answers `ENOTDIR` for a file).
    if p.first() != Some(&b'/') || p.ends_with(b"/") || !p.windows(4).any(|w| w == b"proc") {
        return None;
    }
    let mut parts: Vec<&[u8]> = Vec::new();
    for c in p.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                if parts.last() == Some(&&b"thread-self"[..]) {
                    return None;
                }
                parts.pop();
            }
            _ => parts.push(c),
        }
    }
    if parts.first() != Some(&&b"proc"[..]) {
        return None;
    }
    let mut out = Vec::with_capacity(p.len());
    for c in parts {
        out.push(b'/');
        out.extend_from_slice(c);
    }
    Some(out)
}

/// `path` taken from the directory `dirfd` names (the working directory for `AT_FDCWD`) when
/// that directory is under `/proc`, as an absolute path; an absolute `path` as it is; `None`
/// for a relative path from anywhere else. For the `*at` calls that must see the guest's
/// `/proc/self` files however the guest reaches them (`openat(open("/proc"), "self/maps")`,
/// `chdir("/proc/self")` then `readlink("exe")`).
pub fn proc_absolute_at(dirfd: i32, path: &[u8]) -> Option<Vec<u8>> {
    if path.first() == Some(&b'/') {
        return Some(path.to_vec());
    }
    let base = if dirfd == libc::AT_FDCWD { std::env::current_dir().ok()? } else { super::selfref::fd_link(dirfd)? };
    let base = base.as_os_str().as_encoded_bytes();
    if base != b"/proc" && !base.starts_with(b"/proc/") {
        return None;
    }
    let mut full = base.to_vec();
    full.push(b'/');
    full.extend_from_slice(path);
    Some(full)
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

#[cfg(test)]
mod tests {
    use super::proc_lexical;

    #[test]
    fn proc_paths_however_spelled() {
        let l = |p: &str| proc_lexical(p.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        assert_eq!(l("/proc/self/maps").as_deref(), Some("/proc/self/maps"));
        assert_eq!(l("//proc//self/./maps").as_deref(), Some("/proc/self/maps"));
        assert_eq!(l("/proc/123/../self/exe").as_deref(), Some("/proc/self/exe"));
        assert_eq!(l("/proc/./self/../cpuinfo").as_deref(), Some("/proc/cpuinfo"));
        assert_eq!(l("/../proc/self/maps").as_deref(), Some("/proc/self/maps"));
        assert_eq!(l("/proc/thread-self/../maps"), None);
        assert_eq!(l("/proc/self/maps/"), None);
        assert_eq!(l("/tmp/../etc/passwd"), None);
        assert_eq!(l("proc/self/maps"), None);
    }
}
