//! `--fakeroot`: the guest runs as if it were root for file ownership and modes, as
//! fakeroot(1) and PRoot's `-0` give an unprivileged user (docs/fakeroot.md).
//!
//! - Credentials: `getuid` and the other id getters (the 16- and 32-bit forms too) answer from
//!   per-process faked credentials, all 0 at start; `setuid`, `setresuid`, `setgroups` and the
//!   rest always succeed and are remembered (with root's rules while the faked euid is 0,
//!   otherwise only the effective and fs ids change, as fakeroot does). They carry over fork
//!   (process memory) and exec (the exec state line).
//! - Ownership and modes: `chown` and its forms try the host call and keep a record of the new
//!   owner, swallowing the host's `EPERM` (and `EINVAL`, an id the host's user namespace does
//!   not map); `chmod` and its forms apply the mode with the owner's read and write bits (and
//!   search bit for directories) added on the host, as fakeroot does, and record the mode the
//!   guest asked for; `mknod` of a character or block device makes an empty regular file and
//!   records the device type and number. The `stat` family reports the records; a file without
//!   one is reported owned by 0:0 where the host owner is the real user (other owners stay).
//! - Records are keyed by the host's `(st_dev, st_ino)`; the last unlink of a file, an `rmdir`
//!   or a rename over a file drops its record (the inode number may be reused).
//! - Sharing: every process of the guest shares one append-only log (a memfd, or the
//!   `--fakeroot-state` file), one line per change, written with one `write(2)` on an
//!   `O_APPEND` descriptor (so lines never interleave) and read by each process from where it
//!   stopped whenever the log grew (one `fstat` before each lookup). Each line sets single
//!   fields, so two processes changing different fields of one file lose nothing, without a
//!   lock. The descriptor sits near the top of the descriptor range, kept from the guest's
//!   `close`/`dup2` like [`super::selfref`]'s handles, and goes to exec'd programs in the exec
//!   state.
//! - `capget` reports every capability in the effective and permitted sets; `access` and
//!   `faccessat` keep the host's answer.
//!
//! Log line format (text, one change per line; `#` lines are comments):
//! `DEV INO FIELD…` with DEV and INO the host's `st_dev` and `st_ino` in decimal and each FIELD
//! one of `uid=N`, `gid=N`, `mode=OCTAL` (permission bits, `07777`), `dev=c:MAJOR:MINOR` or
//! `dev=b:MAJOR:MINOR` (a faked device), `gone` (drop the record).

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use syscalls::Errno;

use super::nr::Sys;
use super::{SysResult, SyscallDef};
use crate::abi::stat32::{high2low, low2high};
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// Set once `--fakeroot` was given (or an exec state line turned it on).
static ON: AtomicBool = AtomicBool::new(false);

/// `true` under `--fakeroot`.
#[inline]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// What is recorded for one file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Rec {
    uid: Option<u32>,
    gid: Option<u32>,
    /// Permission bits (`07777`).
    perm: Option<u32>,
    /// A faked device: `S_IFCHR` or `S_IFBLK`, and the host `dev_t` of its number.
    dev: Option<(u32, u64)>,
}

/// The process's view of the shared log.
struct Db {
    fd: i32,
    /// Bytes of the log applied to `recs`.
    read_to: u64,
    recs: HashMap<(u64, u64), Rec>,
    /// The host's real uid and gid (the owner of the files the guest creates), read once.
    real: (u32, u32),
}

impl Db {
    fn new(fd: i32) -> Db {
        // SAFETY: no arguments.
        let real = unsafe { (libc::getuid(), libc::getgid()) };
        let mut d = Db { fd, read_to: 0, recs: HashMap::new(), real };
        refresh(&mut d);
        d
    }
}

static DB: Mutex<Option<Db>> = Mutex::new(None);

fn db() -> std::sync::MutexGuard<'static, Option<Db>> {
    DB.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Faked credentials: real, effective, saved and fs ids, and the supplementary groups.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Creds {
    uid: [u32; 4],
    gid: [u32; 4],
    groups: Vec<u32>,
}

const R: usize = 0;
const E: usize = 1;
const S: usize = 2;
const FS: usize = 3;

static CREDS: Mutex<Creds> = Mutex::new(Creds { uid: [0; 4], gid: [0; 4], groups: Vec::new() });

fn creds() -> std::sync::MutexGuard<'static, Creds> {
    CREDS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Applies one log line to `recs`; a line that does not parse changes nothing.
