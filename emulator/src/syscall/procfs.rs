//! The guest's view of its own `/proc/self` files that would otherwise describe endgate:
//! `maps`, `smaps` and `smaps_rollup` (the guest's mappings), `pagemap` (the host's entries
//! for the pages behind the guest's), `status` (the host's with the guest's memory sizes,
//! thread count and signal sets), `cmdline` (the guest's argv), `auxv` (the guest's auxiliary
//! vector), `stat` (the host's line with the guest's memory-layout fields), and the same for
//! each guest thread under `task/TID/` (`stat`, `status`, `maps`, `smaps`). Opening one returns
//! a memfd holding the text generated at open time, as the kernel generates it at read time;
//! `pagemap`'s entries are written into its memfd before each `read`, `pread64`, `readv` and
//! `preadv` ([`before_read`]). Sources: proc(5), Documentation/filesystems/proc.rst and
//! Documentation/admin-guide/mm/pagemap.rst for the formats, this host's own files for the
//! field set of its kernel. `exe` is handled by readlink/open through [`super::path`]; `comm`
//! follows from the host thread name, which endgate sets to the guest program's name at
//! start-up.

use std::fmt::Write as _;
use std::os::unix::fs::FileExt as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use syscalls::Errno;

use crate::guest::Task;
use crate::mm::{GuestAddr, Prot, Vma, VmaName, PAGE_SIZE};

/// Which `/proc/self` file a guest path names, if it is one endgate generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcFile {
    /// `/proc/self/maps` (and `task/TID/maps`).
    Maps,
    /// `/proc/self/smaps` (and `task/TID/smaps`).
    Smaps,
    /// `/proc/self/smaps_rollup`.
    SmapsRollup,
    /// `/proc/self/pagemap`.
    Pagemap,
    /// `/proc/self/cmdline`.
    Cmdline,
    /// `/proc/self/auxv`.
    Auxv,
    /// `/proc/self/stat` (and `/proc/thread-self/stat`).
    Stat,
    /// `/proc/self/status` of thread `tid` (the thread-group leader for `/proc/self`).
    Status {
        /// The thread.
        tid: i32,
    },
    /// `/proc/self/task/TID/stat`.
    TaskStat {
        /// The thread.
        tid: i32,
    },
    /// `/proc/cpuinfo`, where the arch has its own (`ArchInfo::cpuinfo`).
    Cpuinfo,
    /// A `/proc/net` table whose addresses are printed in the host's byte order, for a guest
    /// of the other (`/proc/net/NAME`, `/proc/self/net/NAME`: [`super::procnet`]).
    Net(super::procnet::NetTable),
    /// `/proc/PID/cmdline` of another process that runs endgate: the host's, without the NUL
    /// padding endgate's argument area holds after the guest's argv
    /// (`crate::thread::title`).
    OtherCmdline {
        /// The process.
        pid: i32,
    },
}

/// The name endgate's own preemption timer thread has (`thread::preempt`): not a guest thread.
const TIMER_THREAD: &[u8] = b"endgate-preempt";

/// `tid` is a thread of this process that runs guest code.
pub(crate) fn is_guest_thread(tid: i32) -> bool {
    match super::selfref::read_proc(&format!("self/task/{tid}/comm")) {
        Some(c) => c.strip_suffix(b"\n").unwrap_or(&c) != TIMER_THREAD,
        None => false,
    }
}

/// Process `pid` runs the same executable as this one (endgate), so its argument area is
/// endgate's (`crate::thread::title`).
fn runs_endgate(pid: i32) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let id = |p: &str| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    match (id(&format!("/proc/{pid}/exe")), id("/proc/self/exe")) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// `/proc/PID/cmdline` of another endgate: the host's file with the run of NULs at its end cut
/// to one (an argv whose last strings are empty loses them).
fn other_cmdline(pid: i32) -> Vec<u8> {
    let mut v = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    while v.len() >= 2 && v[v.len() - 1] == 0 && v[v.len() - 2] == 0 {
        v.pop();
    }
    v
}

