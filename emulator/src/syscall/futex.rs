//! `futex(2)` and the futex2 calls (`futex_waitv`, Linux 5.16; `futex_wait`, `futex_wake`,
//! `futex_requeue`, Linux 6.7; include/uapi/linux/futex.h): every operation is served by the
//! host kernel on the host address of the guest's futex word. endgate keeps no futex state of
//! its own: `futex_wait`, `futex_wake` and `futex_requeue` become the classic
//! `FUTEX_WAIT_BITSET`, `FUTEX_WAKE_BITSET` and `FUTEX_CMP_REQUEUE`, which share the kernel's
//! queues and rules, so a guest gets Linux 6.7's answers from any host kernel (flags checked
//! as 6.7 does: 32-bit words only, no `FUTEX2_NUMA`).
//!
//! Guest memory is ordinary memory of the endgate process and guest threads are host threads,
//! so a host futex on the word's host address has exactly the kernel's semantics: waits
//! (relative timeouts for `FUTEX_WAIT`, absolute ones for `FUTEX_WAIT_BITSET`, on the clock
//! `FUTEX_CLOCK_REALTIME` selects), wakes, requeues, private and shared futexes. One
//! difference is endgate's to mend: a guest page without write permission is a writable host
//! page, where Linux refuses a shared futex in a read-only private anonymous page (`EFAULT`,
//! kernel/futex/core.c `get_futex_key`: such a page never changes), so that case is answered
//! here (`read_only_anonymous`). So are the checks the kernel makes of the arguments before it
//! looks at a word (timeout, operation, clock flag, bitset, requeue counts), which the host
//! would make only after endgate found the word's host address: an unmapped word must not
//! turn them into `EFAULT`. A private requeue onto an unmapped word passes the word's host
//! address in its window, as the kernel only range-checks a private key. A private wake or wait is served without the global guest
//! lock when it can be ([`futex_unlocked`], `crate::syscall::unlocked`). The waiting
//! operations release the global guest lock ([`crate::thread::blocking`]) so that the thread
//! that will wake the waiter can run. The timeout is a guest `struct timespec`
//! (`futex_time64`: `__kernel_timespec`) copied to the host.
//!
//! The host kernel compares the word as it sits in memory with the value as a host integer, so
//! for a guest of the other byte order the compared values (`val` of WAIT, `val3` of
//! CMP_REQUEUE) are byte-swapped first: the guest's value then matches the guest's word.
//! `FUTEX_WAKE_OP`, whose arithmetic the host kernel would do on a host integer, is done here
//! for such a guest (`wake_op_swapped`). PI operations use thread ids, which are host ids;
//! the owner's id the host kernel writes in a PI futex word is in the host's byte order (a
//! big-endian guest reading the word sees it swapped), so a contended PI futex of such a guest
//! is not served right; a PI lock of a word without an owner (free, or marked
//! `FUTEX_OWNER_DIED` when its owner died, `crate::syscall::robust`) is taken in the guest's
//! byte order as the kernel takes it (`take_ownerless_pi`).

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::{TIMESPEC, TIMESPEC64};
use crate::abi::thunk::Shape;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{Endian, GuestAddr, Prot};

/// Operation numbers (include/uapi/linux/futex.h), without the PRIVATE/CLOCK_REALTIME bits.
mod op {
    pub const WAIT: i32 = 0;
    pub const WAKE: i32 = 1;
    pub const REQUEUE: i32 = 3;
    pub const CMP_REQUEUE: i32 = 4;
    pub const WAKE_OP: i32 = 5;
    pub const LOCK_PI: i32 = 6;
    pub const UNLOCK_PI: i32 = 7;
    pub const TRYLOCK_PI: i32 = 8;
    pub const WAIT_BITSET: i32 = 9;
    pub const WAKE_BITSET: i32 = 10;
    pub const WAIT_REQUEUE_PI: i32 = 11;
    pub const CMP_REQUEUE_PI: i32 = 12;
    pub const LOCK_PI2: i32 = 13;
    /// FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME.
    pub const FLAGS: i32 = 128 | 256;
}

