//! seccomp for the guest: strict mode and classic-BPF filters, kept and run by endgate.
//!
//! A filter the guest installs is never installed in the host kernel: it would judge
//! endgate's own host system calls (the `mmap`s, `futex`es and `write`s endgate makes while
//! serving one guest call), not the guest's. endgate keeps each guest thread's mode and filter
//! chain and, once any thread has one, the dispatcher asks [`judge`] before serving each guest
//! call, with the guest's own `struct seccomp_data`: the guest's syscall number, its
//! `AUDIT_ARCH_*`, the address after its trap instruction and its six argument registers, laid
//! out in the guest's byte order and word width (kernel/seccomp.c `populate_seccomp_data`).
//! The filter program itself runs in [`super::cbpf`].
//!
//! What the kernel does and endgate does too (kernel/seccomp.c, include/uapi/linux/seccomp.h,
//! Documentation/userspace-api/seccomp_filter.rst, seccomp(2)):
//! - `SECCOMP_SET_MODE_STRICT` (and `prctl(PR_SET_SECCOMP, 1)`): afterwards only `read`,
//!   `write`, `exit` and the arch's signal return (`rt_sigreturn`; `sigreturn` on i386 and
//!   s390x, asm/seccomp.h) run; any other call ends the thread with SIGKILL (the process when
//!   it is the last thread). `exit_group` is not in the list.
//! - `SECCOMP_SET_MODE_FILTER` (and `prctl(PR_SET_SECCOMP, 2)`): needs `no_new_privs` or
//!   `CAP_SYS_ADMIN` (else `EACCES`); the program is checked as the kernel checks it
//!   (`EINVAL`); filters stack, all run, and the action of lowest value wins (the 16 data bits
//!   aside); at most 32768 instructions counting 4 more per filter (`ENOMEM`). Actions:
//!   `KILL_PROCESS` (the process dies by SIGSYS, whatever the guest's handler), `KILL_THREAD`
//!   (the thread ends; the process dies by SIGSYS if it was the last), `TRAP` (a SIGSYS with
//!   `si_code` `SYS_SECCOMP`, `si_call_addr`, `si_syscall`, `si_arch`, `si_errno` = the data;
//!   forced like a fault: blocked or ignored, it kills; the result register keeps its value),
//!   `ERRNO` (the call returns `-data`, at most 4095), `TRACE` (no tracer: `ENOSYS`), `LOG`
//!   and `ALLOW` (the call runs), and an unknown action kills the process.
//! - `TSYNC` gives every other thread of the process the caller's chain, or fails with the id
//!   of the first thread whose chain is not an ancestor (or in strict mode), `ESRCH` with
//!   `TSYNC_ESRCH`; `LOG` and `SPEC_ALLOW` are accepted.
//! - Filters are inherited by new threads and forked children and kept across `execve` (the
//!   new endgate gets them with its exec state, [`super::exec`]).
//! - `SECCOMP_GET_ACTION_AVAIL`; `prctl(PR_GET_SECCOMP)` gives the mode.
//!
//! What endgate does not do: user notification. `SECCOMP_FILTER_FLAG_NEW_LISTENER` and
//! `WAIT_KILLABLE_RECV` are `EINVAL`, `SECCOMP_GET_ACTION_AVAIL` says `EOPNOTSUPP` for
//! `SECCOMP_RET_USER_NOTIF` and `SECCOMP_GET_NOTIF_SIZES` is `EINVAL`, as on a kernel without
//! it; a filter that returns `USER_NOTIF` anyway gets `ENOSYS`, the kernel's answer when no
//! listener exists. A listener would be a host descriptor whose `ioctl`s receive and answer
//! other processes' calls, which endgate's dispatcher would have to pause for. `TSYNC` does
//! not set `no_new_privs` on the other threads (each host thread keeps its own), and
//! `/proc/self/status` shows the host's `Seccomp: 0`. arm's private calls (`cacheflush`,
//! `set_tls` from 0xf0000), which endgate serves in the arch's trap hook without the
//! dispatcher, are not filtered (Linux runs filters on them too).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use syscalls::Errno;

