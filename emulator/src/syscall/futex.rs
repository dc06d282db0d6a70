//! `futex(2)`: every operation is served by the host kernel on the host address of the guest's
//! futex word.
//!
//! Guest memory is ordinary memory of the endgate process, so a host futex on the word's host
//! address has exactly the kernel's semantics (the compared value is the word as it is in
//! memory, which for the little-endian guests endgate runs is also the guest's value). Pointer
//! arguments are checked and translated; the timeout is a guest `struct timespec` (two
//! little-endian 64-bit words, the host layout). PI operations use thread ids, which are host
//! ids.

use syscalls::Errno;

use super::{as_int, host_ret, SysResult};
use crate::arch::{Cpu, SyscallArgs};
use crate::mm::Prot;

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
    let (arg4, uaddr2): (u64, *mut u8) = match cmd {
        WAIT | WAIT_BITSET | LOCK_PI | LOCK_PI2 => (timeout(t, a.a[3])?, std::ptr::null_mut()),
        WAIT_REQUEUE_PI => (timeout(t, a.a[3])?, word(a.a[4])?),
        WAKE | UNLOCK_PI | TRYLOCK_PI | WAKE_BITSET => (a.a[3], std::ptr::null_mut()),
        REQUEUE | CMP_REQUEUE | WAKE_OP | CMP_REQUEUE_PI => (a.a[3], word(a.a[4])?),
        _ => return Err(Errno::ENOSYS),
    };
    // SAFETY: `uaddr`/`uaddr2` are checked host addresses of guest futex words, `arg4` is a
    // checked timespec pointer or an integer, as the operation defines.
    host_ret(unsafe { libc::syscall(libc::SYS_futex, uaddr, o, a.a[2] as u32, arg4, uaddr2, a.a[5] as u32) })
}

/// Host address of the guest timeout (NULL stays NULL). Errors: `EFAULT`.
fn timeout(t: &crate::task::Task, addr: u64) -> Result<u64, Errno> {
    if addr == 0 {
        return Ok(0);
    }
    Ok(t.buf_in(addr, 16)? as u64)
}
