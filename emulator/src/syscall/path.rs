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
/// Only while the guest has a `/proc` ([`proc_present`]): in a root without one (`--root` with
/// `--no-default-binds`, a chroot) the path is missing, as natively.
pub fn is_proc_self_exe(p: &[u8]) -> bool {
    let p = proc_lexical(p).unwrap_or_else(|| p.to_vec());
    let who = p.strip_prefix(b"/proc/").and_then(|r| r.strip_suffix(b"/exe"));
    who.is_some_and(is_own_proc_dir) && proc_present()
}

/// `true` if `who`, a path under `/proc/` in the form [`proc_lexical`] leaves, names the
/// calling process's or one of its guest threads' directory: `self`, `thread-self`, our pid, a
/// guest thread's tid, or `self/task/TID`, `PID/task/TID`.
fn is_own_proc_dir(who: &[u8]) -> bool {
    if who == b"self" || who == b"thread-self" {
        return true;
    }
    let tid_of =
        |t: &[u8]| std::str::from_utf8(t).ok().and_then(|t| t.parse().ok()).is_some_and(super::procfs::is_guest_thread);
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() }.to_string();
    if who == pid.as_bytes() {
        return true;
    }
    if !who.contains(&b'/') {
        return tid_of(who);
    }
    let rest = who
        .strip_prefix(b"self/task/")
        .or_else(|| who.strip_prefix(pid.as_bytes()).and_then(|r| r.strip_prefix(b"/task/")));
    rest.is_some_and(|t| !t.contains(&b'/') && tid_of(t))
}

/// `true` if the component `c` is the number of one of endgate's own descriptors.
fn own_number(c: &[u8]) -> bool {
    std::str::from_utf8(c).ok().and_then(|c| c.parse::<i32>().ok()).is_some_and(super::selfref::may_be_own)
}

/// `true` if `path` may name one of endgate's own descriptors through `/proc` (a component
/// `fd` or `fdinfo` followed by one of their numbers, or such a number first, for a path
/// relative to a `/proc/…/fd` directory): [`names_own_fd`]'s look at the components, which
/// asks the host nothing.
pub fn mentions_own_fd(path: &[u8]) -> bool {
    let mut prev: Option<&[u8]> = None;
    path.split(|&b| b == b'/').filter(|c| !c.is_empty() && *c != b".").any(|c| {
        let hit = match prev {
            None => own_number(c),
            Some(p) => (p == b"fd" || p == b"fdinfo") && own_number(c),
        };
        prev = Some(c);
        hit
    })
}

/// `true` if `path` (from `dirfd`) names one of endgate's own descriptors through the calling
/// process's `/proc` directory: `/proc/self/fd/N` or `/proc/self/fdinfo/N` (and anything below
/// them) for a descriptor endgate keeps for itself ([`super::selfref::is_own`]), however the
/// process's directory is named ([`is_own_proc_dir`]). Such a path is missing, as it is for a
/// descriptor the program never opened (`ENOENT`). A path that [`mentions_own_fd`] rules out
/// costs nothing more.
pub fn names_own_fd(dirfd: i32, path: &[u8]) -> bool {
    if !mentions_own_fd(path) {
        return false;
    }
    let Some(abs) = proc_absolute_at(dirfd, path) else { return false };
    let abs = proc_lexical(&abs).unwrap_or(abs);
    let Some(rest) = abs.strip_prefix(b"/proc/") else { return false };
    // WHO/fd/N[/...]: find the `fd`/`fdinfo` component whose next one is an own number (empty
    // and `.` components dropped: a path `proc_lexical` left as it was, with a trailing `/`).
    let parts: Vec<&[u8]> = rest.split(|&b| b == b'/').filter(|c| !c.is_empty() && *c != b".").collect();
    (1..parts.len().saturating_sub(1)).any(|i| {
        // WHO is every component before `fd`, rejoined.
        (parts[i] == b"fd" || parts[i] == b"fdinfo")
            && own_number(parts[i + 1])
            && is_own_proc_dir(&parts[..i].join(&b'/'))
    }) && proc_present()
}