/// `futex(u32 *uaddr, int op, u32 val, const struct timespec *timeout | u32 val2, u32 *uaddr2,
/// u32 val3)`. Errors: `EFAULT` for a bad word or timeout pointer, `ENOSYS` for operations the
/// kernel does not have, the host's otherwise (`EAGAIN`, `ETIMEDOUT`, `EINTR`…).
pub fn futex(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    futex_with(cpu, a, TIMESPEC)
}

/// `futex_time64` of ILP32 guests: as [`futex`] with a `struct __kernel_timespec` timeout.
pub fn futex_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    futex_with(cpu, a, TIMESPEC64)
}

/// `futex` without the global guest lock ([`super::unlocked`]).
pub fn futex_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    unlocked_with(ctx, a, TIMESPEC)
}

/// `futex_time64` without the global guest lock ([`super::unlocked`]).
pub fn futex_time64_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    unlocked_with(ctx, a, TIMESPEC64)
}

/// The operations of a private futex that name one word: `FUTEX_WAKE`, `FUTEX_WAKE_BITSET`,
/// `FUTEX_WAIT` and `FUTEX_WAIT_BITSET` on a word (and timeout) the thread's copy of the
/// mappings can reach, served by the host kernel as in [`futex_with`]; a wait through
/// [`super::unlocked::Ctx::blocking_syscall`]. Everything else (a shared futex, which needs
/// to know whether its page is anonymous; requeues, PI, `FUTEX_WAKE_OP`) goes to [`futex`].
fn unlocked_with(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs, ts_shape: &Shape) -> Option<SysResult> {
    use op::*;
    let o = a.int(1);
    if o & 128 == 0 || a.raw(0) % 4 != 0 {
        return None;
    }
    let view = ctx.view?;
    let uaddr = view.host_range(a.raw(0), 4, Prot::READ)?;
    match o & !FLAGS {
        WAKE | WAKE_BITSET => {
            // SAFETY: `uaddr` is the host address of a guest futex word the view found
            // readable; a wake reads no other argument as a pointer.
            let r = unsafe { libc::syscall(libc::SYS_futex, uaddr, o, a.uint(2), a.raw(3), 0usize, a.uint(5)) };
            Some(host_ret(r))
        }
        WAIT | WAIT_BITSET => {
            let ts: Option<libc::timespec> =
                if a.raw(3) == 0 { None } else { Some(view.read_shape(a.raw(3), ts_shape)?) };
            let arg4 = ts.as_ref().map_or(0, |v| v as *const libc::timespec as u64);
            let val = crate::abi::low32(a.raw(2));
            let val = if view.model().endian == Endian::HOST { val } else { val.swap_bytes() };
            let args = [uaddr as u64, crate::abi::bits64(o), u64::from(val), arg4, 0, u64::from(a.uint(5))];
            Some(host_ret(ctx.blocking_syscall(libc::SYS_futex, &args)))
        }
        _ => None,
    }
}

/// `true` if `addr` lies in a private anonymous mapping without write permission (a page of
/// a private file mapping the guest wrote to and then made read-only counts as the file's
/// here; Linux refuses it too).
fn read_only_anonymous(mm: &crate::mm::AddressSpace, addr: u64) -> bool {
    mm.vma_at(addr).is_some_and(|(_, v)| !v.prot.contains(Prot::WRITE) && !v.shared && v.file_id.is_none())
}