fn apply_line(recs: &mut HashMap<(u64, u64), Rec>, line: &str) {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return;
    }
    let mut words = line.split_ascii_whitespace();
    let (Some(Ok(dev)), Some(Ok(ino))) = (words.next().map(str::parse::<u64>), words.next().map(str::parse::<u64>))
    else {
        return;
    };
    let key = (dev, ino);
    for w in words {
        if w == "gone" {
            recs.remove(&key);
            continue;
        }
        let Some((name, value)) = w.split_once('=') else { continue };
        let mut rec = recs.get(&key).copied().unwrap_or_default();
        match name {
            "uid" => rec.uid = value.parse().ok().or(rec.uid),
            "gid" => rec.gid = value.parse().ok().or(rec.gid),
            "mode" => rec.perm = u32::from_str_radix(value, 8).ok().map(|m| m & 0o7777).or(rec.perm),
            "dev" => rec.dev = parse_dev(value).or(rec.dev),
            _ => {}
        }
        if rec != Rec::default() {
            recs.insert(key, rec);
        }
    }
}

/// `c:MAJOR:MINOR` or `b:MAJOR:MINOR`.
fn parse_dev(v: &str) -> Option<(u32, u64)> {
    let mut it = v.split(':');
    let kind = match it.next()? {
        "c" => libc::S_IFCHR,
        "b" => libc::S_IFBLK,
        _ => return None,
    };
    let major: u32 = it.next()?.parse().ok()?;
    let minor: u32 = it.next()?.parse().ok()?;
    Some((kind, libc::makedev(major, minor)))
}

fn fmt_dev((kind, rdev): (u32, u64)) -> String {
    let k = if kind == libc::S_IFBLK { 'b' } else { 'c' };
    format!("dev={k}:{}:{}", libc::major(rdev), libc::minor(rdev))
}

/// One record as a compact log line.
fn rec_line((dev, ino): (u64, u64), r: &Rec) -> String {
    let mut s = format!("{dev} {ino}");
    if let Some(u) = r.uid {
        s.push_str(&format!(" uid={u}"));
    }
    if let Some(g) = r.gid {
        s.push_str(&format!(" gid={g}"));
    }
    if let Some(p) = r.perm {
        s.push_str(&format!(" mode={p:o}"));
    }
    if let Some(d) = r.dev {
        s.push(' ');
        s.push_str(&fmt_dev(d));
    }
    s
}

/// Reads what the log gained since this process last looked (whole lines only: a line being
/// written is taken the next time).
fn refresh(db: &mut Db) {
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: our descriptor, a local stat.
    if unsafe { libc::fstat(db.fd, &mut st) } != 0 {
        return;
    }
    let size = u64::try_from(st.st_size).unwrap_or(0);
    if size <= db.read_to {
        return;
    }
    let mut buf = vec![0u8; crate::abi::u64_to_usize(size - db.read_to)];
    let mut got = 0usize;
    while got < buf.len() {
        let off = i64::try_from(db.read_to + crate::abi::bits64(got)).unwrap_or(i64::MAX);
        // SAFETY: our descriptor and the unfilled rest of a local buffer.
        let n = unsafe { libc::pread(db.fd, buf[got..].as_mut_ptr().cast(), buf.len() - got, off) };
        match usize::try_from(n) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    buf.truncate(got);
    let Some(end) = buf.iter().rposition(|&b| b == b'\n') else { return };
    for line in buf[..end].split(|&b| b == b'\n') {
        apply_line(&mut db.recs, &String::from_utf8_lossy(line));
    }
    db.read_to += crate::abi::bits64(end) + 1;
}

/// Appends one line (one `write` on the `O_APPEND` descriptor) and reads it back with whatever
/// other processes wrote before it.
fn append(db: &mut Db, line: &str) {
    let text = format!("{line}\n");
    // SAFETY: our descriptor and a buffer of its length.
    let _ = unsafe { libc::write(db.fd, text.as_ptr().cast(), text.len()) };
    refresh(db);
}

/// The lowest descriptor the log goes at: below `selfref`'s three handles (which take the top
/// three below the soft limit, at most 1021-1023).
fn top_base() -> i32 {
    // SAFETY: plain data.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: a local rlimit.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } == 0 { rl.rlim_cur } else { 1024 };
    i32::try_from(soft.min(1024)).unwrap_or(1024).saturating_sub(4).max(3)
}

/// Moves `fd` to a close-on-exec descriptor at [`top_base`] or above (or, when none is free
/// there, the lowest free one) and closes the old one.
fn to_top(fd: i32) -> i32 {
    // SAFETY: duplicating and closing our own descriptor.
    unsafe {
        let mut high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, top_base());
        if high < 0 {
            high = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3);
        }
        if high < 0 {
            return fd;
        }
        libc::close(fd);
        high
    }
}