use super::cbpf::{self, Insn, DATA_LEN};
use super::SysResult;
use crate::abi::nr::Sys;
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::{Endian, GuestAddr};
use crate::signal::{SigFields, SigInfo, Signal};

/// seccomp(2) operations.
const SET_MODE_STRICT: u32 = 0;
const SET_MODE_FILTER: u32 = 1;
const GET_ACTION_AVAIL: u32 = 2;
const GET_NOTIF_SIZES: u32 = 3;

/// `SECCOMP_FILTER_FLAG_*` endgate accepts (`NEW_LISTENER` 8 and `WAIT_KILLABLE_RECV` 32 are
/// not among them).
const FLAG_TSYNC: u32 = 1;
const FLAG_LOG: u32 = 2;
const FLAG_SPEC_ALLOW: u32 = 4;
const FLAG_TSYNC_ESRCH: u32 = 16;
const FLAGS_KNOWN: u32 = FLAG_TSYNC | FLAG_LOG | FLAG_SPEC_ALLOW | FLAG_TSYNC_ESRCH;

/// `SECCOMP_RET_*` actions (the high 16 bits of a filter's result).
const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_KILL_THREAD: u32 = 0;
const RET_TRAP: u32 = 0x0003_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const RET_USER_NOTIF: u32 = 0x7fc0_0000;
const RET_TRACE: u32 = 0x7ff0_0000;
const RET_LOG: u32 = 0x7ffc_0000;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ACTION_FULL: u32 = 0xffff_0000;
const RET_DATA: u32 = 0x0000_ffff;

/// `MAX_ERRNO`: the largest errno an `ERRNO` action returns.
const MAX_ERRNO: u32 = 4095;
/// `MAX_INSNS_PER_PATH`: instructions of a thread's filters together, 4 more per filter.
const MAX_INSNS_PER_PATH: usize = (1 << 18) / 8;
/// `SYS_SECCOMP`: the `si_code` of a `TRAP` signal.
const SYS_SECCOMP: i32 = 1;

/// `SECCOMP_MODE_*` (also `prctl(PR_GET_SECCOMP)`'s answer).
const MODE_DISABLED: u8 = 0;
const MODE_STRICT: u8 = 1;
const MODE_FILTER: u8 = 2;

/// One installed filter and the ones installed before it (the kernel's `struct
/// seccomp_filter`): threads that forked or were created share the older part of a chain.
struct Filter {
    prog: Vec<Insn>,
    prev: Option<Arc<Filter>>,
}

impl Filter {
    fn chain(this: &Option<Arc<Filter>>) -> impl Iterator<Item = &Arc<Filter>> {
        std::iter::successors(this.as_ref(), |f| f.prev.as_ref())
    }
}

/// One guest thread's seccomp state.
#[derive(Clone, Default)]
struct State {
    mode: u8,
    filter: Option<Arc<Filter>>,
    /// The host (and guest) thread id, for `TSYNC`'s failure answer.
    tid: i32,
}

type Handle = Arc<Mutex<State>>;

/// Raised when any thread of the process has a mode: until then the dispatcher skips
/// [`judge`] with one relaxed load.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Every guest thread's state that exists, for `TSYNC` (threads without a state are in mode 0
/// with no filter).
static THREADS: Mutex<Vec<Weak<Mutex<State>>>> = Mutex::new(Vec::new());

