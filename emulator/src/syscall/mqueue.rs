//! POSIX message queues (mq_overview(7)): `mq_open`, `mq_unlink`, `mq_timedsend`,
//! `mq_timedreceive` (and their `_time64` forms), `mq_notify`, `mq_getsetattr`, served by the
//! host kernel's mqueue file system, so queues are shared with every other process as on
//! Linux.
//!
//! What is converted: the open flags (the guest arch's values), `struct mq_attr` (eight
//! `long`s: include/uapi/linux/mqueue.h; its `mq_flags` is an open flag too), the absolute timeouts (old or 64-bit
//! `timespec`), the priority (`unsigned int`), and the `struct sigevent` of `mq_notify`
//! (signal numbers; for `SIGEV_THREAD`, the libc's netlink socket and the
//! `NOTIFY_COOKIE_LEN` (32) bytes its `sival_ptr` points to, which the kernel sends back on
//! that socket unchanged). A message buffer the guest cannot give is handed to the host as
//! NULL, so the host answers in Linux's order (`EMSGSIZE` before `EFAULT`).

use syscalls::Errno;

use super::timer::{read_sigevent, HostSigevent, SIGEV_THREAD};
use super::{host_ret, SysResult};
use crate::abi::shapes::{MQ_ATTR, TIMESPEC, TIMESPEC64};
use crate::abi::thunk::Shape;
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::GuestAddr;

/// Longest queue name, with its NUL (`NAME_MAX` + 1).
const NAME_MAX: usize = 256;
/// Bytes of a `SIGEV_THREAD` cookie (include/uapi/linux/mqueue.h `NOTIFY_COOKIE_LEN`).
const NOTIFY_COOKIE_LEN: usize = 32;

/// The host's `struct mq_attr`.
type HostMqAttr = [i64; 8];

fn name(t: &Task, addr: GuestAddr) -> Result<std::ffi::CString, Errno> {
    let n = t.mm.read_cstr(addr, NAME_MAX)?;
    std::ffi::CString::new(n).map_err(|_| Errno::EINVAL)
}

/// `mq_open(const char *name, int oflag, mode_t mode, struct mq_attr *attr)`: `name` without
/// its leading slash, as the libc passes it. Errors: `EFAULT`, `ENAMETOOLONG`, the host's.
pub fn mq_open(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let n = name(t, a.ptr(0))?;
    let flags = (t.arch.info().open_flags_to_host)(a.raw(1));
    let attr: Option<HostMqAttr> = if a.raw(3) == 0 { None } else { Some(t.mm.read_shape(a.ptr(3), MQ_ATTR)?) };
    let ap = attr.as_ref().map_or(std::ptr::null(), |x| x as *const HostMqAttr);
    // SAFETY: a NUL-terminated name and a local attr (or NULL).
    host_ret(unsafe { libc::syscall(libc::SYS_mq_open, n.as_ptr(), flags, a.uint(2), ap) })
}

/// `mq_unlink(const char *name)`. Errors: `EFAULT`, `ENAMETOOLONG`, the host's.
pub fn mq_unlink(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let n = name(cpu.get_data(), a.ptr(0))?;
    // SAFETY: a NUL-terminated name.
    host_ret(unsafe { libc::syscall(libc::SYS_mq_unlink, n.as_ptr()) })
}

/// An absolute timeout (NULL: wait forever). Errors: `EFAULT`.
fn timeout(t: &Task, addr: GuestAddr, shape: &Shape) -> Result<Option<libc::timespec>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    t.mm.read_shape(addr, shape).map(Some)
}

fn timedsend(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &Shape) -> SysResult {
    let t = cpu.get_data();
    let ts = timeout(t, a.ptr(4), ts_shape)?;
    let buf = t.buf_in(a.ptr(1), a.ulong(2)).unwrap_or(std::ptr::null());
    let tp = ts.as_ref().map_or(0, |x| x as *const libc::timespec as u64);
    host_ret(super::blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_mq_timedsend,
        &[a.int_arg(0), buf as u64, a.ulong(2), u64::from(a.uint(3)), tp],
    ))
}

