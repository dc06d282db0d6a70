//! Network-device ioctls on a socket (netdevice(7); include/uapi/linux/sockios.h, the same
//! numbers on every arch): the `SIOCGIF*` queries `if_nametoindex`, `if_indextoname`,
//! `ifconfig`-style tools and language runtimes make, passed to the host kernel.
//!
//! `struct ifreq` (include/uapi/linux/if.h) is `char ifr_name[16]` and a union whose largest
//! member is `struct ifmap` (three `unsigned long`s, a short and three chars): 40 bytes on LP64
//! guests, 32 on ILP32. The union member a request uses is converted: an `int` (`ifindex`,
//! `mtu`, `metric`, `qlen`) or `short` (`flags`) in the guest's byte order, or a `struct
//! sockaddr`, whose `sa_family` is a host-order short (an `ARPHRD_*` type for the hardware
//! address) and whose other bytes stay as they are. `SIOCGIFCONF` fills an array of such
//! records through `struct ifconf { int ifc_len; union { char *ifc_buf; struct ifreq
//! *ifc_req; }; }`, converted record by record; `ifc_len` counts the guest's bytes.

use syscalls::Errno;

use super::{as_int, host_ret, SysResult};
use crate::guest::Task;
use crate::mm::{Endian, GuestAddr};

/// The requests served (include/uapi/linux/sockios.h).
pub mod req {
    /// Name of the interface with index `ifr_ifindex`.
    pub const SIOCGIFNAME: u64 = 0x8910;
    /// The interfaces and their addresses (`struct ifconf`).
    pub const SIOCGIFCONF: u64 = 0x8912;
    /// `ifr_flags` (`IFF_*`, a short).
    pub const SIOCGIFFLAGS: u64 = 0x8913;
    /// The interface's address.
    pub const SIOCGIFADDR: u64 = 0x8915;
    /// The point-to-point destination address.
    pub const SIOCGIFDSTADDR: u64 = 0x8917;
    /// The broadcast address.
    pub const SIOCGIFBRDADDR: u64 = 0x8919;
    /// The netmask.
    pub const SIOCGIFNETMASK: u64 = 0x891b;
    /// `ifr_metric`.
    pub const SIOCGIFMETRIC: u64 = 0x891d;
    /// `ifr_mtu`.
    pub const SIOCGIFMTU: u64 = 0x8921;
    /// The hardware address, `sa_family` = `ARPHRD_*`.
    pub const SIOCGIFHWADDR: u64 = 0x8927;
    /// `ifr_ifindex` of the named interface.
    pub const SIOCGIFINDEX: u64 = 0x8933;
    /// `ifr_qlen`, the transmit queue length.
    pub const SIOCGIFTXQLEN: u64 = 0x8942;
}

/// `IFNAMSIZ`: bytes of `ifr_name`, NUL included.
const IFNAMSIZ: usize = 16;
/// `sizeof(struct ifreq)` on the host (x86_64).
const HOST_IFREQ: usize = 40;

/// Which union member a request reads or fills.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    /// `int` in, name out (`SIOCGIFNAME`).
    IndexIn,
    /// `int` out.
    Int,
    /// `short` out.
    Short,
    /// `struct sockaddr` out.
    Sockaddr,
}

/// The union member of `r`, or `None` if endgate does not serve it.
fn member(r: u64) -> Option<Member> {
    use req::*;
    Some(match r {
        SIOCGIFNAME => Member::IndexIn,
        SIOCGIFINDEX | SIOCGIFMTU | SIOCGIFMETRIC | SIOCGIFTXQLEN => Member::Int,
        SIOCGIFFLAGS => Member::Short,
        SIOCGIFADDR | SIOCGIFDSTADDR | SIOCGIFBRDADDR | SIOCGIFNETMASK | SIOCGIFHWADDR => Member::Sockaddr,
        _ => return None,
    })
}

/// `true` for the requests this module serves.
pub fn serves(r: u64) -> bool {
    r == req::SIOCGIFCONF || member(r).is_some()
}

/// `sizeof(struct ifreq)` for the guest: 40 on LP64, 32 on ILP32.
fn guest_ifreq(t: &Task) -> usize {
    if t.mm.long_bytes() == 8 {
        40
    } else {
        32
    }
}

