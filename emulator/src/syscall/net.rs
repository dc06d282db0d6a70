//! Sockets: `socket`, `socketpair`, `bind`, `connect`, `listen`, `accept4`, `shutdown`,
//! `getsockname`/`getpeername`, `setsockopt`/`getsockopt`, `sendto`/`recvfrom`,
//! `sendmsg`/`recvmsg`.
//!
//! Socket addresses, option values and control messages are copied through host buffers: a
//! socket address keeps its network-order members and has `sa_family` (and the few other
//! host-order members) swapped for a big-endian guest; option values are `int`s (or a
//! `timeval`); control messages are re-laid for the guest's `long` width. `struct msghdr`
//! holds guest pointers and is rebuilt for the host (include/linux/socket.h `struct
//! user_msghdr`, [`MSGHDR`]).

use syscalls::Errno;

use super::unlocked::Ctx;
use super::{blocking_syscall, host_ret, SysResult};
use crate::abi::shapes::{UserMsghdr, MSGHDR, TIMEVAL};
use crate::abi::{bits64, int32, low32, u64_to_usize};
use crate::guest::Task;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{Endian, GuestAddr, Prot};

/// `socket(int domain, int type, int protocol)`; SOCK_NONBLOCK/SOCK_CLOEXEC share the open
/// flags' values.
pub fn socket(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let ty = (cpu.get_data().arch.info().socket_type_to_host)(a.int(1));
    super::netlink::note_socket(a.int(0));
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::socket(a.int(0), ty, a.int(2)) }))
}

/// `socketpair(int domain, int type, int protocol, int sv[2])`.
pub fn socketpair(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    t.mm.check_writable(a.ptr(3), 8)?;
    let ty = (t.arch.info().socket_type_to_host)(a.int(1));
    let mut sv = [0i32; 2];
    // SAFETY: local out array.
    host_ret(i64::from(unsafe { libc::socketpair(a.int(0), ty, a.int(2), sv.as_mut_ptr()) }))?;
    t.mm.write_i32(a.ptr(3), sv[0])?;
    t.mm.write_i32(a.ptr(3) + 4, sv[1])?;
    Ok(0)
}

/// `sizeof(struct sockaddr_storage)` in bytes: the most a socket address can take.
const SOCKADDR_MAX: u32 = 128;

/// Puts the host-order integer members of a socket address into the other byte order, in
/// place: `sa_family` of every family, `sin6_scope_id` of AF_INET6, `nl_pid`/`nl_groups` of
/// AF_NETLINK. Ports and IP addresses are in network order already and stay as they are.
/// `family_native` says whether `sa` currently holds the family in host order.
fn swap_sockaddr(sa: &mut [u8], family_native: bool) {
    if sa.len() < 2 {
        return;
    }
    let fam = if family_native { u16::from_ne_bytes([sa[0], sa[1]]) } else { u16::from_ne_bytes([sa[1], sa[0]]) };
    sa[..2].reverse();
    let words: &[usize] = match i32::from(fam) {
        libc::AF_INET6 => &[24],
        libc::AF_NETLINK => &[4, 8],
        _ => &[],
    };
    for &w in words {
        if sa.len() >= w + 4 {
            sa[w..w + 4].reverse();
        }
    }
}

/// A guest `(const struct sockaddr *, socklen_t)` input, copied into a host buffer (NULL
/// gives `None`). Errors: `EINVAL` (longer than a `sockaddr_storage`), `EFAULT`.
fn addr_in(t: &Task, addr: GuestAddr, len: u64) -> Result<Option<Vec<u8>>, Errno> {
    if addr.is_null() {
        return Ok(None);
    }
    let len = len & 0xffff_ffff;
    if len > u64::from(SOCKADDR_MAX) {
        return Err(Errno::EINVAL);
    }
    let mut sa = t.mm.read_vec(addr, len as usize)?;
    if t.mm.endian() != Endian::HOST {
        swap_sockaddr(&mut sa, false);
    }
    Ok(Some(sa))
}

/// `sizeof(sun_path)` of `struct sockaddr_un` (include/uapi/linux/un.h).
const UNIX_PATH_MAX: usize = 108;

/// Under `--root`, the names `bind` gave the host (`/proc/thread-self/fd/N/NAME`) and the path
/// the guest gave for each, which `getsockname`, `getpeername`, `accept` and `recvfrom` report
/// as Linux reports the path given to `bind`.
static BOUND: std::sync::Mutex<Vec<(Vec<u8>, Vec<u8>)>> = std::sync::Mutex::new(Vec::new());

/// At most this many bound names are remembered (the oldest go first).
const BOUND_MAX: usize = 1024;

/// Under `--root`, the path of an `AF_UNIX` address looked up in the guest's root, the address
/// rewritten (in place; its length changes) to the descriptor path of what the lookup found,
/// which the host walks no further: for `bind` the name in the directory found (remembered
/// with the guest's path, [`BOUND`]), for `connect`, `sendto` and `sendmsg` the socket file.
/// The result holds the descriptors that path names. Abstract and unnamed addresses stay as
/// they are. Errors: the lookup's (`EXDEV` from a working directory outside the root),
/// `ENAMETOOLONG`.
fn unix_in_root(t: &Task, sa: &mut Vec<u8>, bind: bool) -> Result<Option<super::path::HostPath>, Errno> {
    let unix = sa.len() > 2 && i32::from(u16::from_ne_bytes([sa[0], sa[1]])) == libc::AF_UNIX && sa[2] != 0;
    if !unix || !super::rootfs::active() {
        return Ok(None);
    }
    let path: Vec<u8> = sa[2..].iter().take_while(|&&b| b != 0).copied().collect();
    if bind && !path.contains(&b'/') && path != b"." && path != b".." {
        // A name in the working directory, when that is inside the root: the host walks
        // nothing (bind never follows its last name) and keeps the name as the guest gave it
        // (`getsockname`, `sock_diag`'s `UNIX_DIAG_NAME`).
        return if super::rootfs::fd_inside(libc::AT_FDCWD) { Ok(None) } else { Err(Errno::EXDEV) };
    }
    let last = if bind { super::path::Last::NoFollow } else { super::path::Last::Follow };
    let hp = super::path::lookup(t, libc::AT_FDCWD, path.clone(), last)?;
    let host = hp.to_bytes().to_vec();
    if host.len() >= UNIX_PATH_MAX {
        return Err(Errno::ENAMETOOLONG);
    }
    if bind {
        let mut b = BOUND.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        b.retain(|(h, _)| *h != host);
        if b.len() >= BOUND_MAX {
            b.remove(0);
        }
        b.push((host.clone(), path));
    }
    sa.truncate(2);
    sa.extend_from_slice(&host);
    sa.push(0);
    Ok(Some(hp))
}