/// Turns `--fakeroot` on in the first endgate: the log is the state file `state` (its records
/// loaded and written back compacted, as one line per file; created when missing) or a new
/// memfd. Errors: a message naming the file.
pub fn start(state: Option<&std::path::Path>) -> Result<(), String> {
    let fd = match state {
        Some(p) => open_state(p).map_err(|e| format!("--fakeroot-state {}: {e}", p.display()))?,
        None => {
            // SAFETY: a NUL-terminated name.
            let fd = unsafe { libc::memfd_create(c"endgate-fakeroot".as_ptr(), libc::MFD_CLOEXEC) };
            // SAFETY: our new descriptor.
            if fd < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, libc::O_APPEND) } != 0 {
                return Err(format!("--fakeroot: cannot make its log: {}", std::io::Error::last_os_error()));
            }
            fd
        }
    };
    let fd = to_top(fd);
    super::selfref::note_own(fd);
    super::selfref::note_own(fd);
    *db() = Some(Db::new(fd));
    *creds() = Creds { uid: [0; 4], gid: [0; 4], groups: vec![0] };
    ON.store(true, Ordering::Relaxed);
    Ok(())
}

/// Loads the state file at `p`, writes its records back compacted (through a temporary file
/// renamed over it) and opens it for appending.
fn open_state(p: &std::path::Path) -> std::io::Result<i32> {
    use std::os::fd::IntoRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let mut recs = HashMap::new();
    match std::fs::read(p) {
        Ok(bytes) => {
            for line in String::from_utf8_lossy(&bytes).lines() {
                apply_line(&mut recs, line);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut keys: Vec<&(u64, u64)> = recs.keys().collect();
    keys.sort_unstable();
    let mut text = String::from("# endgate --fakeroot state: DEV INO uid= gid= mode= dev= (docs/fakeroot.md)\n");
    for k in keys {
        text.push_str(&rec_line(*k, &recs[k]));
        text.push('\n');
    }
    let mut tmp_name = p.as_os_str().to_owned();
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp_name);
    {
        let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    if let Err(e) = std::fs::rename(&tmp, p) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let f = std::fs::OpenOptions::new().read(true).append(true).custom_flags(libc::O_CLOEXEC).open(p)?;
    Ok(f.into_raw_fd())
}

/// `true` if `fd` is the log's descriptor (the guest's `close` of it is `EBADF`).
pub fn is_own(fd: i32) -> bool {
    on() && db().as_ref().is_some_and(|d| d.fd == fd)
}

/// The log's descriptor, if `--fakeroot` is on.
pub fn own_fd() -> Option<i32> {
    if !on() {
        return None;
    }
    db().as_ref().map(|d| d.fd)
}

/// Before the guest's `dup2`/`dup3` onto `fd`: the log moves to another descriptor.
pub fn make_room(fd: i32) {
    if !on() {
        return;
    }
    if let Some(d) = db().as_mut().filter(|d| d.fd == fd) {
        // SAFETY: duplicating our own descriptor (the guest's dup2 then closes the old one).
        let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, top_base().saturating_sub(8).max(3)) };
        if new >= 0 {
            super::selfref::note_own(new);
            d.fd = new;
        }
    }
}

/// The exec state line for the program a guest `execve`s: `fakeroot FD UIDS GIDS GROUPS`
/// (four ids each, comma-separated; groups comma-separated or `-`). The descriptor is
/// inherited (`selfref::set_inherited` clears its close-on-exec flag with the handles').
pub fn exec_lines() -> Vec<String> {
    let Some(fd) = own_fd() else { return Vec::new() };
    let c = creds().clone();
    let j = |v: &[u32]| {
        if v.is_empty() {
            "-".to_string()
        } else {
            v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
        }
    };
    vec![format!("fakeroot {fd} {} {} {}", j(&c.uid), j(&c.gid), j(&c.groups))]
}

/// Takes over an [`exec_lines`] line in the new endgate; `false` for another line.
pub fn restore_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("fakeroot ") else { return false };
    let w: Vec<&str> = rest.split(' ').collect();
    let ids = |s: Option<&&str>| -> Vec<u32> {
        s.map_or(Vec::new(), |s| s.split(',').filter_map(|x| x.parse().ok()).collect())
    };
    let (Some(Ok(fd)), uid, gid) = (w.first().map(|s| s.parse::<i32>()), ids(w.get(1)), ids(w.get(2))) else {
        return true;
    };
    let (Ok(uid), Ok(gid)) = (<[u32; 4]>::try_from(uid), <[u32; 4]>::try_from(gid)) else { return true };
    // SAFETY: the descriptor the previous endgate passed us; back to close-on-exec.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        return true;
    }
    super::selfref::note_own(fd);
    *db() = Some(Db::new(fd));
    *creds() = Creds { uid, gid, groups: ids(w.get(3)) };
    ON.store(true, Ordering::Relaxed);
    true
}

