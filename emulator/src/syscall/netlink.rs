//! Netlink messages (netlink(7), rtnetlink(7)) of a guest whose byte order is not the host's
//! (s390x): every message crossing an `AF_NETLINK` socket is rewritten, in both directions.
//!
//! Netlink carries host-order integers: `struct nlmsghdr` (`nlmsg_len`, `nlmsg_type`,
//! `nlmsg_flags`, `nlmsg_seq`, `nlmsg_pid`), each family's fixed header, then `struct rtattr`
//! / `struct nlattr` attributes (`len`, `type`, payload padded to 4 bytes). Which payloads are
//! integers depends on the message and attribute type, so `NETLINK_ROUTE` is converted from
//! tables of its link, address, route and neighbour attributes (include/uapi/linux/
//! if_link.h, if_addr.h, rtnetlink.h, neighbour.h); addresses, names and other byte strings stay
//! as they are. Nested attributes are walked; attributes the tables do not know (and the
//! payloads of other netlink families, beyond their headers) are left as the kernel sent them.
//! `NLMSG_ERROR` and `NLMSG_DONE` are converted for every family.

use crate::guest::Task;

/// Which way a buffer goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// From the guest to the host kernel: the buffer is in guest order.
    ToHost,
    /// From the host kernel to the guest: the buffer is in host order.
    ToGuest,
}

/// The netlink protocol of `fd` if messages on it need converting for this guest (its byte
/// order is not the host's and `fd` is an `AF_NETLINK` socket).
pub fn protocol(t: &Task, fd: i32) -> Option<i32> {
    if t.mm.endian() == crate::mm::Endian::HOST {
        return None;
    }
    let get = |opt: i32| {
        let mut v: i32 = 0;
        let mut l = 4 as libc::socklen_t;
        // SAFETY: a local int and its length.
        let r = unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, opt, (&mut v as *mut i32).cast(), &mut l) };
        (r == 0).then_some(v)
    };
    (get(libc::SO_DOMAIN)? == libc::AF_NETLINK).then(|| get(libc::SO_PROTOCOL)).flatten()
}

/// How an attribute's payload is converted.
#[derive(Clone, Copy)]
enum Pay {
    U16,
    U32,
    U64,
    /// An array of `__u32`s (`rtnl_link_stats`, cache infos).
    U32s,
    /// An array of `__u64`s (`rtnl_link_stats64`).
    U64s,
    /// Attributes inside, all of whose payloads are `__u32`s (`RTA_METRICS`).
    NestedU32,
    /// Attributes inside, payloads left alone.
    Nested,
}

/// `IFLA_*` (if_link.h): the integer and nested ones.
const LINK: &[(u16, Pay)] = &[
    (4, Pay::U32),     // MTU
    (5, Pay::U32),     // LINK
    (7, Pay::U32s),    // STATS
    (10, Pay::U32),    // MASTER
    (13, Pay::U32),    // TXQLEN
    (18, Pay::Nested), // LINKINFO
    (21, Pay::U32),    // NET_NS_PID
    (23, Pay::U64s),   // STATS64
    (26, Pay::Nested), // AF_SPEC
    (27, Pay::U32),    // GROUP
    (30, Pay::U32),    // PROMISCUITY
    (31, Pay::U32),    // NUM_TX_QUEUES
    (32, Pay::U32),    // NUM_RX_QUEUES
    (35, Pay::U32),    // CARRIER_CHANGES
    (40, Pay::U32),    // GSO_MAX_SEGS
    (41, Pay::U32),    // GSO_MAX_SIZE
    (43, Pay::Nested), // XDP
    (47, Pay::U32),    // CARRIER_UP_COUNT
    (48, Pay::U32),    // CARRIER_DOWN_COUNT
    (50, Pay::U32),    // MIN_MTU
    (51, Pay::U32),    // MAX_MTU
];
/// `IFA_*` (if_addr.h).
const ADDR: &[(u16, Pay)] = &[
    (6, Pay::U32s), // CACHEINFO
    (8, Pay::U32),  // FLAGS
    (9, Pay::U32),  // RT_PRIORITY
    (10, Pay::U32), // TARGET_NETNSID
];
/// `RTA_*` (rtnetlink.h).
const ROUTE: &[(u16, Pay)] = &[
    (3, Pay::U32),       // IIF
    (4, Pay::U32),       // OIF
    (6, Pay::U32),       // PRIORITY
    (8, Pay::NestedU32), // METRICS
    (11, Pay::U32),      // FLOW
    (12, Pay::U32s),     // CACHEINFO
    (15, Pay::U32),      // TABLE
    (16, Pay::U32),      // MARK
    (21, Pay::U16),      // ENCAP_TYPE
    (23, Pay::U64),      // EXPIRES
];
/// `NDA_*` (neighbour.h).
const NEIGH: &[(u16, Pay)] = &[
    (3, Pay::U32s), // CACHEINFO
    (4, Pay::U32),  // PROBES
    (5, Pay::U16),  // VLAN
    (7, Pay::U32),  // VNI
    (8, Pay::U32),  // IFINDEX
];

