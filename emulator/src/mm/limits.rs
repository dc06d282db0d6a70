//! The guest's own limits on its address space: `RLIMIT_AS` and `RLIMIT_DATA`
//! (getrlimit(2)), and endgate's `--max-memory`.
//!
//! Linux refuses a mapping, a `brk`, an `mremap` growth or a stack growth that would take the
//! process's total mapped size (`total_vm`, `VmSize`) above `RLIMIT_AS`, or its private
//! writable non-stack mappings (`data_vm`, `VmData`) above `RLIMIT_DATA`, with `ENOMEM` (a
//! refused stack growth is a `SIGSEGV`); sources: getrlimit(2), mm/mmap.c `may_expand_vm`,
//! `check_data_rlimit` (Linux 6.x), whose `brk` check is the heap plus the data segment, which
//! here are two of the private writable mappings `RLIMIT_DATA` counts.
//!
//! These limits cannot be the host's: endgate's own process reserves terabytes of host address
//! space for the guest's windows and needs memory of its own. So the guest's `setrlimit` and
//! `prlimit64` of these two resources change only the values kept here, which the address space
//! checks ([`super::AddressSpace`]'s `may_expand`), and `getrlimit` reads them back. At start
//! endgate takes the host's values as the guest's (a shell's `ulimit -v` applies to the
//! program it starts under endgate) and raises its own soft limits to the hard ones. A
//! forked child keeps them; an `execve` hands them to the new endgate ([`exec_lines`]).
//!
//! `--max-memory BYTES` caps the guest's total mapped size whatever its `RLIMIT_AS` says: the
//! guest sees `RLIMIT_AS` no higher than the cap and cannot raise it above (`EPERM`, as for a
//! hard limit without `CAP_SYS_RESOURCE`).
//!
//! When no limit is finite (the usual case) the address space does no accounting at all.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use syscalls::Errno;

/// `RLIM_INFINITY`.
pub const INFINITY: u64 = u64::MAX;

/// Which limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// `RLIMIT_AS`: the total mapped size.
    As,
    /// `RLIMIT_DATA`: private writable mappings that are not a stack.
    Data,
}

impl Resource {
    /// The limit a host resource number names, if it is one of these.
    pub fn of_host(res: i32) -> Option<Resource> {
        if res == crate::abi::int32(u64::from(libc::RLIMIT_AS)) {
            Some(Resource::As)
        } else if res == crate::abi::int32(u64::from(libc::RLIMIT_DATA)) {
            Some(Resource::Data)
        } else {
            None
        }
    }

    fn slots(self) -> &'static [AtomicU64; 2] {
        match self {
            Resource::As => &AS,
            Resource::Data => &DATA,
        }
    }
}

/// `RLIMIT_AS`'s soft and hard limit, in bytes.
static AS: [AtomicU64; 2] = [AtomicU64::new(INFINITY), AtomicU64::new(INFINITY)];
/// `RLIMIT_DATA`'s soft and hard limit, in bytes.
static DATA: [AtomicU64; 2] = [AtomicU64::new(INFINITY), AtomicU64::new(INFINITY)];
/// `--max-memory`, in bytes.
static CAP: AtomicU64 = AtomicU64::new(INFINITY);

/// The soft and hard limit of `res` as the guest sees them.
pub fn get(res: Resource) -> (u64, u64) {
    let [cur, max] = res.slots();
    (cur.load(Relaxed), max.load(Relaxed))
}

/// Sets `res` to `(cur, max)` as `setrlimit` would: `EINVAL` if `cur > max`; `EPERM` if `max`
/// goes above the hard limit without `privileged` (the caller's `CAP_SYS_RESOURCE`), or
/// above `--max-memory` for `RLIMIT_AS`.
pub fn set(res: Resource, cur: u64, max: u64, privileged: bool) -> Result<(), Errno> {
    if cur > max {
        return Err(Errno::EINVAL);
    }
    let [c, m] = res.slots();
    if (max > m.load(Relaxed) && !privileged) || (res == Resource::As && max > CAP.load(Relaxed)) {
        return Err(Errno::EPERM);
    }
    c.store(cur, Relaxed);
    m.store(max, Relaxed);
    Ok(())
}

