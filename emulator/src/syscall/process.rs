//! Process and thread identity, limits, exit, and sending signals.
//!
//! Guest process ids are host process ids (endgate runs as the guest process); a guest's
//! children are host children (see [`super::fork`]), so `wait4`/`waitid` are the host's, with
//! the signal numbers in their results given in the guest's numbering. Guest thread ids are
//! host thread ids ([`crate::thread`]).

use crate::mm::limits;
use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::{RLIMIT, RLIMIT64, RUSAGE, TMS};
use crate::abi::thunk::Plain;
use crate::guest::Exit;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;
use crate::signal::Signal;

/// `exit_group(int status)` (exit_group(2)): ends the guest; the parent sees `status & 0xff`.
pub fn exit_group(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    cpu.get_data_mut().exit = Some(Exit::Code(a.int(0) & 0xff));
    Ok(0)
}

/// `exit(int status)` (exit(2)): ends the calling thread; the last thread's ends the guest
/// with `status` (see [`crate::task::exit`]).
pub fn exit(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    exit_group(cpu, a)?;
    cpu.get_data_mut().exit_thread = crate::thread::live_threads() > 1;
    Ok(0)
}

macro_rules! id_call {
    ($(#[$doc:meta] $name:ident => $host:ident;)*) => {$(
        #[$doc]
        pub fn $name(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
            // The host call as an instruction in this function, not through libc's wrapper:
            // every return made after a host system call mispredicts on this host (its
            // kernel refills the return-stack predictor), so each frame between the
            // translated code and the `syscall` instruction costs about 6 ns (docs/performance.md).
            // SAFETY: the call only reads the caller's credentials or ids.
            let id = unsafe { syscalls::raw::syscall0(syscalls::Sysno::$host) };
            Ok(u64::from(crate::abi::low32(id as u64)))
        }
    )*};
}

/// The process's id as the host gave it, once asked (0: not yet). A forked child forgets it
/// ([`forget_ids`]); threads share it, as they share the pid.
static PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

std::thread_local! {
    /// The calling thread's id, once asked (0: not yet).
    static TID: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Drops the cached ids; called in the child right after a host fork.
pub fn forget_ids() {
    PID.store(0, std::sync::atomic::Ordering::Relaxed);
    TID.with(|t| t.set(0));
}

/// `getpid(void)`: from task state after the first call (the pid of a process never changes;
/// a forked child asks again), so it costs no host system call, as on the gate's fast paths.
pub fn getpid(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    Ok(pid())
}

/// [`getpid`] without the global guest lock ([`super::unlocked`]).
pub fn getpid_unlocked(_ctx: &super::unlocked::Ctx<'_>, _a: &SyscallArgs) -> Option<SysResult> {
    Some(Ok(pid()))
}

/// The process id, asked of the host once.
fn pid() -> u64 {
    let pid = PID.load(std::sync::atomic::Ordering::Relaxed);
    if pid != 0 {
        return u64::from(pid);
    }
    // SAFETY: no arguments.
    let pid = crate::abi::low32(unsafe { libc::getpid() });
    PID.store(pid, std::sync::atomic::Ordering::Relaxed);
    u64::from(pid)
}

id_call! {
    /// `getppid(void)`: a host call every time (the parent changes when it dies).
    getppid => getppid;
    /// `getuid(void)`.
    getuid => getuid;
    /// `geteuid(void)`.
    geteuid => geteuid;
    /// `getgid(void)`.
    getgid => getgid;
    /// `getegid(void)`.
    getegid => getegid;
    /// `getpgrp(void)`.
    getpgrp => getpgrp;
}

/// `gettid(void)`: the guest thread's id is its host thread's, cached per thread like
/// [`getpid`].
pub fn gettid(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    Ok(tid())
}

/// [`gettid`] without the global guest lock ([`super::unlocked`]).
pub fn gettid_unlocked(_ctx: &super::unlocked::Ctx<'_>, _a: &SyscallArgs) -> Option<SysResult> {
    Some(Ok(tid()))
}

/// The calling thread's id, asked of the host once.
fn tid() -> u64 {
    let tid = TID.with(|t| {
        if t.get() == 0 {
            // SAFETY: no arguments.
            t.set(crate::abi::low32(unsafe { libc::gettid() }));
        }
        t.get()
    });
    u64::from(tid)
}

/// `setsid(void)` (setsid(2)). Errors: `EPERM` for a process-group leader.
pub fn setsid(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    // SAFETY: no arguments.
    host_ret(i64::from(unsafe { libc::setsid() }))
}

/// `getpgid(pid_t pid)`.
pub fn getpgid(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::getpgid(a.int(0)) }))
}