fn futex_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &Shape) -> SysResult {
    use op::*;
    let t = cpu.get_data_mut();
    let o = a.int(1);
    let cmd = o & !FLAGS;
    let private = o & 128 != 0;
    // The kernel judges the arguments before it looks at any futex word: the timeout first
    // (kernel/futex/syscalls.c, for the operations that take one), then the operation and its
    // clock flag, a bitset, the requeue counts (kernel/futex/waitwake.c, requeue.c).
    let timed = matches!(cmd, WAIT | WAIT_BITSET | LOCK_PI | LOCK_PI2 | WAIT_REQUEUE_PI);
    let mut ts: Option<libc::timespec> = None;
    if timed && a.raw(3) != 0 {
        let v: libc::timespec = t.mm.read_shape(a.ptr(3), ts_shape)?;
        if v.tv_sec < 0 || !(0..1_000_000_000).contains(&v.tv_nsec) {
            return Err(Errno::EINVAL);
        }
        ts = Some(v);
    }
    let known = matches!(
        cmd,
        WAIT | WAKE
            | REQUEUE
            | CMP_REQUEUE
            | WAKE_OP
            | LOCK_PI
            | UNLOCK_PI
            | TRYLOCK_PI
            | WAIT_BITSET
            | WAKE_BITSET
            | WAIT_REQUEUE_PI
            | CMP_REQUEUE_PI
            | LOCK_PI2
    );
    if !known {
        return Err(Errno::ENOSYS);
    }
    if o & 256 != 0 && !matches!(cmd, WAIT | WAIT_BITSET | WAIT_REQUEUE_PI | LOCK_PI2) {
        return Err(Errno::ENOSYS);
    }
    if matches!(cmd, WAIT_BITSET | WAKE_BITSET) && a.uint(5) == 0 {
        return Err(Errno::EINVAL);
    }
    if matches!(cmd, REQUEUE | CMP_REQUEUE | CMP_REQUEUE_PI) && (a.int(2) < 0 || a.int(3) < 0) {
        return Err(Errno::EINVAL);
    }
    // Futex words are 4 bytes and 4-byte aligned (else EINVAL, as the kernel checks).
    let word = |addr: GuestAddr| -> Result<*mut u8, Errno> {
        if addr.get() % 4 != 0 {
            return Err(Errno::EINVAL);
        }
        t.mm.host_range(addr, 4, Prot::READ)
    };
    // A private key only range-checks its word (kernel/futex/core.c `get_futex_key` reads no
    // memory for it): a private wake on an address nothing is mapped at wakes the threads that
    // began waiting there before its page went away (keyed by the address alone), at the host
    // address the window gives it; none where no window is (0).
    let unmapped_wake = matches!(cmd, WAKE | WAKE_BITSET)
        && private
        && a.raw(0) % 4 == 0
        && a.raw(0) < t.mm.task_size
        && t.mm.host_range(a.ptr(0), 4, Prot::READ).is_err();
    let uaddr = if unmapped_wake {
        match t.mm.to_host(a.raw(0), 4) {
            Some(h) => h,
            None => return Ok(0),
        }
    } else {
        word(a.ptr(0))?
    };
    // A private requeue's target is only range-checked too: one nothing is mapped at takes
    // the waiters at the host address a mapping there would have.
    let target = |addr: GuestAddr| -> Result<*mut u8, Errno> {
        match word(addr) {
            Err(Errno::EFAULT) if private && addr.get() < t.mm.task_size => {
                t.mm.to_host(addr.get(), 4).ok_or(Errno::EFAULT)
            }
            r => r,
        }
    };
    let uaddr2: *mut u8 = match cmd {
        WAIT_REQUEUE_PI => word(a.ptr(4))?,
        REQUEUE | CMP_REQUEUE => target(a.ptr(4))?,
        CMP_REQUEUE_PI => word(a.ptr(4))?,
        // The second word is written.
        WAKE_OP if a.raw(4) % 4 != 0 => return Err(Errno::EINVAL),
        WAKE_OP => t.mm.host_range(a.ptr(4), 4, Prot::READ | Prot::WRITE)?,
        _ => std::ptr::null_mut(),
    };
    // kernel/futex/core.c `get_futex_key`: a shared futex in a read-only anonymous page is
    // refused (such a page never changes), for a requeue's target too; the host page behind
    // it is writable, so the host would take it.
    let shared_key = !private && matches!(cmd, WAKE | WAKE_BITSET | WAIT | WAIT_BITSET | REQUEUE | CMP_REQUEUE);
    if shared_key
        && (read_only_anonymous(&t.mm, a.raw(0))
            || (matches!(cmd, REQUEUE | CMP_REQUEUE) && read_only_anonymous(&t.mm, a.raw(4))))
    {
        return Err(Errno::EFAULT);
    }
    let arg4: u64 = match (timed, ts.as_ref()) {
        (true, Some(v)) => v as *const libc::timespec as u64,
        (true, None) => 0,
        (false, _) => a.raw(3),
    };
    let swap = t.mm.endian() != Endian::HOST;
    if swap && cmd == WAKE_OP {
        return wake_op_swapped(o & 128, uaddr, uaddr2, a.uint(2), a.uint(3), a.uint(5));
    }
    if swap && matches!(cmd, LOCK_PI | LOCK_PI2 | TRYLOCK_PI | UNLOCK_PI) {
        // The kernel's lock and unlock take a writable word.
        let writable = t.mm.host_range(a.ptr(0), 4, Prot::WRITE)?;
        if let Some(r) = own_pi_swapped(writable, cmd == UNLOCK_PI) {
            return r;
        }
    }
    let fix = |v: u64| if swap { crate::abi::low32(v).swap_bytes() } else { crate::abi::low32(v) };
    let val = if matches!(cmd, WAIT | WAIT_BITSET | WAIT_REQUEUE_PI) { fix(a.raw(2)) } else { a.uint(2) };
    let val3 = if matches!(cmd, CMP_REQUEUE | CMP_REQUEUE_PI) { fix(a.raw(5)) } else { a.uint(5) };
    // The operations that take a timeout are the ones that wait: other threads run meanwhile.
    if timed {
        let args = [uaddr as u64, crate::abi::bits64(o), u64::from(val), arg4, uaddr2 as u64, u64::from(val3)];
        return host_ret(super::blocking_syscall(cpu.get_data_mut(), libc::SYS_futex, &args));
    }
    // SAFETY: `uaddr`/`uaddr2` are checked host addresses of guest futex words, `arg4` is a
    // local timespec or an integer, as the operation defines.
    host_ret(unsafe { libc::syscall(libc::SYS_futex, uaddr, o, val, arg4, uaddr2, val3) })
}