/// Caps the guest's total mapped size at `bytes` (`--max-memory`) and lowers its
/// `RLIMIT_AS` to it.
pub fn set_cap(bytes: u64) {
    CAP.store(bytes, Relaxed);
    for s in &AS {
        let _ = s.fetch_min(bytes, Relaxed);
    }
}

/// At start: the host's `RLIMIT_AS` and `RLIMIT_DATA` become the guest's, and endgate's own
/// soft limits rise to the hard ones (endgate's reservations count against them).
pub fn adopt_host_limits() {
    for (res, host) in [(Resource::As, libc::RLIMIT_AS), (Resource::Data, libc::RLIMIT_DATA)] {
        let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: a local out struct.
        if unsafe { libc::getrlimit(host, &mut rl) } != 0 {
            continue;
        }
        let [c, m] = res.slots();
        let _ = c.fetch_min(rl.rlim_cur, Relaxed);
        let _ = m.fetch_min(rl.rlim_max, Relaxed);
        if rl.rlim_cur < rl.rlim_max {
            let raised = libc::rlimit { rlim_cur: rl.rlim_max, rlim_max: rl.rlim_max };
            // SAFETY: a valid struct; raising a soft limit to the hard one is always allowed.
            unsafe { libc::setrlimit(host, &raised) };
        }
    }
}

/// The most the guest's mappings may add up to, and the most its private writable ones may.
/// `None` when both are unlimited (nothing to account).
#[inline]
pub fn in_force() -> Option<(u64, u64)> {
    let total = AS[0].load(Relaxed).min(CAP.load(Relaxed));
    let data = DATA[0].load(Relaxed);
    (total != INFINITY || data != INFINITY).then_some((total, data))
}

/// State lines for the endgate an `execve` starts (read back by [`restore_line`]); none when
/// nothing is limited.
pub fn exec_lines() -> Vec<String> {
    let (a, d, cap) = (get(Resource::As), get(Resource::Data), CAP.load(Relaxed));
    if a == (INFINITY, INFINITY) && d == (INFINITY, INFINITY) && cap == INFINITY {
        return Vec::new();
    }
    vec![format!("limits {:x} {:x} {:x} {:x} {cap:x}", a.0, a.1, d.0, d.1)]
}

/// Takes over an [`exec_lines`] line in the new endgate; `false` for another line.
pub fn restore_line(line: &str) -> bool {
    let Some([ac, am, dc, dm, cap]) = parse_line(line) else { return false };
    AS[0].store(ac, Relaxed);
    AS[1].store(am, Relaxed);
    DATA[0].store(dc, Relaxed);
    DATA[1].store(dm, Relaxed);
    CAP.store(cap, Relaxed);
    true
}

/// The five numbers of a `limits` line: `RLIMIT_AS` soft and hard, `RLIMIT_DATA` soft and
/// hard, the cap.
fn parse_line(line: &str) -> Option<[u64; 5]> {
    let v: Vec<u64> =
        line.strip_prefix("limits ")?.split(' ').map(|h| u64::from_str_radix(h, 16).ok()).collect::<Option<_>>()?;
    v.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_line_parses() {
        assert_eq!(
            parse_line("limits 100 200 ffffffffffffffff ffffffffffffffff 4000000"),
            Some([0x100, 0x200, INFINITY, INFINITY, 0x400_0000])
        );
        assert_eq!(parse_line("limits 1 2 3"), None);
        assert_eq!(parse_line("personality 0x8"), None);
        assert_eq!(in_force(), None, "unlimited unless asked");
    }
}