/// What the guest is told about a file: owner, group, the `st_mode` and the `st_rdev` (host
/// `dev_t`), from its record, else the host's with the real user's ids reported as 0.
fn faked(dev: u64, ino: u64, uid: u32, gid: u32, mode: u32, rdev: u64) -> (u32, u32, u32, u64) {
    let (rec, (ruid, rgid)) = {
        let mut g = db();
        let Some(d) = g.as_mut() else { return (uid, gid, mode, rdev) };
        refresh(d);
        (d.recs.get(&(dev, ino)).copied().unwrap_or_default(), d.real)
    };
    let uid = rec.uid.unwrap_or(if uid == ruid { 0 } else { uid });
    let gid = rec.gid.unwrap_or(if gid == rgid { 0 } else { gid });
    let host_kind = mode & libc::S_IFMT;
    // A faked device shows as one while the host file is still the empty regular file made for
    // it; anything else there (the inode reused without a drop the guest made) shows as it is.
    let (kind, rdev) = match rec.dev {
        Some((k, d)) if host_kind == libc::S_IFREG => (k, d),
        _ => (host_kind, rdev),
    };
    let perm = rec.perm.unwrap_or(mode & 0o7777);
    (uid, gid, kind | perm, rdev)
}

/// Under `--fakeroot`, changes a host `struct stat` to what the guest is told (every `stat`
/// family call converts through here before writing the guest's layout).
pub fn stat(st: &mut libc::stat) {
    if !on() {
        return;
    }
    let (uid, gid, mode, rdev) = faked(st.st_dev, st.st_ino, st.st_uid, st.st_gid, st.st_mode, st.st_rdev);
    st.st_uid = uid;
    st.st_gid = gid;
    st.st_mode = mode;
    st.st_rdev = rdev;
}

/// [`stat`] for `statx`'s struct (the device as major and minor numbers, a 16-bit mode).
pub fn statx(stx: &mut libc::statx) {
    if !on() {
        return;
    }
    let dev = libc::makedev(stx.stx_dev_major, stx.stx_dev_minor);
    let host_rdev = libc::makedev(stx.stx_rdev_major, stx.stx_rdev_minor);
    let (uid, gid, mode, rdev) = faked(dev, stx.stx_ino, stx.stx_uid, stx.stx_gid, u32::from(stx.stx_mode), host_rdev);
    stx.stx_uid = uid;
    stx.stx_gid = gid;
    stx.stx_mode = crate::abi::low16(mode);
    stx.stx_rdev_major = libc::major(rdev);
    stx.stx_rdev_minor = libc::minor(rdev);
}

/// Records `fields` (log words such as `uid=5`) for the file `st` describes.
fn record(st: &libc::stat, fields: &[String]) {
    if fields.is_empty() {
        return;
    }
    if let Some(d) = db().as_mut() {
        append(d, &format!("{} {} {}", st.st_dev, st.st_ino, fields.join(" ")));
    }
}

/// Drops the record of the file `st` describes, if it has one.
fn forget(st: &libc::stat) {
    if let Some(d) = db().as_mut() {
        refresh(d);
        if d.recs.contains_key(&(st.st_dev, st.st_ino)) {
            append(d, &format!("{} {} gone", st.st_dev, st.st_ino));
        }
    }
}

/// The file a call names: a descriptor, or a path from a directory descriptor with `AT_*`
/// flags (`AT_SYMLINK_NOFOLLOW`, `AT_EMPTY_PATH`).
#[derive(Clone, Copy)]
enum Target {
    Fd(i32),
    At { dirfd: i32, path: GuestAddr, flags: i32 },
}

fn at(dirfd: i32, path: GuestAddr, flags: i32) -> Target {
    Target::At { dirfd, path, flags }
}