/// `FUTEX_WAKE_OP` for a guest of the other byte order (`private`: `FUTEX_PRIVATE_FLAG` or 0):
/// the host kernel would compute on the second word as a host integer, so the operation is
/// done here, in the guest's byte order, as an atomic compare-and-swap loop on the word (the
/// kernel's `futex_atomic_op_inuser`); then the wakes: up to `nr_wake` on `uaddr`, and up to
/// `nr_wake2` on `uaddr2` if the comparison of the old value holds. Returns the number woken.
/// Errors: `ENOSYS` for an unknown operation or comparison.
///
/// `encoded` is `op:4 cmp:4 oparg:12 cmparg:12` (include/uapi/linux/futex.h `FUTEX_OP`), the
/// arguments sign-extended from 12 bits; `FUTEX_OP_OPARG_SHIFT` (8 in `op`) makes the operand
/// `1 << oparg`.
fn wake_op_swapped(
    private: i32,
    uaddr: *mut u8,
    uaddr2: *mut u8,
    nr_wake: u32,
    nr_wake2: u32,
    encoded: u32,
) -> SysResult {
    use std::sync::atomic::{AtomicU32, Ordering};
    let sext12 = |v: u32| crate::abi::int32(v << 20) >> 20;
    let (op, cmp) = (encoded >> 28, (encoded >> 24) & 15);
    let mut oparg = sext12(encoded >> 12);
    let cmparg = sext12(encoded);
    if op & 8 != 0 {
        oparg = 1i32.wrapping_shl((oparg & 31).unsigned_abs());
    }
    let apply = |old: i32| -> Option<i32> {
        Some(match op & 7 {
            0 => oparg,
            1 => old.wrapping_add(oparg),
            2 => old | oparg,
            3 => old & !oparg,
            4 => old ^ oparg,
            _ => return None,
        })
    };
    let holds = |old: i32| -> Option<bool> {
        Some(match cmp {
            0 => old == cmparg,
            1 => old != cmparg,
            2 => old < cmparg,
            3 => old <= cmparg,
            4 => old > cmparg,
            5 => old >= cmparg,
            _ => return None,
        })
    };
    if apply(0).is_none() || holds(0).is_none() {
        return Err(Errno::ENOSYS);
    }
    // SAFETY: `uaddr2` is the checked, 4-byte aligned host address of a writable guest word;
    // other threads and processes touch it only atomically or under the guest lock.
    let word = unsafe { AtomicU32::from_ptr(uaddr2.cast()) };
    let mut cur = word.load(Ordering::SeqCst);
    let old = loop {
        let old = crate::abi::int32(cur.swap_bytes());
        let new = apply(old).unwrap_or(old);
        match word.compare_exchange(cur, crate::abi::low32(new).swap_bytes(), Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => break old,
            Err(now) => cur = now,
        }
    };
    let wake = |w: *mut u8, n: u32| -> SysResult {
        // SAFETY: a checked host address of a guest futex word; FUTEX_WAKE takes no pointers.
        host_ret(unsafe { libc::syscall(libc::SYS_futex, w, op::WAKE | private, n, 0usize, 0usize, 0u32) })
    };
    let mut woken = wake(uaddr, nr_wake)?;
    if holds(old) == Some(true) {
        woken += wake(uaddr2, nr_wake2)?;
    }
    Ok(woken)
}