thread_local! {
    /// The calling host thread's (guest thread's) state, made on first need.
    static MINE: RefCell<Option<Handle>> = const { RefCell::new(None) };
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The calling thread's state, made (mode 0) and registered if it has none yet.
fn mine() -> Handle {
    MINE.with(|m| {
        m.borrow_mut()
            .get_or_insert_with(|| {
                let h = Arc::new(Mutex::new(State { tid: crate::thread::gettid(), ..State::default() }));
                lock(&THREADS).push(Arc::downgrade(&h));
                h
            })
            .clone()
    })
}

/// `true` once a guest thread of this process has a seccomp mode.
#[inline]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// What the dispatcher does with a call, by the thread's mode and filters.
#[derive(Debug)]
pub enum Verdict {
    /// The call runs.
    Allow,
    /// The call does not run and returns this.
    Return(SysResult),
    /// The call does not run; this signal is forced on the thread and the result register
    /// keeps its value.
    Trap(SigInfo),
    /// The thread ends; the process dies by this signal if it is the last thread.
    KillThread(Signal),
    /// The process dies by SIGSYS.
    KillProcess,
}

/// The `struct seccomp_data` of the call (include/uapi/linux/seccomp.h: `int nr; __u32 arch;
/// __u64 instruction_pointer; __u64 args[6];`) in the guest's byte order; a 32-bit guest's
/// values are zero-extended, as its kernel's `syscall_get_arguments` gives them.
fn seccomp_data(t: &Task, args: &SyscallArgs, ip: u64) -> [u8; DATA_LEN as usize] {
    let info = t.arch.info();
    let word = info.word_mask();
    let big = t.mm.endian() == Endian::Big;
    let mut d = [0u8; DATA_LEN as usize];
    let mut put = |at: usize, bytes: &[u8]| d[at..at + bytes.len()].copy_from_slice(bytes);
    let w32 = |v: u32| if big { v.to_be_bytes() } else { v.to_le_bytes() };
    let w64 = |v: u64| if big { v.to_be_bytes() } else { v.to_le_bytes() };
    // `nr` is an int: the number's low 32 bits.
    #[allow(clippy::cast_possible_truncation)] // the kernel's `int nr`
    put(0, &w32(args.nr as u32));
    put(4, &w32(info.audit_arch()));
    put(8, &w64(ip & word));
    for (i, a) in args.a.iter().enumerate() {
        put(16 + 8 * i, &w64(a & word));
    }
    d
}

/// Judges the call `args` the thread is about to make (`ip`: the address after its trap
/// instruction, the kernel's `instruction_pointer`). Called by the dispatcher with all six
/// arguments read, only while [`active`].
pub fn judge(cpu: &Cpu<'_>, args: &SyscallArgs, ip: u64) -> Verdict {
    let state = lock(&mine()).clone();
    let t = cpu.get_data();
    match state.mode {
        MODE_STRICT => {
            let numbers = (t.arch.info().numbers)();
            let allowed = [Sys::read, Sys::write, Sys::exit, t.arch.info().seccomp_sigreturn];
            if allowed.iter().any(|&s| numbers.number_of(s) == Some(args.nr)) {
                Verdict::Allow
            } else {
                Verdict::KillThread(Signal::SIGKILL)
            }
        }
        MODE_FILTER => {
            let data = seccomp_data(t, args, ip);
            let big = t.mm.endian() == Endian::Big;
            let mut ret = RET_ALLOW;
            for f in Filter::chain(&state.filter) {
                let cur = cbpf::run(&f.prog, &data, big);
                #[allow(clippy::cast_possible_wrap)] // the kernel compares actions as s32
                if ((cur & RET_ACTION_FULL) as i32) < ((ret & RET_ACTION_FULL) as i32) {
                    ret = cur;
                }
            }
            verdict(ret, t, args, ip)
        }
        _ => Verdict::Allow,
    }
}

/// What a filter result means (kernel/seccomp.c `__seccomp_filter`).
fn verdict(ret: u32, t: &Task, args: &SyscallArgs, ip: u64) -> Verdict {
    let data = ret & RET_DATA;
    match ret & RET_ACTION_FULL {
        RET_ERRNO => {
            let e = data.min(MAX_ERRNO);
            // The filter's errno is in the guest's numbering, which the return path makes
            // again from the host's.
            let e = (t.arch.info().errno_to_host)(i32::try_from(e).unwrap_or(4095));
            Verdict::Return(if e == 0 { Ok(0) } else { Err(Errno::new(e)) })
        }
        RET_TRAP => {
            let info = t.arch.info();
            Verdict::Trap(SigInfo {
                signo: Signal::SIGSYS,
                errno: i32::try_from(data).unwrap_or(0),
                code: SYS_SECCOMP,
                fields: SigFields::Sys {
                    call_addr: ip & info.word_mask(),
                    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // an int
                    syscall: args.nr as u32 as i32,
                    arch: info.audit_arch(),
                },
            })
        }
        // No tracer, no listener.
        RET_TRACE | RET_USER_NOTIF => Verdict::Return(Err(Errno::ENOSYS)),
        RET_LOG | RET_ALLOW => Verdict::Allow,
        RET_KILL_THREAD => Verdict::KillThread(Signal::SIGSYS),
        _ => Verdict::KillProcess,
    }
}

/// `seccomp(unsigned int op, unsigned int flags, void *args)` (seccomp(2)). Errors: `EINVAL`
/// (unknown operation or flags, a bad program, a mode change), `EACCES` (neither
/// `no_new_privs` nor `CAP_SYS_ADMIN`), `EFAULT`, `ENOMEM` (too many instructions),
/// `EOPNOTSUPP` (an action endgate does not have), `ESRCH` or a thread id (`TSYNC`).
pub fn seccomp(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_seccomp(cpu, a.uint(0), a.uint(1), a.ptr(2))
}

fn do_seccomp(cpu: &Cpu<'_>, op: u32, flags: u32, uargs: GuestAddr) -> SysResult {
    match op {
        SET_MODE_STRICT if flags == 0 && uargs.is_null() => set_strict(),
        SET_MODE_FILTER => set_filter(cpu.get_data(), flags, uargs),
        GET_ACTION_AVAIL if flags == 0 => {
            let action = cpu.get_data().mm.read_u32(uargs)?;
            match action {
                RET_KILL_PROCESS | RET_KILL_THREAD | RET_TRAP | RET_ERRNO | RET_TRACE | RET_LOG | RET_ALLOW => Ok(0),
                _ => Err(Errno::EOPNOTSUPP),
            }
        }
        // No user notification (see the module doc), as a kernel without it answers.
        GET_NOTIF_SIZES => Err(Errno::EINVAL),
        _ => Err(Errno::EINVAL),
    }
}

/// `prctl(PR_SET_SECCOMP, mode, filter)`: mode 1 is strict (the filter ignored), mode 2 a
/// filter without flags. Errors: as [`seccomp`], `EINVAL` for another mode.
pub fn prctl_set(cpu: &Cpu<'_>, mode: u64, filter: GuestAddr) -> SysResult {
    match mode {
        1 => do_seccomp(cpu, SET_MODE_STRICT, 0, GuestAddr::new(0)),
        2 => do_seccomp(cpu, SET_MODE_FILTER, 0, filter),
        _ => Err(Errno::EINVAL),
    }
}

/// `prctl(PR_GET_SECCOMP)`: the calling thread's mode (a thread in strict mode never gets
/// here: prctl kills it).
pub fn prctl_get() -> SysResult {
    Ok(u64::from(lock(&mine()).mode))
}

fn set_strict() -> SysResult {
    let h = mine();
    let mut s = lock(&h);
    if s.mode != MODE_DISABLED && s.mode != MODE_STRICT {
        return Err(Errno::EINVAL);
    }
    s.mode = MODE_STRICT;
    ACTIVE.store(true, Ordering::Relaxed);
    Ok(0)
}

/// `true` if the calling host thread has `no_new_privs` or `CAP_SYS_ADMIN` in its user
/// namespace (what installing a filter needs).
fn may_install() -> bool {
    // SAFETY: PR_GET_NO_NEW_PRIVS takes no pointer.
    if unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) } == 1 {
        return true;
    }
    // `struct __user_cap_header_struct` version 3 and two `__user_cap_data_struct`s
    // (include/uapi/linux/capability.h): effective, permitted, inheritable per 32 bits.
    let header: [u32; 2] = [0x2008_0522, 0];
    let mut data = [0u32; 6];
    // SAFETY: a header and room for the two data structs version 3 asks for.
    let r = unsafe { libc::syscall(libc::SYS_capget, header.as_ptr(), data.as_mut_ptr()) };
    const CAP_SYS_ADMIN: u32 = 21;
    r == 0 && data[0] & (1 << CAP_SYS_ADMIN) != 0
}