/// Under `--root`, an `AF_UNIX` address the host gives back (`getsockname`, `accept`,
/// `recvfrom`…) with its host path seen from the guest's root; returns the new length.
fn unix_out(sa: &mut [u8], len: usize) -> usize {
    let len = len.min(sa.len());
    let unix = len > 3 && i32::from(u16::from_ne_bytes([sa[0], sa[1]])) == libc::AF_UNIX && sa[2] == b'/';
    if !unix || !super::rootfs::active() {
        return len;
    }
    let path: Vec<u8> = sa[2..len].iter().take_while(|&&b| b != 0).copied().collect();
    let given = BOUND
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .find(|(h, _)| *h == path)
        .map(|(_, g)| g.clone());
    match given
        .or_else(|| super::rootfs::guest_view(&path))
        .filter(|g| g.len() < UNIX_PATH_MAX && 2 + g.len() < sa.len())
    {
        Some(g) => {
            sa[2..2 + g.len()].copy_from_slice(&g);
            sa[2 + g.len()] = 0;
            2 + g.len() + 1
        }
        None => len,
    }
}

fn in_ptr(sa: &Option<Vec<u8>>) -> *const libc::sockaddr {
    sa.as_ref().map_or(std::ptr::null(), |v| v.as_ptr().cast())
}

/// A guest `(struct sockaddr *, socklen_t *)` output: the host fills a local address, then
/// [`AddrOut::finish`] copies at most the guest's length back and stores the full length.
struct AddrOut {
    addr: GuestAddr,
    lenp: GuestAddr,
    guest_len: u32,
    buf: [u8; SOCKADDR_MAX as usize],
    len: libc::socklen_t,
    deferred: bool,
}

impl AddrOut {
    fn new(t: &Task, addr: GuestAddr, lenp: GuestAddr) -> Result<AddrOut, Errno> {
        let guest_len = if lenp.is_null() { 0 } else { t.mm.read_u32(lenp)? };
        if int32(guest_len) < 0 {
            return Err(Errno::EINVAL);
        }
        if !lenp.is_null() {
            t.mm.check_writable(lenp, 4)?;
        }
        Ok(AddrOut { addr, lenp, guest_len, buf: [0; SOCKADDR_MAX as usize], len: SOCKADDR_MAX, deferred: false })
    }

    /// For `accept4` and `recvfrom`, which read the guest's length only after the call took
    /// the connection or the data (net/socket.c `move_addr_to_user`): a bad length pointer
    /// is an `EFAULT` from [`AddrOut::finish`].
    fn deferred(addr: GuestAddr, lenp: GuestAddr) -> AddrOut {
        AddrOut { addr, lenp, guest_len: 0, buf: [0; SOCKADDR_MAX as usize], len: SOCKADDR_MAX, deferred: true }
    }

    /// Pointers for the host call (NULL when the guest passed no length).
    fn ptrs(&mut self) -> (*mut libc::sockaddr, *mut libc::socklen_t) {
        if self.lenp.is_null() || self.addr.is_null() {
            (std::ptr::null_mut(), std::ptr::null_mut())
        } else {
            (self.buf.as_mut_ptr().cast(), &mut self.len)
        }
    }

    fn finish(mut self, t: &mut Task) -> Result<(), Errno> {
        if self.lenp.is_null() || self.addr.is_null() {
            return Ok(());
        }
        if self.deferred {
            self.guest_len = t.mm.read_u32(self.lenp)?;
            if int32(self.guest_len) < 0 {
                return Err(Errno::EINVAL);
            }
        }
        self.len = libc::socklen_t::try_from(unix_out(&mut self.buf, self.len as usize)).unwrap_or(self.len);
        let n = self.len.min(self.guest_len).min(SOCKADDR_MAX) as usize;
        if t.mm.endian() != Endian::HOST {
            let full = (self.len as usize).min(self.buf.len());
            swap_sockaddr(&mut self.buf[..full], true);
        }
        t.mm.write_bytes(self.addr, &self.buf[..n])?;
        t.mm.write_u32(self.lenp, self.len)
    }
}

/// `bind(int fd, const struct sockaddr *addr, socklen_t len)`.
pub fn bind(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut sa = addr_in(cpu.get_data(), a.ptr(1), a.raw(2))?;
    let (_hold, len) = match sa.as_mut() {
        Some(v) => (unix_in_root(cpu.get_data(), v, true)?, crate::abi::low32(v.len() as u64)),
        None => (None, a.uint(2)),
    };
    // SAFETY: a local copy of the address.
    host_ret(i64::from(unsafe { libc::bind(a.int(0), in_ptr(&sa), len) }))
}

/// `connect(int fd, const struct sockaddr *addr, socklen_t len)`.
pub fn connect(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut sa = addr_in(cpu.get_data(), a.ptr(1), a.raw(2))?;
    let (_hold, len) = match sa.as_mut() {
        Some(v) => (unix_in_root(cpu.get_data(), v, false)?, v.len() as u64),
        None => (None, u64::from(a.uint(2))),
    };
    // SAFETY: a local copy of the address.
    host_ret(blocking_syscall(cpu.get_data_mut(), libc::SYS_connect, &[a.int_arg(0), in_ptr(&sa) as u64, len]))
}

/// `listen(int fd, int backlog)`.
pub fn listen(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::listen(a.int(0), a.int(1)) }))
}

/// `accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)`.
pub fn accept4(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let mut out = AddrOut::deferred(a.ptr(1), a.ptr(2));
    let (p, l) = out.ptrs();
    // SOCK_NONBLOCK and SOCK_CLOEXEC in the host's numbering (MIPS's SOCK_NONBLOCK is 0x80).
    let flags = bits64((t.arch.info().socket_type_to_host)(a.int(3)));
    // SAFETY: local buffers (or NULL).
    let fd = host_ret(blocking_syscall(t, libc::SYS_accept4, &[a.int_arg(0), p as u64, l as u64, flags]))?;
    if let Err(e) = out.finish(t) {
        // The connection is taken and its socket released, as Linux's `do_accept` does.
        // SAFETY: the descriptor the host just made, not yet the guest's.
        unsafe { libc::close(super::as_int(fd)) };
        return Err(e);
    }
    Ok(fd)
}

/// `accept(int fd, struct sockaddr *addr, socklen_t *len)` (x86_64).
pub fn accept(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    accept4(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), 0, 0, 0]))
}

/// `shutdown(int fd, int how)`.
pub fn shutdown(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(i64::from(unsafe { libc::shutdown(a.int(0), a.int(1)) }))
}

/// `getsockname(int fd, struct sockaddr *addr, socklen_t *len)`.
pub fn getsockname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    socket_name(cpu, a, libc::getsockname)
}

