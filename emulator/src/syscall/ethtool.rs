//! `SIOCETHTOOL` (include/uapi/linux/sockios.h, linux/ethtool.h): a `struct ifreq` whose
//! `ifr_data` points at a command's structure, its first `__u32` the command (`ETHTOOL_*`),
//! passed to the host kernel. The structures have no `long`s or pointers, so they are alike on
//! every arch; for a guest of the other byte order their integer members are swapped both ways.
//! Served: the driver's description (`ETHTOOL_GDRVINFO`, `ethtool -i`), the legacy link
//! settings (`ETHTOOL_GSET`), the single-value queries (`struct ethtool_value`: link, message
//! level, offload switches, flags), and what `ethtool -S` reads: `ETHTOOL_GSSET_INFO` (a mask
//! in, one count per set bit out), `ETHTOOL_GSTRINGS` and `ETHTOOL_GSTATS`, whose lengths the
//! kernel takes from the driver (asked of the host first with `ETHTOOL_GSSET_INFO`). Other
//! commands are `EOPNOTSUPP`, the kernel's answer for a command it does not know.

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::Task;
use crate::mm::{Endian, GuestAddr};

/// The request (sockios.h).
pub const SIOCETHTOOL: u64 = 0x8946;

const IFNAMSIZ: usize = 16;
const ETHTOOL_GSET: u32 = 0x01;
const ETHTOOL_GDRVINFO: u32 = 0x03;
const ETHTOOL_GSTRINGS: u32 = 0x1b;
const ETHTOOL_GSTATS: u32 = 0x1d;
const ETHTOOL_GSSET_INFO: u32 = 0x37;
/// `ETH_SS_STATS`: the statistics' names.
const ETH_SS_STATS: u32 = 1;
/// `ETH_GSTRING_LEN`: one name.
const ETH_GSTRING_LEN: usize = 32;

/// A command's structure: its size, its integer members as (offset, width), and an array of
/// integers (from offset, each width) that runs to its end.
struct Layout {
    len: usize,
    ints: &'static [(usize, usize)],
    array: Option<(usize, usize)>,
}

/// `struct ethtool_value { __u32 cmd, data; }`.
const VALUE: &[(usize, usize)] = &[(0, 4), (4, 4)];

