//! signalfd (signalfd(2); fs/signalfd.c): `signalfd4` and the older `signalfd`, passed to the
//! host kernel with the guest's mask in the host's numbering. The guest blocks the signals it
//! reads this way, so the host kernel keeps them pending for the fd, as it would natively.
//!
//! `read` of the fd gives `struct signalfd_siginfo` records (include/uapi/linux/signalfd.h),
//! 128 bytes of fixed-width members on every arch; [`to_guest`] rewrites each one in place: the
//! signal numbers (`ssi_signo`, and `ssi_status` of a child stopped or killed by a signal) and
//! `ssi_code` in the guest's numbering (MIPS), every member in the guest's byte order.

use std::sync::atomic::{AtomicBool, Ordering};

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::{Cpu, GuestArch, SyscallArgs};
use crate::mm::Endian;
use crate::signal::Signal;

/// Size of one `struct signalfd_siginfo`, in bytes.
pub const RECORD: usize = 128;

/// Set once the process made a signalfd: only then does `read` look at what an fd is.
static MADE: AtomicBool = AtomicBool::new(false);

/// `true` once the process made a signalfd (its reads may need converting).
pub fn made() -> bool {
    MADE.load(Ordering::Relaxed)
}

/// `signalfd4(int fd, const sigset_t *mask, size_t sizemask, int flags)`: a new fd (`fd` -1)
/// or a new mask for `fd`. `SFD_NONBLOCK`/`SFD_CLOEXEC` are the arch's `O_NONBLOCK`/`O_CLOEXEC`.
/// Errors: `EINVAL` (size, flags), `EFAULT`, and the host's (`EBADF`, `EMFILE`).
pub fn signalfd4(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    if a.raw(2) != t.arch.info().sigset_size {
        return Err(Errno::EINVAL);
    }
    let mask: u64 = t.arch.read_sigset(&t.mm, a.ptr(1))?;
    let flags = (t.arch.info().open_flags_to_host)(a.raw(3));
    MADE.store(true, Ordering::Relaxed);
    // SAFETY: a local 8-byte kernel sigset.
    host_ret(unsafe { libc::syscall(libc::SYS_signalfd4, a.int(0), &mask as *const u64, 8usize, flags) })
}

/// `signalfd(int fd, const sigset_t *mask, size_t sizemask)`: `signalfd4` without flags.
pub fn signalfd(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    signalfd4(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), 0, 0, 0]))
}

/// `true` if `fd` may be a signalfd whose `read` of `n` bytes needs [`to_guest`].
pub fn needs_conversion(fd: i32, n: usize) -> bool {
    n >= RECORD
        && n % RECORD == 0
        && MADE.load(Ordering::Relaxed)
        && super::selfref::fd_kind(fd).is_some_and(|l| l.as_os_str().as_encoded_bytes() == b"anon_inode:[signalfd]")
}

/// Widths of the members of `struct signalfd_siginfo` up to `ssi_arch`, in order.
const MEMBERS: [usize; 22] = [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8, 2, 2, 4, 8, 4, 0];

/// Rewrites the host's records in `buf` (whole records) for the guest `arch` of byte order
/// `endian`.
pub fn to_guest(buf: &mut [u8], arch: &dyn GuestArch, endian: Endian) {
    let info = arch.info();
    for r in buf.chunks_exact_mut(RECORD) {
        let word = |r: &[u8], at: usize| u32::from_ne_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]]);
        let signo = word(r, 0);
        let code = crate::abi::int32(word(r, 8));
        let status = word(r, 40);
        let guest_signo = crate::abi::low32((info.signal_from_host)(Signal(signo)));
        r[0..4].copy_from_slice(&guest_signo.to_ne_bytes());
        r[8..12].copy_from_slice(&((info.si_code_from_host)(code)).to_ne_bytes());
        // A child stopped, continued or killed by a signal reports that signal's number.
        if signo == libc::SIGCHLD as u32 && (2..=6).contains(&code) {
            r[40..44].copy_from_slice(&crate::abi::low32((info.signal_from_host)(Signal(status))).to_ne_bytes());
        }
        if endian != Endian::HOST && info.data_model.long_bytes == 8 {
            // endgate carries a big-endian guest's `union sigval` as its 8 bytes read in the
            // guest's order (`rt_sigqueueinfo`), so `sival_int`, the union's first 4 bytes, is
            // the high half of `ssi_ptr`; the host filled `ssi_int` from the low half.
            let ptr = u64::from_ne_bytes(r[48..56].try_into().unwrap_or([0; 8]));
            r[44..48].copy_from_slice(&((ptr >> 32) as u32).to_ne_bytes());
        }
        if endian != Endian::HOST {
            let mut at = 0;
            for w in MEMBERS {
                r[at..at + w].reverse();
                at += w;
            }
        }
    }
}