/// The host's `stat` of `target` as the guest names it (its path mapped as the handlers map
/// it); `None` when there is no such file or the path cannot be read.
fn host_stat(cpu: &Cpu<'_>, target: Target) -> Option<libc::stat> {
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let r = match target {
        // SAFETY: a local stat.
        Target::Fd(fd) => unsafe { libc::fstat(fd, &mut st) },
        Target::At { dirfd, path, flags } => {
            let flags = flags & (libc::AT_SYMLINK_NOFOLLOW | libc::AT_EMPTY_PATH);
            let p = super::path::host_path_at(cpu.get_data(), dirfd, path, flags).ok()?;
            // SAFETY: a NUL-terminated path and a local stat.
            unsafe { libc::fstatat(dirfd, p.as_ptr(), &mut st, flags) }
        }
    };
    (r == 0).then_some(st)
}

fn is_dir(st: &libc::stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFDIR
}

/// The call `def` under `--fakeroot`: the calls it changes are served here, every other one
/// by its own handler.
pub fn serve(cpu: &mut Cpu<'_>, def: &SyscallDef, a: &SyscallArgs) -> SysResult {
    use Sys::*;
    const CWD: i32 = libc::AT_FDCWD;
    const NOFOLLOW: i32 = libc::AT_SYMLINK_NOFOLLOW;
    let w16 = |i: usize| low2high(a.raw(i));
    match def.sys {
        getuid | getuid32 => Ok(u64::from(creds().uid[R])),
        geteuid | geteuid32 => Ok(u64::from(creds().uid[E])),
        getgid | getgid32 => Ok(u64::from(creds().gid[R])),
        getegid | getegid32 => Ok(u64::from(creds().gid[E])),
        getuid16 => Ok(u64::from(high2low(creds().uid[R]))),
        geteuid16 => Ok(u64::from(high2low(creds().uid[E]))),
        getgid16 => Ok(u64::from(high2low(creds().gid[R]))),
        getegid16 => Ok(u64::from(high2low(creds().gid[E]))),
        getresuid | getresuid32 => getres(cpu, a, true, false),
        getresgid | getresgid32 => getres(cpu, a, false, false),
        getresuid16 => getres(cpu, a, true, true),
        getresgid16 => getres(cpu, a, false, true),
        getgroups | getgroups32 => getgroups_(cpu, a, false),
        getgroups16 => getgroups_(cpu, a, true),
        setgroups | setgroups32 => setgroups_(cpu, a, false),
        setgroups16 => setgroups_(cpu, a, true),
        setuid | setuid32 => set_id(true, a.uint(0)),
        setgid | setgid32 => set_id(false, a.uint(0)),
        setuid16 => set_id(true, w16(0)),
        setgid16 => set_id(false, w16(0)),
        setreuid | setreuid32 => set_re(true, a.uint(0), a.uint(1)),
        setregid | setregid32 => set_re(false, a.uint(0), a.uint(1)),
        setreuid16 => set_re(true, w16(0), w16(1)),
        setregid16 => set_re(false, w16(0), w16(1)),
        setresuid | setresuid32 => set_res(true, [a.uint(0), a.uint(1), a.uint(2)]),
        setresgid | setresgid32 => set_res(false, [a.uint(0), a.uint(1), a.uint(2)]),
        setresuid16 => set_res(true, [w16(0), w16(1), w16(2)]),
        setresgid16 => set_res(false, [w16(0), w16(1), w16(2)]),
        setfsuid | setfsuid32 => Ok(u64::from(set_fs(true, a.uint(0)))),
        setfsgid | setfsgid32 => Ok(u64::from(set_fs(false, a.uint(0)))),
        setfsuid16 => Ok(u64::from(high2low(set_fs(true, w16(0))))),
        setfsgid16 => Ok(u64::from(high2low(set_fs(false, w16(0))))),
        capget => {
            let r = (def.handler)(cpu, a)?;
            full_caps(cpu, a)?;
            Ok(r)
        }
        chown | chown32 => chown_(cpu, def, a, at(CWD, a.ptr(0), 0), a.uint(1), a.uint(2)),
        lchown | lchown32 => chown_(cpu, def, a, at(CWD, a.ptr(0), NOFOLLOW), a.uint(1), a.uint(2)),
        fchown | fchown32 => chown_(cpu, def, a, Target::Fd(a.int(0)), a.uint(1), a.uint(2)),
        chown16 => chown_(cpu, def, a, at(CWD, a.ptr(0), 0), w16(1), w16(2)),
        lchown16 => chown_(cpu, def, a, at(CWD, a.ptr(0), NOFOLLOW), w16(1), w16(2)),
        fchown16 => chown_(cpu, def, a, Target::Fd(a.int(0)), w16(1), w16(2)),
        fchownat => chown_(cpu, def, a, at(a.int(0), a.ptr(1), a.int(4)), a.uint(2), a.uint(3)),
        chmod => chmod_(cpu, def, a, at(CWD, a.ptr(0), 0), 1),
        fchmod => chmod_(cpu, def, a, Target::Fd(a.int(0)), 1),
        fchmodat => chmod_(cpu, def, a, at(a.int(0), a.ptr(1), 0), 2),
        fchmodat2 => chmod_(cpu, def, a, at(a.int(0), a.ptr(1), a.int(3)), 2),
        mknod => mknod_(cpu, def, a, at(CWD, a.ptr(0), NOFOLLOW), 1, 2),
        mknodat => mknod_(cpu, def, a, at(a.int(0), a.ptr(1), NOFOLLOW), 2, 3),
        unlink => unlink_(cpu, def, a, at(CWD, a.ptr(0), NOFOLLOW)),
        rmdir => unlink_(cpu, def, a, at(CWD, a.ptr(0), NOFOLLOW)),
        unlinkat => unlink_(cpu, def, a, at(a.int(0), a.ptr(1), NOFOLLOW)),
        rename => rename_(cpu, def, a, at(CWD, a.ptr(0), NOFOLLOW), at(CWD, a.ptr(1), NOFOLLOW), 0),
        renameat => rename_(cpu, def, a, at(a.int(0), a.ptr(1), NOFOLLOW), at(a.int(2), a.ptr(3), NOFOLLOW), 0),
        renameat2 => {
            rename_(cpu, def, a, at(a.int(0), a.ptr(1), NOFOLLOW), at(a.int(2), a.ptr(3), NOFOLLOW), a.uint(4))
        }
        _ => (def.handler)(cpu, a),
    }
}