/// `setpgid(pid_t pid, pid_t pgid)`.
pub fn setpgid(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::setpgid(a.int(0), a.int(1)) }))
}

/// `getsid(pid_t pid)`.
pub fn getsid(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::getsid(a.int(0)) }))
}

/// `getresuid(uid_t *ruid, uid_t *euid, uid_t *suid)`.
pub fn getresuid(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (mut r, mut e, mut s) = (0, 0, 0);
    // SAFETY: local out values.
    host_ret(i64::from(unsafe { libc::getresuid(&mut r, &mut e, &mut s) }))?;
    write_three(cpu, a, [r, e, s])
}

/// `getresgid(gid_t *rgid, gid_t *egid, gid_t *sgid)`.
pub fn getresgid(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (mut r, mut e, mut s) = (0, 0, 0);
    // SAFETY: local out values.
    host_ret(i64::from(unsafe { libc::getresgid(&mut r, &mut e, &mut s) }))?;
    write_three(cpu, a, [r, e, s])
}

fn write_three(cpu: &mut Cpu<'_>, a: &SyscallArgs, v: [u32; 3]) -> SysResult {
    let mm = &mut cpu.get_data_mut().mm;
    for (i, val) in v.into_iter().enumerate() {
        mm.write_u32(a.ptr(i), val)?;
    }
    Ok(0)
}

/// `getgroups(int size, gid_t list[])` (getgroups(2)).
pub fn getgroups(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let n = a.int(0);
    let Ok(count) = usize::try_from(n) else {
        return Err(Errno::EINVAL);
    };
    let t = cpu.get_data_mut();
    if n > 0 {
        t.mm.check_writable(a.ptr(1), count as u64 * 4)?;
    }
    let mut groups = vec![0 as libc::gid_t; count];
    // SAFETY: `n` local gid_t slots.
    let got = host_ret(i64::from(unsafe { libc::getgroups(n, groups.as_mut_ptr()) }))?;
    if n > 0 {
        for (i, g) in groups.iter().take(crate::abi::u64_to_usize(got)).enumerate() {
            t.mm.write_u32(a.ptr(1) + 4 * i as u64, *g)?;
        }
    }
    Ok(got)
}

/// `setgroups(int size, const gid_t *list)` (setgroups(2)) for the calling thread only, as the
/// system call does: the guest's libc applies it to its other threads itself (glibc and musl
/// signal each thread to make the call, Go's runtime too). Never through the host glibc's
/// wrapper, which would broadcast its own signal 33 to every host thread and install its
/// handler over endgate's, so the guest's next set*id broadcast would run glibc's handler.
/// Errors: `EINVAL` (more than `NGROUPS_MAX` 65536), `EFAULT`, `EPERM`.
pub fn setgroups(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let n = a.int(0);
    if !(0..=65536).contains(&n) {
        return Err(Errno::EINVAL);
    }
    let n = n.unsigned_abs(); // 0..=65536: the same value
    let t = cpu.get_data();
    let list = (0..u64::from(n)).map(|i| t.mm.read_u32(a.ptr(1) + 4 * i)).collect::<Result<Vec<_>, _>>()?;
    // SAFETY: a local list of `n` gids.
    host_ret(unsafe { libc::syscall(libc::SYS_setgroups, n as usize, list.as_ptr()) })
}

// The set*id calls, each for the calling thread only (the system calls' semantics; see
// `setgroups` for why never through the host glibc's wrappers).
macro_rules! set_ids {
    ($(#[$doc:meta] $name:ident => $nr:ident($($i:tt),*);)*) => {$(
        #[$doc]
        pub fn $name(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
            // SAFETY: integer arguments; the host applies its own permission checks.
            host_ret(unsafe { libc::syscall(libc::$nr, $(a.uint($i)),*) })
        }
    )*};
}

set_ids! {
    /// `setuid(uid_t uid)`.
    setuid => SYS_setuid(0);
    /// `setgid(gid_t gid)`.
    setgid => SYS_setgid(0);
    /// `setreuid(uid_t ruid, uid_t euid)`.
    setreuid => SYS_setreuid(0, 1);
    /// `setregid(gid_t rgid, gid_t egid)`.
    setregid => SYS_setregid(0, 1);
    /// `setresuid(uid_t r, uid_t e, uid_t s)`.
    setresuid => SYS_setresuid(0, 1, 2);
    /// `setresgid(gid_t r, gid_t e, gid_t s)`.
    setresgid => SYS_setresgid(0, 1, 2);
    /// `setfsuid(uid_t fsuid)`: the previous fsuid (always; a refused change keeps it).
    setfsuid => SYS_setfsuid(0);
    /// `setfsgid(gid_t fsgid)`: the previous fsgid.
    setfsgid => SYS_setfsgid(0);
}

