//! Moving data through pipes without a user-space copy: `splice`, `tee`, `vmsplice`
//! (splice(2), tee(2), vmsplice(2)), served by the host kernel on the guest's descriptors.
//!
//! The `loff_t` offsets `splice` takes by pointer are read and written back in the guest's
//! byte order (as `copy_file_range`'s: [`super::io::two_offsets_call`]); `vmsplice`'s iovecs are converted ([`super::io::host_iovecs`]) and point into
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
    let r = super::io::two_offsets_call(cpu.get_data_mut(), a, libc::SYS_splice);
    super::io::after_file_write(cpu, a.int(2), &r);
    r
}

/// `tee(int fd_in, int fd_out, size_t len, unsigned int flags)`. Errors: the host's.
pub fn tee(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_tee,
        &[a.int_arg(0), a.int_arg(1), a.ulong(2), u64::from(a.uint(3))],
    ))
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
    let iov = host_iovecs(cpu.get_data_mut(), a.ptr(1), a.ulong(2), out)?;
    host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_vmsplice,
        &[a.int_arg(0), iov.as_ptr() as u64, iov.len() as u64, u64::from(a.uint(3))],
    ))
}