/// `getresuid`/`getresgid` (`uid_t *` three times; 16-bit ids for the `16` forms).
fn getres(cpu: &mut Cpu<'_>, a: &SyscallArgs, uid: bool, narrow: bool) -> SysResult {
    let c = creds().clone();
    let ids = if uid { c.uid } else { c.gid };
    let mm = &mut cpu.get_data_mut().mm;
    for (i, id) in ids[..3].iter().enumerate() {
        if narrow {
            mm.write_u16(a.ptr(i), high2low(*id))?;
        } else {
            mm.write_u32(a.ptr(i), *id)?;
        }
    }
    Ok(0)
}

/// `getgroups(int size, gid_t list[])`: the groups `setgroups` set (`[0]` at start). Errors:
/// `EINVAL` (negative size, or fewer slots than groups), `EFAULT`.
fn getgroups_(cpu: &mut Cpu<'_>, a: &SyscallArgs, narrow: bool) -> SysResult {
    let Ok(size) = usize::try_from(a.int(0)) else { return Err(Errno::EINVAL) };
    let groups = creds().groups.clone();
    if size == 0 {
        return Ok(crate::abi::bits64(groups.len()));
    }
    if size < groups.len() {
        return Err(Errno::EINVAL);
    }
    let mm = &mut cpu.get_data_mut().mm;
    let width = if narrow { 2 } else { 4 };
    for (i, g) in groups.iter().enumerate() {
        let at = a.ptr(1) + width * crate::abi::bits64(i);
        if narrow {
            mm.write_u16(at, high2low(*g))?;
        } else {
            mm.write_u32(at, *g)?;
        }
    }
    Ok(crate::abi::bits64(groups.len()))
}

/// `setgroups(int size, const gid_t *list)`: remembered. Errors: `EINVAL` (more than
/// `NGROUPS_MAX`, 65536), `EFAULT`.
fn setgroups_(cpu: &mut Cpu<'_>, a: &SyscallArgs, narrow: bool) -> SysResult {
    let n = a.int(0);
    if !(0..=65536).contains(&n) {
        return Err(Errno::EINVAL);
    }
    let mm = &cpu.get_data().mm;
    let mut list = Vec::new();
    for i in 0..u64::from(n.unsigned_abs()) {
        list.push(if narrow {
            low2high(u64::from(mm.read_u16(a.ptr(1) + 2 * i)?))
        } else {
            mm.read_u32(a.ptr(1) + 4 * i)?
        });
    }
    creds().groups = list;
    Ok(0)
}

/// -1: "leave unchanged".
const KEEP: u32 = u32::MAX;

fn ids_of(c: &mut Creds, uid: bool) -> &mut [u32; 4] {
    if uid {
        &mut c.uid
    } else {
        &mut c.gid
    }
}

