//! Netlink messages (netlink(7), rtnetlink(7), genetlink, sock_diag(7)) of a guest whose byte
//! order is not the host's (s390x): every message crossing an `AF_NETLINK` socket is rewritten,
//! in both directions, whichever call carries it (`read`/`write` and their vector forms,
//! `send*`/`recv*` and their `mmsg` forms).
//!
//! Netlink carries host-order integers: `struct nlmsghdr` (`nlmsg_len`, `nlmsg_type`,
//! `nlmsg_flags`, `nlmsg_seq`, `nlmsg_pid`), each family's fixed header, then `struct rtattr`
//! / `struct nlattr` attributes (`len`, `type`, payload padded to 4 bytes). Which payloads are
//! integers depends on the message and attribute type, so each family is converted from tables
//! of its fixed headers and attribute types:
//! - `NETLINK_ROUTE`: links (with IPv6's `IFLA_PROTINFO`), addresses, routes, neighbours,
//!   neighbour tables, address labels, nexthops, rules, traffic control, netconf, namespace
//!   ids, link statistics, and the fixed headers of MDB and VLAN messages
//!   (include/uapi/linux/if_link.h, if_addr.h, rtnetlink.h, neighbour.h, if_addrlabel.h,
//!   nexthop.h, if_bridge.h, fib_rules.h, pkt_sched.h, netconf.h, net_namespace.h);
//! - `NETLINK_GENERIC`: `struct genlmsghdr`, every family's attribute headers, and the
//!   controller's (`nlctrl`, `CTRL_CMD_GETFAMILY`) attributes with its operations, multicast
//!   groups and policies (linux/genetlink.h, linux/netlink.h `NL_POLICY_TYPE_ATTR_*`);
//! - `NETLINK_SOCK_DIAG`: the request and answer headers of each address family
//!   (`inet_diag_req_v2`/`inet_diag_msg`, `unix_diag_*`, `netlink_diag_*`, `packet_diag_*`,
//!   `vsock_diag_*`) and their attributes (linux/sock_diag.h, inet_diag.h, unix_diag.h,
//!   netlink_diag.h, packet_diag.h, vm_sockets_diag.h, tcp.h `struct tcp_info`).
//!
//! A guest of the host's byte order that numbers socket types its own way (MIPS) gets the
//! socket types of sock_diag answers renumbered, and nothing else changed.
//!
//! Addresses, names, ports and other byte strings (and network-order members) stay as they are.
//! Attributes the tables do not know keep their payload as the kernel sent it (their headers are
//! converted, so the guest can walk past them); bit-field bytes are left alone. `NLMSG_ERROR`
//! (with the request it echoes and extended-ack attributes) and `NLMSG_DONE` are converted for
//! every family. A read shorter than a message leaves every whole member that fits converted.
//!
//! Whether an fd is a netlink socket is asked of the host once per socket: a per-fd cache keyed
//! by the socket's inode, checked with one `fstat`, so it stays right across `close`/`dup`; a
//! process that never had a netlink socket pays nothing.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use crate::guest::Task;

/// Which way a buffer goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// From the guest to the host kernel: the buffer is in guest order.
    ToHost,
    /// From the host kernel to the guest: the buffer is in host order.
    ToGuest,
}

/// Whether this process may hold a netlink socket: not looked yet, none, maybe.
const UNKNOWN: u8 = 0;
const NONE: u8 = 1;
const SOME: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Per fd: the socket's (device, inode) and its netlink protocol (-1: another kind of socket).
static CACHE: Mutex<Vec<Option<(u64, u64, i32)>>> = Mutex::new(Vec::new());

/// Records that the process made a socket of `domain` (`socket(2)`).
pub fn note_socket(domain: i32) {
    if domain == libc::AF_NETLINK {
        STATE.store(SOME, Ordering::Relaxed);
    }
}

/// Records that descriptors arrived from elsewhere (`SCM_RIGHTS`): any of them may be netlink.
pub fn note_received_fds() {
    STATE.store(SOME, Ordering::Relaxed);
}

fn sockopt(fd: i32, opt: i32) -> Option<i32> {
    let mut v: i32 = 0;
    let mut l = 4 as libc::socklen_t;
    // SAFETY: a local int and its length.
    let r = unsafe { libc::getsockopt(fd, libc::SOL_SOCKET, opt, (&mut v as *mut i32).cast(), &mut l) };
    (r == 0).then_some(v)
}

/// The netlink protocol of socket `fd`, asked of the host (two `getsockopt`s).
fn ask(fd: i32) -> Option<i32> {
    (sockopt(fd, libc::SO_DOMAIN)? == libc::AF_NETLINK).then(|| sockopt(fd, libc::SO_PROTOCOL)).flatten()
}

/// Looks once through the descriptors this process started with (inherited across exec).
fn scan_inherited() -> u8 {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else { return SOME };
    for e in dir.flatten() {
        let Some(fd) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        if ask(fd).is_some() {
            return SOME;
        }
    }
    NONE
}

/// `true` unless the process has no netlink socket (looked for once among the descriptors
/// it started with).
fn any_socket() -> bool {
    match STATE.load(Ordering::Relaxed) {
        NONE => false,
        UNKNOWN => {
            let s = scan_inherited();
            // A socket made meanwhile by another thread wins.
            let _ = STATE.compare_exchange(UNKNOWN, s, Ordering::Relaxed, Ordering::Relaxed);
            STATE.load(Ordering::Relaxed) != NONE
        }
        _ => true,
    }
}

/// `true` if no message read or written through any descriptor needs converting for a guest
/// of `arch` and byte order `endian` ([`protocol`] is `None` for every descriptor): for a
/// system call served without the global guest lock (`super::unlocked`).
pub fn never_converts(arch: &dyn crate::guest::GuestArch, endian: crate::mm::Endian) -> bool {
    (endian == crate::mm::Endian::HOST && !own_types(arch)) || !any_socket()
}

/// `true` if the guest numbers socket types its own way (MIPS), which sock_diag answers carry.
fn own_socket_types(t: &Task) -> bool {
    own_types(t.arch)
}

/// [`own_socket_types`] of a guest arch.
fn own_types(arch: &dyn crate::guest::GuestArch) -> bool {
    (arch.info().socket_type_from_host)(libc::SOCK_STREAM) != libc::SOCK_STREAM
}

