//! `--root DIR`: a host directory is the guest's `/`, for every path the guest names, without
//! host privileges (docs/root.md).
//!
//! endgate looks every guest path up itself, one component at a time, from descriptors: each
//! step is `openat(dir, name, O_PATH | O_NOFOLLOW)`, a symbolic link is read and its target
//! walked again inside the guest's root (an absolute target from the root, a relative one from
//! the link's directory), `..` at the guest's root stays there, and `..` elsewhere goes back
//! to the directory the walk came from (reopened from the root without following any link).
//! The host kernel then gets `/proc/thread-self/fd/N/NAME` (the last component in the directory
//! endgate found) or `/proc/thread-self/fd/N` (the object itself), so it walks nothing the guest
//! could have changed in between: a link swapped in during a lookup is either seen by
//! endgate's walk (and resolved inside the root) or not walked at all.
//!
//! Bind points (`/proc`, `/sys` and `/dev` by default, `--bind HOST:GUEST` for more) are guest
//! paths where the walk goes on in a host directory instead, as a bind mount would. Under
//! `/proc`, the links whose targets are host paths (`/proc/PID/root`, `cwd`, `exe`, `fd/N`,
//! `map_files/…`) are not followed by the host: `root` is the guest's root, a path inside
//! the root or a bind point is walked as that guest path, and any other path is `EACCES`;
//! only as the last component of a lookup do `fd/N`, `exe` and `map_files` go to the host,
//! which opens the very object the descriptor or mapping holds.
//!
//! The guest's `chroot(2)` moves the guest's root inside `DIR` (no host privilege needed;
//! `EPERM` without `CAP_SYS_CHROOT` as Linux decides); bind points stay where they are in
//! `DIR`, as mounts do. The state is the process's: threads share it, fork copies it, and an
//! `execve` hands it to the new endgate (`--root DIR` and the `root` exec-state line).

use std::collections::VecDeque;
use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

use syscalls::Errno;

/// At most this many symbolic links in one lookup, as Linux (`MAXSYMLINKS`, 40): `ELOOP`.
const MAX_LINKS: u32 = 40;

/// A host directory seen at a guest path (`/proc` at `/proc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bind {
    /// The host directory, canonical.
    pub host: PathBuf,
    /// Where the guest sees it: components below `DIR` (`["proc"]`).
    pub guest: Vec<Vec<u8>>,
    /// Made by the guest's `pivot_root` (the old root at `put_old`): its `umount` removes it.
    pub pivot: bool,
}

/// The `--root` state of this process.
#[derive(Clone, Debug)]
struct State {
    /// `DIR`, canonical: what no lookup leaves.
    outer: PathBuf,
    /// The guest's root now, as components below `DIR` (empty until the guest's `chroot`).
    current: Vec<Vec<u8>>,
    binds: Vec<Bind>,
}

static ACTIVE: AtomicBool = AtomicBool::new(false);
static STATE: RwLock<Option<State>> = RwLock::new(None);

/// The host directories bound by default, each at the same guest path.
pub const DEFAULT_BINDS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// `true` once `--root` is in force in this process.
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

fn state() -> Option<State> {
    STATE.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
}

/// The components of a path, without empty ones and `.`.
pub fn components(p: &[u8]) -> Vec<Vec<u8>> {
    p.split(|&b| b == b'/').filter(|c| !c.is_empty() && *c != b".").map(<[u8]>::to_vec).collect()
}