/// `setuid`/`setgid`: all four ids while the faked euid is 0, else the effective and fs ids
/// (never `EPERM`, as under fakeroot). Errors: `EINVAL` for -1.
fn set_id(uid: bool, v: u32) -> SysResult {
    if v == KEEP {
        return Err(Errno::EINVAL);
    }
    let mut c = creds();
    let privileged = c.uid[E] == 0;
    let ids = ids_of(&mut c, uid);
    if privileged {
        *ids = [v; 4];
    } else {
        ids[E] = v;
        ids[FS] = v;
    }
    Ok(0)
}

/// `setreuid`/`setregid` with the kernel's rule for the saved id: it becomes the new effective
/// id when the real id is set or the effective one is set to other than the old real id.
fn set_re(uid: bool, r: u32, e: u32) -> SysResult {
    let mut c = creds();
    let ids = ids_of(&mut c, uid);
    let old_r = ids[R];
    if r != KEEP {
        ids[R] = r;
    }
    if e != KEEP {
        ids[E] = e;
    }
    if r != KEEP || (e != KEEP && e != old_r) {
        ids[S] = ids[E];
    }
    ids[FS] = ids[E];
    Ok(0)
}

/// `setresuid`/`setresgid`: each id not -1 is set; the fs id follows the effective one.
fn set_res(uid: bool, v: [u32; 3]) -> SysResult {
    let mut c = creds();
    let ids = ids_of(&mut c, uid);
    for (slot, x) in ids.iter_mut().zip(v) {
        if x != KEEP {
            *slot = x;
        }
    }
    ids[FS] = ids[E];
    Ok(0)
}

/// `setfsuid`/`setfsgid`: the previous fs id; -1 only asks.
fn set_fs(uid: bool, v: u32) -> u32 {
    let mut c = creds();
    let ids = ids_of(&mut c, uid);
    let old = ids[FS];
    if v != KEEP {
        ids[FS] = v;
    }
    old
}