/// The netlink protocol of `fd` if messages on it need converting for this guest (its byte
/// order is not the host's, or it numbers socket types its own way, and `fd` is an
/// `AF_NETLINK` socket).
pub fn protocol(t: &Task, fd: i32) -> Option<i32> {
    if t.mm.endian() == crate::mm::Endian::HOST && !own_socket_types(t) {
        return None;
    }
    if !any_socket() {
        return None;
    }
    let slot = usize::try_from(fd).ok()?;
    // SAFETY: a local stat buffer.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer.
    if unsafe { libc::fstat(fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
        return None;
    }
    let mut cache = CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(Some((dev, ino, proto))) = cache.get(slot) {
        if (*dev, *ino) == (st.st_dev, st.st_ino) {
            return (*proto >= 0).then_some(*proto);
        }
    }
    let proto = ask(fd);
    if cache.len() <= slot {
        cache.resize(slot + 1, None);
    }
    cache[slot] = Some((st.st_dev, st.st_ino, proto.unwrap_or(-1)));
    proto
}

/// After a read of `n` bytes from `fd` into `buf` (a checked guest buffer the host just
/// filled): converts them in place if `fd` is a netlink socket that needs it.
///
/// # Safety
/// `buf` must be writable for `n` bytes.
pub unsafe fn after_read(t: &Task, fd: i32, buf: *mut u8, n: u64) {
    let Ok(n) = usize::try_from(n) else { return };
    if n == 0 {
        return;
    }
    if let Some(proto) = protocol(t, fd) {
        // SAFETY: the caller's buffer of at least `n` bytes.
        to_guest(t, unsafe { std::slice::from_raw_parts_mut(buf, n) }, proto);
    }
}

/// Converts host messages for the guest: byte order, then socket types.
fn to_guest(t: &Task, buf: &mut [u8], proto: i32) {
    if t.mm.endian() != crate::mm::Endian::HOST {
        convert(buf, proto, Dir::ToGuest);
    }
    if proto == libc::NETLINK_SOCK_DIAG && own_socket_types(t) {
        socket_types(buf, t.arch.info().socket_type_from_host);
    }
}

/// Renumbers the socket types sock_diag answers carry (`udiag_type`, `ndiag_type`,
/// `pdiag_type`, `vdiag_type`: the second byte of the unix, netlink, packet and vsock answer
/// headers) for a guest of the host's byte order that numbers them its own way.
fn socket_types(buf: &mut [u8], map: fn(i32) -> i32) {
    let mut off = 0;
    while off + 18 <= buf.len() {
        let len = rd32(&buf[off..], Dir::ToGuest) as usize;
        let ty = rd16(&buf[off + 4..], Dir::ToGuest);
        if len < 16 {
            break;
        }
        let family = i32::from(buf[off + 16]);
        if ty == 20 && [libc::AF_UNIX, libc::AF_NETLINK, libc::AF_PACKET, libc::AF_VSOCK].contains(&family) {
            let t = &mut buf[off + 17];
            *t = u8::try_from(map(i32::from(*t))).unwrap_or(*t);
        }
        off += len.next_multiple_of(4);
    }
}

/// After a vector read of `n` bytes from `fd` into `iovs` (checked guest buffers): gathered,
/// converted and scattered back if `fd` is a netlink socket that needs it.
pub fn after_readv(t: &Task, fd: i32, iovs: &[libc::iovec], n: u64) {
    let Ok(n) = usize::try_from(n) else { return };
    if n == 0 {
        return;
    }
    let Some(proto) = protocol(t, fd) else { return };
    let mut all = Vec::with_capacity(n);
    for v in iovs.iter().filter(|v| v.iov_len > 0) {
        let take = v.iov_len.min(n - all.len());
        // SAFETY: each iovec is a checked, guest-writable buffer the host just filled.
        all.extend_from_slice(unsafe { std::slice::from_raw_parts(v.iov_base.cast::<u8>(), take) });
    }
    to_guest(t, &mut all, proto);
    let mut at = 0;
    for v in iovs.iter().filter(|v| v.iov_len > 0) {
        let take = v.iov_len.min(all.len() - at);
        // SAFETY: as above; the same lengths go back.
        unsafe { std::ptr::copy_nonoverlapping(all[at..].as_ptr(), v.iov_base.cast::<u8>(), take) };
        at += take;
    }
}

/// Before a write of `len` bytes at `buf` (a checked guest buffer) to `fd`: the converted copy
/// to send instead, if `fd` is a netlink socket that needs it.
///
/// # Safety
/// `buf` must be readable for `len` bytes.
pub unsafe fn before_write(t: &Task, fd: i32, buf: *const u8, len: usize) -> Option<Vec<u8>> {
    let proto = protocol(t, fd)?;
    if len == 0 || t.mm.endian() == crate::mm::Endian::HOST {
        return None;
    }
    // SAFETY: the caller's checked, guest-readable buffer of `len` bytes.
    let mut v = unsafe { std::slice::from_raw_parts(buf, len) }.to_vec();
    convert(&mut v, proto, Dir::ToHost);
    Some(v)
}

/// Before a vector write of `iovs` (checked guest buffers) to `fd`: one converted copy of
/// them all, if `fd` is a netlink socket that needs it (a netlink message is one datagram).
pub fn before_writev(t: &Task, fd: i32, iovs: &[libc::iovec]) -> Option<Vec<u8>> {
    let proto = protocol(t, fd)?;
    if t.mm.endian() == crate::mm::Endian::HOST {
        return None;
    }
    let mut v = Vec::new();
    for io in iovs.iter().filter(|io| io.iov_len > 0) {
        // SAFETY: each iovec is a checked guest-readable buffer.
        v.extend_from_slice(unsafe { std::slice::from_raw_parts(io.iov_base.cast::<u8>(), io.iov_len) });
    }
    convert(&mut v, proto, Dir::ToHost);
    Some(v)
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
    /// A struct: runs of `(offset, width, count)` integers (what lies outside stays).
    Runs(&'static [(usize, usize, usize)]),
    /// Attributes inside, converted by this table.
    Table(&'static [(u16, Pay)]),
    /// Attributes inside (whatever their types: indexes of an array), each payload converted
    /// as this says.
    Each(&'static Pay),
    /// Attributes inside, payloads left alone.
    Nested,
    /// `RTA_MULTIPATH`: `struct rtnexthop { __u16 len; __u8 flags, hops; int ifindex; }`
    /// records, each followed by route attributes.
    Multipath,
}

/// A fixed header: its size and its integer members as (offset, size).
type Fixed = (usize, &'static [(usize, usize)]);

/// `RTAX_*` (rtnetlink.h): `RTA_METRICS` holds `__u32`s but for `RTAX_CC_ALGO`'s name.
const METRICS: &[(u16, Pay)] = &[
    (1, Pay::U32),
    (2, Pay::U32),
    (3, Pay::U32),
    (4, Pay::U32),
    (5, Pay::U32),
    (6, Pay::U32),
    (7, Pay::U32),
    (8, Pay::U32),
    (9, Pay::U32),
    (10, Pay::U32),
    (11, Pay::U32),
    (12, Pay::U32),
    (13, Pay::U32),
    (14, Pay::U32),
    (15, Pay::U32),
    (17, Pay::U32), // FASTOPEN_NO_COOKIE
];
/// `IFLA_INET6_*` (if_link.h) inside `IFLA_AF_SPEC`.
const INET6: &[(u16, Pay)] = &[
    (1, Pay::U32),  // FLAGS
    (2, Pay::U32s), // CONF
    (3, Pay::U64s), // STATS
    (5, Pay::U32s), // CACHEINFO
    (6, Pay::U64s), // ICMP6STATS
    (9, Pay::U32),  // RA_MTU
];
/// `IFLA_INET_CONF` inside `IFLA_AF_SPEC`'s `AF_INET`.
const INET: &[(u16, Pay)] = &[(1, Pay::U32s)];
/// `IFLA_AF_SPEC`: attributes named by address family.
const AF_SPEC: &[(u16, Pay)] = &[(2, Pay::Table(INET)), (10, Pay::Table(INET6))];
/// `IFLA_XDP_*`.
const XDP: &[(u16, Pay)] =
    &[(1, Pay::U32), (3, Pay::U32), (4, Pay::U32), (5, Pay::U32), (6, Pay::U32), (7, Pay::U32), (8, Pay::U32)];
/// `IFLA_PROTO_DOWN_REASON_*`.
const DOWN_REASON: &[(u16, Pay)] = &[(1, Pay::U32), (2, Pay::U32)];
/// `IFLA_*` (if_link.h): the integer and nested ones; `$extra` adds entries.
macro_rules! link_table {
    ($($extra:tt)*) => {
        &[
    (4, Pay::U32),                             // MTU
    (5, Pay::U32),                             // LINK
    (7, Pay::U32s),                            // STATS
    (10, Pay::U32),                            // MASTER
    (13, Pay::U32),                            // TXQLEN
    (14, Pay::Runs(&[(0, 8, 3), (24, 2, 1)])), // MAP
    (15, Pay::U32),                            // WEIGHT
    (18, Pay::Nested),                         // LINKINFO
    (21, Pay::U32),                            // NUM_VF
    (23, Pay::U64s),                           // STATS64
    (26, Pay::Table(AF_SPEC)),                 // AF_SPEC
    (27, Pay::U32),                            // GROUP
    (28, Pay::U32),                            // NET_NS_FD
    (29, Pay::U32),                            // EXT_MASK
    (30, Pay::U32),                            // PROMISCUITY
    (31, Pay::U32),                            // NUM_TX_QUEUES
    (32, Pay::U32),                            // NUM_RX_QUEUES
    (35, Pay::U32),                            // CARRIER_CHANGES
    (37, Pay::U32),                            // LINK_NETNSID
    (40, Pay::U32),                            // GSO_MAX_SEGS
    (41, Pay::U32),                            // GSO_MAX_SIZE
    (43, Pay::Table(XDP)),                     // XDP
    (44, Pay::U32),                            // EVENT
    (45, Pay::U32),                            // NEW_NETNSID
    (46, Pay::U32),                            // IF_NETNSID
    (47, Pay::U32),                            // CARRIER_UP_COUNT
    (48, Pay::U32),                            // CARRIER_DOWN_COUNT
    (49, Pay::U32),                            // NEW_IFINDEX
    (50, Pay::U32),                            // MIN_MTU
    (51, Pay::U32),                            // MAX_MTU
    (52, Pay::Nested),                         // PROP_LIST
    (55, Pay::Table(DOWN_REASON)),             // PROTO_DOWN_REASON
    (58, Pay::U32),                            // GRO_MAX_SIZE
    (59, Pay::U32),                            // TSO_MAX_SIZE
    (60, Pay::U32),                            // TSO_MAX_SEGS
    (61, Pay::U32),                            // ALLMULTI
    (63, Pay::U32),                            // GSO_IPV4_MAX_SIZE
    (64, Pay::U32),                            // GRO_IPV4_MAX_SIZE
            $($extra)*
        ]
    };
}
/// `IFLA_*` (if_link.h) of a link message of any family but `AF_INET6`: `IFLA_PROTINFO`'s
/// attributes depend on the family (the bridge's `IFLA_BRPORT_*` are left as they are).
const LINK: &[(u16, Pay)] = link_table!();
/// `IFLA_*` of an `AF_INET6` link message, whose `IFLA_PROTINFO` holds `IFLA_INET6_*`
/// (`ip -6 link`, `ip token`).
const LINK6: &[(u16, Pay)] = link_table!((12, Pay::Table(INET6)),);
/// `NDTPA_*` (neighbour.h) inside `NDTA_PARMS`: `u32`s and `u64` times in ms.
const NEIGHTBL_PARMS: &[(u16, Pay)] = &[
    (1, Pay::U32),  // IFINDEX
    (2, Pay::U32),  // REFCNT
    (3, Pay::U64),  // REACHABLE_TIME
    (4, Pay::U64),  // BASE_REACHABLE_TIME
    (5, Pay::U64),  // RETRANS_TIME
    (6, Pay::U64),  // GC_STALETIME
    (7, Pay::U64),  // DELAY_PROBE_TIME
    (8, Pay::U32),  // QUEUE_LEN
    (9, Pay::U32),  // APP_PROBES
    (10, Pay::U32), // UCAST_PROBES
    (11, Pay::U32), // MCAST_PROBES
    (12, Pay::U64), // ANYCAST_DELAY
    (13, Pay::U64), // PROXY_DELAY
    (14, Pay::U32), // PROXY_QLEN
    (15, Pay::U64), // LOCKTIME
    (16, Pay::U32), // QUEUE_LENBYTES
    (17, Pay::U32), // MCAST_REPROBES
    (19, Pay::U64), // INTERVAL_PROBE_TIME_MS
];
/// `NDTA_*` (neighbour.h): a neighbour table's thresholds, `struct ndt_config { __u16
/// key_len, entry_size; __u32 entries, last_flush, last_rand, hash_rnd, hash_mask,
/// hash_chain_gc, proxy_qlen; }`, parameters and `struct ndt_stats` (`__u64`s).
const NEIGHTBL: &[(u16, Pay)] = &[
    (2, Pay::U32),                           // THRESH1
    (3, Pay::U32),                           // THRESH2
    (4, Pay::U32),                           // THRESH3
    (5, Pay::Runs(&[(0, 2, 2), (4, 4, 7)])), // CONFIG
    (6, Pay::Table(NEIGHTBL_PARMS)),         // PARMS
    (7, Pay::U64s),                          // STATS
    (8, Pay::U64),                           // GC_INTERVAL
];
/// `IFAL_*` (if_addrlabel.h): the label (the address is bytes).
const ADDRLABEL: &[(u16, Pay)] = &[(2, Pay::U32)];
/// `NHA_*` (nexthop.h): ids, devices and types (a group's `struct nexthop_grp` records and
/// the nested resilient-group, encapsulation and statistics attributes are left as they are).
const NEXTHOP: &[(u16, Pay)] = &[
    (1, Pay::U32),  // ID
    (3, Pay::U16),  // GROUP_TYPE
    (5, Pay::U32),  // OIF
    (7, Pay::U16),  // ENCAP_TYPE
    (10, Pay::U32), // MASTER
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
    (3, Pay::U32),            // IIF
    (4, Pay::U32),            // OIF
    (6, Pay::U32),            // PRIORITY
    (8, Pay::Table(METRICS)), // METRICS
    (9, Pay::Multipath),      // MULTIPATH
    (11, Pay::U32),           // FLOW
    (12, Pay::U32s),          // CACHEINFO
    (15, Pay::U32),           // TABLE
    (16, Pay::U32),           // MARK
    (17, Pay::U64s),          // MFC_STATS
    (21, Pay::U16),           // ENCAP_TYPE
    (23, Pay::U64),           // EXPIRES
    (25, Pay::U32),           // UID
    (30, Pay::U32),           // NH_ID
];
/// `NDA_*` (neighbour.h).
const NEIGH: &[(u16, Pay)] = &[
    (3, Pay::U32s), // CACHEINFO
    (4, Pay::U32),  // PROBES
    (5, Pay::U16),  // VLAN
    (7, Pay::U32),  // VNI
    (8, Pay::U32),  // IFINDEX
    (9, Pay::U32),  // MASTER
    (10, Pay::U32), // LINK_NETNSID
    (11, Pay::U32), // SRC_VNI
    (13, Pay::U32), // NH_ID
    (15, Pay::U32), // FLAGS_EXT
    (16, Pay::U16), // NDM_STATE_MASK
];
/// `FRA_*` (fib_rules.h).
const RULE: &[(u16, Pay)] = &[
    (6, Pay::U32),                 // PRIORITY
    (10, Pay::U32),                // FWMARK
    (11, Pay::U32),                // FLOW
    (12, Pay::U64),                // TUN_ID
    (13, Pay::U32),                // SUPPRESS_IFGROUP
    (14, Pay::U32),                // SUPPRESS_PREFIXLEN
    (15, Pay::U32),                // TABLE
    (16, Pay::U32),                // FWMASK
    (20, Pay::U32s),               // UID_RANGE
    (23, Pay::Runs(&[(0, 2, 2)])), // SPORT_RANGE
    (24, Pay::Runs(&[(0, 2, 2)])), // DPORT_RANGE
];
/// `TCA_STATS_*` (gen_stats.h) inside `TCA_STATS2`.
const TC_STATS2: &[(u16, Pay)] = &[
    (1, Pay::Runs(&[(0, 8, 1), (8, 4, 1)])), // BASIC
    (2, Pay::U32s),                          // RATE_EST
    (3, Pay::U32s),                          // QUEUE
    (5, Pay::U64s),                          // RATE_EST64
    (8, Pay::U64),                           // PKT64
];
/// `TCA_*` (rtnetlink.h).
const TC: &[(u16, Pay)] = &[
    (2, Pay::Nested),                        // OPTIONS
    (3, Pay::Runs(&[(0, 8, 1), (8, 4, 7)])), // STATS
    (7, Pay::Table(TC_STATS2)),              // STATS2
    (11, Pay::U32),                          // CHAIN
    (13, Pay::U32),                          // INGRESS_BLOCK
    (14, Pay::U32),                          // EGRESS_BLOCK
];
/// `NETNSA_*` (net_namespace.h).
const NSID: &[(u16, Pay)] = &[(1, Pay::U32), (2, Pay::U32), (3, Pay::U32), (4, Pay::U32), (5, Pay::U32)];
/// `NETCONFA_*` (netconf.h): every one an `int`.
const NETCONF: &[(u16, Pay)] = &[
    (1, Pay::U32),
    (2, Pay::U32),
    (3, Pay::U32),
    (4, Pay::U32),
    (5, Pay::U32),
    (6, Pay::U32),
    (7, Pay::U32),
    (8, Pay::U32),
];
/// `IFLA_STATS_*` (if_link.h).
const STATS: &[(u16, Pay)] = &[(1, Pay::U64s)];

/// `CTRL_ATTR_OP_*` (genetlink.h).
const CTRL_OP: &[(u16, Pay)] = &[(1, Pay::U32), (2, Pay::U32)];
/// `CTRL_ATTR_MCAST_GRP_*`.
const CTRL_GRP: &[(u16, Pay)] = &[(2, Pay::U32)];
/// `NL_POLICY_TYPE_ATTR_*` (netlink.h).
const POLICY_ATTR: &[(u16, Pay)] = &[
    (1, Pay::U32),  // TYPE
    (2, Pay::U64),  // MIN_VALUE_S
    (3, Pay::U64),  // MAX_VALUE_S
    (4, Pay::U64),  // MIN_VALUE_U
    (5, Pay::U64),  // MAX_VALUE_U
    (6, Pay::U32),  // MIN_LENGTH
    (7, Pay::U32),  // MAX_LENGTH
    (8, Pay::U32),  // POLICY_IDX
    (9, Pay::U32),  // POLICY_MAXTYPE
    (10, Pay::U32), // BITFIELD32_MASK
    (12, Pay::U64), // MASK
];
/// `CTRL_ATTR_POLICY_*` (`CTRL_ATTR_OP_POLICY`'s per-command entries).
const CTRL_OP_POLICY: &[(u16, Pay)] = &[(1, Pay::U32), (2, Pay::U32)];
/// `CTRL_ATTR_*` (genetlink.h): the `nlctrl` family's attributes.
const CTRL: &[(u16, Pay)] = &[
    (1, Pay::U16),                         // FAMILY_ID
    (3, Pay::U32),                         // VERSION
    (4, Pay::U32),                         // HDRSIZE
    (5, Pay::U32),                         // MAXATTR
    (6, Pay::Each(&Pay::Table(CTRL_OP))),  // OPS: [index] { OP_ID, OP_FLAGS }
    (7, Pay::Each(&Pay::Table(CTRL_GRP))), // MCAST_GROUPS: [index] { NAME, ID }
    // POLICY: [policy index] [attribute number] { NL_POLICY_TYPE_ATTR_* }
    (8, Pay::Each(&Pay::Each(&Pay::Table(POLICY_ATTR)))),
    (9, Pay::Each(&Pay::Table(CTRL_OP_POLICY))), // OP_POLICY: [command] { DO, DUMP }
    (10, Pay::U32),                              // OP
];

/// `NLMSGERR_ATTR_*` (netlink.h): extended-ack attributes.
const ERR_ATTRS: &[(u16, Pay)] = &[
    (2, Pay::U32),                // OFFS
    (4, Pay::Table(POLICY_ATTR)), // POLICY
    (5, Pay::U32),                // MISS_TYPE
    (6, Pay::U32),                // MISS_NEST
];

/// `struct tcp_info` (tcp.h) in `INET_DIAG_INFO`: its `__u32`, `__u64` and `__u16` runs (the
/// leading bytes and bit fields stay).
const TCP_INFO: &[(usize, usize, usize)] = &[
    (8, 4, 24),
    (104, 8, 4),
    (136, 4, 6),
    (160, 8, 4),
    (192, 4, 2),
    (200, 8, 2),
    (216, 4, 6),
    (240, 2, 2),
    (244, 4, 2),
];
/// `INET_DIAG_*` (inet_diag.h) of an answer.
const INET_DIAG: &[(u16, Pay)] = &[
    (1, Pay::U32s),                          // MEMINFO
    (2, Pay::Runs(TCP_INFO)),                // INFO
    (3, Pay::U32s),                          // VEGASINFO
    (7, Pay::U32s),                          // SKMEMINFO
    (9, Pay::Runs(&[(0, 2, 2), (4, 4, 3)])), // DCTCPINFO
    (15, Pay::U32),                          // MARK
    (16, Pay::U32s),                         // BBRINFO
    (17, Pay::U32),                          // CLASS_ID
    (21, Pay::U64),                          // CGROUP_ID
];
/// `INET_DIAG_REQ_*` of a request.
const INET_DIAG_REQ: &[(u16, Pay)] = &[(3, Pay::U32)];
/// `UNIX_DIAG_*` (unix_diag.h).
const UNIX_DIAG: &[(u16, Pay)] = &[
    (1, Pay::U32s), // VFS
    (2, Pay::U32),  // PEER
    (3, Pay::U32s), // ICONS
    (4, Pay::U32s), // RQLEN
    (5, Pay::U32s), // MEMINFO
    (7, Pay::U32),  // UID
];
/// `NETLINK_DIAG_*` (netlink_diag.h); `GROUPS` is a bitmap of (64-bit) `unsigned long`s.
const NETLINK_DIAG: &[(u16, Pay)] = &[(0, Pay::U32s), (1, Pay::U64s), (2, Pay::U32s), (3, Pay::U32s), (4, Pay::U32)];
/// `PACKET_DIAG_*` (packet_diag.h).
const PACKET_DIAG: &[(u16, Pay)] =
    &[(0, Pay::U32s), (2, Pay::U32s), (3, Pay::U32s), (4, Pay::U32), (5, Pay::U32), (6, Pay::U32s)];

/// Four-byte integers at `start`, `start + 4`, … up to `end`.
macro_rules! words {
    ($($at:expr),*) => { &[$(($at, 4)),*] };
}

/// `NLMSG_ERROR`, `NLMSG_DONE` (netlink.h), and the flags that shape an error's payload.
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const NLM_F_CAPPED: u16 = 0x100;
const NLM_F_ACK_TLVS: u16 = 0x200;
/// `GENL_ID_CTRL`: the generic netlink controller's message type.
const GENL_ID_CTRL: u16 = 0x10;

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

/// A message's header fields as (offset, size).
const NLMSGHDR: [(usize, usize); 5] = [(0, 4), (4, 2), (6, 2), (8, 4), (12, 4)];

/// Converts the messages in `buf`. A message cut short by the buffer (a read shorter than
/// it) has every whole member that is there converted, as far as it goes.
pub fn convert(buf: &mut [u8], proto: i32, dir: Dir) {
    let req = dir == Dir::ToHost;
    let mut off = 0;
    while off < buf.len() {
        if off + 16 > buf.len() {
            // Only part of a header: its whole members.
            for (at, n) in NLMSGHDR {
                if off + at + n <= buf.len() {
                    swap(buf, off + at, n);
                }
            }
            break;
        }
        let len = rd32(&buf[off..], dir) as usize;
        let ty = rd16(&buf[off + 4..], dir);
        let flags = rd16(&buf[off + 6..], dir);
        if len < 16 {
            break;
        }
        for (at, n) in NLMSGHDR {
            swap(buf, off + at, n);
        }
        let end = (off + len).min(buf.len());
        payload(&mut buf[off + 16..end], proto, ty, flags, req, dir);
        off += len.next_multiple_of(4);
    }
}

/// A message's payload after its `nlmsghdr`; `req` if it is a request (sock_diag's requests
/// and answers differ).
fn payload(p: &mut [u8], proto: i32, ty: u16, flags: u16, req: bool, dir: Dir) {
    match ty {
        NLMSG_ERROR => {
            // struct nlmsgerr { int error; struct nlmsghdr msg; }, then the rest of the request
            // unless NLM_F_CAPPED, then extended-ack attributes if NLM_F_ACK_TLVS.
            swap(p, 0, 4);
            let Some(inner) = p.get(4..20) else {
                for (at, n) in NLMSGHDR {
                    swap(p, 4 + at, n);
                }
                return;
            };
            let ilen = rd32(inner, dir) as usize;
            let ity = rd16(&inner[4..], dir);
            let iflags = rd16(&inner[6..], dir);
            for (at, n) in NLMSGHDR {
                swap(p, 4 + at, n);
            }
            let tlv_at = if flags & NLM_F_CAPPED != 0 {
                20
            } else {
                let end = (4 + ilen.max(16)).min(p.len());
                payload(&mut p[20..end], proto, ity, iflags, true, dir);
                4 + ilen.next_multiple_of(4)
            };
            if flags & NLM_F_ACK_TLVS != 0 {
                if let Some(t) = p.get_mut(tlv_at..) {
                    attrs(t, ERR_ATTRS, dir);
                }
            }
        }
        NLMSG_DONE => {
            swap(p, 0, 4);
            if flags & NLM_F_ACK_TLVS != 0 {
                if let Some(t) = p.get_mut(4..) {
                    attrs(t, ERR_ATTRS, dir);
                }
            }
        }
        _ if ty < 0x10 => {} // NLMSG_NOOP, NLMSG_OVERRUN and reserved control types.
        _ => {
            let family = p.first().copied().unwrap_or(0);
            let (fixed, table): (Fixed, &[(u16, Pay)]) = match proto {
                libc::NETLINK_ROUTE => match route_family(ty, family) {
                    Some(f) => f,
                    None => return,
                },
                // struct genlmsghdr { __u8 cmd, version; __u16 reserved; }
                libc::NETLINK_GENERIC => ((4, &[(2, 2)]), if ty == GENL_ID_CTRL { CTRL } else { &[] }),
                libc::NETLINK_SOCK_DIAG => match diag_family(ty, family, req) {
                    Some(f) => f,
                    None => return,
                },
                _ => return,
            };
            fixed_then_attrs(p, fixed, table, dir);
        }
    }
}

/// Converts a fixed header's whole integer members, then the attributes after it.
fn fixed_then_attrs(p: &mut [u8], (size, ints): Fixed, table: &[(u16, Pay)], dir: Dir) {
    for &(at, n) in ints {
        if at + n <= p.len() {
            swap(p, at, n);
        }
    }
    // A request too short for the header (a `struct rtgenmsg` dump request) has no more.
    if let Some(rest) = p.get_mut(size.next_multiple_of(4)..) {
        attrs(rest, table, dir);
    }
}

/// `NETLINK_ROUTE`: each message type's fixed header and attribute table.
fn route_family(ty: u16, family: u8) -> Option<(Fixed, &'static [(u16, Pay)])> {
    const IFINFOMSG: Fixed = (16, &[(2, 2), (4, 4), (8, 4), (12, 4)]);
    Some(match ty {
        // struct ifinfomsg { u8 family, pad; u16 type; int index; u32 flags, change; }
        16..=19 if i32::from(family) == libc::AF_INET6 => (IFINFOMSG, LINK6),
        16..=19 => (IFINFOMSG, LINK),
        // struct ifaddrmsg { u8 family, prefixlen, flags, scope; u32 index; }
        20..=23 => ((8, &[(4, 4)]), ADDR),
        // struct rtmsg { u8 family, dst_len, src_len, tos, table, protocol, scope, type; u32 flags; }
        24..=27 => ((12, &[(8, 4)]), ROUTE),
        // struct ndmsg { u8 family, pad1; u16 pad2; int ifindex; u16 state; u8 flags, type; }
        28..=31 => ((12, &[(4, 4), (8, 2)]), NEIGH),
        // struct fib_rule_hdr { u8 family, dst_len, src_len, tos, table, res1, res2, action; u32 flags; }
        32..=35 => ((12, &[(8, 4)]), RULE),
        // struct ndtmsg { u8 family, pad1; u16 pad2; }
        64..=67 => ((4, &[]), NEIGHTBL),
        // struct ifaddrlblmsg { u8 family, reserved, prefixlen, flags; u32 index, seq; }
        72..=74 => ((12, &[(4, 4), (8, 4)]), ADDRLABEL),
        // struct br_port_msg { u8 family; u32 ifindex; } (the MDB entries are left as they are)
        84..=86 => ((8, &[(4, 4)]), &[]),
        // struct nhmsg { u8 family, scope, protocol, resvd; u32 nh_flags; }
        104..=106 => ((8, &[(4, 4)]), NEXTHOP),
        // struct br_vlan_msg { u8 family, reserved1; u16 reserved2; u32 ifindex; } (the VLAN
        // entries are left as they are)
        112..=114 => ((8, &[(4, 4)]), &[]),
        // struct tcmsg { u8 family, pad1; u16 pad2; int ifindex; u32 handle, parent, info; }
        36..=51 | 100..=103 => ((20, &[(4, 4), (8, 4), (12, 4), (16, 4)]), TC),
        // struct netconfmsg { u8 family; } padded: every attribute an int.
        80..=83 => ((4, &[]), NETCONF),
        // struct rtgenmsg padded.
        88..=90 => ((4, &[]), NSID),
        // struct if_stats_msg { u8 family, pad1; u16 pad2; u32 ifindex, filter_mask; }
        92..=95 => ((12, &[(4, 4), (8, 4)]), STATS),
        _ => return None,
    })
}

/// `NETLINK_SOCK_DIAG` (`SOCK_DIAG_BY_FAMILY`, `SOCK_DESTROY`, the old `TCPDIAG_GETSOCK` and
/// `DCCPDIAG_GETSOCK`): a request's or an answer's fixed header by address family.
fn diag_family(ty: u16, family: u8, req: bool) -> Option<(Fixed, &'static [(u16, Pay)])> {
    let family = i32::from(family);
    Some(match (ty, family, req) {
        // struct inet_diag_req { u8 family, src_len, dst_len, ext; struct inet_diag_sockid id
        // (ports and addresses in network order; if, cookie[2]); u32 states, dbs; }
        (18 | 19, _, true) => ((60, words!(40, 44, 48, 52, 56)), INET_DIAG_REQ),
        // struct inet_diag_req_v2 { u8 family, protocol, ext, pad; u32 states; sockid id; }
        (20 | 21, libc::AF_INET | libc::AF_INET6, true) => ((56, words!(4, 44, 48, 52)), INET_DIAG_REQ),
        // struct inet_diag_msg { u8 family, state, timer, retrans; sockid id; u32 expires,
        // rqueue, wqueue, uid, inode; }
        (18..=21, libc::AF_INET | libc::AF_INET6, false) => ((72, words!(40, 44, 48, 52, 56, 60, 64, 68)), INET_DIAG),
        // struct unix_diag_req { u8 family, protocol; u16 pad; u32 states, ino, show, cookie[2]; }
        (20, libc::AF_UNIX, true) => ((24, &[(2, 2), (4, 4), (8, 4), (12, 4), (16, 4), (20, 4)]), &[]),
        // struct unix_diag_msg { u8 family, type, state, pad; u32 ino, cookie[2]; }
        (20, libc::AF_UNIX, false) => ((16, words!(4, 8, 12)), UNIX_DIAG),
        // struct netlink_diag_req / packet_diag_req { u8 family, protocol; u16 pad; u32 ino,
        // show, cookie[2]; }
        (20, libc::AF_NETLINK | libc::AF_PACKET, true) => ((20, &[(2, 2), (4, 4), (8, 4), (12, 4), (16, 4)]), &[]),
        // struct netlink_diag_msg { u8 family, type, protocol, state; u32 portid, dst_portid,
        // dst_group, ino, cookie[2]; }
        (20, libc::AF_NETLINK, false) => ((28, words!(4, 8, 12, 16, 20, 24)), NETLINK_DIAG),
        // struct packet_diag_msg { u8 family, type; u16 num; u32 ino, cookie[2]; }
        (20, libc::AF_PACKET, false) => ((16, &[(2, 2), (4, 4), (8, 4), (12, 4)]), PACKET_DIAG),
        // struct vsock_diag_req { u8 family, protocol; u16 pad; u32 states, ino, show, cookie[2]; }
        (20, libc::AF_VSOCK, true) => ((24, &[(2, 2), (4, 4), (8, 4), (12, 4), (16, 4), (20, 4)]), &[]),
        // struct vsock_diag_msg { u8 family, type, state, shutdown; u32 src_cid, src_port,
        // dst_cid, dst_port, ino, cookie[2]; }
        (20, libc::AF_VSOCK, false) => ((32, words!(4, 8, 12, 16, 20, 24, 28)), &[]),
        _ => return None,
    })
}

/// A run of attributes, converted by `table`.
fn attrs(p: &mut [u8], table: &[(u16, Pay)], dir: Dir) {
    walk(p, dir, |ty, _| table.iter().find(|(t, _)| *t == ty).map(|(_, p)| *p));
}

/// Walks a run of attributes, converting each header and the payload `pay` names for it
/// (given the type without flags and whether `NLA_F_NESTED` is set).
fn walk(p: &mut [u8], dir: Dir, pay: impl Fn(u16, bool) -> Option<Pay>) {
    let mut off = 0;
    while off + 4 <= p.len() {
        let len = rd16(&p[off..], dir) as usize;
        let raw_ty = rd16(&p[off + 2..], dir);
        if len < 4 {
            break;
        }
        swap(p, off, 2);
        swap(p, off + 2, 2);
        let end = (off + len).min(p.len());
        let body = &mut p[off + 4..end];
        // NLA_F_NESTED and NLA_F_NET_BYTEORDER are flags, not part of the type.
        let ty = raw_ty & 0x3fff;
        let nested = raw_ty & 0x8000 != 0;
        match pay(ty, nested) {
            _ if raw_ty & 0x4000 != 0 => {} // NLA_F_NET_BYTEORDER: network order already.
            Some(pay) => convert_pay(body, pay, dir),
            None if nested => attrs(body, &[], dir),
            None => {}
        }
        off += len.next_multiple_of(4);
    }
}

/// One attribute payload.
fn convert_pay(body: &mut [u8], pay: Pay, dir: Dir) {
    match pay {
        Pay::U16 => swap(body, 0, 2),
        Pay::U32 => swap(body, 0, 4),
        Pay::U64 => swap(body, 0, 8),
        Pay::U32s => body.chunks_exact_mut(4).for_each(<[u8]>::reverse),
        Pay::U64s => body.chunks_exact_mut(8).for_each(<[u8]>::reverse),
        Pay::Runs(runs) => {
            for &(start, width, count) in runs {
                for i in 0..count {
                    swap(body, start + i * width, width);
                }
            }
        }
        Pay::Table(t) => attrs(body, t, dir),
        Pay::Each(inner) => walk(body, dir, |_, _| Some(*inner)),
        Pay::Nested => attrs(body, &[], dir),
        Pay::Multipath => {
            let mut off = 0;
            while off + 8 <= body.len() {
                let len = rd16(&body[off..], dir) as usize;
                if len < 8 {
                    break;
                }
                swap(body, off, 2);
                swap(body, off + 4, 4);
                let end = (off + len).min(body.len());
                attrs(&mut body[off + 8..end], ROUTE, dir);
                off += len.next_multiple_of(4);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message in host order: header, then `body`.
    fn msg(ty: u16, flags: u16, body: &[u8]) -> Vec<u8> {
        let mut m = Vec::new();
        m.extend_from_slice(&(16 + u32::try_from(body.len()).unwrap()).to_ne_bytes());
        m.extend_from_slice(&ty.to_ne_bytes());
        m.extend_from_slice(&flags.to_ne_bytes());
        m.extend_from_slice(&7u32.to_ne_bytes());
        m.extend_from_slice(&99u32.to_ne_bytes());
        m.extend_from_slice(body);
        m
    }

    fn attr(ty: u16, pay: &[u8]) -> Vec<u8> {
        let mut a = Vec::new();
        a.extend_from_slice(&(4 + u16::try_from(pay.len()).unwrap()).to_ne_bytes());
        a.extend_from_slice(&ty.to_ne_bytes());
        a.extend_from_slice(pay);
        a.resize(a.len().next_multiple_of(4), 0);
        a
    }

    #[test]
    fn a_link_message_round_trips() {
        // RTM_NEWLINK for index 1, mtu 65536, name "lo", in host order.
        let mut body = Vec::new();
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&772u16.to_ne_bytes());
        body.extend_from_slice(&1i32.to_ne_bytes());
        body.extend_from_slice(&0x49u32.to_ne_bytes());
        body.extend_from_slice(&0u32.to_ne_bytes());
        body.extend(attr(4, &65536u32.to_ne_bytes()));
        body.extend(attr(3, b"lo\0"));
        let host = msg(16, 2, &body);
        let mut g = host.clone();
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToGuest);
        assert_eq!(&g[0..4], &48u32.to_be_bytes());
        assert_eq!(&g[20..24], &1i32.to_be_bytes());
        assert_eq!(&g[36..40], &65536u32.to_be_bytes());
        assert_eq!(&g[44..46], b"lo");
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToHost);
        assert_eq!(g, host);
    }

    #[test]
    fn a_neighbour_table_and_an_inet6_link_round_trip() {
        // RTM_NEWNEIGHTBL: NAME "arp_cache", THRESH1 128, CONFIG (key_len 4, entries 7),
        // PARMS { BASE_REACHABLE_TIME 30000 ms }.
        let mut body = vec![2, 0, 0, 0];
        body.extend(attr(1, b"arp_cache\0"));
        body.extend(attr(2, &128u32.to_ne_bytes()));
        let mut cfg = [0u8; 32];
        cfg[0..2].copy_from_slice(&4u16.to_ne_bytes());
        cfg[4..8].copy_from_slice(&7u32.to_ne_bytes());
        body.extend(attr(5, &cfg));
        body.extend(attr(6, &attr(4, &30000u64.to_ne_bytes())));
        let host = msg(64, 2, &body);
        let mut g = host.clone();
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToGuest);
        // The attributes start after the 16-byte header and the 4-byte ndtmsg.
        let at = |off: usize| 16 + 4 + off;
        assert_eq!(&g[at(4)..at(6)], b"ar", "the name stays");
        assert_eq!(&g[at(20)..at(24)], &128u32.to_be_bytes());
        assert_eq!(&g[at(28)..at(30)], &4u16.to_be_bytes());
        assert_eq!(&g[at(32)..at(36)], &7u32.to_be_bytes());
        assert_eq!(&g[at(68)..at(76)], &30000u64.to_be_bytes());
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToHost);
        assert_eq!(g, host);

        // An AF_INET6 RTM_NEWLINK: IFLA_PROTINFO { IFLA_INET6_FLAGS 0x80000000 }, not flagged
        // nested; the same attribute of an AF_BRIDGE link stays as the kernel sent it.
        for (family, swapped) in [(10u8, true), (7, false)] {
            let mut body = vec![family, 0, 0, 0];
            body.extend_from_slice(&[0u8; 12]);
            body.extend(attr(12, &attr(1, &0x8000_0000u32.to_ne_bytes())));
            let host = msg(16, 2, &body);
            let mut g = host.clone();
            convert(&mut g, libc::NETLINK_ROUTE, Dir::ToGuest);
            let want = if swapped { 0x8000_0000u32.to_be_bytes() } else { 0x8000_0000u32.to_ne_bytes() };
            assert_eq!(&g[16 + 16 + 4 + 4..16 + 16 + 4 + 8], &want, "family {family}");
            convert(&mut g, libc::NETLINK_ROUTE, Dir::ToHost);
            assert_eq!(g, host);
        }
    }

    #[test]
    fn a_short_read_keeps_a_converted_header() {
        let host = msg(16, 2, &[0u8; 16]);
        let mut g = host[..20].to_vec();
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToGuest);
        assert_eq!(&g[0..4], &32u32.to_be_bytes());
        assert_eq!(&g[4..6], &16u16.to_be_bytes());
        let mut g = host[..6].to_vec();
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToGuest);
        assert_eq!(&g[0..4], &32u32.to_be_bytes());
        assert_eq!(&g[4..6], &16u16.to_be_bytes());
    }

    #[test]
    fn the_nlctrl_family_answer() {
        // CTRL_CMD_NEWFAMILY: FAMILY_ID 16, FAMILY_NAME "nlctrl", OPS [ {OP_ID 3, OP_FLAGS 0xe} ].
        let mut body = vec![1, 2, 0, 0];
        body.extend(attr(1, &16u16.to_ne_bytes()));
        body.extend(attr(2, b"nlctrl\0"));
        let mut op = attr(1, &3u32.to_ne_bytes());
        op.extend(attr(2, &0xeu32.to_ne_bytes()));
        body.extend(attr(6, &attr(1, &op)));
        let host = msg(GENL_ID_CTRL, 0, &body);
        let mut g = host.clone();
        convert(&mut g, libc::NETLINK_GENERIC, Dir::ToGuest);
        assert_eq!(&g[16 + 4 + 4..16 + 4 + 6], &16u16.to_be_bytes());
        let ops = 16 + 4 + 8 + 12;
        assert_eq!(&g[ops + 4 + 4 + 4..ops + 4 + 4 + 8], &3u32.to_be_bytes());
        assert_eq!(&g[ops + 4 + 4 + 8 + 4..ops + 4 + 4 + 8 + 8], &0xeu32.to_be_bytes());
        convert(&mut g, libc::NETLINK_GENERIC, Dir::ToHost);
        assert_eq!(g, host);
    }

    #[test]
    fn an_error_echoes_the_request() {
        let req = msg(20, 0x301, &[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let mut body = (-19i32).to_ne_bytes().to_vec();
        body.extend_from_slice(&req);
        let host = msg(NLMSG_ERROR, 0, &body);
        let mut g = host.clone();
        convert(&mut g, libc::NETLINK_ROUTE, Dir::ToGuest);
        assert_eq!(&g[16..20], &(-19i32).to_be_bytes());
        assert_eq!(&g[20..24], &28u32.to_be_bytes());
        assert_eq!(&g[24..26], &20u16.to_be_bytes());
    }
}