/// `getpeername(int fd, struct sockaddr *addr, socklen_t *len)`.
pub fn getpeername(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    socket_name(cpu, a, libc::getpeername)
}

/// The socket's own address or its peer's, as the host's `name` call (`getsockname`,
/// `getpeername`) gives it, into the guest's `addr` and `len`.
fn socket_name(
    cpu: &mut Cpu<'_>,
    a: &SyscallArgs,
    name: unsafe extern "C" fn(libc::c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> libc::c_int,
) -> SysResult {
    let t = cpu.get_data_mut();
    let mut out = AddrOut::new(t, a.ptr(1), a.ptr(2))?;
    let (p, l) = out.ptrs();
    // SAFETY: local buffers.
    host_ret(i64::from(unsafe { name(a.int(0), p, l) }))?;
    out.finish(t)?;
    Ok(0)
}

/// `setsockopt(int fd, int level, int name, const void *val, socklen_t len)`.
/// The value is copied in; its `int` members are put in host order (`sockopt_swap`).
pub fn setsockopt(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let len = (a.raw(4) & 0xffff_ffff).min(1 << 16);
    // Linux reads of the value only what the option needs (an `int` reads 4 bytes whatever
    // `len` says): a value that runs off the guest's memory is given to the host as a copy
    // of its readable part before a guard, and the host's copy faults where Linux's would.
    let readable = if a.raw(3) == 0 { 0 } else { t.mm.accessible_prefix(a.raw(3), len, crate::mm::Prot::READ) };
    let partial = a.raw(3) != 0 && readable < len;
    let mut v = if a.raw(3) == 0 { Vec::new() } else { t.mm.read_vec(a.ptr(3), crate::abi::u64_to_usize(readable))? };
    let (level, name) = (t.arch.info().sockopt_to_host)(a.int(1), a.int(2));
    let mut len = len as u32;
    if partial {
        if timeval_opt(t, level, name, &[0u8; 64])?.is_some() {
            return Err(Errno::EFAULT);
        }
        if t.mm.endian() != Endian::HOST {
            sockopt_swap(&mut v);
        }
        let b = crate::guest::shaped::HostBuf::guarded_copy(&v, u64::from(len))?;
        // SAFETY: `len` bytes: the copy of the readable part, then its guard.
        return host_ret(i64::from(unsafe { libc::setsockopt(a.int(0), level, name, b.ptr().cast(), len) }));
    }
    if let Some(tv) = timeval_opt(t, level, name, &v)? {
        v = tv;
        len = u32::try_from(v.len()).map_err(|_| Errno::EINVAL)?;
    } else if t.mm.endian() != Endian::HOST {
        sockopt_swap(&mut v);
    }
    let p = if a.raw(3) == 0 { std::ptr::null() } else { v.as_ptr() };
    // SAFETY: a local copy of the value.
    host_ret(i64::from(unsafe { libc::setsockopt(a.int(0), level, name, p.cast(), len) }))
}

/// Socket option values are `int`s or structs of `int`s (`linger`, `ucred`, `ip_mreq`'s
/// addresses are network order but 4 bytes wide too): swapped as 32-bit words between byte
/// orders. A trailing partial word is left alone.
fn sockopt_swap(v: &mut [u8]) {
    for w in v.chunks_exact_mut(4) {
        w.reverse();
    }
}

/// `SO_RCVTIMEO_OLD`/`SO_SNDTIMEO_OLD` take a `struct timeval` (two guest `long`s): converted
/// to the host's.
fn timeval_opt(t: &Task, level: i32, name: i32, guest: &[u8]) -> Result<Option<Vec<u8>>, Errno> {
    if level != libc::SOL_SOCKET || (name != libc::SO_RCVTIMEO && name != libc::SO_SNDTIMEO) {
        return Ok(None);
    }
    let m = t.mm.model();
    if guest.len() < crate::abi::thunk::size_of(TIMEVAL, m) {
        return Err(Errno::EINVAL);
    }
    let mut host = vec![0u8; 16];
    crate::abi::thunk::convert(TIMEVAL, m, guest, crate::mm::DataModel::HOST, &mut host);
    Ok(Some(host))
}

/// `getsockopt(int fd, int level, int name, void *val, socklen_t *len)`.
pub fn getsockopt(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let glen = t.mm.read_u32(a.ptr(4))?;
    if int32(glen) < 0 {
        return Err(Errno::EINVAL);
    }
    t.mm.check_writable(a.ptr(4), 4)?;
    let (level, name) = (t.arch.info().sockopt_to_host)(a.int(1), a.int(2));
    let mut v = vec![0u8; (glen as usize).clamp(16, 1 << 16)];
    let mut len = libc::socklen_t::try_from(v.len()).map_err(|_| Errno::EINVAL)?;
    // SAFETY: a local buffer of `len` bytes.
    host_ret(i64::from(unsafe { libc::getsockopt(a.int(0), level, name, v.as_mut_ptr().cast(), &mut len) }))?;
    v.truncate(len as usize);
    if (level, name) == (libc::SOL_SOCKET, libc::SO_ERROR) && v.len() == 4 {
        let mut e = i32::from_ne_bytes([v[0], v[1], v[2], v[3]]);
        if e == 0 {
            // An error recvmmsg left for later is the socket's pending error.
            e = take_deferred(a.int(0)).map_or(0, Errno::into_raw);
        }
        // The guest's number for it (MIPS numbers errors its own way).
        v.copy_from_slice(&(t.arch.info().errno_from_host)(e).to_ne_bytes());
    }
    if (level, name) == (libc::SOL_SOCKET, libc::SO_TYPE) && v.len() == 4 {
        let ty = (t.arch.info().socket_type_from_host)(i32::from_ne_bytes([v[0], v[1], v[2], v[3]]));
        v.copy_from_slice(&ty.to_ne_bytes());
    }
    if level == libc::SOL_SOCKET && (name == libc::SO_RCVTIMEO || name == libc::SO_SNDTIMEO) && v.len() >= 16 {
        let m = t.mm.model();
        let mut g = vec![0u8; crate::abi::thunk::size_of(TIMEVAL, m)];
        crate::abi::thunk::convert(TIMEVAL, crate::mm::DataModel::HOST, &v, m, &mut g);
        v = g;
    } else if t.mm.endian() != Endian::HOST {
        sockopt_swap(&mut v);
    }
    let n = v.len().min(glen as usize);
    t.mm.write_bytes(a.ptr(3), &v[..n])?;
    t.mm.write_u32(a.ptr(4), u32::try_from(v.len()).map_err(|_| Errno::EINVAL)?)?;
    Ok(0)
}

/// `sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen)`.
pub fn sendto(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let mut buf = t.buf_in(a.ptr(1), a.raw(2))?;
    let mut to = addr_in(t, a.ptr(4), a.raw(5))?;
    let (_hold, tolen) = match to.as_mut() {
        Some(v) => (unix_in_root(t, v, false)?, v.len() as u64),
        None => (None, u64::from(a.uint(5))),
    };
    // Netlink messages of a guest of the other byte order go from a converted copy.
    // SAFETY: `buf` is the checked guest buffer of `len` bytes.
    let copy = unsafe { super::netlink::before_write(t, a.int(0), buf, a.size(2)) };
    if let Some(v) = &copy {
        buf = v.as_ptr();
    }
    // SAFETY: a checked guest buffer (or its converted copy) and a local address.
    host_ret(blocking_syscall(
        cpu.get_data_mut(),
        libc::SYS_sendto,
        &[a.int_arg(0), buf as u64, a.raw(2), a.int_arg(3), in_ptr(&to) as u64, tolen],
    ))
}

/// [`sendto`] without the global guest lock ([`super::unlocked`]) when it names no
/// destination (`send(fd, buf, len, flags)`, send(2)): a buffer inside one plain readable
/// span of the thread's view, data that needs no conversion ([`Ctx::io_view`]: no netlink
/// socket this guest's messages are converted for). Errors: the host's.
pub fn sendto_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    if a.raw(4) != 0 {
        return None;
    }
    let p = ctx.io_view()?.host_range(a.raw(1), a.raw(2), Prot::READ)?;
    let args = [a.int_arg(0), p as u64, a.raw(2), a.int_arg(3), 0, u64::from(a.uint(5))];
    Some(host_ret(ctx.blocking_syscall(libc::SYS_sendto, &args)))
}

