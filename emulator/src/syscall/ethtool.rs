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

/// The layout of command `cmd` (not `GSTRINGS` or `GSTATS`: [`counted`]); `mask` is
/// `GSSET_INFO`'s `sset_mask`.
fn layout(cmd: u32, mask: u64) -> Result<Layout, Errno> {
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
            Layout { len: 16 + 4 * mask.count_ones() as usize, ints: &[(0, 4), (4, 4), (8, 8)], array: Some((16, 4)) }
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

/// How many entries string set `set` of interface `name` has (0 if the driver has none, or
/// the host refuses the question: the command itself then gets the host's answer).
fn sset_count(fd: i32, name: &[u8], set: u32) -> Result<u32, Errno> {
    if set >= 64 {
        return Ok(0);
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
    let swap = t.mm.endian() != Endian::HOST;
    let fault = |_| super::ioctl::guest_fault(fd, SIOCETHTOOL);
    let ifr = t.mm.read_vec(arg, IFNAMSIZ).map_err(fault)?;
    let data = GuestAddr::new(t.mm.read_ulong(arg + IFNAMSIZ as u64).map_err(fault)?);
    let cmd = t.mm.read_u32(data).map_err(fault)?;
    // The header the kernel reads first (`struct ethtool_sset_info`, `_gstrings`, `_stats`).
    let hdr = match cmd {
        ETHTOOL_GSSET_INFO => 16,
        ETHTOOL_GSTRINGS => 12,
        ETHTOOL_GSTATS => 8,
        _ => 4,
    };
    let head = t.mm.read_vec(data, hdr).map_err(fault)?;
    if matches!(cmd, ETHTOOL_GSTRINGS | ETHTOOL_GSTATS) {
        let set = if cmd == ETHTOOL_GSTRINGS { t.mm.read_u32(data + 4).map_err(fault)? } else { ETH_SS_STATS };
        return counted(t, fd, &ifr, data, cmd, set, &head);
    }
    let mask = if cmd == ETHTOOL_GSSET_INFO { t.mm.read_u64(data + 8).map_err(fault)? } else { 0 };
    let l = layout(cmd, mask)?;
    // The kernel reads only the header of these and writes the whole structure back, or
    // nothing when the device refuses.
    let mut buf = vec![0u8; l.len];
    buf[..hdr].copy_from_slice(&head);
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

/// `ETHTOOL_GSTRINGS` or `ETHTOOL_GSTATS` of string set `set` (header `head`, as the guest gave
/// it): the kernel
/// writes as many entries as the driver has when it answers, which may be more than it had
/// when endgate asked ([`sset_count`]: a device's channels changed meanwhile). The answer goes
/// to a buffer that ends at a page the host may not write, so that more entries than asked for
/// fail the call with `EFAULT` instead of overrunning endgate's memory (then the count is asked
/// again and the call made again); what the kernel says it wrote (the header's count) goes to
/// the guest. The guest's own count goes to the kernel as it
/// is (a count that is not the driver's gets none, on kernels that check it).
fn counted(t: &mut Task, fd: i32, ifr: &[u8], data: GuestAddr, cmd: u32, set: u32, head: &[u8]) -> SysResult {
    let swap = t.mm.endian() != Endian::HOST;
    let fault = |_| super::ioctl::guest_fault(fd, SIOCETHTOOL);
    let hdr = head.len();
    // The size of one entry, and where the header says how many the kernel wrote.
    let (each, count_at) = if cmd == ETHTOOL_GSTRINGS { (ETH_GSTRING_LEN, 8) } else { (8, 4) };
    // An answer longer than the count asked for meanwhile is asked again (a few times).
    let mut tries = 0;
    let (mut bounce, asked, n) = loop {
        let asked = sset_count(fd, ifr, set).unwrap_or(0) as usize;
        let mut bounce = Bounce::new(hdr + asked * each).ok_or(Errno::ENOMEM)?;
        let buf = bounce.bytes();
        buf[..hdr].copy_from_slice(head);
        if swap {
            for w in buf[..hdr].chunks_exact_mut(4) {
                w.reverse();
            }
        }
        match host_ethtool(fd, ifr, buf.as_mut_ptr()) {
            Err(Errno::EFAULT) if tries < 8 => tries += 1,
            r => break (bounce, asked, r?),
        }
    };
    let buf = bounce.bytes();
    let got = u32::from_ne_bytes(buf[count_at..count_at + 4].try_into().unwrap_or_default()) as usize;
    let end = hdr + got.min(asked) * each;
    if swap {
        for w in buf[..hdr].chunks_exact_mut(4) {
            w.reverse();
        }
        if cmd == ETHTOOL_GSTATS {
            for v in buf[hdr..end].chunks_exact_mut(8) {
                v.reverse();
            }
        }
    }
    t.mm.write_bytes(data, &buf[..end]).map_err(fault)?;
    Ok(n)
}

/// `len` bytes of anonymous memory that end where a page the host may not touch begins.
struct Bounce {
    map: *mut libc::c_void,
    map_len: usize,
    len: usize,
}

impl Bounce {
    fn new(len: usize) -> Option<Bounce> {
        let page = crate::abi::u64_to_usize(crate::mm::PAGE_SIZE);
        let pages = len.div_ceil(page).max(1) * page;
        let map_len = pages.checked_add(page)?;
        // SAFETY: a fresh private anonymous mapping.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return None;
        }
        let b = Bounce { map, map_len, len };
        // SAFETY: the last page of the mapping just made.
        if unsafe { libc::mprotect(map.cast::<u8>().add(pages).cast(), page, libc::PROT_NONE) } != 0 {
            return None;
        }
        Some(b)
    }

    /// The `len` bytes, ending at the guard page.
    fn bytes(&mut self) -> &mut [u8] {
        let pages = self.map_len - crate::abi::u64_to_usize(crate::mm::PAGE_SIZE);
        // SAFETY: `[pages - len, pages)` lies in the mapping's writable part, owned by `self`.
        unsafe { std::slice::from_raw_parts_mut(self.map.cast::<u8>().add(pages - self.len), self.len) }
    }
}

impl Drop for Bounce {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made, unmapped once.
        unsafe { libc::munmap(self.map, self.map_len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bounce_buffer_ends_at_a_page_the_kernel_cannot_touch() {
        for len in [12, 4096, 5000] {
            let mut b = Bounce::new(len).expect("mapping");
            let bytes = b.bytes();
            assert_eq!(bytes.len(), len);
            bytes.fill(7);
            let mut fds = [0; 2];
            // SAFETY: a pipe for the test, and writes from the buffer's last byte and the byte
            // after it (which the kernel must refuse).
            unsafe {
                assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
                let end = bytes.as_ptr().add(len);
                assert_eq!(libc::write(fds[1], end.sub(1).cast(), 1), 1);
                assert_eq!(libc::write(fds[1], end.cast(), 1), -1);
                assert_eq!(std::io::Error::last_os_error().raw_os_error(), Some(libc::EFAULT));
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
        }
    }
}
