//! endgate's own handles on the host: its executable, the root it started in and the host's
//! `/proc`, kept as descriptors so that its later work does not depend on paths the guest
//! can take away.
//!
//! A guest that changes its root (`chroot`, `pivot_root`) or its mounts (a private mount
//! namespace, `/proc` unmounted or covered) changes the host process's view too: it is the same
//! process. endgate still has to
//! - run itself again for the guest's `execve` ([`super::exec`]): through its executable's
//!   descriptor (`execveat(fd, "", AT_EMPTY_PATH)`), from the root it started in (its dynamic
//!   loader and libraries are there), the new endgate then entering the guest's root again;
//! - read `/proc/self/fd/N` links (which descriptor is an eventfd, a directory's path for
//!   `openat`) and `/proc/self/stat`: through the `/proc` descriptor.
//!
//! The handles are opened the first time the guest calls something that can hide those
//! paths (mount, umount, chroot, pivot_root, move_mount, unshare of a namespace, setns), so a
//! guest that never does sees no descriptor of endgate's. The UTS namespace endgate started in
//! is noted then too ([`in_own_uts_ns`]). They sit at the top of the
//! descriptor range below `RLIMIT_NOFILE`'s soft limit (at most 1021-1023), close-on-exec;
//! `close`, `close_range` and `dup2`/`dup3` leave them alone or move them out of the way, so the
//! guest cannot lose them by accident, but they show in `/proc/self/fd` and a guest that uses
//! every descriptor up to its limit gets three fewer. They go to the program a guest
//! `execve`s with the exec state.
//!
//! After the guest changed its root, the `-L` sysroot no longer applies (the guest's paths are
//! paths in its new root) and an `execve` passes none on.

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The UTS namespace endgate started in (`/proc/self/ns/uts`'s device and inode), recorded
/// with the handles, before the guest's first namespace change.
static START_UTS: Mutex<Option<(u64, u64)>> = Mutex::new(None);

/// The calling thread's UTS namespace, as `(device, inode)` of its `ns/uts` file.
pub fn uts_ns() -> Option<(u64, u64)> {
    let c = CString::new(format!("{}/thread-self/ns/uts", if proc_fd().is_some() { "." } else { "/proc" })).ok()?;
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let dir = proc_fd().unwrap_or(libc::AT_FDCWD);
    // SAFETY: a NUL-terminated path relative to our /proc handle (or absolute), a local stat.
    (unsafe { libc::fstatat(dir, c.as_ptr(), &mut st, 0) } == 0).then_some((st.st_dev, st.st_ino))
}

/// `true` if the calling thread is in a UTS namespace other than the one endgate started in
/// (where its host name is the guest's own to change).
pub fn in_own_uts_ns() -> bool {
    let start = *START_UTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match (start, uts_ns()) {
        (Some(s), Some(now)) => s != now,
        _ => false,
    }
}

/// One handle and the file it must still be.
#[derive(Clone, Copy, Debug)]
struct Handle {
    fd: i32,
    dev: u64,
    ino: u64,
}

/// The three handles (each `None` until opened, or if it could not be).
#[derive(Clone, Copy, Debug, Default)]
struct Handles {
    opened: bool,
    exe: Option<Handle>,
    root: Option<Handle>,
    proc_: Option<Handle>,
}

static HANDLES: Mutex<Handles> = Mutex::new(Handles { opened: false, exe: None, root: None, proc_: None });

/// Set once the handles were opened (a cheap look for `close` and `dup2`).
static OPENED: AtomicBool = AtomicBool::new(false);

/// Set once the guest changed its root.
static ROOT_CHANGED: AtomicBool = AtomicBool::new(false);

fn handles() -> std::sync::MutexGuard<'static, Handles> {
    HANDLES.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn stat_of(fd: i32) -> Option<(u64, u64)> {
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a local stat buffer.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// The lowest number the handles go at: three below the soft descriptor limit, at most 1021.
fn top_base() -> i32 {
    // SAFETY: plain data.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: a local rlimit.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } == 0 { rl.rlim_cur } else { 1024 };
    i32::try_from(soft.min(1024)).unwrap_or(1024).saturating_sub(3).max(3)
}

/// Moves `fd` to a close-on-exec descriptor at `base` or above and closes the old one.
fn to_top(fd: i32, base: i32) -> Option<i32> {
    // SAFETY: duplicating and closing our own descriptor.
    unsafe {
        let high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, base);
        libc::close(fd);
        (high >= 0).then_some(high)
    }
}

fn open_handle(path: &std::ffi::CStr, flags: i32, base: i32) -> Option<Handle> {
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), flags | libc::O_PATH | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    let fd = to_top(fd, base)?;
    let (dev, ino) = stat_of(fd)?;
    Some(Handle { fd, dev, ino })
}