/// The kernel's take-over of a PI futex word without an owner (kernel/futex/pi.c
/// `futex_lock_pi_atomic`: with no waiter and no owner's id in the word, the caller becomes
/// the owner, `FUTEX_OWNER_DIED` kept) for `FUTEX_LOCK_PI`, `FUTEX_LOCK_PI2` and
/// `FUTEX_TRYLOCK_PI` of a guest of the other byte order, in the guest's order: the host
/// kernel would read the guest's `FUTEX_OWNER_DIED` (what a robust PI mutex's word holds once
/// its owner died, `crate::syscall::robust`) as a thread id and answer `ESRCH`, on which glibc
/// aborts. `false` when the word has an owner: the host's call serves it (a contended PI futex
/// of such a guest, whose owner the host kernel reads in its own byte order, is not served
/// right). `uaddr`: the checked, 4-byte aligned host address of a writable guest word.
fn take_ownerless_pi(uaddr: *mut u8) -> bool {
    use super::robust::{FUTEX_OWNER_DIED, FUTEX_TID_MASK};
    use std::sync::atomic::{AtomicU32, Ordering};
    let me = crate::abi::low32(crate::thread::gettid());
    // SAFETY: the caller's checked, aligned host address of a writable guest word; other
    // threads and processes change it only atomically.
    let word = unsafe { AtomicU32::from_ptr(uaddr.cast()) };
    let mut raw = word.load(Ordering::SeqCst);
    loop {
        let value = raw.swap_bytes();
        if value & FUTEX_TID_MASK != 0 {
            return false;
        }
        let new = ((value & FUTEX_OWNER_DIED) | me).swap_bytes();
        match word.compare_exchange(raw, new, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return true,
            Err(now) => raw = now,
        }
    }
}

/// The uncontended PI operations of a guest of the other byte order, done in the guest's order
/// as kernel/futex/pi.c does them (the host kernel would read the owner's id in the word in
/// its own order): a lock of a word without an owner takes it ([`take_ownerless_pi`]); a
/// lock of a word the caller owns is `EDEADLK`; an unlock of a word another thread owns is
/// `EPERM`, of the caller's own word without waiters sets it to 0. `None`: the host's call
/// serves it (a contended PI futex, not served right for such a guest). `uaddr`: the
/// checked, 4-byte aligned host address of a writable guest word.
fn own_pi_swapped(uaddr: *mut u8, unlock: bool) -> Option<SysResult> {
    use super::robust::{FUTEX_TID_MASK, FUTEX_WAITERS};
    use std::sync::atomic::{AtomicU32, Ordering};
    if !unlock && take_ownerless_pi(uaddr) {
        return Some(Ok(0));
    }
    let me = crate::abi::low32(crate::thread::gettid());
    // SAFETY: the caller's checked, aligned host address of a writable guest word; other
    // threads and processes change it only atomically.
    let word = unsafe { AtomicU32::from_ptr(uaddr.cast()) };
    let raw = word.load(Ordering::SeqCst);
    let value = raw.swap_bytes();
    let mine = value & FUTEX_TID_MASK == me;
    match (unlock, mine) {
        (false, true) => Some(Err(Errno::EDEADLK)),
        (false, false) => None,
        (true, false) => Some(Err(Errno::EPERM)),
        (true, true) if value & FUTEX_WAITERS == 0 => {
            // Another thread may have set the waiters bit meanwhile: then the host serves it.
            word.compare_exchange(raw, 0, Ordering::SeqCst, Ordering::SeqCst).ok().map(|_| Ok(0))
        }
        (true, true) => None,
    }
}

