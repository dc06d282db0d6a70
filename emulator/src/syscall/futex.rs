//! `futex(2)`: every operation is served by the host kernel on the host address of the guest's
//! futex word.
//!
//! Guest memory is ordinary memory of the endgate process and guest threads are host threads,
//! so a host futex on the word's host address has exactly the kernel's semantics: waits
//! (relative timeouts for `FUTEX_WAIT`, absolute ones for `FUTEX_WAIT_BITSET`, on the clock
//! `FUTEX_CLOCK_REALTIME` selects), wakes, requeues, private and shared futexes all behave as
//! natively. The waiting operations release the global guest lock
//! ([`crate::thread::blocking`]) so that the thread that will wake the waiter can run. The host kernel compares the word as it sits in
//! memory with the value as a host integer, so for a guest of the other byte order the
//! compared values (`val` of WAIT, `val3` of CMP_REQUEUE) are byte-swapped first: the guest's
//! value then matches the guest's word. (`FUTEX_WAKE_OP` computes on the word as a host
//! integer; for a big-endian guest its arithmetic would see swapped values — glibc does not
//! use it for anything but a wake, and no such guest uses it here.) The timeout is a guest
//! `struct timespec` (`futex_time64`: `__kernel_timespec`) copied to the host. PI operations
//! use thread ids, which are host ids.

use syscalls::Errno;

use super::{as_int, host_ret, SysResult};
use crate::abi::shapes::{TIMESPEC, TIMESPEC64};
use crate::abi::thunk::Shape;
use crate::arch::{Cpu, SyscallArgs};
use crate::mm::{Endian, Prot};

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

fn futex_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &Shape) -> SysResult {
    use op::*;
    let t = cpu.get_data_mut();
    let o = as_int(a.a[1]);
    let cmd = o & !FLAGS;
    // Futex words are 4 bytes and 4-byte aligned (else EINVAL, as the kernel checks).
    let word = |addr: u64| -> Result<*mut u8, Errno> {
        if addr % 4 != 0 {
            return Err(Errno::EINVAL);
        }
        t.mm.host_range(addr, 4, Prot::READ)
    };
    let uaddr = word(a.a[0])?;
    let mut ts: Option<libc::timespec> = None;
    let (timed, uaddr2): (bool, *mut u8) = match cmd {
        WAIT | WAIT_BITSET | LOCK_PI | LOCK_PI2 => (true, std::ptr::null_mut()),
        WAIT_REQUEUE_PI => (true, word(a.a[4])?),
        WAKE | UNLOCK_PI | TRYLOCK_PI | WAKE_BITSET => (false, std::ptr::null_mut()),
        REQUEUE | CMP_REQUEUE | WAKE_OP | CMP_REQUEUE_PI => (false, word(a.a[4])?),
        _ => return Err(Errno::ENOSYS),
    };
    if timed && a.a[3] != 0 {
        ts = Some(t.mm.read_shape(a.a[3], ts_shape)?);
    }
    let arg4: u64 = match (timed, ts.as_ref()) {
        (true, Some(v)) => v as *const libc::timespec as u64,
        (true, None) => 0,
        (false, _) => a.a[3],
    };
    let swap = t.mm.endian() != Endian::HOST;
    let fix = |v: u64| if swap { (v as u32).swap_bytes() } else { v as u32 };
    let val = if matches!(cmd, WAIT | WAIT_BITSET | WAIT_REQUEUE_PI) { fix(a.a[2]) } else { a.a[2] as u32 };
    let val3 = if matches!(cmd, CMP_REQUEUE | CMP_REQUEUE_PI) { fix(a.a[5]) } else { a.a[5] as u32 };
    // SAFETY: `uaddr`/`uaddr2` are checked host addresses of guest futex words, `arg4` is a
    // local timespec or an integer, as the operation defines.
    let call = || unsafe { libc::syscall(libc::SYS_futex, uaddr, o, val, arg4, uaddr2, val3) };
    // The operations that take a timeout are the ones that wait: other threads run meanwhile.
    host_ret(if timed { crate::thread::blocking(call) } else { call() })
}