/// `recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fromlen)`.
pub fn recvfrom(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    // The buffer is checked as the host copies into it (with nothing queued, a bad buffer is
    // EAGAIN), the address written after the data was taken.
    let b = t.buf_out_lazy(a.ptr(1), a.raw(2))?;
    let buf = b.ptr();
    let mut out = AddrOut::deferred(a.ptr(4), a.ptr(5));
    let (from, l) = out.ptrs();
    // SAFETY: a guest buffer (or a host copy with its guard) and local address buffers.
    let r = host_ret(blocking_syscall(
        t,
        libc::SYS_recvfrom,
        &[a.int_arg(0), buf as u64, b.len(), a.int_arg(3), from as u64, l as u64],
    ));
    let n = match r {
        Ok(n) => n,
        Err(e) => {
            b.finish(t);
            return Err(e);
        }
    };
    // With MSG_TRUNC the length may be the datagram's, more than the buffer got.
    // SAFETY: the buffer the host just filled.
    unsafe { super::netlink::after_read(t, a.int(0), buf, n.min(b.len())) };
    b.finish(t);
    out.finish(t)?;
    Ok(n)
}

/// [`recvfrom`] without the global guest lock when it asks for no source address
/// (`recv(fd, buf, len, flags)`, recv(2); the length pointer is then ignored, as by Linux): a
/// buffer inside one plain writable span of the thread's view, data that needs no
/// conversion ([`Ctx::io_view`]). Errors: the host's.
pub fn recvfrom_unlocked(ctx: &Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    if a.raw(4) != 0 {
        return None;
    }
    let p = ctx.io_view()?.host_range(a.raw(1), a.raw(2), Prot::WRITE)?;
    let args = [a.int_arg(0), p as u64, a.raw(2), a.int_arg(3), 0, 0];
    Some(host_ret(ctx.blocking_syscall(libc::SYS_recvfrom, &args)))
}

/// A guest `struct msghdr` made into a host one: iovecs point at checked guest buffers, the
/// name and control buffers are local copies (converted between data models).
struct HostMsg {
    hdr: UserMsghdr,
    iovs: super::io::LazyIovecs,
    name: Vec<u8>,
    control: Vec<u8>,
    /// The descriptors an `AF_UNIX` name under `--root` names ([`unix_in_root`]).
    _hold: Option<super::path::HostPath>,
}

/// Builds the host message for the guest msghdr at `addr`; `out` for recvmsg.
fn host_msghdr(t: &mut Task, addr: GuestAddr, out: bool) -> Result<HostMsg, Errno> {
    let hdr: UserMsghdr = t.mm.read_shape(addr, MSGHDR)?;
    if hdr.iovlen > MMSG_MAX {
        // net/socket.c `copy_msghdr_from_user`: more than UIO_MAXIOV iovecs is EMSGSIZE here.
        return Err(Errno::EMSGSIZE);
    }
    let iovs = super::io::LazyIovecs::new(t, GuestAddr::new(hdr.iov), hdr.iovlen, out)?;
    let namelen = u64::from(hdr.namelen).min(u64::from(SOCKADDR_MAX));
    let name = if hdr.name == 0 {
        Vec::new()
    } else if out {
        t.mm.check_writable(GuestAddr::new(hdr.name), namelen)?;
        vec![0u8; SOCKADDR_MAX as usize]
    } else {
        addr_in(t, GuestAddr::new(hdr.name), namelen)?.unwrap_or_default()
    };
    let mut name = name;
    let hold = if out { None } else { unix_in_root(t, &mut name, false)? };
    let clen = hdr.controllen.min(1 << 20);
    let control = if hdr.control == 0 || clen == 0 {
        Vec::new()
    } else if out {
        // A buffer just below a grows-down stack: Linux's copy would grow the stack, and the
        // call cannot be served again once the data is taken, so the stack grows first.
        if t.mm.check_writable(GuestAddr::new(hdr.control), clen).is_err() {
            if let Some(a) = t.mm.take_grow_request() {
                let _ = t.mm.grow_down(a);
            }
        }
        // No other check of the guest's buffer here: Linux writes the control messages one by one
        // after the data is received, and a fault there loses the message, not the data
        // ([`cmsg::to_guest`]). The host gets the guest's room, plus what its larger headers take (16 vs 12 bytes
        // each on ILP32, at most one header per 12 guest bytes): the messages that fit the
        // guest then fit the host, and [`cmsg::to_guest`] trims the rest as the kernel would.
        let extra = if t.mm.model() == crate::mm::DataModel::HOST { 0 } else { clen.div_ceil(12) * 8 };
        vec![0u8; u64_to_usize(clen + extra)]
    } else {
        let mut c = cmsg::to_host(t.mm.model(), &t.mm.read_vec(GuestAddr::new(hdr.control), clen as usize)?);
        cmsg::relevel(&mut c, t.arch.info().sol_socket, libc::SOL_SOCKET);
        c
    };
    Ok(HostMsg { hdr, iovs, name, control, _hold: hold })
}