/// The absolute path of components.
pub fn join(comps: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in comps {
        out.push(b'/');
        out.extend_from_slice(c);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

/// Parses `--bind HOST[:GUEST]` (GUEST defaults to HOST). Errors: a relative or missing
/// host directory, a relative guest path.
pub fn parse_bind(spec: &str) -> Result<Bind, String> {
    let (host, guest) = spec.split_once(':').unwrap_or((spec, spec));
    if !guest.starts_with('/') {
        return Err(format!("--bind {spec}: the guest path must be absolute"));
    }
    let host = std::fs::canonicalize(host).map_err(|e| format!("--bind {spec}: {host}: {e}"))?;
    if !host.is_dir() {
        return Err(format!("--bind {spec}: {} is not a directory", host.display()));
    }
    let guest = components(guest.as_bytes());
    if guest.iter().any(|c| c == b"..") || guest.is_empty() {
        return Err(format!("--bind {spec}: the guest path must name a directory below /"));
    }
    Ok(Bind { host, guest, pivot: false })
}

/// Puts `--root DIR` in force for this process: `dir` must be a directory; `current` is the
/// guest's root below it (empty, or what the `execve` that started this endgate handed on).
/// The host's working directory moves to the guest's root unless it is already inside `DIR`.
/// Errors: one line naming `dir`.
pub fn enter(dir: &Path, binds: Vec<Bind>, current: Vec<Vec<u8>>) -> Result<(), String> {
    let outer = std::fs::canonicalize(dir).map_err(|e| format!("--root {}: {e}", dir.display()))?;
    if !outer.is_dir() {
        return Err(format!("--root {}: not a directory", dir.display()));
    }
    let first = current.is_empty();
    let st = State { outer: outer.clone(), current, binds };
    let inside = std::env::current_dir().ok().and_then(|c| host_to_comps(&st, c.as_os_str().as_bytes())).is_some();
    *STATE.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(st.clone());
    ACTIVE.store(true, Ordering::Relaxed);
    if first {
        // A bind point, like a mount point, hangs off a directory of the tree: its parent must
        // be one (the walk reaches a bind point only through it), and as `mount` does, the
        // parent is looked up once, links followed, and the bind point stays where that led.
        // Checked at the first start (an `execve` hands on binds that were checked).
        let mut binds = st.binds.clone();
        for b in &mut binds {
            let Some((last, parent)) = b.guest.split_last() else { continue };
            if parent.is_empty() {
                continue;
            }
            let path = join(parent);
            let found = resolve(libc::AT_FDCWD, &path, Last::Follow).and_then(|r| {
                let fd = r.object.as_ref().ok_or(Errno::ENOTDIR)?;
                if is_dir(fd)? {
                    Ok(r.guest)
                } else {
                    Err(Errno::ENOTDIR)
                }
            });
            match found {
                Ok(mut at) => {
                    at.push(last.clone());
                    b.guest = at;
                }
                Err(e) => {
                    ACTIVE.store(false, Ordering::Relaxed);
                    let why = std::io::Error::from_raw_os_error(e.into_raw()).to_string();
                    return Err(format!(
                        "--bind {}:{}: {} under --root {}: {} (a bind point's parent must be a directory, as a mount point's)",
                        b.host.display(),
                        String::from_utf8_lossy(&join(&b.guest)),
                        String::from_utf8_lossy(&path),
                        dir.display(),
                        why.split(" (os error").next().unwrap_or(&why)
                    ));
                }
            }
        }
        if let Some(s) = STATE.write().unwrap_or_else(std::sync::PoisonError::into_inner).as_mut() {
            s.binds = binds;
        }
    }
    if !inside {
        let root = host_of(&st, &st.current);
        std::env::set_current_dir(Path::new(std::ffi::OsStr::from_bytes(&root)))
            .map_err(|e| format!("--root {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// `DIR` and the guest's root below it, for the new endgate of an `execve`.
pub fn exec_args() -> Option<(PathBuf, Vec<u8>, Vec<Bind>)> {
    let st = state()?;
    Some((st.outer.clone(), join(&st.current), st.binds))
}

/// The guest's `chroot(path)` under `--root`: the guest's root becomes the directory `path`
/// names (looked up as any path). Errors: `ENOTDIR`, the lookup's.
pub fn chroot(path: &Resolved) -> Result<(), Errno> {
    let fd = path.object.as_ref().ok_or(Errno::ENOENT)?;
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: our descriptor, a local stat.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(Errno::last());
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFDIR {
        return Err(Errno::ENOTDIR);
    }
    let mut g = STATE.write().unwrap_or_else(std::sync::PoisonError::into_inner);
    let s = g.as_mut().ok_or(Errno::EINVAL)?;
    s.current = path.guest.clone();
    Ok(())
}

fn is_dir(fd: &OwnedFd) -> Result<bool, Errno> {
    Ok(stat_fd(fd)?.st_mode & libc::S_IFMT == libc::S_IFDIR)
}

/// `STATX_ATTR_MOUNT_ROOT` (include/uapi/linux/stat.h): the file is the root of a mount.
const STATX_ATTR_MOUNT_ROOT: u64 = 0x2000;

/// The guest's `pivot_root(new_root, put_old)` under `--root` (pivot_root(2)): the guest's root
/// becomes `new_root`, which must be a mount's root (as Linux asks), and the old root is shown
/// at `put_old` (at or below `new_root`) as a bind point until the guest unmounts it; a working
/// directory at the old root moves to the new one. Errors: `ENOTDIR`, `EINVAL`.
pub fn pivot_root(new_root: &Resolved, put_old: &Resolved) -> Result<(), Errno> {
    let (Some(n), Some(o)) = (new_root.object.as_ref(), put_old.object.as_ref()) else {
        return Err(Errno::ENOENT);
    };
    if !is_dir(n)? || !is_dir(o)? {
        return Err(Errno::ENOTDIR);
    }
    // SAFETY: plain data; all-zero is a valid value.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: our descriptor, an empty path with AT_EMPTY_PATH, a local statx.
    let r = unsafe { libc::statx(n.as_raw_fd(), c"".as_ptr(), libc::AT_EMPTY_PATH, libc::STATX_BASIC_STATS, &mut stx) };
    if r != 0 || stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT == 0 || stx.stx_attributes & STATX_ATTR_MOUNT_ROOT == 0
    {
        return Err(Errno::EINVAL);
    }
    if !put_old.guest.starts_with(&new_root.guest) {
        return Err(Errno::EINVAL);
    }
    let mut g = STATE.write().unwrap_or_else(std::sync::PoisonError::into_inner);
    let s = g.as_mut().ok_or(Errno::EINVAL)?;
    let old_host = host_of(s, &s.current);
    let cwd_at_old = std::env::current_dir().is_ok_and(|c| c.as_os_str().as_bytes() == old_host.as_slice());
    s.binds.push(Bind {
        host: PathBuf::from(std::ffi::OsStr::from_bytes(&old_host)),
        guest: put_old.guest.clone(),
        pivot: true,
    });
    s.current = new_root.guest.clone();
    if cwd_at_old {
        let new_host = host_of(s, &s.current);
        let _ = std::env::set_current_dir(Path::new(std::ffi::OsStr::from_bytes(&new_host)));
    }
    Ok(())
}

/// The guest's `umount` of the place a lookup ended at: `true` if that was the old root its
/// `pivot_root` showed there, which is gone now.
pub fn unbind_pivot(r: &Resolved) -> bool {
    let mut g = STATE.write().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(s) = g.as_mut() else {
        return false;
    };
    let before = s.binds.len();
    s.binds.retain(|b| !(b.pivot && b.guest == r.guest));
    s.binds.len() != before
}

/// The host path of the guest place `comps` (components below `DIR`): under the bind point
/// with the longest guest path that holds it, else under `DIR`.
fn host_of(st: &State, comps: &[Vec<u8>]) -> Vec<u8> {
    let bind = st.binds.iter().filter(|b| comps.starts_with(&b.guest)).max_by_key(|b| b.guest.len());
    let (mut out, rest) = match bind {
        Some(b) => (b.host.as_os_str().as_bytes().to_vec(), &comps[b.guest.len()..]),
        None => (st.outer.as_os_str().as_bytes().to_vec(), comps),
    };
    for c in rest {
        if out.last() != Some(&b'/') {
            out.push(b'/');
        }
        out.extend_from_slice(c);
    }
    out
}

/// `rest` if `p` is `prefix` or below it (component-wise).
fn below<'a>(p: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    if prefix == b"/" {
        return Some(p);
    }
    let rest = p.strip_prefix(prefix)?;
    (rest.is_empty() || rest[0] == b'/').then_some(rest)
}

/// The guest place (components below `DIR`) of an absolute host path: inside `DIR`, or inside
/// a bind point's host directory (the longest match wins); `None` elsewhere.
fn host_to_comps(st: &State, host: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut best: Option<(usize, Vec<Vec<u8>>)> = None;
    let outer = st.outer.as_os_str().as_bytes();
    if let Some(rest) = below(host, outer) {
        best = Some((outer.len(), components(rest)));
    }
    for b in &st.binds {
        let h = b.host.as_os_str().as_bytes();
        if let Some(rest) = below(host, h) {
            if best.as_ref().is_none_or(|(n, _)| h.len() > *n) {
                let mut c = b.guest.clone();
                c.extend(components(rest));
                best = Some((h.len(), c));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// The path the guest sees for an absolute host path, as the kernel's `d_path` gives it
/// (`readlink` of `/proc/self/{cwd,exe,fd/N}`, `/proc/self/maps`): relative to the guest's
/// root; a place inside `DIR` but outside the guest's root (a program or working directory
/// kept across `chroot`) as its path from `DIR`, the guest's first root; `None` outside `DIR`
/// and the bind points.
pub fn guest_view(host: &[u8]) -> Option<Vec<u8>> {
    let st = state()?;
    let comps = host_to_comps(&st, host)?;
    Some(join(comps.strip_prefix(st.current.as_slice()).unwrap_or(&comps)))
}

/// [`guest_view`] as `getcwd(2)` gives it: a place outside the guest's root is
/// `(unreachable)/…` (fs/d_path.c).
pub fn guest_cwd_view(host: &[u8]) -> Option<Vec<u8>> {
    let st = state()?;
    let comps = host_to_comps(&st, host)?;
    Some(match comps.strip_prefix(st.current.as_slice()) {
        Some(rest) => join(rest),
        None => {
            let mut v = b"(unreachable)".to_vec();
            v.extend(join(&comps));
            v
        }
    })
}

/// How a lookup treats its last component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Last {
    /// Followed if it is a symbolic link; must exist (`stat`, `open` without `O_CREAT`).
    Follow,
    /// Not followed: the call acts on the name (`lstat`, `unlink`, `mkdir`, `rename`).
    NoFollow,
    /// Followed if it is a link; may be missing (`open` with `O_CREAT`): then the name in the
    /// directory found, which the caller creates with `O_NOFOLLOW`.
    Create,
    /// Followed, must exist, and handed over as the name in its directory rather than as the
    /// object: for calls that would be stopped by endgate holding the object (`umount2`:
    /// `EBUSY`) or that do not follow a descriptor link (`move_mount`, `open_tree`,
    /// `openat2` with `RESOLVE_NO_MAGICLINKS`).
    FollowName,
}

/// A looked-up guest path: the host path to hand the kernel, and the descriptors it names.
#[derive(Debug)]
pub struct Resolved {
    /// `/proc/thread-self/fd/N/NAME`, `/proc/self/fd/N` or (a magic link's last step) a host path.
    pub host: CString,
    /// The object, when the lookup ended on an existing file it followed to.
    pub object: Option<OwnedFd>,
    /// The last component, when `host` is `/proc/thread-self/fd/N/NAME` (N the directory below).
    pub name: Option<CString>,
    /// The directory `host` names the last component in.
    _dir: Option<OwnedFd>,
    /// Where the lookup ended, as components below `DIR`.
    pub guest: Vec<Vec<u8>>,
    /// The last name is a `/proc` link the host is to follow (a descriptor's pipe, a memfd,
    /// `ns/uts`): every other name the host gets must not be followed if it became a link
    /// since the lookup (callers add `O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`…).
    pub host_follows: bool,
    /// A "don't follow" lookup with a trailing slash met a link as its last component
    /// (`rmdir("link/")`): Linux's `rmdir`, `unlink` and `rename` then fail with `ENOTDIR`.
    pub slash_link: bool,
}

impl Resolved {
    /// The directory the last name is in, when the lookup kept one.
    pub fn dir_fd(&self) -> Option<i32> {
        self._dir.as_ref().map(AsRawFd::as_raw_fd)
    }
}

/// A descriptor the host just made for the guest, moved to the lowest free number: under
/// `--root` the lookup's own descriptors were open while the host made it, and Linux gives the
/// lowest number free (open(2)). Keeps close-on-exec as it was.
/// `EMFILE` (the descriptor closed) when even the lowest free number is not below the soft
/// `RLIMIT_NOFILE` ([`spare_fds`] may have made it above).
pub fn lowest(fd: u64) -> Result<u64, Errno> {
    let Ok(fd) = i32::try_from(fd) else {
        return Ok(fd);
    };
    if !active() {
        return Ok(u64::from(fd.unsigned_abs()));
    }
    // SAFETY: fcntl and close on the descriptor just made; getrlimit into a local.
    unsafe {
        let cloexec = libc::fcntl(fd, libc::F_GETFD) & libc::FD_CLOEXEC != 0;
        let low = libc::fcntl(fd, if cloexec { libc::F_DUPFD_CLOEXEC } else { libc::F_DUPFD }, 0);
        let fd = if low >= 0 && low < fd {
            libc::close(fd);
            low
        } else {
            if low >= 0 {
                libc::close(low);
            }
            fd
        };
        let mut rl: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) == 0 && u64::from(fd.unsigned_abs()) >= rl.rlim_cur {
            libc::close(fd);
            return Err(Errno::EMFILE);
        }
        Ok(u64::from(fd.unsigned_abs()))
    }
}

/// Runs `f` (a lookup, or a lookup and the host call that makes a descriptor) and, under
/// `--root`, when it failed with `EMFILE`, once more with the soft `RLIMIT_NOFILE` raised by 8
/// (as far as the hard limit allows): the lookup's own descriptors must not make a guest at its
/// limit fail where Linux, which needs none, would not. The caller of a descriptor-making call
/// then checks the result against the limit ([`lowest`]).
pub fn spare_fds<T>(mut f: impl FnMut() -> Result<T, Errno>) -> Result<T, Errno> {
    let r = f();
    if !active() || !matches!(r, Err(Errno::EMFILE)) {
        return r;
    }
    // SAFETY: plain data.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: a local rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 || rl.rlim_cur >= rl.rlim_max {
        return r;
    }
    let raised = libc::rlimit { rlim_cur: rl.rlim_cur.saturating_add(8).min(rl.rlim_max), rlim_max: rl.rlim_max };
    // SAFETY: a local rlimit.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) };
    let again = f();
    // SAFETY: a local rlimit.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &rl) };
    again
}

/// The name `name` in directory `dir` (`/proc/thread-self/fd/N/NAME`), with the object if known.
fn named(dir: OwnedFd, name: &[u8], object: Option<OwnedFd>, guest: Vec<Vec<u8>>) -> Resolved {
    Resolved {
        host: fd_path(&dir, Some(name)),
        name: CString::new(name).ok(),
        object,
        _dir: Some(dir),
        guest,
        host_follows: false,
        slash_link: false,
    }
}

/// The object itself (`/proc/thread-self/fd/N`), found in `dir`.
fn whole(object: OwnedFd, dir: Option<OwnedFd>, guest: Vec<Vec<u8>>) -> Resolved {
    Resolved {
        host: fd_path(&object, None),
        name: None,
        object: Some(object),
        _dir: dir,
        guest,
        host_follows: false,
        slash_link: false,
    }
}

fn fd_path(fd: &OwnedFd, name: Option<&[u8]>) -> CString {
    let mut p = format!("/proc/thread-self/fd/{}", fd.as_raw_fd()).into_bytes();
    if let Some(n) = name {
        p.push(b'/');
        p.extend_from_slice(n);
    }
    // Components never hold a NUL: they come from a C string or from readlink.
    CString::new(p).unwrap_or_default()
}

fn open_at(dir: i32, name: &CStr, flags: i32) -> Result<OwnedFd, Errno> {
    // SAFETY: a NUL-terminated name; the descriptor is ours once returned.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags | libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(Errno::last());
    }
    // SAFETY: a fresh descriptor nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `struct open_how` for `openat2` (include/uapi/linux/openat2.h).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}
/// `RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH`.
const RESOLVE_PLAIN_BENEATH: u64 = 0x02 | 0x04 | 0x08;

/// Opens the guest place `comps` again, from its bind point or `DIR`, following no link and
/// leaving no directory (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`): the walk
/// found every component of it to be a directory already.
fn reopen(st: &State, comps: &[Vec<u8>]) -> Result<OwnedFd, Errno> {
    let bind = st.binds.iter().filter(|b| comps.starts_with(&b.guest)).max_by_key(|b| b.guest.len());
    let (base, rest) = match bind {
        Some(b) => (b.host.as_os_str().as_bytes(), &comps[b.guest.len()..]),
        None => (st.outer.as_os_str().as_bytes(), comps),
    };
    let base = open_at(libc::AT_FDCWD, &CString::new(base).map_err(|_| Errno::EINVAL)?, libc::O_DIRECTORY)?;
    if rest.is_empty() {
        return Ok(base);
    }
    let mut rel = join(rest);
    rel.remove(0);
    let rel = CString::new(rel).map_err(|_| Errno::EINVAL)?;
    let how = OpenHow {
        flags: u64::from(crate::abi::low32(i64::from(libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC))),
        mode: 0,
        resolve: RESOLVE_PLAIN_BENEATH,
    };
    // SAFETY: our directory, a NUL-terminated path and an open_how of the size given.
    let fd = unsafe {
        libc::syscall(libc::SYS_openat2, base.as_raw_fd(), rel.as_ptr(), &how, std::mem::size_of::<OpenHow>())
    };
    let fd = i32::try_from(fd).map_err(|_| Errno::EINVAL)?;
    if fd < 0 {
        return Err(Errno::last());
    }
    // SAFETY: a fresh descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn stat_fd(fd: &OwnedFd) -> Result<libc::stat, Errno> {
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: our descriptor, `AT_EMPTY_PATH` with an empty name, a local stat.
    if unsafe { libc::fstatat(fd.as_raw_fd(), c"".as_ptr(), &mut st, libc::AT_EMPTY_PATH) } != 0 {
        return Err(Errno::last());
    }
    Ok(st)
}

fn read_link(fd: &OwnedFd) -> Result<Vec<u8>, Errno> {
    let mut buf = vec![0u8; crate::mm::PATH_MAX + 1];
    // SAFETY: our descriptor (an `O_PATH` link), an empty name, a buffer of its length.
    let n = unsafe { libc::readlinkat(fd.as_raw_fd(), c"".as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    let n = usize::try_from(n).map_err(|_| Errno::last())?;
    buf.truncate(n);
    Ok(buf)
}

/// The host path of directory descriptor `dirfd` (the working directory for `AT_FDCWD`).
/// Errors: `EBADF`, `ENOTDIR`.
fn dir_host_path(dirfd: i32) -> Result<Vec<u8>, Errno> {
    if dirfd == libc::AT_FDCWD {
        let c = std::env::current_dir().map_err(|e| Errno::new(e.raw_os_error().unwrap_or(libc::ENOENT)))?;
        return Ok(c.into_os_string().into_encoded_bytes());
    }
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat of a guest descriptor number into a local stat.
    if unsafe { libc::fstat(dirfd, &mut st) } != 0 {
        return Err(Errno::EBADF);
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFDIR {
        return Err(Errno::ENOTDIR);
    }
    let link = std::fs::read_link(format!("/proc/thread-self/fd/{dirfd}")).map_err(|_| Errno::EBADF)?;
    Ok(link.into_os_string().into_encoded_bytes())
}

/// `true` if descriptor `fd` (the working directory for `AT_FDCWD`) is a file inside `DIR` or a
/// bind point, by the host path its `/proc/self/fd` link gives; `true` when `--root` is not in
/// force.
pub fn fd_inside(fd: i32) -> bool {
    let Some(st) = state() else {
        return true;
    };
    let host = if fd == libc::AT_FDCWD {
        std::env::current_dir().ok().map(|p| p.into_os_string().into_encoded_bytes())
    } else {
        std::fs::read_link(format!("/proc/thread-self/fd/{fd}")).ok().map(|p| p.into_os_string().into_encoded_bytes())
    };
    host.is_some_and(|h| host_to_comps(&st, &h).is_some())
}

/// `true` if the place `dir` is inside the host's `/proc` bound in.
fn in_proc(st: &State, dir: &[Vec<u8>]) -> bool {
    st.binds.iter().any(|b| b.host.as_os_str().as_bytes() == b"/proc" && dir.starts_with(&b.guest))
}

/// `true` when the lookup `r` ended on `/proc/PID/mem` or `/proc/PID/task/TID/mem`: the host
/// process's memory (endgate's own, its code included, for a guest's PID), which no guest
/// under `--root` may open (`EACCES`, even with `O_PATH`, which `/proc/self/fd/N` would
/// reopen); `stat` and `ls -l` see it as natively.
///
/// Decided by the host object, not by the binds: a `mem` in the host's procfs (the only ones
/// there are the processes' and threads'), however the guest reached that procfs (the default
/// bind, another bind of `/proc` or of a directory above or below it, a chroot into a subtree
/// that has one, its own `mount -t proc`).
pub fn host_memory(r: &Resolved) -> bool {
    r.guest.last().is_some_and(|c| c == b"mem")
        && r.object.as_ref().map(AsRawFd::as_raw_fd).or_else(|| r.dir_fd()).is_some_and(in_procfs)
}

/// `true` when the descriptor `fd` (an `O_PATH` one too) is on a procfs (`PROC_SUPER_MAGIC`,
/// include/uapi/linux/magic.h).
pub fn in_procfs(fd: i32) -> bool {
    const PROC_SUPER_MAGIC: libc::c_long = 0x9fa0;
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a local out struct.
    unsafe { libc::fstatfs(fd, &mut st) == 0 && st.f_type == PROC_SUPER_MAGIC }
}

/// `true` when the guest's `/proc/self` is the host's procfs (a bind of it, or the guest's own
/// mount), looked up in the guest's root: not when the root has none, nor when its
/// `/proc/self` is a directory of the tree.
pub fn proc_self_present() -> bool {
    resolve(libc::AT_FDCWD, b"/proc/self", Last::Follow)
        .is_ok_and(|r| r.object.as_ref().map(AsRawFd::as_raw_fd).is_some_and(in_procfs))
}

/// `true` for `/proc/P/NAME` and `/proc/P/task/T/NAME` places whose links are magic: `root`,
/// `cwd`, `exe`, and what is in `fd/` and `map_files/`.
fn magic_place(st: &State, dir: &[Vec<u8>]) -> bool {
    let Some(proc_) = st.binds.iter().find(|b| b.host.as_os_str().as_bytes() == b"/proc") else {
        return false;
    };
    let Some(rest) = dir.strip_prefix(proc_.guest.as_slice()) else {
        return false;
    };
    let rest = match rest {
        [_, t, _, r @ ..] if t == b"task" => r,
        [_, r @ ..] => r,
        _ => return false,
    };
    matches!(rest, [] | [_]) && (rest.is_empty() || rest[0] == b"fd" || rest[0] == b"map_files")
}

fn openat2_plain(dir: &OwnedFd, rel: &[u8], flags: i32) -> Option<OwnedFd> {
    let rel = CString::new(rel).ok()?;
    let how = OpenHow {
        flags: u64::from(crate::abi::low32(i64::from(flags | libc::O_PATH | libc::O_CLOEXEC))),
        mode: 0,
        resolve: RESOLVE_PLAIN_BENEATH,
    };
    // SAFETY: our directory, a NUL-terminated path and an open_how of the size given.
    let fd = unsafe {
        libc::syscall(libc::SYS_openat2, dir.as_raw_fd(), rel.as_ptr(), &how, std::mem::size_of::<OpenHow>())
    };
    let fd = i32::try_from(fd).ok().filter(|&f| f >= 0)?;
    // SAFETY: a fresh descriptor.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The common case in one host call: a path with no `..`, no link on the way and no bind point
/// below where it starts, opened with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` from
/// the directory the walk starts in (the kernel refuses any link, so nothing it opens is
/// outside). `None` sends the lookup the long way ([`resolve`]'s walk), which also gives the
/// errors.
fn fast(
    st: &State,
    dir: &OwnedFd,
    here: &[Vec<u8>],
    comps: &VecDeque<Vec<u8>>,
    last: Last,
    slash: bool,
) -> Option<Resolved> {
    if comps.is_empty() || slash || comps.iter().any(|c| c == b".." || c == b"." || c.len() > 255) {
        return None;
    }
    let mut guest = here.to_vec();
    guest.extend(comps.iter().cloned());
    if st.binds.iter().any(|b| guest.starts_with(&b.guest[..1.min(b.guest.len())])) {
        return None;
    }
    let name = comps.back()?.clone();
    let parent = if comps.len() == 1 {
        dir.try_clone().ok()?
    } else {
        let mut rel = Vec::new();
        for c in comps.iter().take(comps.len() - 1) {
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(c);
        }
        openat2_plain(dir, &rel, libc::O_DIRECTORY)?
    };
    if last == Last::NoFollow {
        return Some(named(parent, &name, None, guest));
    }
    let cname = CString::new(name.clone()).ok()?;
    match open_at(parent.as_raw_fd(), &cname, libc::O_NOFOLLOW) {
        Ok(fd) => {
            if stat_fd(&fd).ok()?.st_mode & libc::S_IFMT == libc::S_IFLNK {
                return None;
            }
            Some(whole(fd, Some(parent), guest))
        }
        Err(Errno::ENOENT) if last == Last::Create => Some(named(parent, &name, None, guest)),
        Err(_) => None,
    }
}

/// Looks the guest path `path` up under `--root`, from `dirfd` for a relative path.
/// Errors: what Linux's lookup gives (`ENOENT`, `ENOTDIR`, `ELOOP`, `EACCES`, `EBADF`,
/// `ENAMETOOLONG`), `EXDEV` for a relative path from a directory outside `DIR` and the bind
/// points, `EACCES` for a `/proc` link to a host path outside them.
pub fn resolve(dirfd: i32, path: &[u8], last: Last) -> Result<Resolved, Errno> {
    resolve_with(dirfd, path, last, false)
}

/// [`resolve`]; with `no_links`, any link the lookup would follow is `ELOOP` (`openat2`'s
/// `RESOLVE_NO_SYMLINKS`).
pub fn resolve_with(dirfd: i32, path: &[u8], last: Last, no_links: bool) -> Result<Resolved, Errno> {
    resolve_scoped(dirfd, path, last, no_links, Rules::default())
}

/// `openat2`'s scoped lookups (include/uapi/linux/openat2.h, openat2(2)), relative to `dirfd`'s
/// directory, which acts as the root.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    /// `RESOLVE_IN_ROOT`: `/`, `..` and absolute link targets stop at the directory.
    InRoot,
    /// `RESOLVE_BENEATH`: leaving the directory (an absolute path or link target, `..` above
    /// it) is `EXDEV`.
    Beneath,
}

/// What `openat2`'s `RESOLVE_*` flags ask of a walk under `--root` beyond its links
/// (`RESOLVE_NO_SYMLINKS` is the `no_links` argument).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rules {
    /// `RESOLVE_IN_ROOT` or `RESOLVE_BENEATH` (`None`: the guest's root, as any lookup).
    pub scope: Option<Scope>,
    /// `RESOLVE_NO_MAGICLINKS`: a `/proc` magic link on the way is `ELOOP` (in a scoped walk;
    /// other walks leave it to the host's open).
    pub no_magic: bool,
    /// `RESOLVE_NO_XDEV`: crossing a bind point, in or out, is `EXDEV` (the host sees no mount
    /// there).
    pub no_xdev: bool,
}

/// [`resolve_with`] under [`Rules`]. A scoped walk
/// crosses bind points as any other (the kernel's own scoped lookup, given the host path,
/// would not see them), and refuses `/proc`'s magic links with `EXDEV`, as Linux's
/// `nd_jump_link` does for scoped lookups.
pub fn resolve_scoped(dirfd: i32, path: &[u8], last: Last, no_links: bool, rules: Rules) -> Result<Resolved, Errno> {
    let scope = rules.scope;
    let st = state().ok_or(Errno::EINVAL)?;
    if last == Last::FollowName {
        let r = resolve_scoped(dirfd, path, Last::Follow, no_links, rules)?;
        // A place with a parent inside the guest's root becomes that directory and the name;
        // the root itself (or a /proc link's object) stays the object.
        if r.name.is_none() && r.guest.len() > st.current.len() && r.guest.starts_with(&st.current) {
            if let Some((name, parent)) = r.guest.split_last() {
                let pdir = reopen(&st, parent)?;
                return Ok(named(pdir, &name.clone(), None, r.guest.clone()));
            }
        }
        return Ok(r);
    }
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    let trailing_slash = path.ends_with(b"/");
    // The root of the walk: the guest's, or the scope's directory.
    let top = match scope {
        None => st.current.clone(),
        Some(_) => host_to_comps(&st, &dir_host_path(dirfd)?).ok_or(Errno::EXDEV)?,
    };
    if path[0] == b'/' && scope == Some(Scope::Beneath) {
        return Err(Errno::EXDEV);
    }
    // Where the walk is: components below `DIR`, and that directory's descriptor.
    let (mut here, mut dir) = if path[0] == b'/' {
        (top.clone(), reopen(&st, &top)?)
    } else {
        let host = dir_host_path(dirfd)?;
        let comps = host_to_comps(&st, &host).ok_or(Errno::EXDEV)?;
        let fd = if dirfd == libc::AT_FDCWD {
            open_at(libc::AT_FDCWD, c".", libc::O_DIRECTORY)?
        } else {
            open_at(dirfd, c".", libc::O_DIRECTORY)?
        };
        (comps, fd)
    };
    let mut todo: VecDeque<Vec<u8>> =
        path.split(|&b| b == b'/').filter(|c| !c.is_empty()).map(<[u8]>::to_vec).collect();
    if let Some(r) = fast(&st, &dir, &here, &todo, last, trailing_slash).filter(|_| scope.is_none()) {
        return Ok(r);
    }
    let mut links = 0u32;
    let mut slash_link = false;
    // A path of only slashes (and dots) names the directory the walk starts in.
    let mut object: Option<OwnedFd> = None;
    while let Some(c) = todo.pop_front() {
        let is_last = todo.is_empty();
        object = None;
        if c == b"." {
            if is_last && last == Last::NoFollow {
                return Ok(named(dir, b".", None, here));
            }
            continue;
        }
        if c == b".." {
            if here == top && scope == Some(Scope::Beneath) {
                return Err(Errno::EXDEV);
            }
            if rules.no_xdev && here != top && st.binds.iter().any(|b| b.guest == here) {
                // Leaving a bind point upwards crosses back to the mount below it.
                return Err(Errno::EXDEV);
            }
            if here != top && !here.is_empty() {
                here.pop();
                dir = reopen(&st, &here)?;
            }
            if is_last && last == Last::NoFollow {
                return Ok(named(dir, b".", None, here));
            }
            continue;
        }
        if c.len() > 255 {
            return Err(Errno::ENAMETOOLONG);
        }
        let mut next = here.clone();
        next.push(c.clone());
        let bind = st.binds.iter().find(|b| b.guest == next);
        if bind.is_some() && rules.no_xdev && !(is_last && last == Last::NoFollow && !trailing_slash) {
            // `RESOLVE_NO_XDEV`: a bind point is a mount crossing.
            return Err(Errno::EXDEV);
        }
        let name = CString::new(c.clone()).map_err(|_| Errno::EINVAL)?;
        if is_last && last == Last::NoFollow && !trailing_slash && bind.is_none() {
            return Ok(named(dir, &c, None, next));
        }
        let fd = match bind {
            Some(b) => reopen(&st, &b.guest)?,
            None => match open_at(dir.as_raw_fd(), &name, libc::O_NOFOLLOW) {
                Ok(fd) => fd,
                Err(Errno::ENOENT) if is_last && last != Last::Follow => {
                    return Ok(named(dir, &c, None, next));
                }
                Err(e) => return Err(e),
            },
        };
        let mode = stat_fd(&fd)?.st_mode & libc::S_IFMT;
        if mode == libc::S_IFLNK {
            let target = read_link(&fd)?;
            // A link of /proc whose target is not a path of ours: `ns/uts` (`uts:[…]`), a
            // descriptor's pipe, socket or anonymous inode.
            let opaque = target.first() != Some(&b'/')
                && (target.windows(2).any(|w| w == b":[") || target.starts_with(b"anon_inode:"));
            if opaque && in_proc(&st, &here) {
                if scope.is_some() && !(is_last && last == Last::NoFollow && !trailing_slash) {
                    return Err(if rules.no_magic { Errno::ELOOP } else { Errno::EXDEV });
                }
                if is_last && !trailing_slash {
                    let mut r = named(dir, &c, None, next);
                    r.host_follows = last != Last::NoFollow;
                    return Ok(r);
                }
                return Err(Errno::ENOTDIR);
            }
            if magic_place(&st, &here) {
                // A link of /proc whose target is the host's business.
                let keep = c != b"root" && c != b"cwd";
                if is_last && last == Last::NoFollow && !trailing_slash {
                    return Ok(named(dir, &c, None, next));
                }
                if scope.is_some() {
                    // `RESOLVE_NO_MAGICLINKS` answers first (ELOOP), as Linux's `nd_jump_link`.
                    return Err(if rules.no_magic { Errno::ELOOP } else { Errno::EXDEV });
                }
                // `fd/N`, `exe`, `map_files/…` as the last name: the host opens the object
                // itself, when it is a place inside the root or a bind point, or has no path
                // (a memfd's `/memfd:NAME (deleted)` included); another process's (or
                // endgate's own) descriptor of a file outside is `EACCES`.
                let own_path = target.first() != Some(&b'/') || target.starts_with(b"/memfd:");
                if is_last && keep && !trailing_slash && (own_path || host_to_comps(&st, &target).is_some()) {
                    let mut r = named(dir, &c, None, next);
                    r.host_follows = true;
                    return Ok(r);
                }
                let comps = if c == b"root" {
                    st.current.clone()
                } else if target.first() == Some(&b'/') {
                    host_to_comps(&st, &target).ok_or(Errno::EACCES)?
                } else {
                    return Err(Errno::ENOTDIR);
                };
                dir = reopen(&st, &comps)?;
                here = comps;
                if is_last {
                    object = Some(dir.try_clone().map_err(|_| Errno::EMFILE)?);
                }
                continue;
            }
            if is_last && last == Last::NoFollow && !trailing_slash {
                return Ok(named(dir, &c, None, next));
            }
            if is_last && last == Last::NoFollow {
                // `rmdir("link/")`: the name itself, flagged (the callers that act on it
                // answer `ENOTDIR` as Linux); `lstat("link/")` and `mkdir` follow on.
                slash_link = true;
            }
            links += 1;
            if links > MAX_LINKS || no_links {
                return Err(Errno::ELOOP);
            }
            if target.is_empty() {
                return Err(Errno::ENOENT);
            }
            if target[0] == b'/' {
                if scope == Some(Scope::Beneath) {
                    return Err(Errno::EXDEV);
                }
                here = top.clone();
                dir = reopen(&st, &here)?;
            }
            let mut parts: Vec<Vec<u8>> =
                target.split(|&b| b == b'/').filter(|c| !c.is_empty()).map(<[u8]>::to_vec).collect();
            if target.ends_with(b"/") && is_last && parts.is_empty() {
                parts.push(b".".to_vec());
            }
            for p in parts.into_iter().rev() {
                todo.push_front(p);
            }
            continue;
        }
        if mode == libc::S_IFDIR {
            dir = fd;
            here = next;
            if is_last {
                object = Some(dir.try_clone().map_err(|_| Errno::EMFILE)?);
            }
            continue;
        }
        if !is_last || trailing_slash {
            return Err(Errno::ENOTDIR);
        }
        if last == Last::NoFollow {
            return Ok(named(dir, &c, None, next));
        }
        return Ok(whole(fd, Some(dir), next));
    }
    // The walk ended on a directory (or on `.`/`..`/`/`).
    let object = match object {
        Some(o) => o,
        None => dir.try_clone().map_err(|_| Errno::EMFILE)?,
    };
    if last == Last::NoFollow {
        // `rmdir("d/")`, `mkdir("d/")`: the name in its parent, as the kernel would see it,
        // when there is one; the guest's root and a bind point (`lstat("/")`,
        // `lstat("/proc")`) as `N/.`, the directory itself (never the descriptor's link).
        let at_bind = st.binds.iter().any(|b| b.guest == here);
        if let Some((name, parent)) = here.split_last().filter(|_| here.len() > st.current.len() && !at_bind) {
            let pdir = reopen(&st, parent)?;
            let mut n = name.clone();
            n.push(b'/');
            let mut r = named(pdir, &n, Some(object), here);
            r.slash_link = slash_link;
            return Ok(r);
        }
        let d = object.try_clone().map_err(|_| Errno::EMFILE)?;
        return Ok(named(d, b".", Some(object), here));
    }
    Ok(whole(object, Some(dir), here))
}

/// `true` if a lookup ended at a bind point or inside one (`/proc`, `/dev/shm`): mounting
/// there would change the host's own directories, so [`super::mount`] does nothing instead.
pub fn in_bind(r: &Resolved) -> bool {
    state().is_some_and(|st| st.binds.iter().any(|b| r.guest.starts_with(&b.guest)))
}

/// The host path of the file the guest path `path` names (from the working directory, following
/// links), for endgate's own reading of programs and interpreters; where the lookup fails, an
/// empty path, which the caller's open refuses.
pub fn host_file(path: &[u8]) -> PathBuf {
    let found = resolve(libc::AT_FDCWD, path, Last::Follow).ok().and_then(|r| {
        let fd = r.object.as_ref()?.as_raw_fd();
        std::fs::read_link(format!("/proc/thread-self/fd/{fd}")).ok()
    });
    // An empty path, which the host refuses (`ENOENT`) without walking anything.
    found.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(outer: &str) -> State {
        State {
            outer: PathBuf::from(outer),
            current: Vec::new(),
            binds: vec![Bind { host: PathBuf::from("/proc"), guest: vec![b"proc".to_vec()], pivot: false }],
        }
    }

    #[test]
    fn host_paths_map_to_guest_places() {
        let s = st("/tmp/r");
        assert_eq!(host_to_comps(&s, b"/tmp/r"), Some(vec![]));
        assert_eq!(host_to_comps(&s, b"/tmp/r/a/b"), Some(vec![b"a".to_vec(), b"b".to_vec()]));
        assert_eq!(host_to_comps(&s, b"/tmp/rx"), None);
        assert_eq!(host_to_comps(&s, b"/proc/1"), Some(vec![b"proc".to_vec(), b"1".to_vec()]));
        assert_eq!(host_of(&s, &[b"proc".to_vec(), b"self".to_vec()]), b"/proc/self".to_vec());
        assert_eq!(host_of(&s, &[b"etc".to_vec()]), b"/tmp/r/etc".to_vec());
    }

    #[test]
    fn magic_places_are_the_pid_dirs_and_their_fd_dirs() {
        let s = st("/tmp/r");
        let c = |p: &str| components(p.as_bytes());
        assert!(magic_place(&s, &c("/proc/self")));
        assert!(magic_place(&s, &c("/proc/12/fd")));
        assert!(magic_place(&s, &c("/proc/12/task/13")));
        assert!(magic_place(&s, &c("/proc/12/task/13/map_files")));
        assert!(!magic_place(&s, &c("/proc")));
        assert!(!magic_place(&s, &c("/proc/12/net")));
        assert!(!magic_place(&s, &c("/etc")));
    }
}