/// `set_tid_address(int *tidptr)`: records the clear-child-tid word; returns the caller's tid.
pub fn set_tid_address(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    cpu.get_data_mut().clear_child_tid = a.raw(0);
    // SAFETY: no arguments.
    Ok(crate::abi::bits64(unsafe { libc::gettid() }))
}

/// `set_robust_list(struct robust_list_head *head, size_t len)`: records the list. Errors:
/// `EINVAL` when `len` is not the arch's `sizeof(struct robust_list_head)` (24 on LP64).
pub fn set_robust_list(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let want = if t.arch.info().is_64bit() { 24 } else { 12 };
    if a.raw(1) != want {
        return Err(Errno::EINVAL);
    }
    t.robust_list = (a.raw(0), a.raw(1));
    crate::thread::set_robust_head(a.raw(0));
    Ok(0)
}

/// `get_robust_list(int pid, struct robust_list_head **head_ptr, size_t *len_ptr)`: the head
/// thread `pid` (0: the caller) gave `set_robust_list` (NULL if none) and
/// `sizeof(struct robust_list_head)` (three guest pointers). The threads of the caller's own
/// process are always readable, as `ptrace_may_access` allows within a thread group; for a
/// thread of another process the host kernel answers (`ESRCH`, `EPERM`, or the head in that
/// process, which for another endgate is endgate's own, not its guest's). Errors: `ESRCH`,
/// `EPERM`, `EFAULT`.
pub fn get_robust_list(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let pid = a.int(0);
    let head = if pid == 0 || pid == crate::thread::gettid() {
        cpu.get_data().robust_list.0
    } else if crate::thread::is_own_thread(pid) {
        // A thread of this process: its head, or NULL if it never set one.
        crate::thread::robust_head_of(pid).unwrap_or(0)
    } else {
        let (mut head, mut len) = (0u64, 0u64);
        // SAFETY: two local out values the size of the host's pointer and size_t.
        host_ret(unsafe { libc::syscall(libc::SYS_get_robust_list, pid, &mut head, &mut len) })?;
        head
    };
    let mm = &mut cpu.get_data_mut().mm;
    let len = 3 * mm.long_bytes();
    mm.write_ulong(a.ptr(2), len)?;
    mm.write_ulong(a.ptr(1), head)?;
    Ok(0)
}

/// `prlimit64(pid_t pid, int resource, const struct rlimit64 *new, struct rlimit64 *old)`
/// ([`RLIMIT64`], 16 bytes on every arch).
pub fn prlimit64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let res = (t.arch.info().rlimit_resource_to_host)(a.int(1));
    let mut new: Option<libc::rlimit> = if a.raw(2) == 0 { None } else { Some(t.mm.read_shape(a.ptr(2), RLIMIT64)?) };
    // As Linux: the new limit is applied, then the old one written (EFAULT after the change).
    let mut old = libc::rlimit::zeroed();
    if let Some(r) = limits::Resource::of_host(res) {
        if of_this_process(a.int(0)) {
            // The guest's own address-space limits are endgate's to keep (mm::limits).
            (old.rlim_cur, old.rlim_max) = limits::get(r);
            if let Some(n) = new {
                limits::set(r, n.rlim_cur, n.rlim_max, may_raise_limits())?;
            }
            if a.raw(3) != 0 {
                t.mm.write_shape(a.ptr(3), RLIMIT64, &old)?;
            }
            return Ok(0);
        }
        // Another process is another endgate, whose host limits must stay its own (its
        // guest's limits are kept inside it): the new value is dropped, as qemu-user does,
        // and the old one read is the host's.
        new = None;
    }
    let np = new.as_ref().map_or(std::ptr::null(), |n| n as *const libc::rlimit);
    let op = if a.raw(3) == 0 { std::ptr::null_mut() } else { &mut old as *mut libc::rlimit };
    // SAFETY: NULL or local structs.
    host_ret(unsafe { libc::syscall(libc::SYS_prlimit64, a.int(0), res, np, op) })?;
    if a.raw(3) != 0 {
        t.mm.write_shape(a.ptr(3), RLIMIT64, &old)?;
    }
    Ok(0)
}

/// Whether `pid` (a `prlimit64` target) names this process: 0, its pid, or one of its
/// threads' ids.
fn of_this_process(pid: i32) -> bool {
    // SAFETY: no arguments.
    pid == 0 || pid == unsafe { libc::getpid() } || crate::thread::is_own_thread(pid)
}

