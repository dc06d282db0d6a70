//! Sockets: `socket`, `socketpair`, `bind`, `connect`, `listen`, `accept4`, `shutdown`,
//! `getsockname`/`getpeername`, `setsockopt`/`getsockopt`, `sendto`/`recvfrom`,
//! `sendmsg`/`recvmsg`.
//!
//! Socket addresses, option values and control messages have the same layout on the
//! little-endian LP64 guests endgate runs as on the host, so they are passed as checked guest
//! buffers. `struct msghdr` holds guest pointers and is rebuilt for the host
//! (include/linux/socket.h `struct user_msghdr`: 56 bytes on LP64).

use syscalls::Errno;

use super::io::host_iovecs;
use super::{as_int, host_ret, SysResult};
use crate::arch::{Cpu, SyscallArgs};
use crate::task::Task;

/// `socket(int domain, int type, int protocol)`; SOCK_NONBLOCK/SOCK_CLOEXEC share the open
/// flags' values.
pub fn socket(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let ty = cpu.get_data().arch.socket_type_to_host(as_int(a.a[1]));
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::socket(as_int(a.a[0]), ty, as_int(a.a[2])) }))
}

/// `socketpair(int domain, int type, int protocol, int sv[2])`.
pub fn socketpair(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    t.buf_out(a.a[3], 8)?;
    let ty = t.arch.socket_type_to_host(as_int(a.a[1]));
    let mut sv = [0i32; 2];
    // SAFETY: local out array.
    host_ret(i64::from(unsafe { libc::socketpair(as_int(a.a[0]), ty, as_int(a.a[2]), sv.as_mut_ptr()) }))?;
    t.mm.write_u32(a.a[3], sv[0] as u32)?;
    t.mm.write_u32(a.a[3] + 4, sv[1] as u32)?;
    Ok(0)
}

/// A guest `(struct sockaddr *, socklen_t)` input pair, checked.
fn addr_in(t: &Task, addr: u64, len: u64) -> Result<*const u8, Errno> {
    t.buf_in_opt(addr, len & 0xffff_ffff)
}

/// A guest `(struct sockaddr *, socklen_t *)` output pair: the length word is read to size the
/// buffer; both are handed to the host, which updates the length.
fn addr_out(t: &mut Task, addr: u64, lenp: u64) -> Result<(*mut u8, *mut u8), Errno> {
    if lenp == 0 {
        return Ok((t.buf_out_opt(addr, 0)?, std::ptr::null_mut()));
    }
    let len = t.mm.read_u32(lenp)?;
    if (len as i32) < 0 {
        return Err(Errno::EINVAL);
    }
    Ok((t.buf_out_opt(addr, u64::from(len))?, t.buf_inout(lenp, 4)?))
}

/// `bind(int fd, const struct sockaddr *addr, socklen_t len)`.
pub fn bind(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let p = addr_in(cpu.get_data(), a.a[1], a.a[2])?;
    // SAFETY: checked guest sockaddr.
    host_ret(i64::from(unsafe { libc::bind(as_int(a.a[0]), p.cast(), a.a[2] as u32) }))
}

/// `connect(int fd, const struct sockaddr *addr, socklen_t len)`.
pub fn connect(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let p = addr_in(cpu.get_data(), a.a[1], a.a[2])?;
    // SAFETY: checked guest sockaddr.
    host_ret(i64::from(unsafe { libc::connect(as_int(a.a[0]), p.cast(), a.a[2] as u32) }))
}

/// `listen(int fd, int backlog)`.
pub fn listen(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::listen(as_int(a.a[0]), as_int(a.a[1])) }))
}

/// `accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)`.
pub fn accept4(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (p, l) = addr_out(cpu.get_data_mut(), a.a[1], a.a[2])?;
    // SAFETY: checked guest buffers (or NULL).
    host_ret(i64::from(unsafe { libc::accept4(as_int(a.a[0]), p.cast(), l.cast(), as_int(a.a[3])) }))
}

/// `accept(int fd, struct sockaddr *addr, socklen_t *len)` (x86_64).
pub fn accept(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    accept4(cpu, &SyscallArgs { a: [a.a[0], a.a[1], a.a[2], 0, 0, 0], ..*a })
}

/// `shutdown(int fd, int how)`.
pub fn shutdown(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::shutdown(as_int(a.a[0]), as_int(a.a[1])) }))
}

/// `getsockname(int fd, struct sockaddr *addr, socklen_t *len)`.
pub fn getsockname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (p, l) = addr_out(cpu.get_data_mut(), a.a[1], a.a[2])?;
    // SAFETY: checked guest buffers.
    host_ret(i64::from(unsafe { libc::getsockname(as_int(a.a[0]), p.cast(), l.cast()) }))
}

/// `getpeername(int fd, struct sockaddr *addr, socklen_t *len)`.
pub fn getpeername(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (p, l) = addr_out(cpu.get_data_mut(), a.a[1], a.a[2])?;
    // SAFETY: checked guest buffers.
    host_ret(i64::from(unsafe { libc::getpeername(as_int(a.a[0]), p.cast(), l.cast()) }))
}