/// Reads the guest's `struct sock_fprog` (`unsigned short len; struct sock_filter *filter;`,
/// the pointer at the guest's `long` alignment) and its instructions, in the guest's byte
/// order. Errors: `EFAULT`, `EINVAL` (a NULL program or a length of 0 or above
/// [`cbpf::BPF_MAXINSNS`]), `EACCES` (checked between the two, as the kernel does).
fn read_prog(t: &Task, uargs: GuestAddr) -> Result<Vec<Insn>, Errno> {
    let len = usize::from(t.mm.read_u16(uargs)?);
    let ptr = t.mm.read_ulong(uargs + t.mm.long_bytes())?;
    if len == 0 || len > cbpf::BPF_MAXINSNS {
        return Err(Errno::EINVAL);
    }
    if !may_install() {
        return Err(Errno::EACCES);
    }
    if ptr == 0 {
        return Err(Errno::EINVAL);
    }
    let mut raw = vec![0u8; len * 8];
    t.mm.read_bytes(GuestAddr::new(ptr), &mut raw)?;
    let big = t.mm.endian() == Endian::Big;
    Ok(raw
        .chunks_exact(8)
        .map(|c| {
            let (code, k) = if big {
                (u16::from_be_bytes([c[0], c[1]]), u32::from_be_bytes([c[4], c[5], c[6], c[7]]))
            } else {
                (u16::from_le_bytes([c[0], c[1]]), u32::from_le_bytes([c[4], c[5], c[6], c[7]]))
            };
            Insn::new(code, c[2], c[3], k)
        })
        .collect())
}