/// `RLIM_INFINITY` of an ILP32 guest's `struct rlimit` (`~0UL` in 32 bits).
const RLIM32_INFINITY: u64 = 0xffff_ffff;

/// `getrlimit(int resource, struct rlimit *rlim)` ([`RLIMIT`]: two `unsigned long`). On ILP32
/// guests limits above 32 bits read as `RLIM_INFINITY`, as the kernel's compat getrlimit
/// gives.
pub fn getrlimit(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let res = (t.arch.info().rlimit_resource_to_host)(a.int(0));
    t.mm.check_writable(a.ptr(1), t.mm.shape_size(RLIMIT))?;
    let mut rl = libc::rlimit::zeroed();
    if let Some(r) = limits::Resource::of_host(res) {
        (rl.rlim_cur, rl.rlim_max) = limits::get(r);
    } else {
        // SAFETY: a local struct.
        host_ret(i64::from(unsafe { libc::getrlimit(crate::abi::low32(res), &mut rl) }))?;
    }
    if t.mm.long_bytes() == 4 {
        rl.rlim_cur = rl.rlim_cur.min(RLIM32_INFINITY);
        rl.rlim_max = rl.rlim_max.min(RLIM32_INFINITY);
    }
    t.mm.write_shape(a.ptr(1), RLIMIT, &rl)?;
    Ok(0)
}

/// `setrlimit(int resource, const struct rlimit *rlim)`; an ILP32 guest's `RLIM_INFINITY`
/// means the host's.
pub fn setrlimit(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let res = (t.arch.info().rlimit_resource_to_host)(a.int(0));
    let mut rl: libc::rlimit = t.mm.read_shape(a.ptr(1), RLIMIT)?;
    if t.mm.long_bytes() == 4 {
        for v in [&mut rl.rlim_cur, &mut rl.rlim_max] {
            if *v == RLIM32_INFINITY {
                *v = libc::RLIM_INFINITY;
            }
        }
    }
    if let Some(r) = limits::Resource::of_host(res) {
        limits::set(r, rl.rlim_cur, rl.rlim_max, may_raise_limits())?;
        return Ok(0);
    }
    // SAFETY: a local struct.
    host_ret(i64::from(unsafe { libc::setrlimit(crate::abi::low32(res), &rl) }))
}

/// Whether this process may raise a hard limit: `CAP_SYS_RESOURCE` in its effective set
/// (capget(2), include/uapi/linux/capability.h: version 3, bit 24 of the first word).
fn may_raise_limits() -> bool {
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    const CAP_SYS_RESOURCE: u32 = 24;
    let mut header = [LINUX_CAPABILITY_VERSION_3, 0u32];
    let mut data = [0u32; 6];
    // SAFETY: a version-3 header and room for its two data structs (three u32s each).
    let r = unsafe { libc::syscall(libc::SYS_capget, header.as_mut_ptr(), data.as_mut_ptr()) };
    r == 0 && data[0] & (1 << CAP_SYS_RESOURCE) != 0
}

/// `getrusage(int who, struct rusage *usage)` ([`RUSAGE`]). The counts are endgate's own,
/// which includes the guest's.
pub fn getrusage(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    t.mm.check_writable(a.ptr(1), t.mm.shape_size(RUSAGE))?;
    let mut ru = libc::rusage::zeroed();
    // SAFETY: a local struct.
    host_ret(unsafe { libc::syscall(libc::SYS_getrusage, a.int(0), &mut ru) })?;
    t.mm.write_shape(a.ptr(1), RUSAGE, &ru)?;
    Ok(0)
}

/// `times(struct tms *buf)` ([`TMS`]): returns clock ticks; `buf` may be NULL.
pub fn times(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    if a.raw(0) != 0 {
        t.mm.check_writable(a.ptr(0), t.mm.shape_size(TMS))?;
    }
    let mut tms = libc::tms::zeroed();
    // SAFETY: a local struct.
    let r = host_ret(unsafe { libc::syscall(libc::SYS_times, &mut tms) })?;
    if a.raw(0) != 0 {
        t.mm.write_shape(a.ptr(0), TMS, &tms)?;
    }
    Ok(r)
}