/// `struct futex_waitv` (include/uapi/linux/futex.h): `__u64 val`, `__u64 uaddr`, `__u32 flags`,
/// `__u32 __reserved`; 24 bytes on every arch.
const WAITV_SIZE: u64 = 24;
/// Most waiters one call takes (`FUTEX_WAITV_MAX`).
const FUTEX_WAITV_MAX: u64 = 128;
/// `FUTEX2_SIZE_U32`, the only size the kernel serves, and the flags it knows
/// (`FUTEX2_VALID_MASK` of kernel/futex/futex.h as of Linux 6.7: the size and
/// `FUTEX2_PRIVATE`; `FUTEX2_NUMA`, 0x04, is in the uapi header but the kernel takes it only
/// from Linux 6.16, with NUMA-aware futexes endgate does not have).
const FUTEX2_SIZE_U32: u32 = 0x02;
const FUTEX2_SIZE_MASK: u32 = 0x03;
const FUTEX2_PRIVATE: u32 = 0x80;
const FUTEX2_KNOWN: u32 = FUTEX2_SIZE_MASK | FUTEX2_PRIVATE;

/// The host's `struct futex_waitv`.
#[repr(C)]
struct HostWaitv {
    val: u64,
    uaddr: u64,
    flags: u32,
    reserved: u32,
}

/// `futex_waitv(struct futex_waitv *waiters, unsigned int nr_futexes, unsigned int flags,
/// struct __kernel_timespec *timeout, clockid_t clockid)` (Linux 5.16): waits on several
/// words at once; returns the index of the one woken. Each `uaddr` becomes the word's host
/// address and each `val` is compared in the guest's byte order, as for `futex`. Errors:
/// `EINVAL` (no or too many waiters, flags, a misaligned word, reserved bits), `EFAULT`,
/// `EAGAIN`, `ETIMEDOUT`, `EINTR`.
pub fn futex_waitv(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let n = u64::from(a.uint(1));
    if n == 0 || n > FUTEX_WAITV_MAX || a.uint(2) != 0 || a.ptr(0).is_null() {
        return Err(Errno::EINVAL);
    }
    let swap = t.mm.endian() != Endian::HOST;
    let mut ws = Vec::with_capacity(crate::abi::u64_to_usize(n));
    for i in 0..n {
        let at = a.ptr(0) + i * WAITV_SIZE;
        let (val, uaddr) = (t.mm.read_u64(at)?, t.mm.read_u64(at + 8)?);
        let (flags, reserved) = (t.mm.read_u32(at + 16)?, t.mm.read_u32(at + 20)?);
        if reserved != 0
            || val >> 32 != 0
            || flags & !FUTEX2_KNOWN != 0
            || flags & FUTEX2_SIZE_MASK != FUTEX2_SIZE_U32
            || uaddr % 4 != 0
        {
            return Err(Errno::EINVAL);
        }
        let host = t.mm.host_range(crate::mm::GuestAddr::new(uaddr), 4, Prot::READ)?;
        let val = if swap { u64::from(crate::abi::low32(val).swap_bytes()) } else { val };
        ws.push(HostWaitv { val, uaddr: host as u64, flags, reserved: 0 });
    }
    let ts: Option<libc::timespec> = if a.raw(3) == 0 { None } else { Some(t.mm.read_shape(a.ptr(3), TIMESPEC64)?) };
    let tp = ts.as_ref().map_or(0, |x| x as *const libc::timespec as u64);
    host_ret(super::blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_futex_waitv,
        &[ws.as_ptr() as u64, n, 0, tp, a.int_arg(4)],
    ))
}

/// `FUTEX_PRIVATE_FLAG` of the classic operation for valid futex2 `flags` (Linux 6.7: a
/// 32-bit size, `FUTEX2_PRIVATE` or not). Errors: `EINVAL` for other bits or sizes.
fn futex2_private(flags: u32) -> Result<i32, Errno> {
    if flags & !FUTEX2_KNOWN != 0 || flags & FUTEX2_SIZE_MASK != FUTEX2_SIZE_U32 {
        return Err(Errno::EINVAL);
    }
    Ok(if flags & FUTEX2_PRIVATE != 0 { 128 } else { 0 })
}

/// The host address of a 32-bit futex word at guest `addr`, which must be 4-byte aligned
/// (`EINVAL`) and readable (`EFAULT`), as the kernel's `get_futex_key` checks.
fn futex_word(t: &crate::guest::Task, addr: GuestAddr) -> Result<*mut u8, Errno> {
    if addr.get() % 4 != 0 {
        return Err(Errno::EINVAL);
    }
    t.mm.host_range(addr, 4, Prot::READ)
}