impl HostMsg {
    fn raw(&mut self, out: bool) -> libc::msghdr {
        // SAFETY: plain data; the fields that matter are set below.
        let mut h: libc::msghdr = unsafe { std::mem::zeroed() };
        if !self.name.is_empty() {
            h.msg_name = self.name.as_mut_ptr().cast();
            h.msg_namelen = if out { SOCKADDR_MAX } else { u32::try_from(self.name.len()).unwrap_or(SOCKADDR_MAX) };
        }
        h.msg_iov = self.iovs.iov.as_mut_ptr();
        h.msg_iovlen = self.iovs.iov.len();
        if !self.control.is_empty() {
            h.msg_control = self.control.as_mut_ptr().cast();
            h.msg_controllen = self.control.len();
        }
        h.msg_flags = int32(self.hdr.flags);
        h
    }
}

/// `sendmsg(int fd, const struct msghdr *msg, int flags)` (sendmsg(2)).
pub fn sendmsg(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    send_one(cpu.get_data_mut(), a.int_arg(0), a.ptr(1), a.int_arg(2))
}

/// One `sendmsg` of the guest's msghdr at `msg` (`fd`, `flags` as host arguments).
fn send_one(t: &mut Task, fd: u64, msg: GuestAddr, flags: u64) -> SysResult {
    let mut m = host_msghdr(t, msg, false)?;
    let mut h = m.raw(false);
    // Netlink messages of a guest of the other byte order go gathered into a converted copy.
    if !m.iovs.is_direct() && super::netlink::protocol(t, super::as_int(fd)).is_some() {
        // Netlink messages are converted whole (and copied whole by the kernel).
        return Err(Errno::EFAULT);
    }
    let mut copy = super::netlink::before_writev(t, super::as_int(fd), &m.iovs.iov);
    let mut one = libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 };
    if let Some(v) = &mut copy {
        one.iov_base = v.as_mut_ptr().cast();
        one.iov_len = v.len();
        h.msg_iov = &mut one;
        h.msg_iovlen = 1;
    }
    // SAFETY: `h` points only at checked guest buffers and `m`'s local buffers.
    host_ret(blocking_syscall(t, libc::SYS_sendmsg, &[fd, &h as *const libc::msghdr as u64, flags]))
}

/// `recvmsg(int fd, struct msghdr *msg, int flags)` (recvmsg(2)); the name, control messages,
/// and the lengths and flags the kernel updates are written back to the guest's msghdr.
pub fn recvmsg(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    recv_one(cpu.get_data_mut(), a.int_arg(0), a.ptr(1), a.int_arg(2))
}

/// One `recvmsg` into the guest's msghdr at `msg`, which gets the name, control messages,
/// lengths and flags back.
fn recv_one(t: &mut Task, fd: u64, msg: GuestAddr, flags: u64) -> SysResult {
    let mut m = host_msghdr(t, msg, true)?;
    let mut h = m.raw(true);
    // SAFETY: `h` points only at checked guest buffers and `m`'s local buffers.
    let r = host_ret(blocking_syscall(t, libc::SYS_recvmsg, &[fd, &mut h as *mut libc::msghdr as u64, flags]));
    let n = match r {
        Ok(n) => n,
        Err(e) => {
            m.iovs.finish(t);
            return Err(e);
        }
    };
    if h.msg_controllen > 0 {
        // Descriptors may have arrived (SCM_RIGHTS): netlink sockets among them are looked for.
        super::netlink::note_received_fds();
    }
    super::netlink::after_readv(t, super::as_int(fd), &m.iovs.iov, n);
    m.iovs.finish(t);
    let mut hdr = m.hdr;
    let mut flags = h.msg_flags;
    if hdr.name != 0 {
        let full = (h.msg_namelen as usize).min(m.name.len());
        let full = unix_out(&mut m.name, full);
        h.msg_namelen = crate::abi::low32(full as u64);
        if t.mm.endian() != Endian::HOST {
            swap_sockaddr(&mut m.name[..full], true);
        }
        t.mm.write_bytes(GuestAddr::new(hdr.name), &m.name[..full.min(hdr.namelen as usize)])?;
        hdr.namelen = h.msg_namelen;
    }
    if hdr.control != 0 && !m.control.is_empty() {
        let cap = u64_to_usize(hdr.controllen);
        // The bytes the guest can write from the buffer's start: Linux's copies to the
        // buffer fault past them.
        let room = t.mm.accessible_prefix(hdr.control, cap as u64, crate::mm::Prot::WRITE);
        let put = cmsg::to_guest(t.mm.model(), t.arch.info(), &m.control[..h.msg_controllen], cap, room);
        for (off, bytes) in &put.writes {
            let n = bytes.len().min(u64_to_usize(room).saturating_sub(*off));
            // A copy the guest's pages refuse is lost, as the kernel's put_cmsg ignores its
            // EFAULT; `room` already keeps these within the writable prefix.
            let _ = t.mm.write_bytes(GuestAddr::new(hdr.control) + *off as u64, &bytes[..n]);
        }
        hdr.controllen = put.used as u64;
        if put.truncated {
            flags |= libc::MSG_CTRUNC;
        }
    } else {
        hdr.controllen = 0;
    }
    hdr.flags = low32(flags);
    t.mm.write_shape(msg, MSGHDR, &hdr)?;
    Ok(n)
}

/// `UIO_MAXIOV`: the most messages one `sendmmsg`/`recvmmsg` handles (the kernel caps `vlen`)
/// and the most iovecs one msghdr may have.
const MMSG_MAX: u64 = 1024;

/// Bytes between two `struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; }` of
/// the guest, and the offset of `msg_len` (include/linux/socket.h).
fn mmsghdr_layout(t: &Task) -> (u64, u64) {
    let hdr = t.mm.shape_size(MSGHDR);
    let lb = t.mm.long_bytes();
    ((hdr + 4).next_multiple_of(lb), hdr)
}

/// `sendmmsg(int fd, struct mmsghdr *msgvec, unsigned int vlen, int flags)` (sendmmsg(2)):
/// each message as `sendmsg`, its `msg_len` written back. Returns how many were sent; an
/// error after the first is left for the next call, as the kernel does. Errors: those of
/// `sendmsg` for the first message.
pub fn sendmmsg(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let (stride, len_at) = mmsghdr_layout(t);
    let vlen = u64::from(a.uint(2)).min(MMSG_MAX);
    let mut sent = 0;
    while sent < vlen {
        let at = a.ptr(1) + sent * stride;
        match send_one(t, a.int_arg(0), at, a.int_arg(3)) {
            Ok(n) => t.mm.write_u32(at + len_at, low32(n))?,
            Err(e) if sent == 0 => return Err(e),
            Err(_) => break,
        }
        sent += 1;
    }
    Ok(sent)
}