/// prctl options endgate forwards (include/uapi/linux/prctl.h).
mod pr {
    pub const PR_SET_PDEATHSIG: i32 = 1;
    pub const PR_GET_PDEATHSIG: i32 = 2;
    pub const PR_GET_DUMPABLE: i32 = 3;
    pub const PR_SET_DUMPABLE: i32 = 4;
    pub const PR_SET_NAME: i32 = 15;
    pub const PR_GET_NAME: i32 = 16;
    pub const PR_CAPBSET_READ: i32 = 23;
    pub const PR_SET_TIMERSLACK: i32 = 29;
    pub const PR_GET_TIMERSLACK: i32 = 30;
    pub const PR_SET_CHILD_SUBREAPER: i32 = 36;
    pub const PR_GET_CHILD_SUBREAPER: i32 = 37;
    pub const PR_SET_NO_NEW_PRIVS: i32 = 38;
    pub const PR_GET_NO_NEW_PRIVS: i32 = 39;
    pub const PR_GET_SECCOMP: i32 = 21;
    pub const PR_SET_SECCOMP: i32 = 22;
    // Per-thread credential state, kept by the host thread as the kernel keeps it per task.
    pub const PR_GET_KEEPCAPS: i32 = 7;
    pub const PR_SET_KEEPCAPS: i32 = 8;
    pub const PR_CAPBSET_DROP: i32 = 24;
    pub const PR_GET_SECUREBITS: i32 = 27;
    pub const PR_SET_SECUREBITS: i32 = 28;
    pub const PR_CAP_AMBIENT: i32 = 47;
    // Integer-only process attributes.
    pub const PR_GET_TIMING: i32 = 13;
    pub const PR_SET_TIMING: i32 = 14;
    pub const PR_MCE_KILL: i32 = 33;
    pub const PR_MCE_KILL_GET: i32 = 34;
    pub const PR_SET_THP_DISABLE: i32 = 41;
    pub const PR_GET_THP_DISABLE: i32 = 42;
    pub const PR_SET_IO_FLUSHER: i32 = 57;
    pub const PR_GET_IO_FLUSHER: i32 = 58;
    pub const PR_SET_PTRACER: i32 = 0x5961_6d61;
}

/// `prctl(int option, unsigned long arg2, …)` (prctl(2)) for the process-attribute options in
/// `pr`; the seccomp options are endgate's own ([`super::seccomp`]). Errors: `EINVAL` for
/// options that would change endgate itself (endian, memory layout) or that endgate does not
/// know.
pub fn prctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    use pr::*;
    let opt = a.int(0);
    match opt {
        PR_GET_SECCOMP => return super::seccomp::prctl_get(),
        PR_SET_SECCOMP => return super::seccomp::prctl_set(cpu, a.raw(1), a.ptr(2)),
        _ => {}
    }
    let t = cpu.get_data_mut();
    let arg2: u64 = match opt {
        PR_SET_NAME => t.buf_in(a.ptr(1), 16)? as u64,
        PR_GET_NAME => t.buf_out(a.ptr(1), 16)? as u64,
        PR_GET_PDEATHSIG | PR_GET_CHILD_SUBREAPER => t.buf_out(a.ptr(1), 4)? as u64,
        // A signal number in the guest's numbering (mips64el's differ), 0 for none.
        PR_SET_PDEATHSIG => match a.raw(1) {
            0 => 0,
            sig => u64::from((t.arch.info().signal_to_host)(sig).ok_or(Errno::EINVAL)?.0),
        },
        PR_GET_DUMPABLE
        | PR_SET_DUMPABLE
        | PR_CAPBSET_READ
        | PR_SET_TIMERSLACK
        | PR_GET_TIMERSLACK
        | PR_SET_CHILD_SUBREAPER
        | PR_SET_NO_NEW_PRIVS
        | PR_GET_NO_NEW_PRIVS
        | PR_GET_KEEPCAPS
        | PR_SET_KEEPCAPS
        | PR_CAPBSET_DROP
        | PR_GET_SECUREBITS
        | PR_SET_SECUREBITS
        | PR_CAP_AMBIENT
        | PR_GET_TIMING
        | PR_SET_TIMING
        | PR_MCE_KILL
        | PR_MCE_KILL_GET
        | PR_SET_THP_DISABLE
        | PR_GET_THP_DISABLE
        | PR_SET_IO_FLUSHER
        | PR_GET_IO_FLUSHER
        | PR_SET_PTRACER => a.raw(1),
        _ => return Err(Errno::EINVAL),
    };
    // SAFETY: integer arguments or checked guest buffers of the option's size.
    let r = host_ret(i64::from(unsafe { libc::prctl(opt, arg2, a.raw(2), a.raw(3), a.raw(4)) }))?;
    if opt == PR_GET_PDEATHSIG {
        // The host's signal number, in the guest's numbering.
        let p = arg2 as *mut u32;
        // SAFETY: `arg2` is the 4-byte guest buffer `buf_out` checked, which the host filled.
        unsafe {
            let host = p.read_unaligned();
            let guest = if host == 0 { 0 } else { (t.arch.info().signal_from_host)(crate::signal::Signal(host)) };
            p.write_unaligned(crate::abi::low32(guest));
        }
    }
    if matches!(opt, PR_GET_PDEATHSIG | PR_GET_CHILD_SUBREAPER) {
        t.mm.host_words_to_guest(a.ptr(1), 4, 4)?;
    }
    Ok(r)
}