/// Recognises `/proc/self/X`, `/proc/thread-self/X`, `/proc/<own pid>/X`,
/// `/proc/{self,<own pid>}/task/<guest tid>/X` and `/proc/<guest tid>/X` (a thread's own
/// directory, which `ls /proc` does not list but which opens, as Linux's).
pub fn lookup(path: &[u8]) -> Option<ProcFile> {
    // However the path is spelled (`//proc/./self/maps`, `/proc/<pid>/../self/maps`).
    let path = &super::path::proc_lexical(path)?;
    if path == b"/proc/cpuinfo" {
        return Some(ProcFile::Cpuinfo);
    }
    let rest = path.strip_prefix(b"/proc/")?;
    let slash = rest.iter().position(|&b| b == b'/')?;
    let (who, file) = (&rest[..slash], &rest[slash + 1..]);
    if who == b"net" {
        // `/proc/net`, the link to `self/net`.
        return super::procnet::table(file).map(ProcFile::Net);
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    let thread_self = who == b"thread-self";
    if who != b"self" && !thread_self && who != pid.to_string().as_bytes() {
        let other: i32 = std::str::from_utf8(who).ok()?.parse().ok()?;
        // Another thread of this process: its files are the process's, its stat and status
        // its own. (Only for the names served, so that a walk over every process's /proc,
        // as `ps` does, pays no look at the thread list.)
        let as_thread = match file {
            b"maps" => Some(ProcFile::Maps),
            b"smaps" => Some(ProcFile::Smaps),
            b"smaps_rollup" => Some(ProcFile::SmapsRollup),
            b"pagemap" => Some(ProcFile::Pagemap),
            b"cmdline" => Some(ProcFile::Cmdline),
            b"auxv" => Some(ProcFile::Auxv),
            b"stat" => Some(ProcFile::TaskStat { tid: other }),
            b"status" => Some(ProcFile::Status { tid: other }),
            _ => file.strip_prefix(b"net/").and_then(super::procnet::table).map(ProcFile::Net),
        };
        if as_thread.is_some() && is_guest_thread(other) {
            return as_thread;
        }
        return (file == b"cmdline" && runs_endgate(other)).then_some(ProcFile::OtherCmdline { pid: other });
    }
    if let Some(t) = file.strip_prefix(b"task/").filter(|_| !thread_self) {
        let slash = t.iter().position(|&b| b == b'/')?;
        let tid: i32 = std::str::from_utf8(&t[..slash]).ok()?.parse().ok()?;
        if !is_guest_thread(tid) {
            return None;
        }
        return match &t[slash + 1..] {
            b"maps" => Some(ProcFile::Maps),
            b"smaps" => Some(ProcFile::Smaps),
            b"stat" => Some(ProcFile::TaskStat { tid }),
            b"status" => Some(ProcFile::Status { tid }),
            _ => None,
        };
    }
    match file {
        b"maps" => Some(ProcFile::Maps),
        b"smaps" => Some(ProcFile::Smaps),
        b"smaps_rollup" if !thread_self => Some(ProcFile::SmapsRollup),
        b"pagemap" => Some(ProcFile::Pagemap),
        b"cmdline" => Some(ProcFile::Cmdline),
        b"auxv" => Some(ProcFile::Auxv),
        b"stat" => Some(ProcFile::Stat),
        b"status" => Some(ProcFile::Status { tid: if thread_self { crate::thread::gettid() } else { pid } }),
        _ => file.strip_prefix(b"net/").and_then(super::procnet::table).map(ProcFile::Net),
    }
}

/// Whether endgate answers `f` itself for `task`'s guest: a `/proc/net` table only for a guest
/// whose byte order is not the host's ([`super::procnet::needed`]); the others always.
pub fn serves(task: &Task, f: ProcFile) -> bool {
    !matches!(f, ProcFile::Net(_)) || super::procnet::needed(task.mm.endian())
}

/// As [`lookup`] for `openat(dirfd, path)`: a relative `path` is taken from the directory
/// `dirfd` (or the working directory for `AT_FDCWD`) names, so `openat(open("/proc"),
/// "self/maps")` and a `chdir("/proc/self")` then `open("maps")` find the guest's files too.
pub fn lookup_at(dirfd: i32, path: &[u8]) -> Option<ProcFile> {
    lookup(&super::path::proc_absolute_at(dirfd, path)?)
}

/// Opens the guest's `f`: a memfd with its contents (empty for `pagemap`, whose entries are
/// written before each read). `cloexec` for `O_CLOEXEC`.
pub fn open(task: &Task, f: ProcFile, cloexec: bool) -> Result<i32, Errno> {
    // The memfd's name says how `lseek` answers for it (see `lseek`).
    let name = match f {
        ProcFile::Cmdline | ProcFile::Auxv | ProcFile::OtherCmdline { .. } => MEMFD_SIZE0,
        _ => MEMFD_SEQ,
    };
    let fd = open_memfd(&generate(task, f), name, cloexec)?;
    if f == ProcFile::Pagemap {
        if let Some(id) = file_id_of(fd) {
            PAGEMAPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(id);
            ANY_PAGEMAP.store(true, Ordering::Relaxed);
        }
    }
    Ok(fd)
}

/// `true` if the guest's path (relative to `dirfd`) names an existing file, as it must for
/// endgate to answer `f` with its own contents: a guest whose root or mounts have no `/proc`
/// gets `ENOENT`, as natively. A `/proc/net` table must moreover be a file of procfs
/// (`PROC_SUPER_MAGIC`, statfs(2)), so that a root tree's own file at that path (a `--root` or
/// `-L` tree without procfs mounted) is read as it is.
pub fn visible(task: &Task, dirfd: i32, path: &[u8], f: ProcFile) -> bool {
    const PROC_SUPER_MAGIC: i64 = 0x9fa0;
    let Ok(host) = super::path::lookup(task, dirfd, path.to_vec(), super::path::Last::Follow) else {
        return false;
    };
    if !matches!(f, ProcFile::Net(_)) {
        // SAFETY: a NUL-terminated path.
        return unsafe { libc::faccessat(dirfd, host.as_ptr(), libc::F_OK, 0) == 0 };
    }
    let (dirfd, name) = host.at(dirfd);
    // SAFETY: opening a path for O_PATH; `st` is a local statfs buffer for a live descriptor.
    unsafe {
        let fd = libc::openat(dirfd, name.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let mut st: libc::statfs = std::mem::zeroed();
        let r = libc::fstatfs(fd, &mut st);
        libc::close(fd);
        r == 0 && st.f_type == PROC_SUPER_MAGIC
    }
}

/// The file's contents now.
pub fn generate(task: &Task, f: ProcFile) -> Vec<u8> {
    match f {
        ProcFile::Maps => maps(task).into_bytes(),
        ProcFile::Smaps => smaps(task).into_bytes(),
        ProcFile::SmapsRollup => smaps_rollup(task).into_bytes(),
        ProcFile::Pagemap => Vec::new(),
        ProcFile::Stat => stat(task, "thread-self/stat").into_bytes(),
        ProcFile::TaskStat { tid } => stat(task, &format!("self/task/{tid}/stat")).into_bytes(),
        ProcFile::Status { tid } => status(task, tid).into_bytes(),
        ProcFile::Cpuinfo => match task.arch.info().cpuinfo {
            Some(f) => f(online_cpus()).into_bytes(),
            None => super::selfref::read_proc("cpuinfo").unwrap_or_default(),
        },
        ProcFile::OtherCmdline { pid } => other_cmdline(pid),
        ProcFile::Net(t) => {
            let mut v = super::selfref::read_proc(&format!("self/net/{}", t.name())).unwrap_or_default();
            if super::procnet::needed(task.mm.endian()) {
                super::procnet::swap_words(t.shape(), &mut v);
            }
            v
        }
        ProcFile::Cmdline => cmdline(task),
        ProcFile::Auxv => {
            let mut v = Vec::new();
            let le = task.mm.endian() == crate::mm::Endian::Little;
            for &(k, val) in &task.auxv {
                for w in [k, val] {
                    if task.arch.info().is_64bit() {
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

/// `/proc/self/maps` lines as fs/proc/task_mmu.c prints them.
fn maps(task: &Task) -> String {
    task.mm.vmas().map(|(start, v)| maps_line(start, v)).collect()
}

/// One mapping's line (fs/proc/task_mmu.c `show_map_vma`): `%08lx-%08lx %c%c%c%c %08llx
/// %02x:%02x %lu ` (the trailing space stays when there is no name), then for a named mapping
/// spaces up to column 73 (the kernel's field width for 64-bit pointers, which a compat
/// process of a 64-bit kernel sees too) and the name; a newline.
fn maps_line(start: u64, v: &Vma) -> String {
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
            format!("/SYSV{:08x} (deleted)", u32::from_ne_bytes(key.to_ne_bytes())),
            "00:01".to_string(),
            u64::from(u32::from_ne_bytes(shmid.to_ne_bytes())),
        ),
        VmaName::File(path) => {
            let (dev, ino) = file_id(path);
            // Under `--root`, the path as the guest sees it.
            let seen = if super::rootfs::active() { super::rootfs::guest_view(path.as_bytes()) } else { None };
            (seen.map_or_else(|| path.clone(), |g| String::from_utf8_lossy(&g).into_owned()), dev, ino)
        }
    };
    // The offset is the file's: a mapping without a file shows 0 (`show_map_vma` reads
    // `vm_pgoff` only when there is a `vm_file`), also the pieces of one that mprotect split.
    let offset = if matches!(v.name, VmaName::File(_) | VmaName::SysvShm { .. }) { v.offset } else { 0 };
    let mut line = format!("{start:08x}-{:08x} {perms} {offset:08x} {dev} {ino} ", v.end);
    if !name.is_empty() {
        pad_to_name(&mut line);
        line.push_str(&name);
    }
    line.push('\n');
    line
}

/// Spaces up to column 73, where `show_map_vma` puts a mapping's name.
fn pad_to_name(line: &mut String) {
    while line.len() < 73 {
        line.push(' ');
    }
}

/// One mapping of endgate's own process as its `/proc/self/smaps` describes it.
struct HostVma {
    start: u64,
    end: u64,
    /// `(name, value)` of each field line between the header and `VmFlags`, in order; the
    /// value as printed (`"8 kB"`, `"0"`).
    fields: Vec<(String, String)>,
    /// The `VmFlags` mnemonics.
    flags: Vec<String>,
}

impl HostVma {
    fn kb(&self, name: &str) -> u64 {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.strip_suffix(" kB"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }
}

/// endgate's own mappings, from the host kernel's `/proc/self/smaps`, by address.
fn host_smaps() -> Vec<HostVma> {
    let text = super::selfref::read_proc_string("self/smaps");
    let mut out: Vec<HostVma> = Vec::new();
    for line in text.lines() {
        let head = line
            .split_once(' ')
            .and_then(|(range, _)| range.split_once('-'))
            .and_then(|(a, b)| Some((u64::from_str_radix(a, 16).ok()?, u64::from_str_radix(b, 16).ok()?)));
        match (head, line.split_once(':')) {
            (Some((start, end)), _) if !line.starts_with(|c: char| c.is_ascii_uppercase()) => {
                out.push(HostVma { start, end, fields: Vec::new(), flags: Vec::new() });
            }
            (_, Some(("VmFlags", flags))) => {
                if let Some(h) = out.last_mut() {
                    h.flags = flags.split_whitespace().map(str::to_string).collect();
                }
            }
            (_, Some((name, value))) => {
                if let Some(h) = out.last_mut() {
                    h.fields.push((name.to_string(), value.trim().to_string()));
                }
            }
            _ => {}
        }
    }
    out
}

/// The host's pagemap entries (Documentation/admin-guide/mm/pagemap.rst) of the `n` pages
/// from host address `host`: what the host gives this process (frame numbers only with
/// `CAP_SYS_ADMIN`). Zeros where it cannot be read.
fn host_pagemap(host: u64, n: usize) -> Vec<u64> {
    let mut raw = vec![0u8; n * 8];
    if let Some(f) = super::selfref::open_proc("self/pagemap") {
        let _ = f.read_exact_at(&mut raw, host / PAGE_SIZE * 8);
    }
    raw.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}

/// Pagemap bit 63: the page is present in memory.
const PM_PRESENT: u64 = 1 << 63;

/// One value of a guest mapping's smaps.
enum Field {
    /// A size in kB.
    Kb(u64),
    /// Printed as the host printed it (`THPeligible`, `ProtectionKey`).
    Raw(String),
}

/// The smaps of one guest mapping: its fields in the host kernel's order, and its `VmFlags`.
struct GuestSmaps {
    fields: Vec<(String, Field)>,
    flags: Vec<String>,
}

impl GuestSmaps {
    fn kb(&self, name: &str) -> u64 {
        self.fields.iter().find(|(n, _)| n == name).map_or(0, |(_, f)| match f {
            Field::Kb(v) => *v,
            Field::Raw(_) => 0,
        })
    }
}

/// The `VmFlags` mnemonics in the kernel's order (their `VM_*` bit numbers, include/linux/mm.h
/// and fs/proc/task_mmu.c `show_smap_vma_flags`); others sort after them.
const FLAG_ORDER: [&str; 31] = [
    "rd", "wr", "ex", "sh", "mr", "mw", "me", "ms", "gd", "um", "pf", "uw", "lo", "io", "sr", "rr", "dc", "de", "lf",
    "ac", "nr", "ht", "sf", "ar", "wf", "dd", "sd", "mm", "hg", "nh", "mg",
];

/// The smaps of guest mapping `[start, v.end)`: sizes from the host mappings behind it (a host
/// mapping wholly inside it counts whole; one that also backs other guest pages counts in
/// proportion to its resident pages inside the guest range, counted from the host's
/// pagemap), `Size` the guest's, and `VmFlags` the host's with the permissions, `gd` and `ac`
/// of the guest's mapping.
fn guest_smaps(task: &Task, host: &[HostVma], start: u64, v: &Vma) -> GuestSmaps {
    let x86 = matches!(task.arch.info().name, "x86_64" | "i386");
    let len = v.end - start;
    let hs = task.mm.to_host(start, len).map_or(0, |p| p as u64);
    let he = hs + len;
    let first = host.partition_point(|h| h.end <= hs);
    let over: Vec<&HostVma> = host[first..].iter().take_while(|h| h.start < he).collect();
    let names: Vec<String> = host.first().map_or_else(Vec::new, |h| h.fields.iter().map(|(n, _)| n.clone()).collect());
    let mut fields: Vec<(String, Field)> = Vec::new();
    for name in names {
        if name == "ProtectionKey" && !x86 {
            continue;
        }
        let raw = over.first().and_then(|h| h.fields.iter().find(|(n, _)| *n == name)).map(|(_, v)| v.clone());
        let f = match name.as_str() {
            "Size" => Field::Kb(len / 1024),
            "KernelPageSize" | "MMUPageSize" => Field::Kb(PAGE_SIZE / 1024),
            _ if raw.as_deref().is_some_and(|r| !r.ends_with(" kB")) => Field::Raw(raw.unwrap_or_default()),
            _ => {
                let mut sum = 0u64;
                for h in &over {
                    let (a, b) = (h.start.max(hs), h.end.min(he));
                    let val = h.kb(&name);
                    if a == h.start && b == h.end {
                        sum += val;
                    } else {
                        let rss_pages = h.kb("Rss") * 1024 / PAGE_SIZE;
                        if rss_pages > 0 && val > 0 {
                            let pages = usize::try_from((b - a) / PAGE_SIZE).unwrap_or(0);
                            let present = host_pagemap(a, pages).iter().filter(|&&e| e & PM_PRESENT != 0).count();
                            sum += val * present as u64 / rss_pages;
                        }
                    }
                }
                Field::Kb(sum)
            }
        };
        fields.push((name, f));
    }
    let mut flags: Vec<String> = over
        .first()
        .map(|h| {
            h.flags.iter().filter(|f| !matches!(f.as_str(), "rd" | "wr" | "ex" | "gd" | "ac" | "nr")).cloned().collect()
        })
        .unwrap_or_default();
    let p = v.prot;
    for (on, f) in [
        (p.contains(Prot::READ), "rd"),
        (p.contains(Prot::WRITE), "wr"),
        (p.contains(Prot::EXEC), "ex"),
        (v.grows_down, "gd"),
        // VM_ACCOUNT: private writable memory is charged to the commit limit.
        (!v.shared && p.contains(Prot::WRITE), "ac"),
    ] {
        if on {
            flags.push(f.to_string());
        }
    }
    flags.sort_by_key(|f| FLAG_ORDER.iter().position(|o| o == f).unwrap_or(FLAG_ORDER.len()));
    GuestSmaps { fields, flags }
}

/// A field line as the kernel prints it: the name and colon left in 16 columns, the value
/// right in 8.
fn field_line(out: &mut String, name: &str, f: &Field) {
    let label = format!("{name}:");
    let _ = match f {
        Field::Kb(v) => writeln!(out, "{label:<16}{v:>8} kB"),
        Field::Raw(r) => writeln!(out, "{label:<16}{r:>8}"),
    };
}

/// `/proc/self/smaps`: each mapping's maps line, its fields, `VmFlags`.
fn smaps(task: &Task) -> String {
    let host = host_smaps();
    let mut out = String::new();
    for (start, v) in task.mm.vmas() {
        out.push_str(&maps_line(start, v));
        let g = guest_smaps(task, &host, start, v);
        for (name, f) in &g.fields {
            field_line(&mut out, name, f);
        }
        let _ = writeln!(out, "VmFlags: {} ", g.flags.join(" "));
    }
    out
}

/// `/proc/self/smaps_rollup`: one header spanning every mapping, named `[rollup]`, then the
/// sums of the fields the host kernel's rollup has (`Pss_Anon`, `Pss_File` and `Pss_Shmem`
/// split each mapping's `Pss` by its anonymous share and shared memory).
fn smaps_rollup(task: &Task) -> String {
    let host = host_smaps();
    let names: Vec<String> = super::selfref::read_proc_string("self/smaps_rollup")
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':').map(|(n, _)| n.to_string()))
        .collect();
    let mut sums: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let (mut first, mut last) = (None, 0);
    for (start, v) in task.mm.vmas() {
        first.get_or_insert(start);
        last = v.end;
        let g = guest_smaps(task, &host, start, v);
        for (n, f) in &g.fields {
            if let Field::Kb(k) = f {
                *sums.entry(n.clone()).or_default() += k;
            }
        }
        let (pss, rss, anon) = (g.kb("Pss"), g.kb("Rss"), g.kb("Anonymous"));
        let shmem = v.shared && !matches!(v.name, VmaName::File(_));
        let (pa, ps) = if shmem { (0, pss) } else { ((pss * anon.min(rss)).checked_div(rss).unwrap_or(0), 0) };
        *sums.entry("Pss_Anon".into()).or_default() += pa;
        *sums.entry("Pss_Shmem".into()).or_default() += ps;
        *sums.entry("Pss_File".into()).or_default() += pss - pa - ps;
    }
    let mut out = format!("{:08x}-{last:08x} ---p 00000000 00:00 0 ", first.unwrap_or(0));
    pad_to_name(&mut out);
    out.push_str("[rollup]\n");
    for n in names {
        let v = sums.get(&n).copied().unwrap_or(0);
        field_line(&mut out, &n, &Field::Kb(v));
    }
    out
}

/// A host-numbered signal set (bit `n-1` for host signal `n`) in the guest's numbering.
fn set_to_guest(task: &Task, host: u64) -> u128 {
    let mut g = 0u128;
    for n in 1..=64u32 {
        if host & (1u64 << (n - 1)) != 0 {
            let s = (task.arch.info().signal_from_host)(crate::signal::Signal(n));
            if (1..=128).contains(&s) {
                g |= 1u128 << (s - 1);
            }
        }
    }
    g
}

/// `/proc/PID/status` (proc(5)): the host's lines for thread `tid`, with the guest's address
/// space sizes (`VmPeak` to `VmLib`, `VmSwap`; `VmPTE` stays the host's), its thread count,
/// and its signal sets in the guest's numbering and width (`_NSIG`/4 hex digits): pending
/// from the host and, for the calling thread, endgate's own queue; blocked from the calling
/// thread's guest mask (another thread's from the host, where endgate never blocks its fault
/// signals); ignored and caught from the guest's dispositions.
fn status(task: &Task, tid: i32) -> String {
    let text = super::selfref::read_proc_string(&format!("self/task/{tid}/status"));
    let host = host_smaps();
    let prog = task.exe.host_path.to_string_lossy().into_owned();
    let (mut rss, mut anon, mut shmem, mut swap, mut locked) = (0, 0, 0, 0, 0);
    let (mut data, mut stk, mut exec, mut exe) = (0, 0, 0, 0);
    for (start, v) in task.mm.vmas() {
        let g = guest_smaps(task, &host, start, v);
        let size = (v.end - start) / 1024;
        rss += g.kb("Rss");
        swap += g.kb("Swap");
        if v.shared && !matches!(v.name, VmaName::File(_)) {
            shmem += g.kb("Rss");
        } else {
            anon += g.kb("Anonymous");
        }
        if g.flags.iter().any(|f| f == "lo") {
            locked += size;
        }
        let p = v.prot;
        if v.grows_down {
            stk += size;
        } else if p.contains(Prot::WRITE) && !v.shared {
            data += size;
        } else if p.contains(Prot::EXEC) && !p.contains(Prot::WRITE) {
            exec += size;
            let own = matches!(&v.name, VmaName::File(f) if *f == prog || *f == task.exe.guest_path);
            if own && exe == 0 {
                exe = size;
            }
        }
    }
    let total = task.mm.total_vm() / 1024;
    let peak = (task.mm.vm_peak / 1024).max(total);
    let hwm = (task.mm.rss_peak.get() / 1024).max(rss);
    task.mm.rss_peak.set(hwm * 1024);
    let nsig = usize::try_from(task.arch.info().nsig).unwrap_or(64);
    let hex = |set: u128| format!("{set:0width$x}", width = nsig / 4);
    let host_set = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .unwrap_or(0)
    };
    let current = tid == crate::thread::gettid();
    let blocked = if current { task.sig.mask } else { host_set("SigBlk:") };
    let pending = host_set("SigPnd:") | if current { task.sig.pending } else { 0 };
    let (mut ign, mut cgt) = (0u64, 0u64);
    for (i, a) in task.sig.actions.iter().enumerate() {
        if a.handler == crate::signal::SIG_IGN {
            ign |= 1 << i;
        } else if a.handler != crate::signal::SIG_DFL {
            cgt |= 1 << i;
        }
    }
    let kb = |v: u64| format!("{v:>8} kB");
    let mut out = String::new();
    for line in text.lines() {
        let Some((name, _)) = line.split_once(':') else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let value = match name {
            "VmPeak" => kb(peak),
            "VmSize" => kb(total),
            "VmLck" => kb(locked),
            "VmHWM" => kb(hwm),
            "VmRSS" => kb(rss),
            "RssAnon" => kb(anon),
            "RssFile" => kb(rss - anon.min(rss) - shmem.min(rss - anon.min(rss))),
            "RssShmem" => kb(shmem),
            "VmData" => kb(data),
            "VmStk" => kb(stk),
            "VmExe" => kb(exe),
            "VmLib" => kb(exec - exe),
            "VmSwap" => kb(swap),
            "Threads" => crate::thread::live_threads().to_string(),
            "SigPnd" => hex(set_to_guest(task, pending)),
            "ShdPnd" => hex(set_to_guest(task, host_set("ShdPnd:"))),
            "SigBlk" => hex(set_to_guest(task, blocked)),
            "SigIgn" => hex(set_to_guest(task, ign)),
            "SigCgt" => hex(set_to_guest(task, cgt)),
            _ => {
                out.push_str(line);
                out.push('\n');
                continue;
            }
        };
        let _ = writeln!(out, "{name}:\t{value}");
    }
    out
}

/// In what `getdents64` (`name_at` 19) or `getdents` (18) just read from `fd` into `buf`,
/// takes out the entries of what is endgate's and not the guest's: in this process's
/// `/proc/<pid>/task`, endgate's preemption timer thread; in its `/proc/<pid>/fd` and
/// `fdinfo` (and each thread's `task/<tid>/fd` and `fdinfo`), endgate's own descriptors
/// ([`super::selfref::own_fds`]), which the guest's `close`, `dup` and `dup2` already treat as
/// not open; in another process's, the descriptor at one of those numbers that holds
/// endgate's executable (another endgate's handle on itself). Returns the new length.
pub fn hide_own_entries(fd: i32, buf: &mut [u8], name_at: usize) -> u64 {
    let len = buf.len() as u64;
    // Only numbers are hidden: a listing without a numeric name (nearly every directory)
    // costs no more than this look.
    if !record_names(buf, name_at).any(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit)) {
        return len;
    }
    let timer = crate::thread::preempt::timer_tid();
    let own_fds = super::selfref::own_fds();
    if buf.is_empty() || (timer == 0 && own_fds.is_empty()) {
        return len;
    }
    // Only a listing with an entry named as one of those numbers can change: the names are
    // looked at before asking the host which directory `fd` is (a readlink and a getpid
    // for every read of every directory otherwise).
    let named = |n: i64| {
        let n = n.to_string();
        record_names(buf, name_at).any(|name| name == n.as_bytes())
    };
    let listed = (timer != 0 && named(i64::from(timer))) || own_fds.iter().any(|&f| named(i64::from(f)));
    if !listed {
        return len;
    }
    let Some(dir) = super::selfref::fd_link(fd) else { return len };
    let Some((pid, rest)) = dir.to_str().and_then(|d| d.strip_prefix("/proc/")).and_then(|d| d.split_once('/')) else {
        return len;
    };
    let of_fds = |r: &str| r == "fd" || r == "fdinfo";
    let thread_fds = rest
        .strip_prefix("task/")
        .and_then(|r| r.split_once('/'))
        .is_some_and(|(tid, r)| tid.bytes().all(|b| b.is_ascii_digit()) && of_fds(r));
    // SAFETY: getpid has no preconditions.
    let ours = pid.parse::<i32>().ok() == Some(unsafe { libc::getpid() });
    let hidden: Vec<String> = if !ours {
        // Another process's descriptors: those of its numbers that are endgate's own in this
        // one and that hold endgate's executable there too are another endgate's handle on
        // itself (a forked or executed guest's), which that guest does not see as open.
        if !(of_fds(rest) || thread_fds) {
            return len;
        }
        own_fds
            .iter()
            .filter(|&&n| named(i64::from(n)) && super::selfref::is_own_exe(&format!("/proc/{pid}/fd/{n}")))
            .map(i32::to_string)
            .collect()
    } else if rest == "task" && timer != 0 {
        vec![timer.to_string()]
    } else if of_fds(rest) || thread_fds {
        own_fds.iter().map(i32::to_string).collect()
    } else {
        return len;
    };
    let mut end = buf.len();
    let mut off = 0;
    while off + name_at < end {
        let reclen = usize::from(u16::from_ne_bytes([buf[off + 16], buf[off + 17]]));
        if reclen == 0 || off + reclen > end {
            break;
        }
        let rec = &buf[off + name_at..off + reclen];
        let this = rec.iter().position(|&b| b == 0).map_or(rec, |z| &rec[..z]);
        if hidden.iter().any(|h| h.as_bytes() == this) {
            buf.copy_within(off + reclen..end, off);
            end -= reclen;
        } else {
            off += reclen;
        }
    }
    end as u64
}

/// The names of the directory records in `buf` (`getdents64`'s or `getdents`' layout: the
/// 2-byte record length at offset 16, the NUL-terminated name at `name_at`).
fn record_names(buf: &[u8], name_at: usize) -> impl Iterator<Item = &[u8]> {
    let mut off = 0;
    std::iter::from_fn(move || {
        let head = buf.get(off + 16..off + 18)?;
        let reclen = usize::from(u16::from_ne_bytes([head[0], head[1]]));
        let rec = buf.get(off + name_at..off + reclen).filter(|_| reclen != 0)?;
        off += reclen;
        Some(rec.iter().position(|&b| b == 0).map_or(rec, |z| &rec[..z]))
    })
}

/// The size Linux gives `/proc/PID/fd` since 6.2 (fs/proc/fd.c `proc_fd_getattr`): the number of
/// open descriptors. Of the process's own (`/proc/self/fd`, `/proc/thread-self/fd` and the same
/// directories by number), endgate's descriptors ([`super::selfref::own_fds`]) are taken off,
/// as [`hide_own_entries`] takes them out of the listing. `dev`, `ino` and `mode` are the
/// host's `stat` of the object.
pub fn own_fd_dir_size(dev: u64, ino: u64, mode: u32, size: &mut i64) {
    if mode & libc::S_IFMT != libc::S_IFDIR || *size <= 0 {
        return;
    }
    let id = |path: &std::ffi::CStr| {
        // SAFETY: a local stat for the host to fill.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: NUL-terminated path, local out struct.
        (unsafe { libc::stat(path.as_ptr(), &mut st) } == 0).then_some((st.st_dev, st.st_ino, st.st_size))
    };
    // Only a directory on the host's procfs can be one: one look at its device first.
    static PROC_DEV: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    if *PROC_DEV.get_or_init(|| id(c"/proc/self").map(|(d, _, _)| d)) != Some(dev) {
        return;
    }
    // The thread's own directory is looked at only when the process's is not the one.
    let Some((_, _, now)) =
        [c"/proc/self/fd", c"/proc/thread-self/fd"].into_iter().filter_map(id).find(|&(d, i, _)| (d, i) == (dev, ino))
    else {
        return;
    };
    // The count as it is now (the caller's lookup descriptors closed), less endgate's own.
    let own = i64::try_from(super::selfref::own_fds().len()).unwrap_or(0);
    *size = (now - own).max(0);
}

/// Pagemap files the guest has open, by the `(st_dev, st_ino)` of their memfds.
static PAGEMAPS: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());
/// Set once a pagemap has been opened: until then reads ask nothing more.
static ANY_PAGEMAP: AtomicBool = AtomicBool::new(false);

/// `true` once the guest opened a `/proc/self/pagemap` (reads of it are answered by endgate).
pub fn any_pagemap() -> bool {
    ANY_PAGEMAP.load(Ordering::Relaxed)
}

fn file_id_of(fd: i32) -> Option<(u64, u64)> {
    // SAFETY: a local stat for the host to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above; an integer fd.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// Before the host serves a `read`/`readv` (`offset` `None`: from the file position) or
/// `pread64`/`preadv` of `count` bytes on `fd`: if `fd` is a guest `/proc/self/pagemap`, writes the entries of the
/// pages that range covers into it, as the kernel's `pagemap_read` makes them at read time:
/// for each guest page (8 bytes at `vaddr / 4096 * 8`, in the guest's byte order) the host's
/// entry for the host page behind it, 0 for unmapped pages, nothing at or past the end of the guest's address space.
/// Errors: `EINVAL` for an offset or count that is not a multiple of 8 (as the kernel).
pub fn before_read(task: &Task, fd: i32, offset: Option<u64>, count: u64) -> Result<(), Errno> {
    if !ANY_PAGEMAP.load(Ordering::Relaxed) {
        return Ok(());
    }
    let Some(id) = file_id_of(fd) else { return Ok(()) };
    if !PAGEMAPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(&id) {
        return Ok(());
    }
    let off = match offset {
        Some(o) => o,
        // SAFETY: an integer fd.
        None => u64::try_from(unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) }).map_err(|_| Errno::last())?,
    };
    if off % 8 != 0 || count % 8 != 0 {
        return Err(Errno::EINVAL);
    }
    let last_page = task.mm.task_size / PAGE_SIZE;
    let first = (off / 8).min(last_page);
    let end = (off / 8).saturating_add(count / 8).min(last_page);
    let mut entries = vec![0u64; usize::try_from(end - first).map_err(|_| Errno::ENOMEM)?];
    let (lo, hi) = (first * PAGE_SIZE, end * PAGE_SIZE);
    for (start, v) in task.mm.vmas() {
        let (a, b) = (start.max(lo), v.end.min(hi));
        if a >= b {
            continue;
        }
        let Some(h) = task.mm.to_host(a, b - a) else { continue };
        let n = usize::try_from((b - a) / PAGE_SIZE).unwrap_or(0);
        let at = usize::try_from((a - lo) / PAGE_SIZE).unwrap_or(0);
        entries[at..at + n].copy_from_slice(&host_pagemap(h as u64, n));
    }
    // The entries are `u64`s in the guest kernel's byte order.
    let big = task.mm.endian() == crate::mm::Endian::Big;
    let bytes: Vec<u8> = entries.iter().flat_map(|e| if big { e.to_be_bytes() } else { e.to_le_bytes() }).collect();
    // SAFETY: writes from a live buffer into the guest's memfd.
    let _ = unsafe { libc::pwrite(fd, bytes.as_ptr().cast(), bytes.len(), i64::try_from(first * 8).unwrap_or(0)) };
    Ok(())
}

/// `/proc/self/stat` (proc(5)): the host's line, which already has the guest's pid, name,
/// state, parent, times and start time (the guest is this process), with the fields that
/// describe the address space replaced by the guest's: 23 `vsize` (bytes mapped), 26
/// `startcode` and 27 `endcode` (the program's executable mapping), 28 `startstack` (the
/// initial stack pointer), 45 `start_data` and 46 `end_data` (the program's writable mapping),
/// 47 `start_brk`. Fields 29-30 (`kstkesp`, `kstkeip`) read 0, as the kernel shows them for a
/// running task; 48-51 (argument and environment bounds) are the host's. `rel` is the
/// host's file to start from, relative to `/proc` (the calling thread's, or a `task/TID/stat`).
/// `/proc/self/cmdline` as fs/proc/base.c `get_mm_cmdline` reads it: the argument area
/// `[arg_start, arg_end)` of guest memory as it is now; when the guest has overwritten the
/// area's last NUL (setproctitle), the text runs on into the environment area up to its first
/// NUL (`get_mm_proctitle`, at most a page). The argv endgate started with where the area is
/// not known or not readable.
fn cmdline(task: &Task) -> Vec<u8> {
    let [arg_start, arg_end, env_start, env_end] = task.arg_env;
    let from_argv = || {
        let mut v = Vec::new();
        for a in &task.argv {
            v.extend_from_slice(a);
            v.push(0);
        }
        v
    };
    if arg_start == 0 || arg_end <= arg_start {
        return from_argv();
    }
    let read = |from: u64, len: u64| task.mm.read_vec(GuestAddr::new(from), crate::abi::u64_to_usize(len)).ok();
    let Some(area) = read(arg_start, arg_end - arg_start) else { return from_argv() };
    if area.last() == Some(&0) {
        return area;
    }
    let end = if env_start == arg_end && env_end >= env_start { env_end } else { arg_end };
    let len = (end - arg_start).min(PAGE_SIZE);
    let Some(mut title) = read(arg_start, len) else { return area };
    if let Some(z) = title.iter().position(|&b| b == 0) {
        title.truncate(z + 1);
    }
    title
}

fn stat(task: &Task, rel: &str) -> String {
    let line = super::selfref::read_proc_string(rel);
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
    for (field, v) in (48..).zip(task.arg_env) {
        set(field, v);
    }
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

/// The memfd name of a guest `/proc` file that Linux serves as a `seq_file` (maps, smaps,
/// status, stat, cpuinfo; pagemap's `mem_lseek` answers alike): `lseek` takes `SEEK_SET` and
/// `SEEK_CUR` only (fs/seq_file.c `seq_lseek`).
const MEMFD_SEQ: &std::ffi::CStr = c"endgate-proc-seq";
/// The memfd name of a guest `/proc` file that Linux seeks with `generic_file_llseek` on an
/// inode of size 0 (cmdline, auxv): `SEEK_END` lands at the offset itself.
const MEMFD_SIZE0: &std::ffi::CStr = c"endgate-proc-size0";

/// `lseek(fd, off, whence)` on the host, except on endgate's memfds for the guest's `/proc`
/// files, which answer as Linux's `/proc` files do ([`MEMFD_SEQ`], [`MEMFD_SIZE0`]); the new
/// position. Errors: the host's, `EINVAL`, `ENXIO`.
pub fn lseek(fd: i32, off: i64, whence: i32) -> Result<u64, Errno> {
    if whence != libc::SEEK_SET && whence != libc::SEEK_CUR {
        let link = super::selfref::fd_link(fd);
        let link = link.as_ref().map(|l| l.as_os_str().as_encoded_bytes()).unwrap_or_default();
        let named = |name: &std::ffi::CStr| {
            link.strip_prefix(b"/memfd:").is_some_and(|rest| {
                rest.starts_with(name.to_bytes()) && rest[name.to_bytes().len()..].starts_with(b" ")
            })
        };
        if named(MEMFD_SEQ) {
            return Err(Errno::EINVAL);
        }
        if named(MEMFD_SIZE0) {
            return match whence {
                libc::SEEK_END if off >= 0 => lseek(fd, off, libc::SEEK_SET),
                libc::SEEK_DATA | libc::SEEK_HOLE if off >= 0 => Err(Errno::ENXIO),
                _ => Err(Errno::EINVAL),
            };
        }
    }
    // SAFETY: integer arguments.
    let r = unsafe { libc::lseek(fd, off, whence) };
    u64::try_from(r).map_err(|_| Errno::last())
}

/// A file descriptor reading `data` from the start (a memfd named `name`; `cloexec` for
/// O_CLOEXEC).
pub fn open_memfd(data: &[u8], name: &std::ffi::CStr, cloexec: bool) -> Result<i32, Errno> {
    let flags = if cloexec { libc::MFD_CLOEXEC } else { 0 };
    // SAFETY: a NUL-terminated name and flags.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), flags) };
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
        assert_eq!(lookup(b"/proc/self/smaps"), Some(ProcFile::Smaps));
        assert_eq!(lookup(b"/proc/self/environ"), None);
    }
}