/// A 32-bit compare value in the byte order the host kernel compares the guest's word in.
fn word_value(t: &crate::guest::Task, v: u64) -> u32 {
    let v = u32::try_from(v).unwrap_or(u32::MAX);
    if t.mm.endian() == Endian::HOST {
        v
    } else {
        v.swap_bytes()
    }
}

/// `futex_wait(void *uaddr, unsigned long val, unsigned long mask, unsigned int flags, struct
/// __kernel_timespec *timeout, clockid_t clockid)` (Linux 6.7): waits while the word is `val`
/// until a wake whose mask shares a bit with `mask`, or the absolute `timeout` on `clockid`
/// (`CLOCK_MONOTONIC` or `CLOCK_REALTIME`). Served as the classic `FUTEX_WAIT_BITSET`, which
/// has the same queues and timeout rules, so any host kernel gives Linux 6.7's behaviour
/// and futex2 and classic operations on one word meet. Errors: `EINVAL` (flags, a value or
/// mask wider than the word, mask 0, a bad clock or timeout, a misaligned word), `EFAULT`,
/// `EAGAIN`, `ETIMEDOUT`, `EINTR`.
pub fn futex_wait(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let mut op = op::WAIT_BITSET | futex2_private(a.uint(3))?;
    let (val, mask) = (a.ulong(1), a.ulong(2));
    if val >> 32 != 0 || mask >> 32 != 0 {
        return Err(Errno::EINVAL);
    }
    let ts: Option<libc::timespec> = if a.ptr(4).is_null() {
        None
    } else {
        match a.int(5) {
            libc::CLOCK_REALTIME => op |= 256,
            libc::CLOCK_MONOTONIC => {}
            _ => return Err(Errno::EINVAL),
        }
        Some(t.mm.read_shape(a.ptr(4), TIMESPEC64)?)
    };
    if mask == 0 {
        return Err(Errno::EINVAL);
    }
    let uaddr = futex_word(t, a.ptr(0))?;
    let tp = ts.as_ref().map_or(0, |x| x as *const libc::timespec as u64);
    let args = [uaddr as u64, crate::abi::bits64(op), u64::from(word_value(t, val)), tp, 0, mask];
    host_ret(super::blocking_syscall(cpu.get_data_mut(), libc::SYS_futex, &args))
}

/// `futex_wake(void *uaddr, unsigned long mask, int nr, unsigned int flags)` (Linux 6.7):
/// wakes up to `nr` waiters of the word whose masks share a bit with `mask` (`nr` 0 wakes
/// none); returns how many woke. Served as `FUTEX_WAKE_BITSET`. Errors: `EINVAL`, `EFAULT`.
pub fn futex_wake(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let op = op::WAKE_BITSET | futex2_private(a.uint(3))?;
    let mask = a.ulong(1);
    if mask >> 32 != 0 || mask == 0 {
        return Err(Errno::EINVAL);
    }
    let uaddr = futex_word(t, a.ptr(0))?;
    let nr = a.int(2);
    if nr == 0 {
        return Ok(0);
    }
    // SAFETY: the checked host address of a guest futex word; the other arguments are integers.
    host_ret(unsafe { libc::syscall(libc::SYS_futex, uaddr, op, nr, 0usize, 0usize, mask) })
}

