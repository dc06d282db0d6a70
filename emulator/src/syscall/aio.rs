//! Linux's native asynchronous I/O, the interface libaio wraps (io_setup(2), io_submit(2),
//! io_getevents(2), io_cancel(2), io_destroy(2); include/uapi/linux/aio_abi.h; fs/aio.c):
//! `io_setup`, `io_destroy`, `io_submit`, `io_cancel`, `io_getevents`, `io_pgetevents` and the
//! 32-bit guests' `io_pgetevents_time64`, served by endgate itself: guest `struct iocb`s are
//! never handed to the host kernel.
//!
//! # The context and its ring
//! `io_setup` maps the completion ring in the guest's address space, as the kernel does, and
//! the context id the guest gets is the ring's guest address. The ring is a `MAP_SHARED`
//! memfd mapping ("/[aio] (deleted)" in `/proc/self/maps`, as Linux names it) with a second,
//! private view in endgate, through which completions are written whatever the guest did to
//! its mapping. Its header is the kernel's `struct aio_ring` (`id`, `nr`, `head`, `tail`,
//! `magic` 0xa10a10a1, `compat_features` 1, `incompat_features` 0, `header_length` 32) in
//! the guest's byte order, followed by `nr` `struct io_event`s: completions are written at
//! `tail` and read from `head` as Linux does, so libaio's user-space fast path (a zero
//! timeout on a ring whose `head` equals its `tail` returns 0 without a system call) and
//! programs that reap events from the ring themselves see what they would see on Linux.
//! The ring's size follows `aio_setup_ring`: the request doubled (at least 4 per possible
//! CPU, doubled), plus 2, rounded up to whole pages. `EINVAL` and `EAGAIN` follow
//! `ioctx_alloc`, counting the contexts of this process against the host's
//! `/proc/sys/fs/aio-max-nr` on top of its `aio-nr`.
//!
//! # Requests
//! `io_submit` checks each `struct iocb` in the order `io_submit_one` does (`aio_reserved2`,
//! the length, a free slot, the fd, `IOCB_FLAG_RESFD`'s eventfd, then writes `aio_key` = 0),
//! then performs `IOCB_CMD_PREAD`/`PWRITE`/`PREADV`/`PWRITEV` at `aio_offset` (`preadv2` and
//! `pwritev2` with `aio_rw_flags`; a pipe or socket reads and writes at its position, as its
//! `read_iter` ignores the offset) and `IOCB_CMD_FSYNC`/`FDSYNC` at once, queueing the
//! completion (a failed transfer is an event whose `res` is `-errno`, as Linux's). A buffered
//! read on Linux also completes inside `io_submit`; fsync completes there too here, rather than
//! in a kernel worker. `IOCB_CMD_POLL` completes at once when the fd is ready; otherwise it
//! waits, and a helper host thread of the process (started with the first waiting poll, every
//! signal blocked) waits on the fds of all waiting polls and completes each as it becomes
//! ready (the event in the ring, its `IOCB_FLAG_RESFD` eventfd signalled, `io_getevents`
//! waiters woken), as Linux completes it from the fd's wakeup. Its `res` is the requested
//! events that are ready; a Linux poll that waited reports instead the mask its waker passed
//! (`aio_poll_wake`), which depends on the file (a pipe's write: POLLIN | POLLRDNORM, an
//! eventfd's: POLLIN), so there the two can differ by such companion bits. The helper looks for newly waiting polls
//! every 10 ms while it waits on others. `io_cancel` cancels a waiting poll (`EINPROGRESS`; its event follows with
//! `res` 0) and answers `EINVAL` for any other request, as Linux's `active_reqs` list holds
//! only polls. Contexts belong to the process: a forked child has none (Linux does not copy
//! `mm->ioctx_table`), though it shares the ring pages, as Linux's child does.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

use syscalls::Errno;

use super::{blocking_syscall, SysResult};
use crate::abi::shapes::{TIMESPEC, TIMESPEC64};
use crate::abi::thunk::Shape;
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::{Endian, FileMap, GuestAddr, Prot, VmaName, PAGE_SIZE};

/// `AIO_RING_MAGIC` (fs/aio.c).
const RING_MAGIC: u32 = 0xa10a_10a1;
/// Size of `struct aio_ring`, the header before the events.
const RING_HEADER: u64 = 32;
/// Size of `struct io_event` and of `struct iocb`'s first half; `struct iocb` is 64 bytes.
const EVENT: u64 = 32;
const IOCB: usize = 64;
/// `IOCB_CMD_*` (aio_abi.h).
const CMD_PREAD: u16 = 0;
const CMD_PWRITE: u16 = 1;
const CMD_FSYNC: u16 = 2;
const CMD_FDSYNC: u16 = 3;
const CMD_POLL: u16 = 5;
const CMD_PREADV: u16 = 7;
const CMD_PWRITEV: u16 = 8;
/// `IOCB_FLAG_RESFD`, `IOCB_FLAG_IOPRIO`.
const FLAG_RESFD: u32 = 1;
const FLAG_IOPRIO: u32 = 2;
/// `FUTEX_WAIT | FUTEX_PRIVATE_FLAG`, `FUTEX_WAKE | FUTEX_PRIVATE_FLAG` (linux/futex.h).
const FUTEX_WAIT_PRIVATE: u64 = 128;
const FUTEX_WAKE_PRIVATE: u64 = 129;
/// Most iovecs one request takes (`UIO_MAXIOV`).
const UIO_MAXIOV: u64 = 1024;
/// Most bytes one transfer moves (`MAX_RW_COUNT`).
const MAX_RW_COUNT: u64 = 0x7fff_f000;