/// `NLMSG_ERROR`, `NLMSG_DONE` (netlink.h).
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;

fn rd16(b: &[u8], dir: Dir) -> u16 {
    let v = [b[0], b[1]];
    if dir == Dir::ToHost {
        u16::from_be_bytes(v)
    } else {
        u16::from_ne_bytes(v)
    }
}

fn rd32(b: &[u8], dir: Dir) -> u32 {
    let v = [b[0], b[1], b[2], b[3]];
    if dir == Dir::ToHost {
        u32::from_be_bytes(v)
    } else {
        u32::from_ne_bytes(v)
    }
}

/// Reverses the `n`-byte integer at `b[at..]`, if it is all there.
fn swap(b: &mut [u8], at: usize, n: usize) {
    if let Some(s) = b.get_mut(at..at + n) {
        s.reverse();
    }
}

/// Converts the messages in `buf` (as many as it holds whole; a truncated tail is left).
pub fn convert(buf: &mut [u8], proto: i32, dir: Dir) {
    let mut off = 0;
    while off + 16 <= buf.len() {
        let len = rd32(&buf[off..], dir) as usize;
        let ty = rd16(&buf[off + 4..], dir);
        if len < 16 || off + len > buf.len() {
            break;
        }
        for (at, n) in [(0, 4), (4, 2), (6, 2), (8, 4), (12, 4)] {
            swap(buf, off + at, n);
        }
        payload(&mut buf[off + 16..off + len], proto, ty, dir);
        off += len.next_multiple_of(4);
    }
}

/// A message's payload after its `nlmsghdr`.
fn payload(p: &mut [u8], proto: i32, ty: u16, dir: Dir) {
    match ty {
        NLMSG_ERROR => {
            // struct nlmsgerr { int error; struct nlmsghdr msg; }: the request's header only.
            swap(p, 0, 4);
            for (at, n) in [(4, 4), (8, 2), (10, 2), (12, 4), (16, 4)] {
                swap(p, at, n);
            }
        }
        NLMSG_DONE => swap(p, 0, 4),
        _ if proto == libc::NETLINK_ROUTE => route_payload(p, ty, dir),
        _ => {}
    }
}

/// A family's fixed header: its size, its integer members as (offset, size), the table of its
/// attributes.
type FamilyHeader = (usize, &'static [(usize, usize)], &'static [(u16, Pay)]);