/// The errors `recvmmsg` met after it had received a datagram, left for the socket's next
/// `recvmmsg` or `SO_ERROR` as the kernel leaves them in `sk_err` (net/socket.c
/// `do_recvmmsg`): per socket (its device and inode), in this process.
static DEFERRED: std::sync::Mutex<Vec<((u64, u64), Errno)>> = std::sync::Mutex::new(Vec::new());

/// The socket behind host fd `fd`: its (device, inode), or `None` if `fstat` fails.
fn socket_id(fd: i32) -> Option<(u64, u64)> {
    // SAFETY: an all-zero `stat` is valid; `fstat` fills it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a local `stat`.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// Leaves `e` for the next `recvmmsg`/`SO_ERROR` on socket `fd`.
fn defer_error(fd: i32, e: Errno) {
    if let Some(id) = socket_id(fd) {
        let mut d = DEFERRED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        d.retain(|(k, _)| *k != id);
        d.push((id, e));
    }
}

/// Takes the error left on socket `fd` by an earlier `recvmmsg`, if any.
fn take_deferred(fd: i32) -> Option<Errno> {
    let mut d = DEFERRED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if d.is_empty() {
        return None;
    }
    let id = socket_id(fd)?;
    let i = d.iter().position(|(k, _)| *k == id)?;
    Some(d.swap_remove(i).1)
}

fn recvmmsg_with(cpu: &mut Cpu<'_>, a: &SyscallArgs, ts_shape: &'static crate::abi::thunk::Shape) -> SysResult {
    let t = cpu.get_data_mut();
    let (stride, len_at) = mmsghdr_layout(t);
    let vlen = u64::from(a.uint(2)).min(MMSG_MAX);
    // The timeout is checked after each message (recvmmsg(2) BUGS), not while one waits.
    let timeout: Option<libc::timespec> = if a.raw(4) == 0 { None } else { Some(t.mm.read_shape(a.ptr(4), ts_shape)?) };
    // A timeout that is not a valid timespec is EINVAL before the descriptor is looked at
    // (`poll_select_set_timeout`).
    if timeout.is_some_and(|ts| ts.tv_sec < 0 || !(0..1_000_000_000).contains(&ts.tv_nsec)) {
        return Err(Errno::EINVAL);
    }
    let deadline = timeout.map(|ts| {
        std::time::Instant::now()
            + std::time::Duration::new(
                u64::try_from(ts.tv_sec).unwrap_or(0),
                u32::try_from(ts.tv_nsec.clamp(0, 999_999_999)).unwrap_or(0),
            )
    });
    let mut flags = a.int(3);
    if flags & libc::MSG_ERRQUEUE == 0 {
        if let Some(e) = take_deferred(a.int(0)) {
            return Err(e);
        }
    }
    let mut got = 0;
    while got < vlen {
        let at = a.ptr(1) + got * stride;
        match recv_one(t, a.int_arg(0), at, bits64(flags & !libc::MSG_WAITFORONE)) {
            Ok(n) => t.mm.write_u32(at + len_at, low32(n))?,
            Err(e) if got == 0 => return Err(e),
            // An error after a datagram is the socket's pending error (EAGAIN is no error
            // here: a non-blocking call simply took what there was).
            Err(e) => {
                if e != Errno::EAGAIN && e != Errno::EINTR && e != Errno::ERESTARTNOINTR {
                    defer_error(a.int(0), e);
                }
                break;
            }
        }
        got += 1;
        if flags & libc::MSG_WAITFORONE != 0 {
            flags |= libc::MSG_DONTWAIT;
        }
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break;
        }
    }
    if let (Some(d), true) = (deadline, a.raw(4) != 0) {
        let left = d.saturating_duration_since(std::time::Instant::now());
        let ts = libc::timespec {
            tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        t.mm.write_shape(a.ptr(4), ts_shape, &ts)?;
    }
    Ok(got)
}

/// `recvmmsg(int fd, struct mmsghdr *msgvec, unsigned int vlen, int flags, struct timespec
/// *timeout)` (recvmmsg(2)): each message as `recvmsg`; `MSG_WAITFORONE` makes all but the
/// first non-blocking. Errors: those of `recvmsg` for the first message, `EFAULT`.
pub fn recvmmsg(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    recvmmsg_with(cpu, a, crate::abi::shapes::TIMESPEC)
}

/// `recvmmsg_time64`: the same with a 64-bit `struct __kernel_timespec` (32-bit guests).
pub fn recvmmsg_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    recvmmsg_with(cpu, a, crate::abi::shapes::TIMESPEC64)
}

/// Control messages (`struct cmsghdr` + data, each padded to a `long` boundary) between the
/// guest's data model and the host's. A payload endgate knows the layout of is converted field
/// by field ([`payload`]: the socket timestamps, whose `long`s are 4 bytes on a 32-bit guest;
/// `IP_PKTINFO`/`IPV6_PKTINFO`, `IP_ORIGDSTADDR`/`IPV6_ORIGDSTADDR` and
/// `IP_RECVERR`/`IPV6_RECVERR`, whose addresses keep network byte order and whose families and
/// error fields take the guest's); any other is an array of 32-bit words (`SCM_RIGHTS` fds,
/// `SCM_CREDENTIALS`), swapped when byte orders differ.
mod cmsg {
    use crate::abi::shapes::{CMSGHDR, TIMEVAL};
    use crate::abi::thunk::{size_of, Field as F, Shape};
    use crate::mm::DataModel;