/// `setsockopt(int fd, int level, int name, const void *val, socklen_t len)`.
pub fn setsockopt(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let p = t.buf_in_opt(a.a[3], a.a[4] & 0xffff_ffff)?;
    let (level, name) = t.arch.sockopt_to_host(as_int(a.a[1]), as_int(a.a[2]));
    // SAFETY: checked guest buffer.
    host_ret(i64::from(unsafe { libc::setsockopt(as_int(a.a[0]), level, name, p.cast(), a.a[4] as u32) }))
}

/// `getsockopt(int fd, int level, int name, void *val, socklen_t *len)`.
pub fn getsockopt(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let (level, name) = t.arch.sockopt_to_host(as_int(a.a[1]), as_int(a.a[2]));
    let (p, l) = addr_out(t, a.a[3], a.a[4])?;
    // SAFETY: checked guest buffers.
    let r = host_ret(i64::from(unsafe { libc::getsockopt(as_int(a.a[0]), level, name, p.cast(), l.cast()) }))?;
    if (level, name) == (libc::SOL_SOCKET, libc::SO_TYPE) && !p.is_null() {
        let ty = t.mm.read_u32(a.a[3])? as i32;
        t.mm.write_u32(a.a[3], t.arch.socket_type_from_host(ty) as u32)?;
    }
    Ok(r)
}

/// `sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen)`.
pub fn sendto(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let buf = t.buf_in(a.a[1], a.a[2])?;
    let to = addr_in(t, a.a[4], a.a[5])?;
    // SAFETY: checked guest buffers.
    host_ret(unsafe {
        libc::sendto(as_int(a.a[0]), buf.cast(), a.a[2] as usize, as_int(a.a[3]), to.cast(), a.a[5] as u32)
    } as i64)
}

/// `recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)`.
pub fn recvfrom(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let buf = t.buf_out(a.a[1], a.a[2])?;
    let (from, l) = addr_out(t, a.a[4], a.a[5])?;
    // SAFETY: checked guest buffers.
    host_ret(unsafe {
        libc::recvfrom(as_int(a.a[0]), buf.cast(), a.a[2] as usize, as_int(a.a[3]), from.cast(), l.cast())
    } as i64)
}

/// Size of `struct user_msghdr` on LP64 guests, in bytes.
const MSGHDR_SIZE: u64 = 56;

/// Builds the host `msghdr` for guest msghdr at `addr`; `out` for recvmsg.
fn host_msghdr(t: &mut Task, addr: u64, out: bool) -> Result<(libc::msghdr, Vec<libc::iovec>), Errno> {
    t.buf_in(addr, MSGHDR_SIZE)?;
    let m = &t.mm;
    let (name, namelen) = (m.read_u64(addr)?, m.read_u32(addr + 8)?);
    let (iov, iovlen) = (m.read_u64(addr + 16)?, m.read_u64(addr + 24)?);
    let (control, controllen) = (m.read_u64(addr + 32)?, m.read_u64(addr + 40)?);
    let flags = m.read_u32(addr + 48)?;
    let iovs = host_iovecs(t, iov, iovlen, out)?;
    let name_p =
        if out { t.buf_out_opt(name, u64::from(namelen))? } else { t.buf_in_opt(name, u64::from(namelen))?.cast_mut() };
    let ctl_p = if out { t.buf_out_opt(control, controllen)? } else { t.buf_in_opt(control, controllen)?.cast_mut() };
    // SAFETY: plain data; every field is set below.
    let mut h: libc::msghdr = unsafe { std::mem::zeroed() };
    h.msg_name = name_p.cast();
    h.msg_namelen = namelen;
    h.msg_control = ctl_p.cast();
    h.msg_controllen = controllen as usize;
    h.msg_flags = flags as i32;
    Ok((h, iovs))
}

/// `sendmsg(int fd, const struct msghdr *msg, int flags)` (sendmsg(2)).
pub fn sendmsg(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (mut h, iovs) = host_msghdr(cpu.get_data_mut(), a.a[1], false)?;
    h.msg_iov = iovs.as_ptr().cast_mut();
    h.msg_iovlen = iovs.len();
    // SAFETY: `h` points only at checked guest buffers and `iovs`.
    host_ret(unsafe { libc::sendmsg(as_int(a.a[0]), &h, as_int(a.a[2])) } as i64)
}

/// `recvmsg(int fd, struct msghdr *msg, int flags)` (recvmsg(2)); the lengths and flags the
/// kernel updates are written back to the guest's msghdr.
pub fn recvmsg(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let (mut h, iovs) = host_msghdr(t, a.a[1], true)?;
    h.msg_iov = iovs.as_ptr().cast_mut();
    h.msg_iovlen = iovs.len();
    // SAFETY: `h` points only at checked guest buffers and `iovs`.
    let n = host_ret(unsafe { libc::recvmsg(as_int(a.a[0]), &mut h, as_int(a.a[2])) } as i64)?;
    t.mm.write_u32(a.a[1] + 8, h.msg_namelen)?;
    t.mm.write_u64(a.a[1] + 40, h.msg_controllen as u64)?;
    t.mm.write_u32(a.a[1] + 48, h.msg_flags as u32)?;
    Ok(n)
}