fn set_filter(t: &Task, flags: u32, uargs: GuestAddr) -> SysResult {
    if flags & !FLAGS_KNOWN != 0 {
        return Err(Errno::EINVAL);
    }
    let prog = read_prog(t, uargs)?;
    cbpf::check(&prog)?;
    let h = mine();
    let mut s = lock(&h);
    if s.mode != MODE_DISABLED && s.mode != MODE_FILTER {
        return Err(Errno::EINVAL);
    }
    let total: usize = prog.len() + Filter::chain(&s.filter).map(|f| f.prog.len() + 4).sum::<usize>();
    if total > MAX_INSNS_PER_PATH {
        return Err(Errno::ENOMEM);
    }
    let others: Vec<Handle> = lock(&THREADS).iter().filter_map(Weak::upgrade).filter(|o| !Arc::ptr_eq(o, &h)).collect();
    if flags & FLAG_TSYNC != 0 {
        for o in &others {
            let o = lock(o);
            let ancestor = match &o.filter {
                None => true,
                Some(of) => Filter::chain(&s.filter).any(|f| Arc::ptr_eq(f, of)),
            };
            if !(o.mode == MODE_DISABLED || o.mode == MODE_FILTER && ancestor) {
                return if flags & FLAG_TSYNC_ESRCH != 0 {
                    Err(Errno::ESRCH)
                } else {
                    Ok(u64::try_from(o.tid).unwrap_or(0))
                };
            }
        }
    }
    let new = Arc::new(Filter { prog, prev: s.filter.take() });
    s.filter = Some(new.clone());
    s.mode = MODE_FILTER;
    if flags & FLAG_TSYNC != 0 {
        for o in &others {
            let mut o = lock(o);
            o.filter = Some(new.clone());
            o.mode = MODE_FILTER;
        }
    }
    ACTIVE.store(true, Ordering::Relaxed);
    Ok(0)
}

