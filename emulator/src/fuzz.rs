//! Entry points of the fuzz targets (`fuzz/`, run by `scripts/fuzz.sh`; docs/fuzzing.md).
//!
//! Each takes arbitrary bytes and drives one part of endgate that reads untrusted input the
//! way endgate itself does; none may panic or abort, whatever the bytes. They live in the
//! library (not in `fuzz/`) so that the regression tests (`emulator/tests/fuzz_inputs.rs`)
//! replay the kept inputs through the very same code without the fuzzer.

use std::cell::RefCell;
use std::io::Write as _;
use std::os::fd::{AsRawFd as _, FromRawFd as _};
use std::sync::Arc;

use crate::abi::thunk::{self, Shape};
use crate::abi::DataModel;
use crate::arch::ALL;
use crate::guest::{ExeInfo, GuestArch, Options, SyscallArgs, Task};
use crate::loader::{self, ImageKind};
use crate::mm::{AddressSpace, GuestAddr, Prot, VmaName};
use crate::syscall::strace;
use crate::syscall::{DispatchTable, SyscallDef};

mod live;
pub use live::{guest_elf, servers_lost, syscall_live};

/// The bytes as an anonymous in-memory file, named by its `/proc/self/fd` path.
fn memfd(bytes: &[u8]) -> Option<(std::fs::File, String)> {
    // SAFETY: a C string literal and plain flags; the returned fd is owned below.
    let fd = unsafe { libc::memfd_create(c"endgate-fuzz".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` was just created and is owned by nothing else.
    let mut f = unsafe { std::fs::File::from_raw_fd(fd) };
    f.write_all(bytes).ok()?;
    let path = format!("/proc/self/fd/{}", f.as_raw_fd());
    Some((f, path))
}

/// The ELF loader: `bytes` as a program, loaded as endgate's `launch` loads one (checks,
/// segments into a fresh address space of the file's arch, its `PT_INTERP` path read), then the
/// same bytes as that program's interpreter, placed top-down as an interpreter is. Every
/// failure must be a [`loader::LoaderError`].
pub fn elf_loader(bytes: &[u8]) {
    let Some((_file, path)) = memfd(bytes) else { return };
    let Ok(elf) = loader::read_elf(&path, std::path::Path::new(&path)) else { return };
    let _ = loader::interpreter(&elf);
    let info = elf.arch.info();
    let Ok(mut mm) = AddressSpace::new(info.layout, info.data_model) else { return };
    if let Ok(main) = loader::load_image(&mut mm, &elf, ImageKind::Main) {
        mm.brk_start = main.end;
        mm.brk = main.end;
    }
    mm.mmap_base = crate::loader::stack::mmap_base(mm.stack_top);
    let _ = loader::load_image(&mut mm, &elf, ImageKind::Interpreter);
}

/// Reads little-endian `u64`s from `bytes`, zero past the end.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u64(&mut self) -> u64 {
        let n = self.0.len().min(8);
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        u64::from_le_bytes(b)
    }
    fn u8(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else { return 0 };
        self.0 = rest;
        b
    }
}

/// Guest memory the strace target's pointers may point into: a readable page, a page of
/// no access after it (a string running off the end), at this address on every arch.
const STRACE_PAGE: u64 = 0x10_0000;

thread_local! {
    /// One task per guest arch for the strace target, its memory mapped once.
    static TASKS: RefCell<Vec<(Task, DispatchTable)>> = const { RefCell::new(Vec::new()) };
}

fn with_task<R>(i: usize, f: impl FnOnce(&mut Task, &DispatchTable) -> R) -> Option<R> {
    TASKS.with(|tasks| {
        let mut tasks = tasks.borrow_mut();
        if tasks.is_empty() {
            // The fuzzer's one thread stands for a guest thread: it holds the guest lock from
            // now on, which reaching a task's address space requires.
            crate::thread::lock::acquire();
            for (_, arch) in &ALL {
                let info = arch.info();
                let mut mm = AddressSpace::new(info.layout, info.data_model).ok()?;
                mm.map_anon(STRACE_PAGE, 0x1000, Prot::READ | Prot::WRITE, VmaName::Anon).ok()?;
                mm.map_anon(STRACE_PAGE + 0x1000, 0x1000, Prot::NONE, VmaName::Anon).ok()?;
                let exe = ExeInfo { guest_path: "fuzz".into(), host_path: "/fuzz".into() };
                tasks.push((
                    crate::task::new_process(*arch, mm, Arc::new(Options::default()), exe),
                    DispatchTable::new(*arch),
                ));
            }
        }
        tasks.get_mut(i).map(|(t, d)| f(t, d))
    })
}

/// The `--strace` formatter: a guest arch, a syscall number, six argument registers and a
/// result from the bytes, the page at [`STRACE_PAGE`] filled from the rest; the call's line
/// formatted at entry and exit as `--strace` prints it (also for numbers with no table row).
pub fn strace_format(bytes: &[u8]) {
    let mut r = Reader(bytes);
    let which = usize::from(r.u8()) % ALL.len();
    let sel = r.u8();
    let raw_nr = r.u64();
    let mut a = [0u64; 6];
    for v in &mut a {
        let x = r.u64();
        // Half the pointers land in the page, so strings and buffers are read.
        *v = if x & 1 == 0 { STRACE_PAGE + (x >> 1) % 0x1100 } else { x >> 1 };
    }
    let ret = r.u64();
    let page = r.0;
    with_task(which, |task, table| {
        let arch: &dyn GuestArch = task.arch;
        let ilp32 = !arch.info().is_64bit();
        if ilp32 {
            for v in &mut a {
                *v &= 0xffff_ffff;
            }
        }
        let fill = &page[..page.len().min(0x1000)];
        let _ = task.mm.write_bytes(GuestAddr::new(STRACE_PAGE), &vec![0; 0x1000]);
        let _ = task.mm.write_bytes(GuestAddr::new(STRACE_PAGE), fill);
        // A number the table knows most of the time, any number otherwise.
        let nr = if sel & 1 == 0 { raw_nr % 512 } else { raw_nr };
        let def: Option<&SyscallDef> = table.get(nr);
        let args = SyscallArgs { nr, a, restart_len: 0, ilp32, gate_landing: None };
        let pre = strace::format_entry(task, def, &args);
        let line = strace::format_line(task, def, &args, &pre, ret, sel & 2 != 0);
        assert!(line.contains('('), "{line}");
        let _ = strace::quote(page, usize::from(sel));
        let _ = strace::open_flags(crate::abi::int32(raw_nr));
    });
}

/// Every shape of `abi::shapes` and `struct stat64`, and the arches' own `statfs`, `ipc64_perm` and
/// `semid64_ds` tails.
fn shapes() -> Vec<&'static Shape> {
    use crate::abi::shapes::*;
    let mut v: Vec<&'static Shape> = vec![
        TIMESPEC,
        TIMESPEC64,
        TIMEVAL,
        ITIMERVAL,
        ITIMERSPEC,
        ITIMERSPEC64,
        RLIMIT,
        RLIMIT64,
        RUSAGE,
        TMS,
        SYSINFO,
        POLLFD,
        IOVEC,
        FLOCK,
        FLOCK64,
        STATFS,
        EPOLL_EVENT,
        TERMIOS,
        WINSIZE,
        INT,
        MSGHDR,
        CMSGHDR,
        SIGACTION,
        SIGACTION_NO_RESTORER,
        STATX_TIMESTAMP,
        STATX,
        OLD_KERNEL_STAT,
        OLD_SIGACTION,
        OLD_LINUX_DIRENT,
        TIMEX,
        KERNEL_TIMEX,
        IPC64_PERM,
        IPC64_PERM_MODE16,
        IPC64_PERM_S390X,
        SEMBUF,
        SEMINFO,
        SHMINFO64,
        SHM_INFO,
        MSGINFO,
        IPC_KLUDGE,
        MQ_ATTR,
        crate::abi::stat32::STAT64,
    ];
    for (_, arch) in &ALL {
        let info = arch.info();
        v.extend([info.statfs_shape, info.ipc_perm, info.semid_ds_tail]);
    }
    v
}

const MODELS: [DataModel; 4] = [DataModel::LP64_LE, DataModel::LP64_BE, DataModel::ILP32_LE, DataModel::ILP32_LE_I386];

thread_local! {
    /// One address space per guest arch for the `struct stat` writers.
    static SPACES: RefCell<Vec<AddressSpace>> = const { RefCell::new(Vec::new()) };
}

/// The struct conversions: one shape (or `struct stat`) and two data models from the bytes,
/// the rest as the struct's bytes. A shape goes from one model to the other and back, and its
/// integer members must read back the same (narrowing drops high bits, so only a round trip
/// through a model at least as wide is compared); `values`/`from_values` must agree. The
/// host's `struct stat` goes through every arch's `stat` and `stat64` writers.
pub fn abi_convert(bytes: &[u8]) {
    let mut r = Reader(bytes);
    let sel = r.u8();
    let (from, to) = (MODELS[usize::from(r.u8()) % 4], MODELS[usize::from(r.u8()) % 4]);
    let data = r.0;
    let all = shapes();
    if usize::from(sel) < all.len() {
        let s = all[usize::from(sel)];
        let mut src = vec![0u8; thunk::size_of(s, from)];
        let n = src.len().min(data.len());
        src[..n].copy_from_slice(&data[..n]);
        let mut mid = vec![0u8; thunk::size_of(s, to)];
        thunk::convert(s, from, &src, to, &mut mid);
        let mut back = vec![0u8; thunk::size_of(s, from)];
        thunk::convert(s, to, &mid, from, &mut back);
        if to.long_bytes >= from.long_bytes {
            assert_eq!(thunk::values(s, from, &src), thunk::values(s, from, &back), "round trip");
        }
        let vals = thunk::values(s, from, &src);
        let mut again = vec![0u8; thunk::size_of(s, to)];
        thunk::from_values(s, to, &vals, &mut again);
        if to.long_bytes >= from.long_bytes {
            assert_eq!(thunk::values(s, to, &again), thunk::values(s, to, &mid), "values");
        }
        return;
    }
    // SAFETY: `struct stat` is plain integers; every bit pattern is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let n = std::mem::size_of::<libc::stat>().min(data.len());
    // SAFETY: at most `size_of::<stat>()` bytes are copied into it.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), std::ptr::addr_of_mut!(st).cast::<u8>(), n) };
    let _ = crate::abi::stat32::Stat::from_host(&st);
    let _ = crate::abi::stat32::stat64_from_host(&st);
    let _ = crate::abi::generic::Stat::from_host(&st);
    let _ = crate::abi::stat32::new_encode_dev(st.st_dev);
    let _ = crate::abi::stat32::high2low(st.st_uid);
    let _ = crate::abi::stat32::low2high(st.st_ino);
    SPACES.with(|spaces| {
        let mut spaces = spaces.borrow_mut();
        if spaces.is_empty() {
            for (_, arch) in &ALL {
                let info = arch.info();
                let Ok(mut mm) = AddressSpace::new(info.layout, info.data_model) else { return };
                let _ = mm.map_anon(STRACE_PAGE, 0x1000, Prot::READ | Prot::WRITE, VmaName::Anon);
                spaces.push(mm);
            }
        }
        for ((_, arch), mm) in ALL.iter().zip(spaces.iter_mut()) {
            let info = arch.info();
            let _ = (info.write_stat)(mm, GuestAddr::new(STRACE_PAGE), &st);
            let _ = (info.write_stat64)(mm, GuestAddr::new(STRACE_PAGE), &st);
        }
    });
}

/// The parts of the gdb remote protocol endgate handles itself (`gdb::packets`,
/// `gdb::relay`): the byte stream split into packets, `qXfer` requests parsed and answered, a
/// `qSupported` reply extended, packets that name a process routed, fork and exit replies
/// given their process ids. The rest of the protocol is `gdbstub`'s own parser.
pub fn gdb_packets(bytes: &[u8]) {
    use crate::gdb::packets::{frame, offer_own, parse_xfer, xfer_reply, Splitter, Unit};
    let mut s = Splitter::default();
    for &b in bytes {
        match s.feed(b) {
            Unit::Wait | Unit::Pass(_) => {}
            Unit::Own(body) => {
                if let Some((_, off, len)) = parse_xfer(&body) {
                    let reply = xfer_reply(bytes, off, len);
                    assert!(reply.len() <= 2 * bytes.len() + 1);
                    let _ = frame(&reply, true);
                }
            }
        }
    }
    let _ = parse_xfer(bytes);
    let mut out = bytes.to_vec();
    offer_own(&mut out);
    // With fork events: the packets that name a process routed, the output's process ids fixed.
    let _ = crate::gdb::relay::route(bytes, 0x100, &[0x2a]);
    let mut out = bytes.to_vec();
    crate::gdb::packets::fix_process_ids(&mut out, 0x100);
}
