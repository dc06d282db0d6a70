//! endgate's own handles on the host: its executable, the root it started in and the host's
//! `/proc`, kept as descriptors so that its later work does not depend on paths the guest
//! can take away.
//!
//! A guest that changes its root (`chroot`, `pivot_root`) or its mounts (a private mount
//! namespace, `/proc` unmounted or covered) changes the host process's view too: it is the same
//! process. And endgate may start where `/proc` is not there at all: copied into a tree and
//! run with the host's `chroot` (docs/static.md), where the tree has no `/proc` or a
//! `proc -> /proc` link that does not resolve inside it. endgate still has to
//! - run itself again for the guest's `execve` ([`super::exec`]): through its executable's
//!   descriptor (`execveat(fd, "", AT_EMPTY_PATH)`), from the root it started in (a dynamically
//!   linked endgate's loader and libraries are there), the new endgate then entering the
//!   guest's root again;
//! - read `/proc/self/fd/N` links (which descriptor is an eventfd, a directory's path for
//!   `openat`) and `/proc/self/stat`: through the `/proc` descriptor.
//!
//! The executable's handle is opened when the endgate command starts ([`open_exe`]): from
//! `/proc/self/exe`, or where that does not resolve, from the path the kernel ran
//! (`AT_EXECFN`) or `argv[0]`, taken only if its program headers are byte for byte those of
//! the running image (`AT_PHDR`, `AT_PHNUM`); an `execve` hands it to the next endgate
//! (`--exe-fd=N`), which takes it over instead of opening its own (its `/proc/self/exe` may
//! not resolve, and its `AT_EXECFN` is `/dev/fd/N`). Without any, an `execve` tries
//! `/proc/self/exe` at that time and, failing, says so in one line on stderr and returns the
//! error to the guest. The root and `/proc` handles are opened the first time the guest calls
//! something that can hide those paths (mount, umount, chroot, pivot_root, move_mount,
//! unshare of a namespace, setns). The UTS namespace endgate started in is noted then too
//! ([`in_own_uts_ns`]). The handles sit at the top of the descriptor range below
//! `RLIMIT_NOFILE`'s soft limit (at most 1021-1023: the executable's at 1021 normally),
//! close-on-exec; `close`, `close_range` and `dup2`/`dup3` leave them alone or move them out of
//! the way, so the guest cannot lose them by accident. `/proc/self/fd` hides them from its
//! listing (`procfs::hide_own_entries`) and its size (`procfs::own_fd_dir_size`), but a guest
//! that uses every descriptor up to its limit gets one to three fewer. The root and `/proc` handles go
//! to the program a guest `execve`s with the exec state.
//!
//! A guest that changed its root and then gave up the privilege to leave it (`su`, `setpriv`:
//! `chroot` needs `CAP_SYS_CHROOT`) still has its `execve`s run endgate again, without leaving
//! the root: through the host's dynamic loader, named by a path relative to the host's root,
//! which the new process's working directory is until it takes the guest's back
//! ([`loader_route`]).
//!
//! After the guest changed its root, the `-L` sysroot no longer applies (the guest's paths are
//! paths in its new root) and an `execve` passes none on.

use std::ffi::CString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
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
    /// The root and `/proc` handles were opened ([`ensure`]) or taken over.
    opened: bool,
    exe: Option<Handle>,
    root: Option<Handle>,
    proc_: Option<Handle>,
}

static HANDLES: Mutex<Handles> = Mutex::new(Handles { opened: false, exe: None, root: None, proc_: None });

/// Set once any handle is held (a cheap look for `close` and `dup2`).
static ANY: AtomicBool = AtomicBool::new(false);

/// Set once the root and `/proc` handles were opened or taken over (a cheap look for [`ensure`]
/// and the `/proc` readers).
static OPENED: AtomicBool = AtomicBool::new(false);

/// Set once the guest changed its root.
static ROOT_CHANGED: AtomicBool = AtomicBool::new(false);

/// endgate's dynamic loader and the directories its libraries came from, as paths relative to
/// the host's root (`lib64/ld-linux-x86-64.so.2`, `lib/x86_64-linux-gnu`), noted with the
/// handles while the process still is in the host's root, or taken over from the exec state.
/// `None` for a static endgate or when a path is not absolute.
static LOADER: Mutex<Option<(Vec<u8>, Vec<u8>)>> = Mutex::new(None);