/// The state a thread being created starts with: a copy of its creator's (the caller's), or
/// `None` while no thread has a mode. Registered at once: the thread belongs to the process
/// from `clone` on.
pub struct Inherited(Option<Handle>);

impl Inherited {
    /// No state.
    pub fn none() -> Inherited {
        Inherited(None)
    }
}

/// For `clone` of a thread, on the creating thread.
pub fn for_new_thread() -> Inherited {
    if !active() {
        return Inherited(None);
    }
    let copy = lock(&mine()).clone();
    let h = Arc::new(Mutex::new(copy));
    let mut threads = lock(&THREADS);
    // Threads that ended leave dead entries: dropped here, so the list stays as long as the
    // threads alive.
    threads.retain(|w| w.strong_count() > 0);
    threads.push(Arc::downgrade(&h));
    Inherited(Some(h))
}

/// On the new thread, first thing: takes the state [`for_new_thread`] made.
pub fn adopt(inherited: Inherited) {
    if let Some(h) = inherited.0 {
        lock(&h).tid = crate::thread::gettid();
        MINE.with(|m| *m.borrow_mut() = Some(h));
    }
}

/// The calling thread ends: its state goes (`TSYNC` no longer looks at it).
pub fn thread_exited() {
    MINE.with(|m| m.borrow_mut().take());
}

/// In a `fork` child: the only thread is the caller, which keeps its state under its new id.
pub fn after_fork_child() {
    let mut threads = lock(&THREADS);
    threads.clear();
    if let Some(h) = MINE.with(|m| m.borrow().clone()) {
        lock(&h).tid = crate::thread::gettid();
        threads.push(Arc::downgrade(&h));
    }
}

/// The calling thread's filters for the program it `execve`s, as lines of the exec state
/// (`seccomp-filter HEX`, oldest first: each instruction as 16 hex digits of code, jt, jf,
/// k); empty without filters.
pub fn exec_lines() -> Vec<String> {
    if !active() {
        return Vec::new();
    }
    let s = lock(&mine()).clone();
    let mut out: Vec<String> = Filter::chain(&s.filter)
        .map(|f| {
            let mut l = String::from("seccomp-filter ");
            for i in &f.prog {
                l.push_str(&format!("{:04x}{:02x}{:02x}{:08x}", i.code, i.jt, i.jf, i.k));
            }
            l
        })
        .collect();
    out.reverse();
    out
}

/// Installs one filter of an exec state line (see [`exec_lines`]) on the calling thread,
/// after the ones before it; `false` if the line is not one.
pub fn restore_line(line: &str) -> bool {
    let Some(hex) = line.strip_prefix("seccomp-filter ") else { return false };
    let word = |s: &str| u64::from_str_radix(s, 16).ok();
    let prog: Option<Vec<Insn>> = hex
        .as_bytes()
        .chunks(16)
        .map(|c| {
            let v = word(std::str::from_utf8(c).ok()?)?;
            #[allow(clippy::cast_possible_truncation)] // fields of one packed word
            Some(Insn::new((v >> 48) as u16, (v >> 40) as u8, (v >> 32) as u8, v as u32))
        })
        .collect();
    let Some(prog) = prog.filter(|p| cbpf::check(p).is_ok()) else { return false };
    let h = mine();
    let mut s = lock(&h);
    let prev = s.filter.take();
    s.filter = Some(Arc::new(Filter { prog, prev }));
    s.mode = MODE_FILTER;
    ACTIVE.store(true, Ordering::Relaxed);
    true
}