/// Swaps a 2- or 4-byte integer at `at` in `b` when the guest's byte order is not the host's.
fn fix(b: &mut [u8], at: usize, len: usize, swap: bool) {
    if swap {
        b[at..at + len].reverse();
    }
}

/// Serves `ioctl(fd, r, arg)` for one of [`serves`]'s requests. Errors: `EFAULT`, the host's
/// (`ENODEV` for an unknown interface, `ENOTTY` for an fd that is not a socket).
pub fn ioctl(t: &mut Task, fd: i32, r: u64, arg: GuestAddr) -> SysResult {
    if r == req::SIOCGIFCONF {
        return ifconf(t, fd, arg);
    }
    let Some(m) = member(r) else { return Err(Errno::ENOTTY) };
    let size = guest_ifreq(t);
    let swap = t.mm.endian() != Endian::HOST;
    let mut g = t.mm.read_vec(arg, size)?;
    t.mm.check_writable(arg, size as u64)?;
    let mut h = [0u8; HOST_IFREQ];
    h[..IFNAMSIZ].copy_from_slice(&g[..IFNAMSIZ]);
    if m == Member::IndexIn {
        h[IFNAMSIZ..IFNAMSIZ + 4].copy_from_slice(&g[IFNAMSIZ..IFNAMSIZ + 4]);
        fix(&mut h, IFNAMSIZ, 4, swap);
    }
    // SAFETY: a local host `struct ifreq`.
    let n = host_ret(i64::from(unsafe { libc::ioctl(fd, r as libc::c_ulong, h.as_mut_ptr()) }))?;
    match m {
        Member::IndexIn => g[..IFNAMSIZ].copy_from_slice(&h[..IFNAMSIZ]),
        Member::Int | Member::Short => {
            let len = if m == Member::Int { 4 } else { 2 };
            fix(&mut h, IFNAMSIZ, len, swap);
            g[IFNAMSIZ..IFNAMSIZ + len].copy_from_slice(&h[IFNAMSIZ..IFNAMSIZ + len]);
        }
        Member::Sockaddr => {
            fix(&mut h, IFNAMSIZ, 2, swap);
            g[IFNAMSIZ..IFNAMSIZ + 16].copy_from_slice(&h[IFNAMSIZ..IFNAMSIZ + 16]);
        }
    }
    t.mm.write_bytes(arg, &g)?;
    Ok(n)
}

/// `SIOCGIFCONF`: `ifc_len` bytes of guest records at `ifc_buf` (or, with a NULL buffer, the
/// bytes all records would take).
fn ifconf(t: &mut Task, fd: i32, arg: GuestAddr) -> SysResult {
    let (size, long) = (guest_ifreq(t), t.mm.long_bytes());
    let swap = t.mm.endian() != Endian::HOST;
    let len = as_int(u64::from(t.mm.read_u32(arg)?));
    let buf = t.mm.read_ulong(arg + long)?;
    t.mm.check_writable(arg, 4)?;
    let Ok(len) = usize::try_from(len) else {
        return Err(Errno::EINVAL);
    };
    let count = len / size;
    let mut host = vec![0u8; count * HOST_IFREQ];
    #[repr(C)]
    struct HostIfconf {
        len: i32,
        buf: *mut u8,
    }
    let mut c = HostIfconf {
        len: i32::try_from(count * HOST_IFREQ).unwrap_or(i32::MAX),
        buf: if buf == 0 { std::ptr::null_mut() } else { host.as_mut_ptr() },
    };
    // SAFETY: a local `struct ifconf` whose buffer holds `c.len` bytes (or is NULL).
    let n = host_ret(i64::from(unsafe { libc::ioctl(fd, req::SIOCGIFCONF as libc::c_ulong, &mut c) }))?;
    let got = usize::try_from(c.len).unwrap_or(0) / HOST_IFREQ;
    if buf != 0 {
        let mut out = vec![0u8; got * size];
        for (g, h) in out.chunks_exact_mut(size).zip(host.chunks_exact_mut(HOST_IFREQ)) {
            fix(h, IFNAMSIZ, 2, swap);
            g[..IFNAMSIZ + 16].copy_from_slice(&h[..IFNAMSIZ + 16]);
        }
        t.mm.write_bytes(GuestAddr::new(buf), &out)?;
    }
    t.mm.write_u32(arg, u32::try_from(got * size).map_err(|_| Errno::EINVAL)?)?;
    Ok(n)
}