/// `true` when the guest's `/proc/self` is procfs's: under `--root`, found in the guest's root
/// (a bind of the host's `/proc`, the default); otherwise the host's (a chroot without `/proc`,
/// the guest's or endgate's own, has none, or a plain directory of that name).
fn proc_present() -> bool {
    if super::rootfs::active() {
        super::rootfs::proc_self_present()
    } else {
        // SAFETY: a NUL-terminated path; the descriptor is closed below.
        let fd = unsafe { libc::open(c"/proc/self".as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        let on_proc = fd >= 0 && super::rootfs::in_procfs(fd);
        if fd >= 0 {
            // SAFETY: our own descriptor.
            unsafe { libc::close(fd) };
        }
        on_proc
    }
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

/// A host path for a guest path argument, with what it needs kept alive: under `--root`, the
/// descriptors that `/proc/self/fd/N/NAME` names ([`super::rootfs`]). Dereferences to the C
/// string to hand the host.
#[derive(Debug)]
pub struct HostPath {
    c: CString,
    resolved: Option<super::rootfs::Resolved>,
}

impl HostPath {
    fn plain(c: CString) -> Self {
        Self { c, resolved: None }
    }

    /// The `--root` lookup behind this path, if there was one.
    pub fn resolved(&self) -> Option<&super::rootfs::Resolved> {
        self.resolved.as_ref()
    }

    /// What to hand a `*at` host call: under `--root`, the directory found and the last name
    /// (for calls that must not walk a `/proc/self/fd` link: `RESOLVE_NO_MAGICLINKS`,
    /// `move_mount`), otherwise `dirfd` and the path.
    pub fn at(&self, dirfd: i32) -> (i32, &std::ffi::CStr) {
        match self.resolved.as_ref().and_then(|r| Some((r.dir_fd()?, r.name.as_deref()?))) {
            Some(p) => p,
            None => (dirfd, &self.c),
        }
    }

    /// Under `--root`, `true` when the host gets a name it must not follow if it became a
    /// link since endgate's lookup (the caller adds the call's "no follow" flag: the lookup
    /// followed whatever was to be followed already).
    pub fn pin_last(&self) -> bool {
        self.resolved.as_ref().is_some_and(|r| r.name.is_some() && !r.host_follows)
    }

    /// Under `--root`, `true` when a trailing slash named a link that `rmdir`, `unlink` and
    /// `rename` must refuse (`ENOTDIR`).
    pub fn slash_link(&self) -> bool {
        self.resolved.as_ref().is_some_and(|r| r.slash_link)
    }

    /// The C string, owned.
    pub fn into_cstring(self) -> CString {
        self.c
    }
}

impl From<CString> for HostPath {
    fn from(c: CString) -> Self {
        Self::plain(c)
    }
}

impl std::ops::Deref for HostPath {
    type Target = std::ffi::CStr;
    fn deref(&self) -> &std::ffi::CStr {
        &self.c
    }
}

pub use super::rootfs::Last;

/// How a call with `AT_*` flags treats its last component: `AT_SYMLINK_NOFOLLOW` acts on the
/// name, otherwise the link is followed.
pub fn last_of(flags: i32) -> Last {
    if flags & libc::AT_SYMLINK_NOFOLLOW != 0 {
        Last::NoFollow
    } else {
        Last::Follow
    }
}

/// Reads the guest path at `addr` and returns the host path to use, the path relative to
/// `dirfd` as the guest's `*at` call takes it (the host call then gets the same `dirfd`).
/// Errors: `EFAULT`, `ENAMETOOLONG`, and under `--root` the lookup's.
pub fn host_path_in(task: &Task, dirfd: i32, addr: GuestAddr, last: Last) -> Result<HostPath, Errno> {
    let raw = task.mm.read_cstr(addr, PATH_MAX)?;
    lookup(task, dirfd, raw, last)
}

/// [`host_path_in`] from the working directory, following a last link (`chdir`, `truncate`).
pub fn host_path(task: &Task, addr: GuestAddr) -> Result<HostPath, Errno> {
    host_path_in(task, libc::AT_FDCWD, addr, Last::Follow)
}

/// Like [`host_path_in`] for calls that take `AT_*` flags: with `AT_SYMLINK_NOFOLLOW` in `flags`,
/// `/proc/self/exe` stays the host's own link, so `lstat` sees a symlink as it does natively
/// (only following it leads to the guest program); with `AT_EMPTY_PATH` an empty path stays
/// empty (the call acts on `dirfd`).
pub fn host_path_at(task: &Task, dirfd: i32, addr: GuestAddr, flags: i32) -> Result<HostPath, Errno> {
    host_path_in(task, dirfd, addr, last_of(flags))
}

/// The host path of an already-read guest path, relative to `dirfd`: `/proc/self/exe`
/// (followed) is the guest program; under `--root` the path is looked up in the guest's root
/// ([`super::rootfs::resolve`]); otherwise an absolute path is looked up under the `-L`
/// sysroot first and a relative one is the host's. An empty path stays empty (the host
/// answers `ENOENT`, or acts on `dirfd` for `AT_EMPTY_PATH`).
pub fn lookup(task: &Task, dirfd: i32, raw: Vec<u8>, last: Last) -> Result<HostPath, Errno> {
    lookup_with(task, dirfd, raw, last, false)
}

/// [`lookup`]; with `no_links`, under `--root` any link on the way is `ELOOP` (`openat2`'s
/// `RESOLVE_NO_SYMLINKS`).
pub fn lookup_with(task: &Task, dirfd: i32, raw: Vec<u8>, last: Last, no_links: bool) -> Result<HostPath, Errno> {
    lookup_rules(task, dirfd, raw, last, no_links, super::rootfs::Rules::default())
}

/// [`lookup_with`] under `--root`'s [`super::rootfs::Rules`] (`openat2`'s `RESOLVE_*`).
pub fn lookup_rules(
    task: &Task,
    dirfd: i32,
    raw: Vec<u8>,
    last: Last,
    no_links: bool,
    rules: super::rootfs::Rules,
) -> Result<HostPath, Errno> {
    if raw.is_empty() {
        return Ok(HostPath::plain(CString::default()));
    }
    // (`ends_with` first: `proc_absolute_at` of a relative path asks the host for the
    // directory's path, which every other lookup can do without.)
    if last != Last::NoFollow
        && raw.ends_with(b"exe")
        && proc_absolute_at(dirfd, &raw).is_some_and(|p| is_proc_self_exe(&p))
    {
        let mut exe = task.exe.host_path.as_os_str().as_encoded_bytes().to_vec();
        if super::selfref::root_changed() && !super::rootfs::active() {
            // The guest changed its root (`chroot`): the program's file, a path in the root
            // endgate started in, may lie outside the new one, where the kernel's magic link
            // still reaches it. So does the link of endgate's handle on that root, as the
            // guest's procfs `/proc` shows it (this lookup is made only when it has one).
            if let Some(root) = super::selfref::root_fd() {
                let mut p = format!("/proc/self/fd/{root}").into_bytes();
                p.extend_from_slice(&exe);
                exe = p;
            }
        }
        return Ok(HostPath::plain(CString::new(exe).unwrap_or_default()));
    }
    if names_own_fd(dirfd, &raw) {
        return Err(Errno::ENOENT);
    }
    if super::rootfs::active() {
        return lookup_scoped(dirfd, &raw, last, no_links, rules);
    }
    Ok(HostPath::plain(sysroot_map(&task.opts, raw)))
}

/// [`lookup`] for a system call served without the global guest lock
/// (`super::unlocked`): the host path when it is the guest's path or its `-L` sysroot
/// counterpart; `None` (look it up under the lock) under `--root` and for any path that
/// may name `/proc/self/exe` (one ending in `exe`, followed) or one of endgate's descriptors
/// ([`mentions_own_fd`]).
pub fn lookup_unlocked(opts: &crate::guest::Options, raw: Vec<u8>, last: Last) -> Option<CString> {
    if (last != Last::NoFollow && raw.ends_with(b"exe")) || super::rootfs::active() || mentions_own_fd(&raw) {
        return None;
    }
    Some(sysroot_map(opts, raw))
}

/// The `--root` lookup of `raw` in `scope` (`openat2`'s `RESOLVE_IN_ROOT`/`RESOLVE_BENEATH`:
/// [`super::rootfs::resolve_scoped`]), for `--root` only.
pub fn lookup_scoped(
    dirfd: i32,
    raw: &[u8],
    last: Last,
    no_links: bool,
    rules: super::rootfs::Rules,
) -> Result<HostPath, Errno> {
    let r = super::rootfs::spare_fds(|| super::rootfs::resolve_scoped(dirfd, raw, last, no_links, rules))?;
    Ok(HostPath { c: r.host.clone(), resolved: Some(r) })
}

/// [`lookup`] for an open: `O_NOFOLLOW` (or `openat2`'s `RESOLVE_NO_SYMLINKS`) acts on the
/// name; `O_CREAT` without `O_EXCL` may create the file the path (or its dangling link)
/// names; `O_CREAT | O_EXCL` creates the name itself.
pub fn open_last(host_flags: i32, no_follow: bool) -> Last {
    if no_follow || host_flags & (libc::O_CREAT | libc::O_EXCL) == libc::O_CREAT | libc::O_EXCL {
        Last::NoFollow
    } else if host_flags & libc::O_CREAT != 0 {
        Last::Create
    } else {
        Last::Follow
    }
}

/// The `-L` mapping of a guest path: under the sysroot when it exists there (and the guest has
/// not changed its root), else the path itself.
fn sysroot_map(opts: &crate::guest::Options, raw: Vec<u8>) -> CString {
    if raw.first() == Some(&b'/') && !super::selfref::root_changed() {
        if let Some(root) = &opts.sysroot {
            let p = crate::syscall::path::sysroot_path(opts, &raw);
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

/// [`host_path_at`] for the `stat` calls (`newfstatat`, `fstatat64`, `statx`): with
/// `AT_EMPTY_PATH` a NULL path is the empty one, as Linux 6.11 takes it (fs/stat.c
/// `vfs_fstatat`, `getname_maybe_null`).
pub fn host_path_stat(task: &Task, dirfd: i32, addr: GuestAddr, flags: i32) -> Result<HostPath, Errno> {
    if addr.is_null() && flags & libc::AT_EMPTY_PATH != 0 {
        return Ok(HostPath::plain(CString::default()));
    }
    host_path_at(task, dirfd, addr, flags)
}

/// Like [`host_path_at`], but a NULL pointer gives `None` (for `utimensat(fd, NULL, …)`).
pub fn host_path_opt(task: &Task, dirfd: i32, addr: GuestAddr, flags: i32) -> Result<Option<HostPath>, Errno> {
    if addr.is_null() {
        Ok(None)
    } else {
        host_path_at(task, dirfd, addr, flags).map(Some)
    }
}

/// Host path for a guest absolute path under the `-L` sysroot, if it exists there.
pub fn sysroot_path(opts: &crate::guest::Options, guest: &[u8]) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    if super::rootfs::active() {
        return super::rootfs::host_file(guest);
    }
    let as_path = |b: &[u8]| std::path::PathBuf::from(std::ffi::OsStr::from_bytes(b));
    if let Some(root) = opts.sysroot.as_ref().filter(|_| !super::selfref::root_changed()) {
        if guest.first() == Some(&b'/') {
            let rel: &[u8] = &guest[guest.iter().position(|&b| b != b'/').unwrap_or(guest.len())..];
            let p = root.join(as_path(rel));
            if p.symlink_metadata().is_ok() {
                return p;
            }
        }
    }
    as_path(guest)
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