    /// `SO_TIMESTAMP_NEW`, `SO_TIMESTAMPNS_NEW`, `SO_TIMESTAMPING_NEW` (asm-generic/socket.h):
    /// the `time64` forms, two (three times two) `__s64` on every arch.
    const SO_TIMESTAMP_NEW: i32 = 63;
    const SO_TIMESTAMPNS_NEW: i32 = 64;
    const SO_TIMESTAMPING_NEW: i32 = 65;
    /// `struct scm_timestamping`: three `struct timespec`s.
    static TIMESPEC3: &Shape = &[F::Long, F::Long, F::Long, F::Long, F::Long, F::Long];
    /// `struct __kernel_sock_timeval` / `__kernel_timespec`: two `__s64`.
    static I64X2: &Shape = &[F::I64, F::I64];
    /// `struct scm_timestamping64`: three `__kernel_timespec`s.
    static I64X6: &Shape = &[F::I64, F::I64, F::I64, F::I64, F::I64, F::I64];
    /// `struct in_pktinfo` (linux/in.h): `int ipi_ifindex`, two `struct in_addr` in network
    /// byte order.
    static IN_PKTINFO: &Shape = &[F::I32, F::Bytes(8)];
    /// `struct in6_pktinfo` (linux/ipv6.h): `struct in6_addr`, `int ipi6_ifindex`.
    static IN6_PKTINFO: &Shape = &[F::Bytes(16), F::I32];
    /// `struct sockaddr_in` (linux/in.h): the family in the CPU's byte order, then port,
    /// address and padding in network byte order (`IP_ORIGDSTADDR`).
    static SOCKADDR_IN: &Shape = &[F::U16, F::Bytes(14)];
    /// `struct sockaddr_in6` (linux/in6.h): the family, then port, flow label and address in
    /// network byte order, then `sin6_scope_id` in the CPU's (`IPV6_ORIGDSTADDR`).
    static SOCKADDR_IN6: &Shape = &[F::U16, F::Bytes(22), F::U32];
    /// `struct sock_extended_err` (linux/errqueue.h): `ee_errno`, four bytes (`ee_origin`,
    /// `ee_type`, `ee_code`, `ee_pad`), `ee_info`, `ee_data`.
    static SOCK_EE: &Shape = &[F::U32, F::U8, F::U8, F::U8, F::U8, F::U32, F::U32];
    /// `IP_RECVERR`/`IPV6_RECVERR`: the error, then the offender's address (`SO_EE_OFFENDER`),
    /// IPv4 or IPv6 by its size.
    static RECVERR_IN: &Shape = &[F::Struct(SOCK_EE), F::Struct(SOCKADDR_IN)];
    static RECVERR_IN6: &Shape = &[F::Struct(SOCK_EE), F::Struct(SOCKADDR_IN6)];

    /// The data of a message of `level`/`ty` (host numbering) from model `from` to model `to`.
    fn payload(level: i32, ty: i32, data: &[u8], from: DataModel, to: DataModel) -> Vec<u8> {
        let shape = match (level, ty) {
            // `struct timeval` / `struct timespec` of the old ABI: two `long`s.
            (libc::SOL_SOCKET, libc::SO_TIMESTAMP | libc::SO_TIMESTAMPNS) => Some(TIMEVAL),
            (libc::SOL_SOCKET, libc::SO_TIMESTAMPING) => Some(TIMESPEC3),
            (libc::SOL_SOCKET, SO_TIMESTAMP_NEW | SO_TIMESTAMPNS_NEW) => Some(I64X2),
            (libc::SOL_SOCKET, SO_TIMESTAMPING_NEW) => Some(I64X6),
            (libc::IPPROTO_IP, libc::IP_PKTINFO) => Some(IN_PKTINFO),
            (libc::IPPROTO_IPV6, libc::IPV6_PKTINFO) => Some(IN6_PKTINFO),
            (libc::IPPROTO_IP, libc::IP_ORIGDSTADDR) => Some(SOCKADDR_IN),
            (libc::IPPROTO_IPV6, libc::IPV6_ORIGDSTADDR) => Some(SOCKADDR_IN6),
            (libc::IPPROTO_IP, libc::IP_RECVERR) | (libc::IPPROTO_IPV6, libc::IPV6_RECVERR) => {
                [RECVERR_IN, RECVERR_IN6].into_iter().find(|s| data.len() == size_of(s, from))
            }
            _ => None,
        };
        match shape {
            Some(s) if data.len() == size_of(s, from) => {
                let mut out = vec![0u8; size_of(s, to)];
                crate::abi::thunk::convert(s, from, data, to, &mut out);
                out
            }
            _ => {
                let mut out = data.to_vec();
                if from.endian != to.endian {
                    for w in out.chunks_exact_mut(4) {
                        w.reverse();
                    }
                }
                out
            }
        }
    }

    /// `struct sock_extended_err`'s `ee_errno` (its first word, already in `to`'s byte order)
    /// in the guest's numbering.
    fn guest_ee_errno(data: &mut [u8], to: DataModel, errno_from_host: fn(i32) -> i32) {
        let Some(w) = data.get_mut(..4) else { return };
        let w: &mut [u8; 4] = w.try_into().expect("four bytes");
        let big = to.endian == crate::mm::Endian::Big;
        let host = if big { i32::from_be_bytes(*w) } else { i32::from_le_bytes(*w) };
        let guest = errno_from_host(host);
        *w = if big { guest.to_be_bytes() } else { guest.to_le_bytes() };
    }

    /// A message's level and type, from its header's last 8 bytes (host layout).
    fn level_type(lvl_type: [u8; 8]) -> (i32, i32) {
        (
            i32::from_ne_bytes([lvl_type[0], lvl_type[1], lvl_type[2], lvl_type[3]]),
            i32::from_ne_bytes([lvl_type[4], lvl_type[5], lvl_type[6], lvl_type[7]]),
        )
    }

    fn align(n: usize, m: DataModel) -> usize {
        n.next_multiple_of(usize::from(m.long_bytes))
    }

    fn read_hdr(b: &[u8], m: DataModel) -> (usize, [u8; 8]) {
        let mut h = [0u8; 24];
        crate::abi::thunk::convert(CMSGHDR, m, b, DataModel::HOST, &mut h[..16]);
        let len = u64::from_ne_bytes(h[0..8].try_into().unwrap_or_default());
        (usize::try_from(len).unwrap_or(usize::MAX), h[8..16].try_into().unwrap_or_default())
    }

    /// Re-lays every message of the guest's `src` (model `from`) in the host's layout, each
    /// padded to its `CMSG_SPACE` (sendmsg's control messages).
    fn relay(from: DataModel, src: &[u8]) -> Vec<u8> {
        let to = DataModel::HOST;
        if from == to {
            return src.to_vec();
        }
        let (fh, th) = (size_of(CMSGHDR, from), size_of(CMSGHDR, to));
        let mut out = Vec::new();
        let mut off = 0;
        while off + fh <= src.len() {
            let (len, lvl_type) = read_hdr(&src[off..], from);
            if len < fh || off + len > src.len() {
                break;
            }
            let (level, ty) = level_type(lvl_type);
            let data = payload(level, ty, &src[off + fh..off + len], from, to);
            let start = align(out.len(), to);
            out.resize(start + th, 0);
            let mut host_hdr = [0u8; 16];
            host_hdr[..8].copy_from_slice(&((th + data.len()) as u64).to_ne_bytes());
            host_hdr[8..16].copy_from_slice(&lvl_type);
            out[start..start + th].copy_from_slice(&host_hdr[..th]);
            out.extend_from_slice(&data);
            off += align(len, from);
        }
        let end = align(out.len(), to);
        out.resize(end, 0);
        out
    }

