//! The guest's view of its own `/proc/self` files that would otherwise describe endgate:
//! `maps` (the guest's mappings), `cmdline` (the guest's argv), `auxv` (the guest's auxiliary
//! vector), `stat` (the host's line with the guest's memory-layout fields). Opening one of them returns a memfd holding the text generated at open time, as
//! the kernel generates it at read time. `exe` is handled by readlink/open through
//! [`super::path`]; `comm` follows from the host thread name, which endgate sets to the
//! guest program's name at start-up.

use std::fmt::Write as _;

use crate::guest::Task;
use crate::mm::{Prot, VmaName};

/// Which `/proc/self` file a guest path names, if it is one endgate generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcFile {
    /// `/proc/self/maps`.
    Maps,
    /// `/proc/self/cmdline`.
    Cmdline,
    /// `/proc/self/auxv`.
    Auxv,
    /// `/proc/self/stat` (and `/proc/thread-self/stat`).
    Stat,
    /// `/proc/cpuinfo`, where the arch has its own (`ArchInfo::cpuinfo`).
    Cpuinfo,
}

/// Recognises `/proc/self/X`, `/proc/thread-self/X` and `/proc/<own pid>/X`.
pub fn lookup(path: &[u8]) -> Option<ProcFile> {
    if path == b"/proc/cpuinfo" {
        return Some(ProcFile::Cpuinfo);
    }
    let rest = path.strip_prefix(b"/proc/")?;
    let slash = rest.iter().position(|&b| b == b'/')?;
    let (who, file) = (&rest[..slash], &rest[slash + 1..]);
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() }.to_string();
    if who != b"self" && who != b"thread-self" && who != pid.as_bytes() {
        return None;
    }
    match file {
        b"maps" => Some(ProcFile::Maps),
        b"cmdline" => Some(ProcFile::Cmdline),
        b"auxv" => Some(ProcFile::Auxv),
        b"stat" => Some(ProcFile::Stat),
        _ => None,
    }
}

/// As [`lookup`] for `openat(dirfd, path)`: a relative `path` is taken from the directory
/// `dirfd` (or the working directory for `AT_FDCWD`) names, so `openat(open("/proc"),
/// "self/maps")` and a `chdir("/proc/self")` then `open("maps")` find the guest's files too.
pub fn lookup_at(dirfd: i32, path: &[u8]) -> Option<ProcFile> {
    if path.first() == Some(&b'/') {
        return lookup(path);
    }
    let base = if dirfd == libc::AT_FDCWD {
        std::env::current_dir().ok()?
    } else {
        std::fs::read_link(format!("/proc/self/fd/{dirfd}")).ok()?
    };
    let base = base.as_os_str().as_encoded_bytes();
    if !base.starts_with(b"/proc") {
        return None;
    }
    // The directory may be /proc, /proc/self (shown as /proc/<pid>) or deeper.
    let mut full = base.to_vec();
    full.push(b'/');
    full.extend_from_slice(path.strip_prefix(b"./").unwrap_or(path));
    lookup(&full)
}

/// The file's contents now.
pub fn generate(task: &Task, f: ProcFile) -> Vec<u8> {
    match f {
        ProcFile::Maps => maps(task).into_bytes(),
        ProcFile::Stat => stat(task).into_bytes(),
        ProcFile::Cpuinfo => match task.arch.info().cpuinfo {
            Some(f) => f(online_cpus()).into_bytes(),
            None => std::fs::read("/proc/cpuinfo").unwrap_or_default(),
        },
        ProcFile::Cmdline => {
            let mut v = Vec::new();
            for a in &task.argv {
                v.extend_from_slice(a);
                v.push(0);
            }
            v
        }
        ProcFile::Auxv => {
            let mut v = Vec::new();
            let le = task.mm.endian() == crate::mm::Endian::Little;
            for &(k, val) in &task.auxv {
                for w in [k, val] {
                    if task.arch.info().is_64bit {
                        v.extend_from_slice(&if le { w.to_le_bytes() } else { w.to_be_bytes() });
                    } else {
                        let w = crate::abi::low32(w);
                        v.extend_from_slice(&if le { w.to_le_bytes() } else { w.to_be_bytes() });
                    }
                }
            }
            v
        }
    }
}

/// The online processors, which `/proc/cpuinfo` lists one entry each.
fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }).unwrap_or(1).max(1)
}