/// `sched_getaffinity(pid_t pid, size_t len, unsigned long *mask)`: returns the mask size.
/// The mask is an array of guest `unsigned long`s; `len` must be a multiple of
/// `sizeof(long)`. Errors: `EINVAL` (bad `len`), `EFAULT`, the host's.
pub fn sched_getaffinity(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let len = a.raw(1);
    if len % t.mm.long_bytes() != 0 || len > 1 << 20 {
        return Err(Errno::EINVAL);
    }
    t.mm.check_writable(a.ptr(2), len)?;
    let mut host = vec![0u64; crate::abi::u64_to_usize(len.div_ceil(8))];
    // SAFETY: a local mask of at least `len` bytes, passed with its size in bytes.
    let n =
        host_ret(unsafe { libc::syscall(libc::SYS_sched_getaffinity, a.int(0), host.len() * 8, host.as_mut_ptr()) })?
            .min(len);
    write_cpu_mask(t, a.raw(2), &host, n)?;
    Ok(n)
}

/// Writes the first `n` bytes of a host CPU mask as guest `unsigned long`s.
fn write_cpu_mask(t: &mut crate::guest::Task, addr: u64, host: &[u64], n: u64) -> Result<(), Errno> {
    let w = t.mm.long_bytes();
    for i in 0..n / w {
        let bit = i * w * 8;
        let v = host[(bit / 64) as usize] >> (bit % 64);
        t.mm.write_ulong(GuestAddr::new(addr + i * w), v)?;
    }
    Ok(())
}

/// `sched_setaffinity(pid_t pid, size_t len, const unsigned long *mask)`.
pub fn sched_setaffinity(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let (len, w) = (a.raw(1).min(1 << 20), t.mm.long_bytes());
    let mut host = vec![0u64; crate::abi::u64_to_usize(len.div_ceil(8))];
    for i in 0..len / w {
        let bit = i * w * 8;
        host[(bit / 64) as usize] |= t.mm.read_ulong(a.ptr(2) + i * w)? << (bit % 64);
    }
    // SAFETY: a local mask of `host.len() * 8` bytes.
    host_ret(unsafe { libc::syscall(libc::SYS_sched_setaffinity, a.int(0), host.len() * 8, host.as_ptr()) })
}

/// `sched_yield(void)`. With threads in parallel, the host's, without the global guest lock
/// (the other threads' system calls need it meanwhile); with one thread at a time
/// (`ENDGATE_THREADS=serial`), the guest threads waiting for the lock run first.
pub fn sched_yield(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    if t.parallel {
        // SAFETY: no arguments.
        return host_ret(i64::from(t.blocking(|| unsafe { libc::sched_yield() })));
    }
    t.yield_lock();
    // SAFETY: no arguments.
    host_ret(i64::from(unsafe { libc::sched_yield() }))
}

/// [`sched_yield`] without the global guest lock ([`super::unlocked`]): the host's, as in
/// parallel mode (the only mode the unlocked path serves).
pub fn sched_yield_unlocked(_ctx: &super::unlocked::Ctx<'_>, _a: &SyscallArgs) -> Option<SysResult> {
    // SAFETY: no arguments.
    Some(host_ret(i64::from(unsafe { libc::sched_yield() })))
}

/// `sched_getscheduler(pid_t pid)`.
pub fn sched_getscheduler(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer argument.
    host_ret(i64::from(unsafe { libc::sched_getscheduler(a.int(0)) }))
}

/// `getpriority(int which, id_t who)`: the raw kernel value (20 - nice), as the syscall returns.
pub fn getpriority(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_getpriority, a.int(0), a.uint(1)) })
}

/// `setpriority(int which, id_t who, int prio)`.
pub fn setpriority(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_setpriority, a.int(0), a.uint(1), a.int(2)) })
}

