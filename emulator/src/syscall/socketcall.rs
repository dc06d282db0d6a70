//! `socketcall`, the one entry point for every socket call that i386 and s390x had before
//! Linux 4.3 gave them direct ones, and that their glibc still uses for some calls.
//!
//! The call's arguments are an array of guest `unsigned long`s (4 bytes on i386, 8 on
//! s390x), read with [`crate::mm::AddressSpace::read_ulong`] and handed to the shared handlers
//! of [`super::net`]. The call numbers and argument counts are the kernel's
//! (include/uapi/linux/net.h, net/socket.c `nargs`).

use syscalls::Errno;

use super::{net, Handler, SysResult};
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// `socketcall` call numbers (include/uapi/linux/net.h `SYS_SOCKET` … `SYS_SENDMMSG`).
pub mod call {
    #![allow(missing_docs)]
    pub const SOCKET: u64 = 1;
    pub const BIND: u64 = 2;
    pub const CONNECT: u64 = 3;
    pub const LISTEN: u64 = 4;
    pub const ACCEPT: u64 = 5;
    pub const GETSOCKNAME: u64 = 6;
    pub const GETPEERNAME: u64 = 7;
    pub const SOCKETPAIR: u64 = 8;
    pub const SEND: u64 = 9;
    pub const RECV: u64 = 10;
    pub const SENDTO: u64 = 11;
    pub const RECVFROM: u64 = 12;
    pub const SHUTDOWN: u64 = 13;
    pub const SETSOCKOPT: u64 = 14;
    pub const GETSOCKOPT: u64 = 15;
    pub const SENDMSG: u64 = 16;
    pub const RECVMSG: u64 = 17;
    pub const ACCEPT4: u64 = 18;
    pub const RECVMMSG: u64 = 19;
    pub const SENDMMSG: u64 = 20;
    /// Number of argument longs each call reads (net/socket.c `nargs`), by call number.
    pub const NARGS: [u8; 21] = [0, 3, 3, 3, 2, 3, 3, 3, 4, 4, 4, 6, 6, 2, 5, 5, 3, 3, 4, 5, 4];
}

/// `socketcall(int call, unsigned long *args)` (socketcall(2), net/socket.c
/// `sys_socketcall`): reads the call's argument longs from `args` and runs the call.
/// `SYS_SEND`, `SYS_RECV` and `SYS_ACCEPT` are `sendto`/`recvfrom` without an address and
/// `accept4` with no flags, as in the kernel. Errors: `EINVAL` for a `call` outside 1..=20,
/// `EFAULT` for an unreadable `args`, then the call's own.
pub fn socketcall(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let c = a.raw(0) & 0xffff_ffff;
    let n = match usize::try_from(c).ok().and_then(|i| call::NARGS.get(i)) {
        Some(&n) if c >= call::SOCKET => usize::from(n),
        _ => return Err(Errno::EINVAL),
    };
    let mut w = [0u64; 6];
    let mm = &cpu.get_data().mm;
    let long = mm.long_bytes();
    for (i, slot) in w.iter_mut().enumerate().take(n) {
        *slot = mm.read_ulong(GuestAddr::new(a.raw(1).wrapping_add(long * i as u64)))?;
    }
    // The slots past the call's count stay 0: the address and its length of `SYS_SEND` and
    // `SYS_RECV`, the flags of `SYS_ACCEPT`.
    let handler: Handler = match c {
        call::SOCKET => net::socket,
        call::BIND => net::bind,
        call::CONNECT => net::connect,
        call::LISTEN => net::listen,
        call::ACCEPT | call::ACCEPT4 => net::accept4,
        call::GETSOCKNAME => net::getsockname,
        call::GETPEERNAME => net::getpeername,
        call::SOCKETPAIR => net::socketpair,
        call::SEND | call::SENDTO => net::sendto,
        call::RECV | call::RECVFROM => net::recvfrom,
        call::SHUTDOWN => net::shutdown,
        call::SETSOCKOPT => net::setsockopt,
        call::GETSOCKOPT => net::getsockopt,
        call::SENDMSG => net::sendmsg,
        call::RECVMSG => net::recvmsg,
        call::RECVMMSG => net::recvmmsg,
        call::SENDMMSG => net::sendmmsg,
        _ => return Err(Errno::EINVAL),
    };
    handler(cpu, &a.with(w))
}

/// [`socketcall`] without the global guest lock for `SYS_SEND` and `SYS_RECV`, and
/// `SYS_SENDTO`/`SYS_RECVFROM` without an address (i386's and s390x's glibc send and receive
/// through it): the argument longs read through the thread's view, then
/// [`net::sendto_unlocked`] or [`net::recvfrom_unlocked`]. Any other call, or arguments the
/// view cannot read, are served under the lock. A handler's `EINTR` is judged by the
/// `socketcall` row as under the lock (`super::signal::restarts_after_handler` reads the
/// arguments again).
pub fn socketcall_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    let c = a.raw(0) & 0xffff_ffff;
    let handler: super::unlocked::Handler = match c {
        call::SEND | call::SENDTO => net::sendto_unlocked,
        call::RECV | call::RECVFROM => net::recvfrom_unlocked,
        _ => return None,
    };
    let n = usize::from(*call::NARGS.get(usize::try_from(c).ok()?)?);
    let mut w = [0u64; 6];
    ctx.view?.read_ulongs(a.raw(1), w.get_mut(..n)?)?;
    handler(ctx, &a.with(w))
}