/// The layout of command `cmd` whose structure starts with the guest's `head` bytes (the
/// variable-length ones' counts), `count` the kernel's count for `GSTRINGS`/`GSTATS`.
fn layout(
    cmd: u32,
    head: &[u8; 16],
    swap: bool,
    count: impl FnOnce(u32) -> Result<u32, Errno>,
) -> Result<Layout, Errno> {
    let u32_at = |at: usize| {
        let b = [head[at], head[at + 1], head[at + 2], head[at + 3]];
        if swap {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    Ok(match cmd {
        // struct ethtool_drvinfo { __u32 cmd; char driver[32], version[32], fw_version[32],
        // bus_info[32], erom_version[32], reserved2[12]; __u32 n_priv_flags, n_stats,
        // testinfo_len, eedump_len, regdump_len; }
        ETHTOOL_GDRVINFO => {
            Layout { len: 196, ints: &[(0, 4), (176, 4), (180, 4), (184, 4), (188, 4), (192, 4)], array: None }
        }
        // struct ethtool_cmd { __u32 cmd, supported, advertising; __u16 speed; __u8 duplex,
        // port, phy_address, transceiver, autoneg, mdio_support; __u32 maxtxpkt, maxrxpkt;
        // __u16 speed_hi; __u8 eth_tp_mdix, eth_tp_mdix_ctrl; __u32 lp_advertising,
        // reserved[2]; }
        ETHTOOL_GSET => Layout {
            len: 44,
            ints: &[(0, 4), (4, 4), (8, 4), (12, 2), (20, 4), (24, 4), (28, 2), (32, 4), (36, 4), (40, 4)],
            array: None,
        },
        // GMSGLVL, GLINK, GRXCSUM, GTXCSUM, GSG, GTSO, GUFO, GGSO, GFLAGS, GPFLAGS, GGRO.
        0x07 | 0x0a | 0x14 | 0x16 | 0x18 | 0x1e | 0x21 | 0x23 | 0x25 | 0x27 | 0x2b => {
            Layout { len: 8, ints: VALUE, array: None }
        }
        // struct ethtool_sset_info { __u32 cmd, reserved; __u64 sset_mask; __u32 data[]; }:
        // one count per bit of the mask.
        ETHTOOL_GSSET_INFO => {
            let mask = if swap {
                u64::from_be_bytes(head[8..16].try_into().unwrap_or_default())
            } else {
                u64::from_le_bytes(head[8..16].try_into().unwrap_or_default())
            };
            Layout { len: 16 + 4 * mask.count_ones() as usize, ints: &[(0, 4), (4, 4), (8, 8)], array: Some((16, 4)) }
        }
        // struct ethtool_gstrings { __u32 cmd, string_set, len; __u8 data[len * 32]; }
        ETHTOOL_GSTRINGS => {
            let n = count(u32_at(4))? as usize;
            Layout { len: 12 + n * ETH_GSTRING_LEN, ints: &[(0, 4), (4, 4), (8, 4)], array: None }
        }
        // struct ethtool_stats { __u32 cmd, n_stats; __u64 data[n_stats]; }
        ETHTOOL_GSTATS => {
            let n = count(ETH_SS_STATS)? as usize;
            Layout { len: 8 + n * 8, ints: &[(0, 4), (4, 4)], array: Some((8, 8)) }
        }
        // What the kernel answers for a command it does not know: the caller takes it as a
        // device without it (ethtool then tries the next way, as for `ETHTOOL_GLINKSETTINGS`,
        // whose fallback is `ETHTOOL_GSET`).
        _ => return Err(Errno::EOPNOTSUPP),
    })
}

/// Reverses the integer members of `b` laid out as `l` (a guest of the other byte order).
fn swap_ints(b: &mut [u8], l: &Layout) {
    for &(at, n) in l.ints {
        if let Some(x) = b.get_mut(at..at + n) {
            x.reverse();
        }
    }
    if let Some((from, n)) = l.array {
        for x in b.get_mut(from..).unwrap_or_default().chunks_exact_mut(n) {
            x.reverse();
        }
    }
}

/// The host's `SIOCETHTOOL` on interface `name` with the command structure at `data`.
fn host_ethtool(fd: i32, name: &[u8], data: *mut u8) -> SysResult {
    // struct ifreq: the name, then the union whose `ifr_data` is a pointer (40 bytes).
    let mut ifr = [0u8; 40];
    ifr[..IFNAMSIZ].copy_from_slice(&name[..IFNAMSIZ]);
    ifr[IFNAMSIZ..IFNAMSIZ + 8].copy_from_slice(&(data as u64).to_ne_bytes());
    // SAFETY: a local host `struct ifreq` whose `ifr_data` points at a buffer as long as the
    // command's structure.
    host_ret(i64::from(unsafe { libc::ioctl(fd, SIOCETHTOOL as libc::c_ulong, ifr.as_mut_ptr()) }))
}

/// How many entries string set `set` of interface `name` has (0 if the driver has none).
fn sset_count(fd: i32, name: &[u8], set: u32) -> Result<u32, Errno> {
    if set >= 64 {
        return Err(Errno::EINVAL);
    }
    let mut q = [0u8; 20];
    q[0..4].copy_from_slice(&ETHTOOL_GSSET_INFO.to_ne_bytes());
    q[8..16].copy_from_slice(&(1u64 << set).to_ne_bytes());
    host_ethtool(fd, name, q.as_mut_ptr())?;
    let mask = u64::from_ne_bytes(q[8..16].try_into().unwrap_or_default());
    Ok(if mask & (1 << set) != 0 { u32::from_ne_bytes(q[16..20].try_into().unwrap_or_default()) } else { 0 })
}

/// Serves `ioctl(fd, SIOCETHTOOL, arg)`. Errors: `EFAULT` for a structure the guest cannot
/// read or write, `EOPNOTSUPP` for a command not served, the host's (`EOPNOTSUPP` from a driver
/// without it, `ENODEV`).
pub fn ioctl(t: &mut Task, fd: i32, arg: GuestAddr) -> SysResult {
    let long = usize::from(t.mm.model().long_bytes);
    let swap = t.mm.endian() != Endian::HOST;
    let fault = |_| super::ioctl::guest_fault(fd, SIOCETHTOOL);
    let ifr = t.mm.read_vec(arg, IFNAMSIZ + long).map_err(fault)?;
    let ptr = &ifr[IFNAMSIZ..IFNAMSIZ + long];
    let data = match (long, swap) {
        (8, false) => u64::from_le_bytes(ptr.try_into().unwrap_or_default()),
        (8, true) => u64::from_be_bytes(ptr.try_into().unwrap_or_default()),
        (_, false) => u64::from(u32::from_le_bytes(ptr[..4].try_into().unwrap_or_default())),
        (_, true) => u64::from(u32::from_be_bytes(ptr[..4].try_into().unwrap_or_default())),
    };
    let data = GuestAddr::new(data);
    let mut head = [0u8; 16];
    let known = t.mm.read_vec(data, 4).map_err(fault)?;
    head[..4].copy_from_slice(&known);
    let cmd = if swap {
        u32::from_be_bytes(head[..4].try_into().unwrap_or_default())
    } else {
        u32::from_le_bytes(head[..4].try_into().unwrap_or_default())
    };
    if matches!(cmd, ETHTOOL_GSSET_INFO | ETHTOOL_GSTRINGS) {
        let more = t.mm.read_vec(data, 16).map_err(fault)?;
        head.copy_from_slice(&more);
    }
    let l = layout(cmd, &head, swap, |set| sset_count(fd, &ifr, set))?;
    let mut buf = t.mm.read_vec(data, l.len).map_err(fault)?;
    if swap {
        swap_ints(&mut buf, &l);
    }
    let n = host_ethtool(fd, &ifr, buf.as_mut_ptr())?;
    if swap {
        swap_ints(&mut buf, &l);
    }
    t.mm.write_bytes(data, &buf).map_err(fault)?;
    Ok(n)
}