/// `wait4(pid_t pid, int *status, int options, struct rusage *ru)` (wait4(2)).
pub fn wait4(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // As kernel_wait4: the child is waited for first, its status and usage are stored after
    // (so no children is ECHILD whatever the pointers, and a bad pointer is EFAULT once the
    // child was reaped).
    let t = cpu.get_data_mut();
    let mut status = 0i32;
    let mut ru = libc::rusage::zeroed();
    let pid = host_ret(super::blocking_syscall(
        t,
        libc::SYS_wait4,
        &[a.int_arg(0), &mut status as *mut i32 as u64, a.int_arg(2), &mut ru as *mut libc::rusage as u64],
    ))?;
    if pid != 0 {
        if a.raw(1) != 0 {
            t.mm.write_i32(a.ptr(1), status_to_guest(t.arch, status))?;
        }
        if a.raw(3) != 0 {
            t.mm.write_shape(a.ptr(3), RUSAGE, &ru)?;
        }
    }
    Ok(pid)
}

/// A host `wait` status word in the guest's signal numbering: the terminating signal (low 7
/// bits, core flag 0x80 kept) or the stop signal (bits 8-15 when the low byte is 0x7f);
/// exit statuses and `0xffff` (continued) are the same everywhere (include/uapi/linux/wait.h).
pub fn status_to_guest(arch: &dyn crate::guest::GuestArch, st: i32) -> i32 {
    let sig = |n: i32| crate::abi::int32((arch.info().signal_from_host)(Signal(crate::abi::low32(n))));
    let low = st & 0x7f;
    if st & 0xff == 0x7f {
        let stop = (st >> 8) & 0xff;
        (st & !0xff00) | ((sig(stop) & 0xff) << 8)
    } else if low != 0 && st != 0xffff {
        (st & !0x7f) | (sig(low) & 0x7f)
    } else {
        st
    }
}

/// `waitid(idtype_t idtype, id_t id, siginfo_t *infop, int options, struct rusage *ru)`
/// (waitid(2)). `infop` gets the `SIGCHLD` form of `siginfo_t` (include/uapi/asm-generic/
/// siginfo.h: `si_signo`, `si_errno`, `si_code` — `si_code` second on MIPS — then at the
/// first `long`-aligned offset `si_pid`, `si_uid`, `si_status`, `si_utime`, `si_stime`), all
/// zero when `WNOHANG` found no child. Errors: `ECHILD`, `EINVAL`, `EFAULT`, `EINTR`.
pub fn waitid(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    const SIGINFO_SIZE: u64 = 128;
    // As kernel/exit.c: the child is waited for (and reaped) first, then `ru` and `infop` are
    // written, so a bad pointer gives EFAULT after the child is gone.
    let mut info = libc::siginfo_t::zeroed();
    let mut ru = libc::rusage::zeroed();
    // id is passed as the kernel's pid_t-sized id.
    let r = host_ret(super::blocking_syscall(
        t,
        libc::SYS_waitid,
        &[
            a.int_arg(0),
            u64::from(a.uint(1)),
            &mut info as *mut libc::siginfo_t as u64,
            a.int_arg(3),
            &mut ru as *mut libc::rusage as u64,
        ],
    ))?;
    if a.raw(4) != 0 {
        t.mm.write_shape(a.ptr(4), RUSAGE, &ru)?;
    }
    if a.raw(2) != 0 {
        if info.si_signo != 0 {
            crate::guest::sigframe::write_siginfo(
                &mut t.mm,
                t.arch,
                a.ptr(2),
                &crate::signal::SigInfo::from_host(&info),
            )?;
        } else {
            t.mm.write_bytes(a.ptr(2), &[0u8; crate::abi::u64_to_usize(SIGINFO_SIZE)])?;
        }
    }
    Ok(r)
}

fn check_signal(cpu: &Cpu<'_>, sig: u64) -> Result<Option<Signal>, Errno> {
    match sig {
        0 => Ok(None),
        _ => (cpu.get_data().arch.info().signal_to_host)(sig).map(Some).ok_or(Errno::EINVAL),
    }
}

/// `kill(pid_t pid, int sig)` (kill(2)), sent by the host: the host process carries the
/// guest's dispositions and mask, so a signal to the guest itself is ignored, held pending,
/// kills or reaches endgate's handler exactly as the kernel decides (see
/// [`crate::signal::host`]).
pub fn kill(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let pid = a.int(0);
    let sig = check_signal(cpu, a.raw(1))?;
    if sig == Some(Signal::SIGKILL) {
        // SAFETY: no arguments.
        let (me, group) = unsafe { (libc::getpid(), libc::getpgrp()) };
        // Its own process (by its pid, one of its threads' ids, or its process group):
        // SIGKILL ends endgate at once, so the robust lists are walked first.
        if pid == 0 || pid == me || pid == -group || (pid > 0 && crate::thread::is_own_thread(pid)) {
            crate::syscall::robust::process_ending(cpu.get_data());
        }
    }
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::kill(pid, sig.map_or(0, Signal::as_c_int)) }))
}