/// `NETLINK_ROUTE` messages: each family's fixed header, then its attributes. A request too
/// short for the header (a `struct rtgenmsg` dump request) has nothing more to convert.
fn route_payload(p: &mut [u8], ty: u16, dir: Dir) {
    let (size, ints, table): FamilyHeader = match ty {
        // struct ifinfomsg { u8 family, pad; u16 type; int index; u32 flags, change; }
        16..=19 => (16, &[(2, 2), (4, 4), (8, 4), (12, 4)], LINK),
        // struct ifaddrmsg { u8 family, prefixlen, flags, scope; u32 index; }
        20..=23 => (8, &[(4, 4)], ADDR),
        // struct rtmsg { u8 family, dst_len, src_len, tos, table, protocol, scope, type; u32 flags; }
        24..=27 => (12, &[(8, 4)], ROUTE),
        // struct ndmsg { u8 family, pad1; u16 pad2; int ifindex; u16 state; u8 flags, type; }
        28..=31 => (12, &[(4, 4), (8, 2)], NEIGH),
        _ => return,
    };
    if p.len() < size {
        return;
    }
    for &(at, n) in ints {
        swap(p, at, n);
    }
    attrs(&mut p[size..], table, false, dir);
}

/// A run of attributes.
fn attrs(p: &mut [u8], table: &[(u16, Pay)], all_u32: bool, dir: Dir) {
    let mut off = 0;
    while off + 4 <= p.len() {
        let len = rd16(&p[off..], dir) as usize;
        let raw_ty = rd16(&p[off + 2..], dir);
        if len < 4 || off + len > p.len() {
            break;
        }
        swap(p, off, 2);
        swap(p, off + 2, 2);
        let body = &mut p[off + 4..off + len];
        // NLA_F_NESTED and NLA_F_NET_BYTEORDER are flags, not part of the type.
        let ty = raw_ty & 0x3fff;
        let pay = if all_u32 {
            Some(Pay::U32)
        } else if raw_ty & 0x8000 != 0 {
            Some(Pay::Nested)
        } else {
            table.iter().find(|(t, _)| *t == ty).map(|(_, p)| *p)
        };
        match pay {
            _ if raw_ty & 0x4000 != 0 => {} // NLA_F_NET_BYTEORDER: network order already.
            Some(Pay::U16) => swap(body, 0, 2),
            Some(Pay::U32) => swap(body, 0, 4),
            Some(Pay::U64) => swap(body, 0, 8),
            Some(Pay::U32s) => body.chunks_exact_mut(4).for_each(<[u8]>::reverse),
            Some(Pay::U64s) => body.chunks_exact_mut(8).for_each(<[u8]>::reverse),
            Some(Pay::NestedU32) => attrs(body, &[], true, dir),
            Some(Pay::Nested) => attrs(body, &[], false, dir),
            None => {}
        }
        off += len.next_multiple_of(4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_message_round_trips() {
        // RTM_NEWLINK for index 1, mtu 65536, name "lo", in host order.
        let mut host = Vec::new();
        let body_len = 16 + 8 + 8;
        host.extend_from_slice(&(16u32 + body_len).to_ne_bytes());
        host.extend_from_slice(&16u16.to_ne_bytes());
        host.extend_from_slice(&2u16.to_ne_bytes());
        host.extend_from_slice(&7u32.to_ne_bytes());
        host.extend_from_slice(&99u32.to_ne_bytes());
        host.extend_from_slice(&[0, 0]);
        host.extend_from_slice(&772u16.to_ne_bytes());
        host.extend_from_slice(&1i32.to_ne_bytes());
        host.extend_from_slice(&0x49u32.to_ne_bytes());
        host.extend_from_slice(&0u32.to_ne_bytes());
        host.extend_from_slice(&8u16.to_ne_bytes());
        host.extend_from_slice(&4u16.to_ne_bytes());
        host.extend_from_slice(&65536u32.to_ne_bytes());
        host.extend_from_slice(&7u16.to_ne_bytes());
        host.extend_from_slice(&3u16.to_ne_bytes());
        host.extend_from_slice(b"lo\0\0");
        let mut g = host.clone();
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToGuest);
        assert_eq!(&g[0..4], &48u32.to_be_bytes());
        assert_eq!(&g[20..24], &1i32.to_be_bytes());
        assert_eq!(&g[36..40], &65536u32.to_be_bytes());
        assert_eq!(&g[44..46], b"lo");
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToHost);
        assert_eq!(g, host);
    }
}