/// A waiting `IOCB_CMD_POLL`.
struct Poll {
    /// Guest address of its iocb (the event's `obj`, what `io_cancel` names).
    obj: u64,
    /// Its `aio_data`.
    data: u64,
    fd: i32,
    /// Requested events, with `POLLERR | POLLHUP`.
    events: i16,
    /// The eventfd to signal, if any.
    resfd: Option<i32>,
}

/// One context.
struct Ctx {
    /// The ring's `id`: the context's index in the process's table.
    id: u32,
    /// Length of the ring mapping in bytes.
    len: u64,
    /// endgate's own view of the ring pages.
    view: *mut u8,
    /// Number of event slots (`ctx->nr_events`).
    nr: u32,
    /// What `io_setup` asked for (counted against aio-max-nr).
    max_reqs: u32,
    /// Where the next completion goes (`ctx->tail`, the trusted copy).
    tail: u32,
    /// Waiting polls.
    polls: Vec<Poll>,
    /// The guest's byte order, which the ring's words and events are in.
    endian: Endian,
    /// The guest's numbering of an event's `-errno` and poll bits (the arch's data row).
    errno_from_host: fn(i32) -> i32,
    poll_from_host: fn(i16) -> i16,
}

// SAFETY: `view` is a private mapping owned by the context; only the holder of `STATE` uses it.
unsafe impl Send for Ctx {}

/// The process's contexts, by ring address.
static STATE: Mutex<BTreeMap<u64, Ctx>> = Mutex::new(BTreeMap::new());

/// Bumped and woken (a futex) at every completion, for waiters in `io_getevents`.
static GEN: AtomicU32 = AtomicU32::new(0);

/// The poll helper thread runs in this process.
static HELPER: AtomicBool = AtomicBool::new(false);

/// Bumped and woken (a futex) when a poll starts waiting, for the helper when it has none.
static HELPER_WAKE: AtomicU32 = AtomicU32::new(0);

/// How long the helper waits on its polls before it looks for new ones (a poll submitted
/// while it waits is seen within this time; one ready at submission completes at once).
const HELPER_SLICE_NS: i64 = 10_000_000;

fn state() -> std::sync::MutexGuard<'static, BTreeMap<u64, Ctx>> {
    STATE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A fork child has no contexts (Linux gives it an empty `ioctx_table`); its copies of the
/// ring views are dropped.
pub fn forget_after_fork() {
    let mut st = state();
    for c in st.values() {
        // SAFETY: the view was mapped by `io_setup` with this length.
        unsafe { libc::munmap(c.view.cast(), usize::try_from(c.len).unwrap_or(0)) };
    }
    st.clear();
    HELPER.store(false, Ordering::SeqCst);
}

/// Takes the contexts' lock across a `fork`, so the child's copy is not taken by the poll
/// helper thread (which does not exist in the child); dropped in both processes after it.
pub fn fork_guard() -> ForkGuard {
    ForkGuard(state())
}

/// The contexts' lock, held across a `fork` ([`fork_guard`]).
pub struct ForkGuard(
    #[allow(dead_code, reason = "held only for its drop")] std::sync::MutexGuard<'static, BTreeMap<u64, Ctx>>,
);