/// `/proc/self/maps` lines as fs/proc/task_mmu.c prints them: address range, permissions,
/// offset, device, inode, then the name from column 73.
fn maps(task: &Task) -> String {
    let mut out = String::new();
    for (start, v) in task.mm.vmas() {
        let p = v.prot;
        let perms = format!(
            "{}{}{}{}",
            if p.contains(Prot::READ) { 'r' } else { '-' },
            if p.contains(Prot::WRITE) { 'w' } else { '-' },
            if p.contains(Prot::EXEC) { 'x' } else { '-' },
            if v.shared { 's' } else { 'p' }
        );
        let (name, dev, ino) = match &v.name {
            VmaName::Anon => (String::new(), "00:00".to_string(), 0),
            VmaName::Heap => ("[heap]".to_string(), "00:00".to_string(), 0),
            VmaName::Stack => ("[stack]".to_string(), "00:00".to_string(), 0),
            VmaName::Gate(n) => (n.to_string(), "00:00".to_string(), 0),
            // The kernel's name for a SysV segment's file on its internal shm mount.
            VmaName::SysvShm { key, shmid } => (
                format!("/SYSV{:08x} (deleted)", crate::abi::low32(*key)),
                "00:01".to_string(),
                u64::from(crate::abi::low32(*shmid)),
            ),
            VmaName::File(path) => {
                let (dev, ino) = file_id(path);
                (path.clone(), dev, ino)
            }
        };
        let mut line = format!("{start:08x}-{:08x} {perms} {:08x} {dev} {ino} ", v.end, v.offset);
        if !name.is_empty() {
            while line.len() < 73 {
                line.push(' ');
            }
            line.push_str(&name);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// `/proc/self/stat` (proc(5)): the host's line, which already has the guest's pid, name,
/// state, parent, times and start time (the guest is this process), with the fields that
/// describe the address space replaced by the guest's: 23 `vsize` (bytes mapped), 26
/// `startcode` and 27 `endcode` (the program's executable mapping), 28 `startstack` (the
/// initial stack pointer), 45 `start_data` and 46 `end_data` (the program's writable mapping),
/// 47 `start_brk`. Fields 29-30 (`kstkesp`, `kstkeip`) read 0, as the kernel shows them for a
/// running task; 48-51 (argument and environment bounds) are the host's.
fn stat(task: &Task) -> String {
    let line = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let Some(close) = line.rfind(')') else { return line };
    let (head, tail) = line.split_at(close + 1);
    // tail[0] is field 3 (state).
    let mut f: Vec<String> = tail.split_whitespace().map(str::to_string).collect();
    let prog = task.exe.host_path.to_string_lossy().into_owned();
    let guest_prog = task.exe.guest_path.clone();
    let mut code = (0u64, 0u64);
    let mut data = (0u64, 0u64);
    let mut vsize = 0u64;
    for (start, v) in task.mm.vmas() {
        vsize += v.end - start;
        if let VmaName::File(p) = &v.name {
            if *p == prog || *p == guest_prog {
                if v.prot.contains(Prot::EXEC) && code.0 == 0 {
                    code = (start, v.end);
                } else if v.prot.contains(Prot::WRITE) && data.0 == 0 {
                    data = (start, v.end);
                }
            }
        }
    }
    let mut set = |field: usize, v: u64| {
        if let Some(slot) = f.get_mut(field - 3) {
            *slot = v.to_string();
        }
    };
    set(23, vsize);
    set(26, code.0);
    set(27, code.1);
    set(28, task.start_stack);
    set(29, 0);
    set(30, 0);
    set(45, data.0);
    set(46, data.1);
    set(47, task.mm.brk_start);
    format!("{head} {}\n", f.join(" "))
}

/// `major:minor` and inode of a host file, as maps shows them.
fn file_id(path: &str) -> (String, u64) {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => {
            let dev = m.dev();
            (format!("{:02x}:{:02x}", libc::major(dev), libc::minor(dev)), m.ino())
        }
        Err(_) => ("00:00".to_string(), 0),
    }
}

/// A file descriptor reading `data` from the start (a memfd; `cloexec` for O_CLOEXEC).
pub fn open_memfd(data: &[u8], cloexec: bool) -> Result<i32, syscalls::Errno> {
    let flags = if cloexec { libc::MFD_CLOEXEC } else { 0 };
    // SAFETY: a NUL-terminated name and flags.
    let fd = unsafe { libc::memfd_create(c"endgate-proc".as_ptr(), flags) };
    if fd < 0 {
        return Err(syscalls::Errno::last());
    }
    let mut off = 0;
    while off < data.len() {
        // SAFETY: writes from a live slice.
        let n = unsafe { libc::write(fd, data[off..].as_ptr().cast(), data.len() - off) };
        if n <= 0 {
            let e = syscalls::Errno::last();
            // SAFETY: closing the fd made above.
            unsafe { libc::close(fd) };
            return Err(e);
        }
        off += n.unsigned_abs(); // n > 0 here
    }
    // SAFETY: rewinding our own fd.
    unsafe { libc::lseek(fd, 0, libc::SEEK_SET) };
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_own_proc_paths() {
        assert_eq!(lookup(b"/proc/self/maps"), Some(ProcFile::Maps));
        assert_eq!(lookup(b"/proc/thread-self/auxv"), Some(ProcFile::Auxv));
        let own = format!("/proc/{}/cmdline", std::process::id());
        assert_eq!(lookup(own.as_bytes()), Some(ProcFile::Cmdline));
        assert_eq!(lookup(b"/proc/1/maps"), None);
        assert_eq!(lookup(b"/proc/self/status"), None);
    }
}