/// The loader and library directories of this process (see [`LOADER`]), from the objects the
/// host's loader has loaded (dl_iterate_phdr(3)), each file's real path (no symbolic link on
/// the way): the loader is the object at `AT_BASE`.
fn own_loader() -> Option<(Vec<u8>, Vec<u8>)> {
    struct Found {
        base: usize,
        loader: Option<Vec<u8>>,
        dirs: Vec<Vec<u8>>,
    }
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut libc::c_void) -> i32 {
        // SAFETY: dl_iterate_phdr hands a valid entry and our `Found` back.
        let (info, found) = unsafe { (&*info, &mut *data.cast::<Found>()) };
        if info.dlpi_name.is_null() {
            return 0;
        }
        // SAFETY: a NUL-terminated name the loader keeps.
        let name = unsafe { std::ffi::CStr::from_ptr(info.dlpi_name) }.to_bytes();
        if name.first() != Some(&b'/') {
            return 0;
        }
        // The file itself: a symbolic link on the way may be absolute (Debian's
        // /lib64/ld-linux-x86-64.so.2), which would be read in the guest's root.
        let Ok(real) = std::fs::canonicalize(std::ffi::OsStr::from_bytes(name)) else { return 0 };
        let real = real.into_os_string().into_vec();
        let Some(rel) = real.strip_prefix(b"/") else { return 0 };
        if usize::try_from(info.dlpi_addr).ok() == Some(found.base) {
            found.loader = Some(rel.to_vec());
        } else if let Some(slash) = rel.iter().rposition(|&b| b == b'/') {
            let dir = rel[..slash].to_vec();
            if !found.dirs.contains(&dir) {
                found.dirs.push(dir);
            }
        }
        0
    }
    // SAFETY: reads the process's auxiliary vector.
    let base = usize::try_from(unsafe { libc::getauxval(libc::AT_BASE) }).ok().filter(|&b| b != 0)?;
    let mut found = Found { base, loader: None, dirs: Vec::new() };
    // SAFETY: the callback only reads the entries and writes `found`, which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut found as *mut Found).cast()) };
    let loader = found.loader?;
    let dirs = found.dirs.join(&b':');
    let clean = |p: &[u8]| !p.is_empty() && !p.iter().any(|b| b.is_ascii_whitespace() || *b == 0);
    (clean(&loader) && clean(&dirs)).then_some((loader, dirs))
}

/// How to run endgate again from inside the guest's root when it cannot be left: the working
/// directory becomes the host's root (the handle), and the host's loader runs endgate's
/// binary through the host's `/proc` (`proc/self/fd/EXE`, relative, so from the host's root):
/// `LOADER --library-path DIRS --inhibit-cache --argv0 endgate proc/self/fd/EXE`, every path
/// relative (ld.so(8)). Returns the loader's path and the arguments before endgate's own, or
/// `None` when endgate is static, a handle is missing or the host's root has no `/proc`.
pub fn loader_route() -> Option<(CString, Vec<CString>)> {
    let (loader, dirs) = LOADER.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()?;
    let exe = exe_fd()?;
    proc_fd()?;
    let loader = CString::new(loader).ok()?;
    let args = vec![
        loader.clone(),
        CString::from(c"--library-path"),
        CString::new(dirs).ok()?,
        CString::from(c"--inhibit-cache"),
        CString::from(c"--argv0"),
        CString::from(c"endgate"),
        CString::new(format!("proc/self/fd/{exe}")).ok()?,
    ];
    Some((loader, args))
}

/// `b` as hex digits (exec state lines carry byte strings so).
pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The bytes of [`hex`]'s digits; `None` if `s` is not such.
pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

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
    note_own(fd);
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
    if h.exe.is_none() {
        h.exe = open_handle(c"/proc/self/exe", 0, base);
    }
    h.root = open_handle(c"/", libc::O_DIRECTORY, base);
    h.proc_ = open_handle(c"/proc", libc::O_DIRECTORY, base);
    ANY.store(true, Ordering::Relaxed);
    let mut l = LOADER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if l.is_none() {
        *l = own_loader();
    }
    OPENED.store(true, Ordering::Relaxed);
}

/// At the endgate command's start: takes over the executable's handle a guest `execve` passed
/// on (`inherited`, `--exe-fd`), or opens one (see the module doc). Without either, `execve`
/// falls back to `/proc/self/exe` at the time of the call.
pub fn open_exe(inherited: Option<i32>) {
    let mut h = handles();
    if let Some(fd) = inherited.filter(|&fd| fd >= 0) {
        if let Some((dev, ino)) = stat_of(fd) {
            // SAFETY: the descriptor the previous endgate passed us; it goes back to
            // close-on-exec.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
            h.exe = Some(Handle { fd, dev, ino });
            note_own(fd);
            ANY.store(true, Ordering::Relaxed);
            return;
        }
    }
    let base = top_base();
    h.exe = open_handle(c"/proc/self/exe", 0, base)
        .or_else(|| own_image_paths().iter().find_map(|p| open_own_image(p, base)));
    if h.exe.is_some() {
        ANY.store(true, Ordering::Relaxed);
    }
}