/// Opens the handles if they are not open yet (before a call that may hide the paths they
/// come from).
pub fn ensure() {
    if OPENED.load(Ordering::Relaxed) {
        return;
    }
    // Before the lock below: `uts_ns` takes it.
    let uts = uts_ns();
    let mut h = handles();
    if h.opened {
        return;
    }
    h.opened = true;
    *START_UTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = uts;
    let base = top_base();
    h.exe = open_handle(c"/proc/self/exe", 0, base);
    h.root = open_handle(c"/", libc::O_DIRECTORY, base);
    h.proc_ = open_handle(c"/proc", libc::O_DIRECTORY, base);
    OPENED.store(true, Ordering::Relaxed);
}

/// The handle's descriptor if it still is the file it was opened on.
fn valid(h: Option<Handle>) -> Option<i32> {
    let h = h?;
    (stat_of(h.fd) == Some((h.dev, h.ino))).then_some(h.fd)
}

/// The host's `/proc`, if a handle is held.
fn proc_fd() -> Option<i32> {
    if !OPENED.load(Ordering::Relaxed) {
        return None;
    }
    valid(handles().proc_)
}

/// endgate's own executable, if a handle is held.
pub fn exe_fd() -> Option<i32> {
    valid(handles().exe)
}

/// The root endgate started in, if a handle is held.
pub fn root_fd() -> Option<i32> {
    valid(handles().root)
}

/// `true` if `fd` is one of the handles or `--fakeroot`'s log ([`super::fakeroot`]) (the
/// guest's `close` of it is `EBADF`, as for a descriptor it never had).
pub fn is_own(fd: i32) -> bool {
    if super::fakeroot::is_own(fd) {
        return true;
    }
    if !OPENED.load(Ordering::Relaxed) {
        return false;
    }
    let h = handles();
    [h.exe, h.root, h.proc_].iter().flatten().any(|x| x.fd == fd)
}

/// The handles' descriptors and `--fakeroot`'s log, in increasing order (for `close_range`
/// and [`set_inherited`]).
pub fn own_fds() -> Vec<i32> {
    let log = super::fakeroot::own_fd();
    if !OPENED.load(Ordering::Relaxed) {
        return log.into_iter().collect();
    }
    let h = handles();
    let mut v: Vec<i32> = [h.exe, h.root, h.proc_].iter().flatten().map(|x| x.fd).chain(log).collect();
    v.sort_unstable();
    v
}

/// Before the guest's `dup2`/`dup3` onto `fd`: a handle there moves to another descriptor.
pub fn make_room(fd: i32) {
    super::fakeroot::make_room(fd);
    if !OPENED.load(Ordering::Relaxed) {
        return;
    }
    let mut guard = handles();
    let h = &mut *guard;
    let base = top_base().saturating_sub(8).max(3);
    for x in [&mut h.exe, &mut h.root, &mut h.proc_].into_iter().flatten() {
        if x.fd == fd {
            // SAFETY: duplicating our own descriptor.
            let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, base) };
            if new >= 0 {
                x.fd = new;
            }
        }
    }
}

/// The target of `/proc/self/fd/<fd>` (through the `/proc` handle when one is held).
pub fn fd_link(fd: i32) -> Option<PathBuf> {
    read_proc_link(&format!("self/fd/{fd}"))
}

