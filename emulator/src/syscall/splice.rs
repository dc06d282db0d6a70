//! Moving data through pipes without a user-space copy: `splice`, `tee`, `vmsplice`
//! (splice(2), tee(2), vmsplice(2)), served by the host kernel on the guest's descriptors.
//!
//! The `loff_t` offsets `splice` takes by pointer are read and written back in the guest's
//! byte order; `vmsplice`'s iovecs are converted ([`super::io::host_iovecs`]) and point into
//! guest memory, which is host memory. Which way `vmsplice` moves data follows the pipe end,
//! as in the kernel: into the pipe from a write end (the buffers are read), out of it from a
//! read end (the buffers are written, so translated code there is dropped).

use syscalls::Errno;

use super::io::host_iovecs;
use super::{blocking_syscall, host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs};

/// `splice(int fd_in, loff_t *off_in, int fd_out, loff_t *off_out, size_t len, unsigned int
/// flags)`. Errors: `EFAULT`, `EINTR`, `EAGAIN`, the host's (`EINVAL`, `ESPIPE`, `EBADF`).
pub fn splice(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let read = |p: u64| if p == 0 { Ok(None) } else { t.mm.check_writable(p, 8).and(t.mm.read_u64(p)).map(Some) };
    let (mut oi, mut oo) = (read(a.raw(1))?, read(a.raw(3))?);
    let pi = oi.as_mut().map_or(std::ptr::null_mut(), |o| o as *mut u64);
    let po = oo.as_mut().map_or(std::ptr::null_mut(), |o| o as *mut u64);
    let r = host_ret(blocking_syscall(
        libc::SYS_splice,
        &[a.int_arg(0), pi as u64, a.int_arg(2), po as u64, a.ulong(4), u64::from(a.uint(5))],
    ));
    for (p, v) in [(a.raw(1), oi), (a.raw(3), oo)] {
        if let Some(v) = v {
            t.mm.write_u64(p, v)?;
        }
    }
    r
}

/// `tee(int fd_in, int fd_out, size_t len, unsigned int flags)`. Errors: the host's.
pub fn tee(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    host_ret(blocking_syscall(libc::SYS_tee, &[a.int_arg(0), a.int_arg(1), a.ulong(2), u64::from(a.uint(3))]))
}

/// `vmsplice(int fd, const struct iovec *iov, size_t nr_segs, unsigned int flags)`. Errors:
/// `EBADF`, `EINVAL` (more than 1024 segments), `EFAULT`, the host's.
pub fn vmsplice(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: F_GETFL on a descriptor number.
    let fl = unsafe { libc::fcntl(a.int(0), libc::F_GETFL) };
    if fl < 0 {
        return Err(Errno::last());
    }
    let out = fl & libc::O_ACCMODE == libc::O_RDONLY;
    let iov = host_iovecs(cpu.get_data_mut(), a.raw(1), a.ulong(2), out)?;
    host_ret(blocking_syscall(
        libc::SYS_vmsplice,
        &[a.int_arg(0), iov.as_ptr() as u64, iov.len() as u64, u64::from(a.uint(3))],
    ))
}