    /// Closes the host descriptors of an `SCM_RIGHTS` message (host layout, header `fh` bytes)
    /// past the first `kept` bytes of its data.
    fn close_rights(msg: &[u8], fh: usize, lvl_type: [u8; 8], kept: usize) {
        let level = i32::from_ne_bytes([lvl_type[0], lvl_type[1], lvl_type[2], lvl_type[3]]);
        let ty = i32::from_ne_bytes([lvl_type[4], lvl_type[5], lvl_type[6], lvl_type[7]]);
        if level != libc::SOL_SOCKET || ty != libc::SCM_RIGHTS {
            return;
        }
        for w in msg[fh..].chunks_exact(4).skip(kept / 4) {
            // SAFETY: a descriptor the host kernel just installed for this message and that
            // the guest will never learn about.
            unsafe { libc::close(i32::from_ne_bytes([w[0], w[1], w[2], w[3]])) };
        }
    }

    /// Renames `cmsg_level` `from` to `to` in every message of `buf` (an LP64 little-endian
    /// buffer: only arches whose `SOL_SOCKET` differs, which so far are such, change anything).
    pub fn relevel(buf: &mut [u8], from: i32, to: i32) {
        if from == to {
            return;
        }
        let mut off = 0;
        while off + 16 <= buf.len() {
            let len = crate::abi::u64_to_usize(u64::from_le_bytes(buf[off..off + 8].try_into().unwrap_or_default()));
            if len < 16 || off + len > buf.len() {
                break;
            }
            if i32::from_le_bytes(buf[off + 8..off + 12].try_into().unwrap_or_default()) == from {
                buf[off + 8..off + 12].copy_from_slice(&to.to_le_bytes());
            }
            off += len.next_multiple_of(8);
        }
    }

    /// Guest control bytes to host ones.
    pub fn to_host(guest: DataModel, src: &[u8]) -> Vec<u8> {
        relay(guest, src)
    }

    /// What a `recvmsg` writes into the guest's control buffer ([`to_guest`]).
    pub struct Put {
        /// The bytes written, each at its offset from the buffer's start, in the kernel's
        /// order (a message's padding is not written).
        pub writes: Vec<(usize, Vec<u8>)>,
        /// The buffer's bytes the messages used: the new `msg_controllen`.
        pub used: usize,
        /// Some message or descriptor did not fit: `MSG_CTRUNC`.
        pub truncated: bool,
    }

    /// The host's received control messages (host layout, `src`) put into a guest buffer of
    /// `cap` bytes (`msg_controllen`) whose first `room` bytes the guest can write, as Linux
    /// puts them (net/core/scm.c, net/compat.c for a 32-bit guest):
    /// - `SCM_RIGHTS` (`scm_detach_fds`): as many descriptors as fit in what is left of `cap`
    ///   are installed one by one, each written as it is installed; the first that cannot be
    ///   written stops it. The header is written if at least one was, and what is left
    ///   shrinks by `CMSG_SPACE` of those (at most what is left). `MSG_CTRUNC` unless all
    ///   arrived; the descriptors not delivered are closed here (the kernel never installs
    ///   them).
    /// - any other message (`put_cmsg`): nothing and `MSG_CTRUNC` if less than a header is
    ///   left; truncated to what is left with `MSG_CTRUNC`; written, and then what is left
    ///   shrinks by its `CMSG_SPACE`, unless the write faults: then it is lost (`EFAULT`,
    ///   which every caller ignores) and takes no room.
    ///
    /// Level `SOL_SOCKET` becomes the guest's (`info.sol_socket`), and the `ee_errno` of an
    /// `IP_RECVERR`/`IPV6_RECVERR` message the guest's number (`info.errno_from_host`: MIPS
    /// numbers differ). The caller writes only the first `room` bytes of `writes`, where the
    /// kernel's own copy would have faulted.
    pub fn to_guest(to: DataModel, info: &crate::guest::ArchInfo, src: &[u8], cap: usize, room: u64) -> Put {
        let sol_socket = info.sol_socket;
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        let (fh, th) = (size_of(CMSGHDR, DataModel::HOST), size_of(CMSGHDR, to));
        let mut put = Put { writes: Vec::new(), used: 0, truncated: false };
        let header = |len: usize, lvl_type: [u8; 8]| {
            let mut host_hdr = [0u8; 16];
            host_hdr[..8].copy_from_slice(&(len as u64).to_ne_bytes());
            host_hdr[8..16].copy_from_slice(&lvl_type);
            let level = i32::from_ne_bytes([lvl_type[0], lvl_type[1], lvl_type[2], lvl_type[3]]);
            if level == libc::SOL_SOCKET {
                host_hdr[8..12].copy_from_slice(&sol_socket.to_ne_bytes());
            }
            let mut out = vec![0u8; th];
            crate::abi::thunk::convert(CMSGHDR, DataModel::HOST, &host_hdr, to, &mut out);
            out
        };
        let mut off = 0;
        while off + fh <= src.len() {
            let (len, lvl_type) = read_hdr(&src[off..], DataModel::HOST);
            if len < fh || off + len > src.len() {
                break;
            }
            let msg = &src[off..off + len];
            off += align(len, DataModel::HOST);
            let (level, ty) = level_type(lvl_type);
            let mut data = payload(level, ty, &msg[fh..], DataModel::HOST, to);
            if matches!((level, ty), (libc::IPPROTO_IP, libc::IP_RECVERR) | (libc::IPPROTO_IPV6, libc::IPV6_RECVERR)) {
                guest_ee_errno(&mut data, to, info.errno_from_host);
            }
            let left = cap.saturating_sub(put.used);
            let at = put.used;
            if level == libc::SOL_SOCKET && ty == libc::SCM_RIGHTS {
                let n = data.len() / 4;
                let fit = if left > th { n.min((left - th) / 4) } else { 0 };
                let written = (0..fit).take_while(|i| at + th + 4 * i + 4 <= room).count();
                if written > 0 {
                    let mut bytes = header(th + 4 * written, lvl_type);
                    bytes.extend_from_slice(&data[..4 * written]);
                    put.writes.push((at, bytes));
                    put.used += align(th + 4 * written, to).min(left);
                }
                close_rights(msg, fh, lvl_type, 4 * written);
                put.truncated |= written < n;
                continue;
            }
            if left < th {
                put.truncated = true;
                continue;
            }
            let mut cmlen = th + data.len();
            if left < cmlen {
                put.truncated = true;
                cmlen = left;
            }
            let mut bytes = header(cmlen, lvl_type);
            bytes.extend_from_slice(&data[..cmlen - th]);
            let fits = at + cmlen <= room;
            put.writes.push((at, bytes));
            if fits {
                put.used += align(th + data.len(), to).min(left);
            }
        }
        put
    }
}