/// `futex_requeue(struct futex_waitv *waiters, unsigned int flags, int nr_wake, int
/// nr_requeue)` (Linux 6.7): if the first word still holds `waiters[0].val`, wakes up to
/// `nr_wake` of its waiters and moves up to `nr_requeue` others to the second word; returns
/// how many were woken or moved. Served as `FUTEX_CMP_REQUEUE` when both words are private or
/// both shared; a mix, which the classic call cannot express, goes to the host's
/// `futex_requeue` (`ENOSYS` on a host older than 6.7). Errors: `EINVAL` (flags, a NULL
/// array, a bad entry, negative counts, misaligned words), `EFAULT`, `EAGAIN`.
pub fn futex_requeue(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    if a.uint(1) != 0 || a.ptr(0).is_null() {
        return Err(Errno::EINVAL);
    }
    let mut ws = [(0u64, 0u64, 0i32); 2];
    for (i, w) in (0u64..).zip(ws.iter_mut()) {
        let at = a.ptr(0) + i * WAITV_SIZE;
        let (val, uaddr) = (t.mm.read_u64(at)?, t.mm.read_u64(at + 8)?);
        let (flags, reserved) = (t.mm.read_u32(at + 16)?, t.mm.read_u32(at + 20)?);
        let private = futex2_private(flags)?;
        if reserved != 0 || val >> 32 != 0 {
            return Err(Errno::EINVAL);
        }
        *w = (val, uaddr, private);
    }
    let (nr_wake, nr_requeue) = (a.int(2), a.int(3));
    if nr_wake < 0 || nr_requeue < 0 {
        return Err(Errno::EINVAL);
    }
    let u1 = futex_word(t, GuestAddr::new(ws[0].1))?;
    let u2 = futex_word(t, GuestAddr::new(ws[1].1))?;
    let cmp = word_value(t, ws[0].0);
    if ws[0].2 == ws[1].2 {
        let op = op::CMP_REQUEUE | ws[0].2;
        // SAFETY: checked host addresses of guest futex words; `nr_requeue` rides in the
        // timeout slot as an integer, as FUTEX_CMP_REQUEUE takes it.
        return host_ret(unsafe {
            libc::syscall(libc::SYS_futex, u1, op, nr_wake, usize::try_from(nr_requeue).unwrap_or(0), u2, cmp)
        });
    }
    let host = [
        HostWaitv { val: u64::from(cmp), uaddr: u1 as u64, flags: FUTEX2_SIZE_U32 | flags_of(ws[0].2), reserved: 0 },
        HostWaitv { val: 0, uaddr: u2 as u64, flags: FUTEX2_SIZE_U32 | flags_of(ws[1].2), reserved: 0 },
    ];
    /// `futex_requeue`'s number on x86_64 (arch/x86/entry/syscalls/syscall_64.tbl).
    const SYS_FUTEX_REQUEUE: libc::c_long = 456;
    // SAFETY: a local array of two host `struct futex_waitv`; integer counts.
    host_ret(unsafe { libc::syscall(SYS_FUTEX_REQUEUE, host.as_ptr(), 0u32, nr_wake, nr_requeue) })
}

/// The futex2 flag of a classic operation's private bit.
fn flags_of(private: i32) -> u32 {
    if private != 0 {
        FUTEX2_PRIVATE
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `FUTEX_OP(op, oparg, cmp, cmparg)` of include/uapi/linux/futex.h.
    fn encode(op: u32, oparg: u32, cmp: u32, cmparg: u32) -> u32 {
        ((op & 0xf) << 28) | ((cmp & 0xf) << 24) | ((oparg & 0xfff) << 12) | (cmparg & 0xfff)
    }

    #[test]
    fn wake_op_computes_in_the_guests_byte_order() {
        let mut first = 0u32;
        // A big-endian guest's word holding 10.
        let mut second = 10u32.swap_bytes();
        let (a, b) = ((&mut first as *mut u32).cast(), (&mut second as *mut u32).cast());
        // Add 5; nobody waits, so nobody is woken whatever the comparison gives.
        assert_eq!(wake_op_swapped(128, a, b, 1, 1, encode(1, 5, 0, 10)), Ok(0));
        assert_eq!(second.swap_bytes(), 15);
        // Set 1 << 4 (FUTEX_OP_OPARG_SHIFT); a negative operand is sign-extended.
        assert_eq!(wake_op_swapped(128, a, b, 1, 1, encode(8, 4, 4, 0)), Ok(0));
        assert_eq!(second.swap_bytes(), 16);
        assert_eq!(wake_op_swapped(128, a, b, 1, 1, encode(1, 0xfff, 0, 0)), Ok(0));
        assert_eq!(second.swap_bytes(), 15);
        assert_eq!(wake_op_swapped(128, a, b, 1, 1, encode(7, 0, 0, 0)), Err(Errno::ENOSYS));
        assert_eq!(wake_op_swapped(128, a, b, 1, 1, encode(0, 0, 9, 0)), Err(Errno::ENOSYS));
    }
}