impl Ctx {
    fn get32(&self, off: u64, endian: Endian) -> u32 {
        let mut b = [0u8; 4];
        // SAFETY: `off` is inside the ring header.
        unsafe { std::ptr::copy_nonoverlapping(self.view.add(idx(off)), b.as_mut_ptr(), 4) };
        match endian {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    fn put(&self, off: u64, bytes: &[u8]) {
        debug_assert!(off + bytes.len() as u64 <= self.len);
        // SAFETY: callers stay inside the ring (header fields, or a slot below `nr`).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.view.add(idx(off)), bytes.len()) };
    }

    fn put32(&self, off: u64, v: u32, endian: Endian) {
        self.put(off, &order32(v, endian));
    }

    /// Events completed and not yet reaped: `tail - head` on the ring.
    fn queued(&self, endian: Endian) -> u32 {
        let head = self.get32(8, endian) % self.nr;
        (self.tail + self.nr - head) % self.nr
    }

    /// Writes one `struct io_event` at the tail and moves the tail on; signals the request's
    /// eventfd and wakes waiters.
    fn complete(&mut self, obj: u64, data: u64, res: i64, resfd: Option<i32>, endian: Endian) {
        // A failure is `-errno`, in the guest's numbering.
        let res = match i32::try_from(res) {
            Ok(r) if (-4095..0).contains(&r) => -i64::from((self.errno_from_host)(-r)),
            _ => res,
        };
        let mut ev = [0u8; 32];
        for (i, v) in [data, obj, u64::from_ne_bytes(res.to_ne_bytes()), 0].into_iter().enumerate() {
            ev[i * 8..i * 8 + 8].copy_from_slice(&order64(v, endian));
        }
        self.put(RING_HEADER + u64::from(self.tail) * EVENT, &ev);
        self.tail = (self.tail + 1) % self.nr;
        self.put32(12, self.tail, endian);
        if let Some(fd) = resfd {
            let one = 1u64;
            // SAFETY: 8 readable bytes; an eventfd counter in the host's order.
            unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
        }
        wake();
    }

    /// Completes the waiting polls whose fds are ready now.
    fn service_polls(&mut self) {
        let endian = self.endian;
        if self.polls.is_empty() {
            return;
        }
        let mut fds: Vec<libc::pollfd> =
            self.polls.iter().map(|p| libc::pollfd { fd: p.fd, events: p.events, revents: 0 }).collect();
        // SAFETY: local pollfds, no waiting.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
        if n <= 0 {
            return;
        }
        let mut keep = Vec::new();
        for (p, f) in std::mem::take(&mut self.polls).into_iter().zip(fds) {
            let got = f.revents & !libc::POLLNVAL;
            if got & p.events != 0 {
                let got = (self.poll_from_host)(got & p.events);
                self.complete(p.obj, p.data, i64::from(got), p.resfd, endian);
            } else {
                keep.push(p);
            }
        }
        self.polls = keep;
    }
}

/// Wakes the threads waiting in `io_getevents` (a completion, or a context gone).
fn wake() {
    GEN.fetch_add(1, Ordering::SeqCst);
    // SAFETY: a futex wake on our own word.
    unsafe { libc::syscall(libc::SYS_futex, GEN.as_ptr(), FUTEX_WAKE_PRIVATE, i64::from(i32::MAX)) };
}

/// A byte offset inside a ring (always far below `usize::MAX` on the 64-bit host).
fn idx(off: u64) -> usize {
    usize::try_from(off).unwrap_or(usize::MAX)
}

/// A `__u32` member the kernel reads as an `int` (an fd).
fn int(v: u32) -> i32 {
    i32::from_ne_bytes(v.to_ne_bytes())
}

fn order32(v: u32, e: Endian) -> [u8; 4] {
    match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

fn order64(v: u64, e: Endian) -> [u8; 8] {
    match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

/// The host's possible CPUs (`num_possible_cpus`), from `/sys/devices/system/cpu/possible`.
fn possible_cpus() -> u32 {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/possible").unwrap_or_default();
    let mut n = 0u32;
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let mut ends = part.split('-').map(|x| x.parse::<u32>().unwrap_or(0));
        let lo = ends.next().unwrap_or(0);
        let hi = ends.next().unwrap_or(lo);
        n += hi.saturating_sub(lo) + 1;
    }
    n.max(1)
}

fn proc_number(path: &str, default: u64) -> u64 {
    std::fs::read_to_string(path).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(default)
}

/// The context named by guest id `ctx_id` (`lookup_ioctx`: the ring's `id` word, read from
/// the guest's mapping, must name the context at that address). `None` for `EINVAL`.
fn lookup(t: &Task, st: &BTreeMap<u64, Ctx>, ctx_id: u64) -> Option<u64> {
    let id = t.mm.read_u32(GuestAddr::new(ctx_id)).ok()?;
    st.get(&ctx_id).filter(|c| c.id == id).map(|_| ctx_id)
}

/// `io_setup(unsigned nr_events, aio_context_t *ctxp)`: a context for `nr_events`
/// requests; its id (the ring's address) goes to `*ctxp`, which must hold 0. Errors:
/// `EFAULT`, `EINVAL` (`*ctxp` not 0, `nr_events` 0 or too large), `EAGAIN` (over
/// aio-max-nr), `ENOMEM`.
pub fn io_setup(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let ctxp = a.ptr(1);
    if t.mm.read_ulong(ctxp)? != 0 || a.uint(0) == 0 {
        return Err(Errno::EINVAL);
    }
    let max_reqs = a.uint(0);
    // ioctx_alloc: at least 4 per CPU, doubled (wrapping as the kernel's unsigned does).
    let nr_events = max_reqs.max(possible_cpus().saturating_mul(4)).wrapping_mul(2);
    if u64::from(nr_events) > 0x1000_0000 / EVENT {
        return Err(Errno::EINVAL);
    }
    let max_nr = proc_number("/proc/sys/fs/aio-max-nr", 0x10000);
    if nr_events == 0 || u64::from(max_reqs) > max_nr {
        return Err(Errno::EAGAIN);
    }
    let mut st = state();
    let ours: u64 = st.values().map(|c| u64::from(c.max_reqs)).sum();
    if proc_number("/proc/sys/fs/aio-nr", 0) + ours + u64::from(max_reqs) > max_nr {
        return Err(Errno::EAGAIN);
    }
    // aio_setup_ring: two more slots, whole pages, and every slot the pages hold.
    let pages = (RING_HEADER + EVENT * (u64::from(nr_events) + 2)).div_ceil(PAGE_SIZE);
    let len = pages * PAGE_SIZE;
    let nr = u32::try_from((len - RING_HEADER) / EVENT).map_err(|_| Errno::EINVAL)?;
    let hlen = usize::try_from(len).map_err(|_| Errno::ENOMEM)?;
    // SAFETY: a name literal and flags.
    let fd = unsafe { libc::memfd_create(c"[aio]".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(Errno::ENOMEM);
    }
    let made = (|| {
        // SAFETY: our own new memfd.
        if unsafe { libc::ftruncate(fd, i64::try_from(len).unwrap_or(i64::MAX)) } != 0 {
            return Err(Errno::ENOMEM);
        }
        // SAFETY: a new shared view of our own memfd.
        let view = unsafe {
            libc::mmap(std::ptr::null_mut(), hlen, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0)
        };
        if view == libc::MAP_FAILED {
            return Err(Errno::ENOMEM);
        }
        let addr = t.mm.find_free(len).ok_or(Errno::ENOMEM);
        let mapped = addr.and_then(|addr| {
            let file = FileMap { fd, offset: 0, shared: true };
            t.mm.map_file(addr, len, Prot::READ | Prot::WRITE, VmaName::Gate("/[aio] (deleted)"), file).map(|()| addr)
        });
        match mapped {
            Ok(addr) => Ok((addr, view.cast::<u8>())),
            Err(e) => {
                // SAFETY: the view just mapped.
                unsafe { libc::munmap(view, hlen) };
                Err(e)
            }
        }
    })();
    // SAFETY: our own memfd; the mappings keep its pages.
    unsafe { libc::close(fd) };
    let (addr, view) = made?;
    let id = (0u32..).find(|i| st.values().all(|c| c.id != *i)).unwrap_or(0);
    let info = t.arch.info();
    let ctx = Ctx {
        id,
        len,
        view,
        nr,
        max_reqs,
        tail: 0,
        polls: Vec::new(),
        endian: t.mm.endian(),
        errno_from_host: info.errno_from_host,
        poll_from_host: info.poll_events_from_host,
    };
    let e = t.mm.endian();
    for (off, v) in [(0, id), (4, nr), (8, 0), (12, 0), (16, RING_MAGIC), (20, 1), (24, 0), (28, 32)] {
        ctx.put32(off, v, e);
    }
    if let Err(err) = t.mm.write_ulong(ctxp, addr) {
        // The kernel kills the context it cannot report.
        let _ = t.mm.unmap(addr, len);
        // SAFETY: the view mapped above.
        unsafe { libc::munmap(view.cast(), hlen) };
        return Err(err);
    }
    st.insert(addr, ctx);
    Ok(0)
}

/// `io_destroy(aio_context_t ctx_id)`: cancels waiting polls, unmaps the ring and frees the
/// context. Errors: `EINVAL` (no such context).
pub fn io_destroy(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let mut st = state();
    let id = lookup(t, &st, a.ulong(0)).ok_or(Errno::EINVAL)?;
    let Some(c) = st.remove(&id) else { return Err(Errno::EINVAL) };
    let _ = t.mm.unmap(id, c.len);
    // SAFETY: the context's own view.
    unsafe { libc::munmap(c.view.cast(), usize::try_from(c.len).unwrap_or(0)) };
    // Threads waiting in io_getevents on it end with EINVAL, as Linux's dead context gives.
    wake();
    Ok(0)
}

/// A guest `struct iocb`, members in host order.
struct Iocb {
    data: u64,
    /// Offset of `aio_key` in the guest's layout (8, or 12 on a big-endian guest: aio_abi.h's
    /// `PADDED` puts `aio_rw_flags` first there).
    key_at: u64,
    rw_flags: u32,
    opcode: u16,
    reqprio: u16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

fn read_iocb(t: &Task, at: GuestAddr) -> Result<Iocb, Errno> {
    let mut b = [0u8; IOCB];
    t.mm.read_bytes(at, &mut b)?;
    let e = t.mm.endian();
    let u16_at = |o: usize| {
        let v = [b[o], b[o + 1]];
        if e == Endian::Little {
            u16::from_le_bytes(v)
        } else {
            u16::from_be_bytes(v)
        }
    };
    let u32_at = |o: usize| {
        let v = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if e == Endian::Little {
            u32::from_le_bytes(v)
        } else {
            u32::from_be_bytes(v)
        }
    };
    let u64_at = |o: usize| {
        let mut v = [0u8; 8];
        v.copy_from_slice(&b[o..o + 8]);
        if e == Endian::Little {
            u64::from_le_bytes(v)
        } else {
            u64::from_be_bytes(v)
        }
    };
    let (key_at, flags_at) = if e == Endian::Little { (8u64, 12u64) } else { (12, 8) };
    Ok(Iocb {
        data: u64_at(0),
        key_at,
        rw_flags: u32_at(idx(flags_at)),
        opcode: u16_at(16),
        reqprio: u16_at(18),
        fildes: u32_at(20),
        buf: u64_at(24),
        nbytes: u64_at(32),
        offset: i64::from_ne_bytes(u64_at(40).to_ne_bytes()),
        reserved2: u64_at(48),
        flags: u32_at(56),
        resfd: u32_at(60),
    })
}

/// What a checked request does.
enum Work {
    /// A read (`out`: the host writes the buffers) or write of these guest ranges.
    Rw {
        out: bool,
        bufs: Vec<(u64, u64)>,
    },
    Sync {
        data_only: bool,
    },
    Poll {
        events: i16,
    },
}

/// `true` if `fd`'s `/proc/self/fd` link is known and is not `what` (without the host's
/// `/proc` nothing is known, and the host's `io_submit` judges).
fn fd_link_is_not(fd: i32, what: &[u8]) -> bool {
    super::selfref::fd_kind(fd).is_some_and(|l| l.as_os_str().as_encoded_bytes() != what)
}

/// The checks `__io_submit_one` and the opcode's prep make, in their order, after the slot
/// is taken. Errors as Linux's `io_submit` reports them for the iocb.
fn prepare(t: &mut Task, at: GuestAddr, cb: &Iocb) -> Result<Work, Errno> {
    let fd = int(cb.fildes);
    // SAFETY: an integer query.
    let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if fl < 0 || fl & libc::O_PATH != 0 {
        return Err(Errno::EBADF);
    }
    if cb.flags & FLAG_RESFD != 0 {
        let rfd = int(cb.resfd);
        // SAFETY: an integer query.
        if unsafe { libc::fcntl(rfd, libc::F_GETFD) } < 0 {
            return Err(Errno::EBADF);
        }
        if fd_link_is_not(rfd, b"anon_inode:[eventfd]") {
            return Err(Errno::EINVAL);
        }
    }
    t.mm.write_u32(at + cb.key_at, 0)?;
    let task_size = t.mm.task_size;
    match cb.opcode {
        CMD_PREAD | CMD_PWRITE | CMD_PREADV | CMD_PWRITEV => {
            let out = matches!(cb.opcode, CMD_PREAD | CMD_PREADV);
            if cb.flags & FLAG_IOPRIO != 0 && (cb.reqprio >> 13) > 3 {
                return Err(Errno::EINVAL);
            }
            let acc = fl & libc::O_ACCMODE;
            if (out && acc == libc::O_WRONLY) || (!out && acc == libc::O_RDONLY) {
                return Err(Errno::EBADF);
            }
            // SAFETY: a local stat buffer.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: as above.
            if unsafe { libc::fstat(fd, &mut st) } == 0 && st.st_mode & libc::S_IFMT == libc::S_IFDIR {
                return Err(Errno::EINVAL);
            }
            let bufs = if matches!(cb.opcode, CMD_PREAD | CMD_PWRITE) {
                if cb.buf.checked_add(cb.nbytes).is_none_or(|e| e > task_size) {
                    return Err(Errno::EFAULT);
                }
                vec![(cb.buf, cb.nbytes.min(MAX_RW_COUNT))]
            } else {
                if cb.nbytes > UIO_MAXIOV {
                    return Err(Errno::EINVAL);
                }
                let word = t.mm.long_bytes();
                let mut v = Vec::new();
                let mut total = 0u64;
                for i in 0..cb.nbytes {
                    let base = GuestAddr::new(cb.buf) + i * 2 * word;
                    let (b, l) = (t.mm.read_ulong(base)?, t.mm.read_ulong(base + word)?);
                    let signed = if word == 8 { l >> 63 != 0 } else { l >> 31 != 0 };
                    if signed {
                        return Err(Errno::EINVAL);
                    }
                    if b.checked_add(l).is_none_or(|e| e > task_size) {
                        return Err(Errno::EFAULT);
                    }
                    let l = l.min(MAX_RW_COUNT - total);
                    total += l;
                    v.push((b, l));
                }
                v
            };
            let count: u64 = bufs.iter().map(|b| b.1).sum();
            if cb.offset < 0 || cb.offset.checked_add_unsigned(count).is_none() {
                return Err(Errno::EINVAL);
            }
            Ok(Work::Rw { out, bufs })
        }
        CMD_FSYNC | CMD_FDSYNC => {
            if cb.buf != 0 || cb.offset != 0 || cb.nbytes != 0 || cb.rw_flags != 0 {
                return Err(Errno::EINVAL);
            }
            Ok(Work::Sync { data_only: cb.opcode == CMD_FDSYNC })
        }
        CMD_POLL => {
            let events = u16::try_from(cb.buf).map_err(|_| Errno::EINVAL)?;
            if cb.offset != 0 || cb.nbytes != 0 || cb.rw_flags != 0 {
                return Err(Errno::EINVAL);
            }
            let events = (t.arch.info().poll_events_to_host)(i16::from_ne_bytes(events.to_ne_bytes()));
            Ok(Work::Poll { events: events | libc::POLLERR | libc::POLLHUP })
        }
        _ => Err(Errno::EINVAL),
    }
}

/// Performs a read or write; the event's `res` (bytes, or `-errno`), or the submit error
/// `EOPNOTSUPP` for `aio_rw_flags` the file does not take.
fn transfer(t: &mut Task, cb: &Iocb, out: bool, bufs: &[(u64, u64)]) -> Result<i64, Errno> {
    let mut iov = Vec::with_capacity(bufs.len());
    for &(b, l) in bufs {
        let p = if out {
            t.buf_out(GuestAddr::new(b), l)
        } else {
            t.buf_in(GuestAddr::new(b), l).map(<*const u8>::cast_mut)
        };
        match p {
            Ok(p) => iov.push(libc::iovec { iov_base: p.cast(), iov_len: usize::try_from(l).unwrap_or(0) }),
            Err(_) => return Ok(-i64::from(Errno::EFAULT.into_raw())),
        }
    }
    let fd = u64::from(cb.fildes);
    // A pipe or socket has no position: its read_iter ignores the offset, as -1 asks here.
    // SAFETY: an integer query.
    let seekable = unsafe { libc::lseek(int(cb.fildes), 0, libc::SEEK_CUR) } >= 0;
    let pos = if seekable { u64::try_from(cb.offset).unwrap_or(0) } else { u64::MAX };
    let nr = if out { libc::SYS_preadv2 } else { libc::SYS_pwritev2 };
    // SAFETY: the iovecs cover checked guest buffers.
    let r = blocking_syscall(t, nr, &[fd, iov.as_ptr() as u64, iov.len() as u64, pos, 0, u64::from(cb.rw_flags)]);
    if r >= 0 {
        return Ok(r);
    }
    let e = Errno::last();
    if e == Errno::EOPNOTSUPP && cb.rw_flags != 0 {
        return Err(e);
    }
    Ok(-i64::from(e.into_raw()))
}

/// `io_submit(aio_context_t ctx_id, long nr, struct iocb **iocbpp)`: submits up to `nr`
/// requests; the number submitted, or the first one's error. Errors: `EINVAL` (`nr` < 0, no
/// such context, a bad iocb), `EFAULT`, `EAGAIN` (no free slot), `EBADF`, `EOPNOTSUPP`.
pub fn io_submit(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let nr = a.long(1);
    if nr < 0 {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data_mut();
    let e = t.mm.endian();
    let id = lookup(t, &state(), a.ulong(0)).ok_or(Errno::EINVAL)?;
    let word = t.mm.long_bytes();
    let mut done = 0u64;
    let mut err = Errno::EINVAL;
    let cap = state().get(&id).map_or(0, |c| c.nr);
    for i in 0..u64::try_from(nr).unwrap_or(0).min(u64::from(cap)) {
        match submit_one(t, id, a.ptr(2) + i * word, e) {
            Ok(()) => done += 1,
            Err(x) => {
                err = x;
                break;
            }
        }
    }
    if done > 0 {
        Ok(done)
    } else if nr == 0 {
        Ok(0)
    } else {
        Err(err)
    }
}

fn submit_one(t: &mut Task, id: u64, slot: GuestAddr, e: Endian) -> Result<(), Errno> {
    let at = GuestAddr::new(t.mm.read_ulong(slot)?);
    let cb = read_iocb(t, at)?;
    if cb.reserved2 != 0 || cb.nbytes >> 63 != 0 {
        return Err(Errno::EINVAL);
    }
    {
        let mut st = state();
        let c = st.get_mut(&id).ok_or(Errno::EINVAL)?;
        c.service_polls();
        if c.queued(e) + u32::try_from(c.polls.len()).unwrap_or(u32::MAX) >= c.nr - 1 {
            return Err(Errno::EAGAIN);
        }
    }
    let work = prepare(t, at, &cb)?;
    let resfd = (cb.flags & FLAG_RESFD != 0).then_some(int(cb.resfd));
    let fd = int(cb.fildes);
    let res = match work {
        Work::Rw { out, bufs } => transfer(t, &cb, out, &bufs)?,
        Work::Sync { data_only } => {
            let nr = if data_only { libc::SYS_fdatasync } else { libc::SYS_fsync };
            let r = blocking_syscall(t, nr, &[u64::from(cb.fildes)]);
            let err = Errno::last();
            if r < 0 && err == Errno::EINVAL {
                // The file has no fsync operation: refused at submission.
                return Err(Errno::EINVAL);
            }
            if r < 0 {
                -i64::from(err.into_raw())
            } else {
                0
            }
        }
        Work::Poll { events } => {
            let mut st = state();
            let c = st.get_mut(&id).ok_or(Errno::EINVAL)?;
            let mut p = libc::pollfd { fd, events, revents: 0 };
            // SAFETY: one local pollfd, no waiting.
            unsafe { libc::poll(&mut p, 1, 0) };
            if p.revents & events != 0 {
                let got = (c.poll_from_host)(p.revents & events);
                c.complete(at.get(), cb.data, i64::from(got), resfd, e);
            } else {
                c.polls.push(Poll { obj: at.get(), data: cb.data, fd, events, resfd });
                drop(st);
                start_helper();
            }
            return Ok(());
        }
    };
    let mut st = state();
    // The context may have been destroyed by another thread while the transfer blocked.
    if let Some(c) = st.get_mut(&id) {
        c.complete(at.get(), cb.data, res, resfd, e);
    }
    Ok(())
}

/// Starts the poll helper thread if this process has none, and wakes it.
fn start_helper() {
    if !HELPER.swap(true, Ordering::SeqCst) {
        // The new thread starts with every signal blocked (it inherits this thread's mask,
        // set so around its creation): guest signals are never delivered to it.
        let all = u64::MAX;
        let mut old = 0u64;
        // SAFETY: local 8-byte kernel sigsets.
        unsafe {
            libc::syscall(libc::SYS_rt_sigprocmask, libc::SIG_SETMASK, &all as *const u64, &mut old as *mut u64, 8)
        };
        let made = crate::thread::spawn_host(std::thread::Builder::new().name("endgate-aio".into()), helper_main);
        // SAFETY: as above.
        unsafe {
            libc::syscall(
                libc::SYS_rt_sigprocmask,
                libc::SIG_SETMASK,
                &old as *const u64,
                std::ptr::null_mut::<u64>(),
                8,
            )
        };
        if made.is_err() {
            HELPER.store(false, Ordering::SeqCst);
        }
    }
    HELPER_WAKE.fetch_add(1, Ordering::SeqCst);
    // SAFETY: a futex wake on our own word.
    unsafe { libc::syscall(libc::SYS_futex, HELPER_WAKE.as_ptr(), FUTEX_WAKE_PRIVATE, 1i64) };
}

/// The poll helper: waits on the fds of every waiting `IOCB_CMD_POLL` of the process and
/// completes the ones that become ready (the event in the ring, the eventfd signalled,
/// waiters woken), as Linux completes them from the fd's wakeup. It touches only the
/// contexts (under their lock) and endgate's own views of the rings, never guest memory
/// through the address space, so it needs no guest lock.
fn helper_main() {
    loop {
        let seen = HELPER_WAKE.load(Ordering::SeqCst);
        let mut fds: Vec<libc::pollfd> = state()
            .values()
            .flat_map(|c| c.polls.iter().map(|p| libc::pollfd { fd: p.fd, events: p.events, revents: 0 }))
            .filter(|p| {
                // SAFETY: an integer query; a closed fd is not waited for (POLLNVAL).
                unsafe { libc::fcntl(p.fd, libc::F_GETFD) >= 0 }
            })
            .collect();
        if fds.is_empty() {
            // SAFETY: a futex wait on our own word, until a poll starts waiting.
            unsafe { libc::syscall(libc::SYS_futex, HELPER_WAKE.as_ptr(), FUTEX_WAIT_PRIVATE, u64::from(seen), 0u64) };
            continue;
        }
        let ts = libc::timespec { tv_sec: 0, tv_nsec: HELPER_SLICE_NS };
        // SAFETY: local pollfds and timespec; signals stay blocked (no mask argument).
        let n = unsafe {
            libc::syscall(libc::SYS_ppoll, fds.as_mut_ptr(), fds.len(), &ts as *const libc::timespec, 0u64, 8u64)
        };
        if n > 0 {
            for c in state().values_mut() {
                c.service_polls();
            }
        }
    }
}

/// `io_cancel(aio_context_t ctx_id, struct iocb *iocb, struct io_event *result)`: cancels a
/// waiting poll, whose event (`res` 0) then arrives through the ring; `result` is not used,
/// as in Linux. Errors: `EFAULT`, `EINVAL` (a key other than 0, no such context, a request
/// that cannot be cancelled or has completed), `EINPROGRESS` (cancelled).
pub fn io_cancel(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let e = t.mm.endian();
    let obj = a.ptr(1);
    let key_at = if e == Endian::Little { 8 } else { 12 };
    if t.mm.read_u32(obj + key_at)? != 0 {
        return Err(Errno::EINVAL);
    }
    let mut st = state();
    let id = lookup(t, &st, a.ulong(0)).ok_or(Errno::EINVAL)?;
    let c = st.get_mut(&id).ok_or(Errno::EINVAL)?;
    c.service_polls();
    let Some(i) = c.polls.iter().position(|p| p.obj == obj.get()) else { return Err(Errno::EINVAL) };
    let p = c.polls.remove(i);
    c.complete(p.obj, p.data, 0, p.resfd, e);
    Err(Errno::EINPROGRESS)
}

/// Copies up to `want` events from the ring at `head` to guest `events`, as
/// `aio_read_events_ring` does. Returns how many, or `EFAULT` if none could be written.
fn reap(t: &mut Task, c: &Ctx, events: GuestAddr, want: u64) -> Result<u64, Errno> {
    let e = t.mm.endian();
    let (mut head, tail) = (c.get32(8, e), c.get32(12, e));
    if head == tail {
        return Ok(0);
    }
    head %= c.nr;
    let tail = tail % c.nr;
    let mut got = 0u64;
    while got < want && head != tail {
        let avail = u64::from(if tail > head { tail - head } else { c.nr - head }).min(want - got);
        let off = RING_HEADER + u64::from(head) * EVENT;
        let len = usize::try_from(avail * EVENT).unwrap_or(0);
        // SAFETY: `avail` slots from `head` lie inside the ring.
        let bytes = unsafe { std::slice::from_raw_parts(c.view.add(idx(off)), len) };
        if let Err(err) = t.mm.write_bytes(events + got * EVENT, bytes) {
            if got == 0 {
                return Err(err);
            }
            break;
        }
        got += avail;
        head = (head + u32::try_from(avail).unwrap_or(0)) % c.nr;
        c.put32(8, head, e);
    }
    Ok(got)
}

/// The common part of `io_getevents` and `io_pgetevents`: waits until `min_nr` events are in
/// the ring or the time runs out (`None`: no limit), then returns up to `nr` of them.
fn getevents(
    t: &mut Task,
    ctx_id: u64,
    min_nr: i64,
    nr: i64,
    events: GuestAddr,
    timeout_ns: Option<i128>,
) -> SysResult {
    let id = lookup(t, &state(), ctx_id).ok_or(Errno::EINVAL)?;
    if min_nr > nr || min_nr < 0 {
        return Err(Errno::EINVAL);
    }
    let (min_nr, nr) = (min_nr.unsigned_abs(), nr.unsigned_abs());
    let start = std::time::Instant::now();
    let mut got = 0u64;
    loop {
        let gen = GEN.load(Ordering::SeqCst);
        {
            let mut st = state();
            let Some(c) = st.get_mut(&id) else { return if got > 0 { Ok(got) } else { Err(Errno::EINVAL) } };
            c.service_polls();
            match reap(t, c, events + got * EVENT, nr - got) {
                Ok(n) => got += n,
                Err(err) if got == 0 => return Err(err),
                Err(_) => return Ok(got),
            }
        }
        if got >= min_nr {
            return Ok(got);
        }
        let left = match timeout_ns {
            None => None,
            Some(ns) => {
                let left = ns - i128::try_from(start.elapsed().as_nanos()).unwrap_or(i128::MAX);
                if left <= 0 {
                    return Ok(got);
                }
                Some(left)
            }
        };
        if crate::signal::host::has_recorded() || super::signal::guest_signal_due(t) {
            return if got > 0 { Ok(got) } else { Err(Errno::EINTR) };
        }
        // Completions (other threads', the poll helper's) wake the futex.
        let ts = left.map(|ns| libc::timespec {
            tv_sec: i64::try_from(ns / 1_000_000_000).unwrap_or(i64::MAX),
            tv_nsec: i64::try_from(ns % 1_000_000_000).unwrap_or(0),
        });
        let tsp = ts.as_ref().map_or(0, |v| v as *const libc::timespec as u64);
        let r = blocking_syscall(t, libc::SYS_futex, &[GEN.as_ptr() as u64, FUTEX_WAIT_PRIVATE, u64::from(gen), tsp]);
        if r < 0 && Errno::last() == Errno::EINTR {
            return if got > 0 { Ok(got) } else { Err(Errno::EINTR) };
        }
    }
}

/// Reads an optional timeout of `shape` as nanoseconds (`ktime`; not validated, as Linux's
/// `get_timespec64` does not). Errors: `EFAULT`.
fn timeout(t: &Task, at: GuestAddr, shape: &Shape) -> Result<Option<i128>, Errno> {
    if at.is_null() {
        return Ok(None);
    }
    let ts: libc::timespec = t.mm.read_shape(at, shape)?;
    Ok(Some(i128::from(ts.tv_sec) * 1_000_000_000 + i128::from(ts.tv_nsec)))
}

/// `io_getevents(aio_context_t ctx_id, long min_nr, long nr, struct io_event *events, struct
/// timespec *timeout)`: waits for at least `min_nr` completions (for at most `timeout`, NULL
/// for no limit, zero for none) and returns up to `nr`. Errors: `EFAULT`, `EINVAL` (no such
/// context, `min_nr` < 0 or > `nr`), `EINTR` (a signal before any event).
pub fn io_getevents(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let ts = timeout(t, a.ptr(4), TIMESPEC)?;
    getevents(t, a.ulong(0), a.long(1), a.long(2), a.ptr(3), ts)
}

/// `io_pgetevents(…, const struct __aio_sigset *usig)`: `io_getevents` with `usig->sigmask`
/// as the signal mask while it waits. Errors: those of `io_getevents`, and `EINVAL` for a
/// `sigsetsize` other than the arch's.
pub fn io_pgetevents(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    pgetevents(cpu, a, TIMESPEC)
}

/// `io_pgetevents_time64` of 32-bit guests: the timeout is a `struct __kernel_timespec`.
pub fn io_pgetevents_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    pgetevents(cpu, a, TIMESPEC64)
}

fn pgetevents(cpu: &mut Cpu<'_>, a: &SyscallArgs, shape: &Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let ts = timeout(t, a.ptr(4), shape)?;
    let (mask, size) = if a.ptr(5).is_null() {
        (GuestAddr::NULL, 0)
    } else {
        let word = t.mm.long_bytes();
        (GuestAddr::new(t.mm.read_ulong(a.ptr(5))?), t.mm.read_ulong(a.ptr(5) + word)?)
    };
    let old = super::signal::set_temp_mask(t, mask, size)?;
    let r = getevents(t, a.ulong(0), a.long(1), a.long(2), a.ptr(3), ts);
    super::signal::end_temp_mask(t, old, &r);
    r
}

/// `true` for `IOCB_CMD_*` values endgate performs (for tests).
#[cfg(test)]
fn served(op: u16) -> bool {
    matches!(op, CMD_PREAD | CMD_PWRITE | CMD_FSYNC | CMD_FDSYNC | CMD_POLL | CMD_PREADV | CMD_PWRITEV)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_are_the_uapi_ones() {
        assert!(served(0) && served(1) && served(2) && served(3) && served(5) && served(7) && served(8));
        assert!(!served(6) && !served(4));
    }

    #[test]
    fn possible_cpus_is_at_least_one() {
        assert!(possible_cpus() >= 1);
    }
}