/// After the host's `capget` succeeded: for the calling process (pid 0 or its own), the
/// effective and permitted sets hold every capability the host kernel knows
/// (`/proc/sys/kernel/cap_last_cap`), as root's do; the inheritable set stays the host's.
fn full_caps(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> Result<(), Errno> {
    if a.raw(1) == 0 {
        return Ok(());
    }
    let t = cpu.get_data_mut();
    let version = t.mm.read_u32(a.ptr(0))?;
    let pid = t.mm.read_u32(a.ptr(0) + 4)?;
    // SAFETY: no arguments.
    let me = crate::abi::low32(unsafe { libc::getpid() });
    if pid != 0 && pid != me {
        return Ok(());
    }
    let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(40)
        .min(63);
    let full: u64 = if last == 63 { u64::MAX } else { (1u64 << (last + 1)) - 1 };
    let words = if version == 0x1998_0330 { 1 } else { 2 };
    for i in 0..words {
        let v = crate::abi::low32(full >> (32 * i));
        let base = a.ptr(1) + 12 * i;
        t.mm.write_u32(base, v)?;
        t.mm.write_u32(base + 4, v)?;
    }
    Ok(())
}

/// The `chown` family: the host call first; its success, `EPERM` or `EINVAL` (an id its user
/// namespace does not map) records the new owner and group (-1: unchanged) and returns 0.
fn chown_(cpu: &mut Cpu<'_>, def: &SyscallDef, a: &SyscallArgs, target: Target, uid: u32, gid: u32) -> SysResult {
    if let Target::At { flags, .. } = target {
        if flags & !(libc::AT_SYMLINK_NOFOLLOW | libc::AT_EMPTY_PATH) != 0 {
            return Err(Errno::EINVAL);
        }
    }
    let r = (def.handler)(cpu, a);
    if !matches!(r, Ok(_) | Err(Errno::EPERM) | Err(Errno::EINVAL)) {
        return r;
    }
    let Some(st) = host_stat(cpu, target) else { return r };
    let mut fields = Vec::new();
    if uid != KEEP {
        fields.push(format!("uid={uid}"));
    }
    if gid != KEEP {
        fields.push(format!("gid={gid}"));
    }
    record(&st, &fields);
    Ok(0)
}

/// The `chmod` family: the host gets the mode with the owner's read and write bits (and the
/// search bit for a directory) added, so the real user keeps the access root would have; the
/// mode asked for is recorded. The host's `EPERM` (a file of another host user) is swallowed.
fn chmod_(cpu: &mut Cpu<'_>, def: &SyscallDef, a: &SyscallArgs, target: Target, idx: usize) -> SysResult {
    let mode = a.uint(idx) & 0o7777;
    let Some(st) = host_stat(cpu, target) else { return (def.handler)(cpu, a) };
    let extra = match st.st_mode & libc::S_IFMT {
        libc::S_IFDIR => 0o700,
        libc::S_IFLNK => 0,
        _ => 0o600,
    };
    let mut host = *a;
    host.a[idx] = u64::from(mode | extra);
    let r = (def.handler)(cpu, &host);
    if !matches!(r, Ok(_) | Err(Errno::EPERM)) {
        return r;
    }
    record(&st, &[format!("mode={mode:o}")]);
    Ok(0)
}

/// The `mknod` family: a character or block device (which needs `CAP_MKNOD`) is made as an
/// empty regular file with the same permission bits, and its type and number are recorded;
/// other types go to the host as they are. `dev` is the kernel's 32-bit encoding
/// (`new_decode_dev`: minor bits 0-7 and 20-31, major bits 8-19).
fn mknod_(
    cpu: &mut Cpu<'_>,
    def: &SyscallDef,
    a: &SyscallArgs,
    target: Target,
    mode_idx: usize,
    dev_idx: usize,
) -> SysResult {
    let mode = a.uint(mode_idx);
    let kind = mode & libc::S_IFMT;
    if kind != libc::S_IFCHR && kind != libc::S_IFBLK {
        return (def.handler)(cpu, a);
    }
    let mut host = *a;
    host.a[mode_idx] = u64::from(libc::S_IFREG | (mode & 0o7777));
    host.a[dev_idx] = 0;
    (def.handler)(cpu, &host)?;
    let dev = a.uint(dev_idx);
    let (major, minor) = ((dev & 0xfff00) >> 8, (dev & 0xff) | ((dev >> 12) & 0xfff00));
    if let Some(st) = host_stat(cpu, target) {
        record(&st, &[fmt_dev((kind, libc::makedev(major, minor)))]);
    }
    Ok(0)
}

/// `unlink`, `unlinkat`, `rmdir`: after the host removed the last link (or the directory), the
/// file's record goes.
fn unlink_(cpu: &mut Cpu<'_>, def: &SyscallDef, a: &SyscallArgs, target: Target) -> SysResult {
    let before = host_stat(cpu, target);
    let r = (def.handler)(cpu, a)?;
    if let Some(st) = before.filter(|st| is_dir(st) || st.st_nlink <= 1) {
        forget(&st);
    }
    Ok(r)
}

/// `rename`, `renameat`, `renameat2`: a file the rename replaced loses its record when that
/// was its last link (not for `RENAME_EXCHANGE`, which keeps both).
fn rename_(cpu: &mut Cpu<'_>, def: &SyscallDef, a: &SyscallArgs, old: Target, new: Target, flags: u32) -> SysResult {
    const RENAME_EXCHANGE: u32 = 2;
    let replaced = if flags & RENAME_EXCHANGE == 0 { host_stat(cpu, new) } else { None };
    let source = replaced.and_then(|_| host_stat(cpu, old));
    let r = (def.handler)(cpu, a)?;
    if let (Some(st), Some(src)) = (replaced, source) {
        let same = (st.st_dev, st.st_ino) == (src.st_dev, src.st_ino);
        if !same && (is_dir(&st) || st.st_nlink <= 1) {
            forget(&st);
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_set_fields_and_drop() {
        let mut recs = HashMap::new();
        apply_line(&mut recs, "# comment");
        apply_line(&mut recs, "5 7 uid=123 gid=45");
        apply_line(&mut recs, "5 7 mode=4755");
        apply_line(&mut recs, "5 8 dev=c:1:3 mode=644");
        apply_line(&mut recs, "garbage line =");
        apply_line(&mut recs, "5 9 uid=x");
        let r = recs[&(5, 7)];
        assert_eq!((r.uid, r.gid, r.perm, r.dev), (Some(123), Some(45), Some(0o4755), None));
        assert_eq!(recs[&(5, 8)].dev, Some((libc::S_IFCHR, libc::makedev(1, 3))));
        assert_eq!(rec_line((5, 8), &recs[&(5, 8)]), "5 8 mode=644 dev=c:1:3");
        apply_line(&mut recs, "5 7 gone");
        assert!(!recs.contains_key(&(5, 7)));
        assert_eq!(recs.get(&(5, 9)), None);
    }
}