/// `tgkill(pid_t tgid, pid_t tid, int sig)` (tgkill(2)).
pub fn tgkill(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (tgid, tid) = (a.int(0), a.int(1));
    if tgid <= 0 || tid <= 0 {
        return Err(Errno::EINVAL);
    }
    let sig = check_signal(cpu, a.raw(2))?;
    // SAFETY: no arguments.
    if sig == Some(Signal::SIGKILL) && tgid == unsafe { libc::getpid() } && crate::thread::is_own_thread(tid) {
        // SIGKILL to one of its own threads ends the process, endgate at once: the robust
        // lists are walked first.
        crate::syscall::robust::process_ending(cpu.get_data());
    }
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_tgkill, tgid, tid, sig.map_or(0, Signal::as_c_int)) })
}

/// [`tgkill`] without the global guest lock ([`super::unlocked`]): the host's `tgkill` with
/// the signal in the host's numbering; the receiving thread's own signal handling does the
/// rest, as under the lock. `SIGKILL` to the process's own thread (which walks the robust
/// lists first) is served under the lock. A Go program sends one to each thread it preempts.
pub fn tgkill_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let (tgid, tid) = (a.int(0), a.int(1));
    if tgid <= 0 || tid <= 0 {
        return Some(Err(Errno::EINVAL));
    }
    let sig = match a.raw(2) {
        0 => None,
        s => match (ctx.arch.info().signal_to_host)(s) {
            Some(sig) => Some(sig),
            None => return Some(Err(Errno::EINVAL)),
        },
    };
    if sig == Some(Signal::SIGKILL) {
        return None;
    }
    // SAFETY: integer arguments.
    Some(host_ret(unsafe { libc::syscall(libc::SYS_tgkill, tgid, tid, sig.map_or(0, Signal::as_c_int)) }))
}

/// [`tkill`] without the global guest lock: [`tgkill_unlocked`] to the calling process.
pub fn tkill_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    tgkill_unlocked(ctx, &a.with([pid(), a.raw(0), a.raw(1), 0, 0, 0]))
}

/// `tkill(pid_t tid, int sig)`.
pub fn tkill(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: no arguments.
    let me = unsafe { libc::getpid() };
    tgkill(cpu, &a.with([crate::abi::bits64(me), a.raw(0), a.raw(1), 0, 0, 0]))
}

/// The process's execution domain (personality(2)): kept by endgate for the guest and not
/// applied to the host, whose own flags would change endgate (`ADDR_LIMIT_32BIT` its mmaps,
/// `READ_IMPLIES_EXEC` its memory). Starts at `PER_LINUX` (0); a fork child inherits it; a new
/// program (`execve`) keeps it ([`exec_lines`]) but for `READ_IMPLIES_EXEC`, which the ELF
/// loader sets or clears from the program's own headers.
static PERSONALITY: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// `READ_IMPLIES_EXEC` (include/uapi/linux/personality.h).
const READ_IMPLIES_EXEC: u32 = 0x0040_0000;

/// The guest's personality now ([`PERSONALITY`]).
pub fn personality_now() -> u32 {
    PERSONALITY.load(std::sync::atomic::Ordering::Relaxed)
}

/// The exec-state line that carries the personality to the program `execve` runs (none for
/// the default 0).
pub fn exec_lines() -> Vec<String> {
    let p = personality_now() & !READ_IMPLIES_EXEC;
    if p == 0 {
        Vec::new()
    } else {
        vec![format!("personality {p:#x}")]
    }
}

/// Takes over a [`exec_lines`] line in the new endgate; `false` for another line.
pub fn restore_line(line: &str) -> bool {
    let Some(v) = line.strip_prefix("personality 0x").and_then(|h| u32::from_str_radix(h, 16).ok()) else {
        return false;
    };
    PERSONALITY.store(v, std::sync::atomic::Ordering::Relaxed);
    true
}

/// `personality(unsigned long persona)`: the previous persona; `0xffffffff` only asks.
pub fn personality(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    use std::sync::atomic::Ordering;
    let p = a.uint(0);
    let old =
        if p == 0xffff_ffff { PERSONALITY.load(Ordering::Relaxed) } else { PERSONALITY.swap(p, Ordering::Relaxed) };
    Ok(u64::from(old))
}