/// `mq_timedsend(mqd_t mqdes, const char *msg_ptr, size_t msg_len, unsigned int msg_prio,
/// const struct timespec *abs_timeout)`. Errors: `EFAULT`, `EINTR`, `ETIMEDOUT`, `EAGAIN`,
/// the host's (`EMSGSIZE`, `EBADF`, `EINVAL`).
pub fn mq_timedsend(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    timedsend(cpu, a, TIMESPEC)
}

/// `mq_timedsend_time64`: the same with a 64-bit `struct __kernel_timespec` (32-bit guests).
pub fn mq_timedsend_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    timedsend(cpu, a, TIMESPEC64)
}

fn timedreceive(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let ts = timeout(t, a.ptr(4), ts_shape)?;
    let buf = t.buf_out(a.ptr(1), a.ulong(2)).unwrap_or(std::ptr::null_mut());
    let tp = ts.as_ref().map_or(0, |x| x as *const libc::timespec as u64);
    let mut prio: u32 = 0;
    let n = host_ret(super::blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_mq_timedreceive,
        &[a.int_arg(0), buf as u64, a.ulong(2), &mut prio as *mut u32 as u64, tp],
    ))?;
    if a.raw(3) != 0 {
        cpu.get_data_mut().mm.write_u32(a.ptr(3), prio)?;
    }
    Ok(n)
}

/// `mq_timedreceive(mqd_t mqdes, char *msg_ptr, size_t msg_len, unsigned int *msg_prio,
/// const struct timespec *abs_timeout)`. Errors: as [`mq_timedsend`]; a buffer the guest
/// cannot take fails with `EFAULT` after the message was taken, as on Linux.
pub fn mq_timedreceive(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    timedreceive(cpu, a, TIMESPEC)
}

/// `mq_timedreceive_time64`: the same with a 64-bit `struct __kernel_timespec`.
pub fn mq_timedreceive_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    timedreceive(cpu, a, TIMESPEC64)
}

/// `mq_notify(mqd_t mqdes, const struct sigevent *sevp)`: NULL unregisters. Errors:
/// `EFAULT`, `EINVAL` (a signal the host lacks), the host's (`EBUSY`, `EBADF`).
pub fn mq_notify(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let mut sev: Option<HostSigevent> = read_sigevent(t, a.ptr(1))?;
    let mut cookie = [0u8; NOTIFY_COOKIE_LEN];
    if let Some(s) = sev.as_mut() {
        if s.notify == SIGEV_THREAD {
            t.mm.read_bytes(GuestAddr::new(s.value), &mut cookie)?;
            s.value = cookie.as_ptr() as u64;
        }
    }
    let sp = sev.as_ref().map_or(std::ptr::null(), |s| s as *const HostSigevent);
    // SAFETY: a local sigevent (or NULL) whose value, for SIGEV_THREAD, is a local cookie.
    host_ret(unsafe { libc::syscall(libc::SYS_mq_notify, a.int(0), sp) })
}

/// `mq_getsetattr(mqd_t mqdes, const struct mq_attr *newattr, struct mq_attr *oldattr)`
/// (what `mq_getattr`/`mq_setattr` call). Errors: `EFAULT`, the host's.
pub fn mq_getsetattr(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let info = t.arch.info();
    let mut new: Option<HostMqAttr> = if a.raw(1) == 0 { None } else { Some(t.mm.read_shape(a.ptr(1), MQ_ATTR)?) };
    if let Some(n) = new.as_mut() {
        // `mq_flags` is `O_NONBLOCK` or 0, in the arch's numbering (0x80 on MIPS).
        n[0] = i64::from((info.open_flags_to_host)(crate::abi::bits64(n[0])));
    }
    let mut old: HostMqAttr = [0; 8];
    let np = new.as_ref().map_or(std::ptr::null(), |x| x as *const HostMqAttr);
    let op = if a.raw(2) == 0 { std::ptr::null_mut() } else { &mut old as *mut HostMqAttr };
    // SAFETY: local attrs (or NULL).
    host_ret(unsafe { libc::syscall(libc::SYS_mq_getsetattr, a.int(0), np, op) })?;
    if a.raw(2) != 0 {
        old[0] = crate::abi::signed64((info.open_flags_from_host)(crate::abi::int32(old[0])));
        t.mm.write_shape(a.ptr(2), MQ_ATTR, &old)?;
    }
    Ok(0)
}