/// The paths this process may have been started from, where `/proc/self/exe` does not
/// resolve: `AT_EXECFN` (the name given to `execve`; under binfmt_misc the guest program's,
/// which [`open_own_image`] then refuses) and `argv[0]` when it names a path.
fn own_image_paths() -> Vec<CString> {
    let mut out = Vec::new();
    // SAFETY: getauxval reads the auxiliary vector.
    let execfn = unsafe { libc::getauxval(libc::AT_EXECFN) };
    if execfn != 0 {
        let p = std::ptr::with_exposed_provenance::<libc::c_char>(crate::abi::u64_to_usize(execfn));
        // SAFETY: AT_EXECFN is a NUL-terminated string on the process's initial stack, which
        // lives as long as the process.
        out.push(unsafe { std::ffi::CStr::from_ptr(p) }.to_owned());
    }
    if let Some(a0) = std::env::args_os().next() {
        let b = a0.into_encoded_bytes();
        if b.contains(&b'/') {
            if let Ok(c) = CString::new(b) {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// The file at `path` as the executable's handle (read-only, at `base` or above) if it is the
/// running executable: an ELF file whose program header table is byte for byte the one the
/// kernel mapped for this process (`AT_PHDR`, `AT_PHNUM`).
fn open_own_image(path: &std::ffi::CStr, base: i32) -> Option<Handle> {
    // SAFETY: getauxval reads the auxiliary vector.
    let (phdr, phnum) = unsafe { (libc::getauxval(libc::AT_PHDR), libc::getauxval(libc::AT_PHNUM)) };
    let len = crate::abi::u64_to_usize(phnum).checked_mul(std::mem::size_of::<libc::Elf64_Phdr>())?;
    if phdr == 0 || len == 0 {
        return None;
    }
    let p = std::ptr::with_exposed_provenance::<u8>(crate::abi::u64_to_usize(phdr));
    // SAFETY: the running image's program headers, which the kernel mapped for its life.
    let ours = unsafe { std::slice::from_raw_parts(p, len) };
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: we own the new descriptor; File closes it.
    let file = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    let mut ehdr = [0u8; 64];
    std::os::unix::fs::FileExt::read_exact_at(&file, &mut ehdr, 0).ok()?;
    // e_phoff of an ELFCLASS64 little-endian header (endgate runs on x86_64 and aarch64).
    let phoff = u64::from_le_bytes(ehdr[32..40].try_into().ok()?);
    if !ehdr.starts_with(b"\x7fELF\x02\x01") {
        return None;
    }
    let mut theirs = vec![0u8; len];
    std::os::unix::fs::FileExt::read_exact_at(&file, &mut theirs, phoff).ok()?;
    if theirs != ours {
        return None;
    }
    let fd = to_top(std::os::fd::IntoRawFd::into_raw_fd(file), base)?;
    note_own(fd);
    let (dev, ino) = stat_of(fd)?;
    Some(Handle { fd, dev, ino })
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

/// Whether the host path `path` (a `/proc/PID/fd/N` link) leads to the file endgate's own
/// executable handle holds (the same device and inode).
pub fn is_own_exe(path: &str) -> bool {
    let Some(exe) = exe_fd() else { return false };
    let Ok(c) = CString::new(path) else { return false };
    // SAFETY: plain data; all-zero is a valid value.
    let (mut a, mut b): (libc::stat, libc::stat) = unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: our descriptor and a NUL-terminated path, local out structs.
    let both = unsafe { libc::fstat(exe, &mut a) == 0 && libc::stat(c.as_ptr(), &mut b) == 0 };
    both && (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
}

/// The root endgate started in, if a handle is held.
pub fn root_fd() -> Option<i32> {
    valid(handles().root)
}

/// The lowest descriptor endgate ever took for itself (the handles here, `--fakeroot`'s
/// log): a guest descriptor below it is never one of endgate's, which [`may_be_own`] answers
/// without the handles' lock.
static LOWEST_OWN: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(i32::MAX);

/// Records that endgate keeps descriptor `fd` for itself ([`LOWEST_OWN`]).
pub fn note_own(fd: i32) {
    LOWEST_OWN.fetch_min(fd, Ordering::Relaxed);
}

/// [`is_own`], at the cost of one load for the descriptors below every one endgate took: for
/// the dispatcher, which answers `EBADF` for a guest call on one of endgate's own
/// descriptors, as for a descriptor the guest never had.
#[inline]
pub fn may_be_own(fd: i32) -> bool {
    fd >= LOWEST_OWN.load(Ordering::Relaxed) && is_own(fd)
}

/// `true` if `fd` is one of the handles or `--fakeroot`'s log ([`super::fakeroot`]) (the
/// guest's `close` of it is `EBADF`, as for a descriptor it never had).
pub fn is_own(fd: i32) -> bool {
    if super::fakeroot::is_own(fd) {
        return true;
    }
    if !ANY.load(Ordering::Relaxed) {
        return false;
    }
    let h = handles();
    [h.exe, h.root, h.proc_].iter().flatten().any(|x| x.fd == fd)
}

/// The handles' descriptors and `--fakeroot`'s log, in increasing order (for `close_range`
/// and [`set_inherited`]).
pub fn own_fds() -> Vec<i32> {
    let log = super::fakeroot::own_fd();
    if !ANY.load(Ordering::Relaxed) {
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
    if !ANY.load(Ordering::Relaxed) {
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
                note_own(new);
                x.fd = new;
            }
        }
    }
}

/// The target of descriptor `fd`: `/proc/thread-self/fd/<fd>` (through the `/proc` handle when
/// one is held). Not `/proc/self`, which is the thread-group leader's: once the leader has
/// ended (the guest's `main` called `pthread_exit`) its `fd` directory is gone (ENOENT), while
/// the calling thread's shares the same table.
pub fn fd_link(fd: i32) -> Option<PathBuf> {
    read_proc_link(&format!("thread-self/fd/{fd}"))
}

/// [`fd_link`] asked to tell which kind of file `fd` is (an anonymous inode's link names it:
/// `anon_inode:[eventfd]`), for data endgate converts for the guest (an eventfd's counter in
/// the other byte order, signalfd records). Where the host's `/proc` cannot be read (a chroot
/// without it, docs/static.md) there is no other way to tell: endgate says so once on stderr
/// and the data passes unconverted.
pub fn fd_kind(fd: i32) -> Option<PathBuf> {
    static WARNED: AtomicBool = AtomicBool::new(false);
    let link = fd_link(fd);
    if link.is_none() && read_proc_link("self").is_none() && !WARNED.swap(true, Ordering::Relaxed) {
        crate::elog!(
            "endgate: /proc is not mounted: eventfd, timerfd, signalfd, inotify and fanotify data pass to the guest unconverted"
        );
    }
    link
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

/// Exec state lines for the program a guest `execve`s: `handles ROOT PROC` (-1 for none;
/// the executable's goes as `--exe-fd`, [`exe_fd`]), `root-changed`, `start-uts DEV INO` and
/// `loader HEX HEX` ([`LOADER`]).
pub fn exec_lines() -> Vec<String> {
    let mut out = Vec::new();
    let h = *handles();
    if h.opened {
        let n = |x: Option<Handle>| valid(x).unwrap_or(-1);
        out.push(format!("handles {} {}", n(h.root), n(h.proc_)));
    }
    if root_changed() {
        out.push("root-changed".into());
    }
    if let Some((dev, ino)) = *START_UTS.lock().unwrap_or_else(std::sync::PoisonError::into_inner) {
        out.push(format!("start-uts {dev} {ino}"));
    }
    if let Some((loader, dirs)) = LOADER.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref() {
        out.push(format!("loader {} {}", hex(loader), hex(dirs)));
    }
    out
}

/// Takes one exec state line (see [`exec_lines`]); `false` if it is not one of these.
pub fn restore_line(line: &str) -> bool {
    if line == "root-changed" {
        mark_root_changed();
        return true;
    }
    if let Some(rest) = line.strip_prefix("loader ") {
        if let Some((a, b)) = rest.split_once(' ') {
            if let (Some(loader), Some(dirs)) = (unhex(a), unhex(b)) {
                *LOADER.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((loader, dirs));
            }
        }
        return true;
    }
    if let Some(cwd) = line.strip_prefix("cwd ").and_then(|f| f.parse::<i32>().ok()) {
        // Started by the loader route with the host's root as working directory: the guest's
        // own again.
        // SAFETY: a directory descriptor handed to us, closed after use.
        unsafe {
            libc::fchdir(cwd);
            libc::close(cwd);
        }
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
        note_own(fd);
        Some(Handle { fd, dev, ino })
    };
    let mut h = handles();
    *h = Handles { opened: true, exe: h.exe, root: take(fds.first()), proc_: take(fds.get(1)) };
    ANY.store(true, Ordering::Relaxed);
    OPENED.store(true, Ordering::Relaxed);
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