/// The target of the link `rel` under the host's `/proc` (`self/fd/3`).
pub fn read_proc_link(rel: &str) -> Option<PathBuf> {
    match proc_fd() {
        Some(p) => {
            let c = CString::new(rel).ok()?;
            let mut buf = vec![0u8; libc::PATH_MAX as usize];
            // SAFETY: a NUL-terminated relative path and a buffer of its length.
            let n = unsafe { libc::readlinkat(p, c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
            let n = usize::try_from(n).ok()?;
            buf.truncate(n);
            Some(PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(buf)))
        }
        None => std::fs::read_link(format!("/proc/{rel}")).ok(),
    }
}

/// The host's `/proc/<rel>` opened for reading, through the handle when one is held.
pub fn open_proc(rel: &str) -> Option<std::fs::File> {
    match proc_fd() {
        Some(p) => {
            let c = CString::new(rel).ok()?;
            // SAFETY: a NUL-terminated relative path under our directory handle.
            let fd = unsafe { libc::openat(p, c.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
            if fd < 0 {
                return None;
            }
            // SAFETY: we own the new descriptor; File closes it.
            Some(unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) })
        }
        None => std::fs::File::open(format!("/proc/{rel}")).ok(),
    }
}

/// The contents of the host's `/proc/<rel>` (`self/stat`, `cpuinfo`), through the handle when
/// one is held.
pub fn read_proc(rel: &str) -> Option<Vec<u8>> {
    let mut v = Vec::new();
    std::io::Read::read_to_end(&mut open_proc(rel)?, &mut v).ok()?;
    Some(v)
}

/// [`read_proc`] as text (empty when it cannot be read).
pub fn read_proc_string(rel: &str) -> String {
    read_proc(rel).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
}

/// The guest changed its root.
pub fn mark_root_changed() {
    ROOT_CHANGED.store(true, Ordering::Relaxed);
}

/// `true` once the guest changed its root (the sysroot no longer applies).
#[inline]
pub fn root_changed() -> bool {
    ROOT_CHANGED.load(Ordering::Relaxed)
}

/// For an `execve`: the handles' descriptors lose close-on-exec (`true`) or get it back
/// (`false`, when the exec failed).
pub fn set_inherited(inherit: bool) {
    let flag = if inherit { 0 } else { libc::FD_CLOEXEC };
    for fd in own_fds() {
        // SAFETY: our own descriptor.
        unsafe { libc::fcntl(fd, libc::F_SETFD, flag) };
    }
}

/// Exec state lines for the program a guest `execve`s: `handles EXE ROOT PROC` (-1 for
/// none) and `root-changed`.
pub fn exec_lines() -> Vec<String> {
    let mut out = Vec::new();
    let h = *handles();
    if h.opened {
        let n = |x: Option<Handle>| valid(x).unwrap_or(-1);
        out.push(format!("handles {} {} {}", n(h.exe), n(h.root), n(h.proc_)));
    }
    if root_changed() {
        out.push("root-changed".into());
    }
    if let Some((dev, ino)) = *START_UTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner) {
        out.push(format!("start-uts {dev} {ino}"));
    }
    out
}

/// Takes one exec state line (see [`exec_lines`]); `false` if it is not one of these.
pub fn restore_line(line: &str) -> bool {
    if line == "root-changed" {
        mark_root_changed();
        return true;
    }
    if let Some(rest) = line.strip_prefix("start-uts ") {
        let v: Vec<u64> = rest.split(' ').filter_map(|s| s.parse().ok()).collect();
        if let [dev, ino] = v[..] {
            *START_UTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((dev, ino));
        }
        return true;
    }
    let Some(rest) = line.strip_prefix("handles ") else { return false };
    let fds: Vec<i32> = rest.split(' ').filter_map(|s| s.parse().ok()).collect();
    let take = |fd: Option<&i32>| {
        let fd = *fd.filter(|&&f| f >= 0)?;
        // SAFETY: a descriptor the previous endgate passed us; it goes back to close-on-exec.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        let (dev, ino) = stat_of(fd)?;
        Some(Handle { fd, dev, ino })
    };
    OPENED.store(true, Ordering::Relaxed);
    let mut h = handles();
    *h = Handles { opened: true, exe: take(fds.first()), root: take(fds.get(1)), proc_: take(fds.get(2)) };
    true
}

/// Makes the directory `root` this thread's root and `cwd` its working directory, then closes
/// both: the guest's root and working directory again, in a new endgate (`reenter`) or after
/// a failed exec undoes `exec`'s `leave_guest_root`.
pub(super) fn enter_root(root: i32, cwd: i32) {
    // SAFETY: directory descriptors handed to us to enter, closed after use.
    unsafe {
        if libc::fchdir(root) == 0 {
            libc::chroot(c".".as_ptr());
        }
        libc::fchdir(cwd);
        libc::close(root);
        libc::close(cwd);
    }
}

/// Enters the guest's root again in a new endgate (exec state line `reenter ROOT CWD`): the
/// previous endgate left the guest's root to exec this one from its own. `false` if the
/// line is not one; the descriptors are closed.
pub fn reenter_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("reenter ") else { return false };
    let fds: Vec<i32> = rest.split(' ').filter_map(|s| s.parse().ok()).collect();
    if let [root, cwd] = fds[..] {
        enter_root(root, cwd);
    }
    true
}
