//! Another process's memory (process_vm_readv(2), process_madvise(2), process_mrelease(2);
//! mm/process_vm_access.c, mm/madvise.c, mm/oom_kill.c): `process_vm_readv`,
//! `process_vm_writev`, `process_madvise`, `process_mrelease`.
//!
//! # Whose memory
//! - **The guest itself** (its pid, or one of its threads' tids; for `process_madvise` a pidfd
//!   of it): served from guest memory by endgate, with the guest's page permissions: a
//!   remote page the guest could not read (or, for `process_vm_writev`, write) ends the
//!   transfer, as a local buffer's fault does, and the result is the bytes moved until then
//!   (`EFAULT` if none), as `process_vm_rw_core` counts.
//! - **Another endgate process of the same endgate binary** (a forked child or parent, or a
//!   guest started by another `endgate`): its guest memory lives in host windows whose
//!   places it publishes in `mm::PEER`; endgate reads that table from the other process
//!   (the host's `process_vm_readv` at the static's address in that process's image, found
//!   from `/proc/<pid>/maps`), translates the remote iovecs into its host addresses, and makes
//!   the host call, so permission checks (`EPERM`, `ESRCH`) are the host kernel's. A forked
//!   child has the same windows at the same host addresses as its parent; another endgate's
//!   are elsewhere, which the table says. Limitation: inside those windows the host pages of
//!   the other guest are readable and writable whatever its guest permissions, so a read of
//!   its `PROT_NONE` pages or a write to its read-only pages succeeds where Linux answers
//!   `EFAULT`; its unmapped pages do fault.
//! - **Any other process** (a program running natively on the host): its addresses are
//!   host addresses, handed to the host kernel unchanged.
//!
//! `process_mrelease` is the host's: it reaps only a process that is being killed, and
//! answers `EINVAL` for a live one (the guest itself included), as Linux does.

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::{GuestAddr, Prot, PAGE_SIZE, PEER, PEER_LEN, PEER_MAGIC, PEER_WINDOWS};

/// Most iovecs the kernel takes (`UIO_MAXIOV`).
const UIO_MAXIOV: u64 = 1024;
/// Most bytes one call moves (`MAX_RW_COUNT`).
const MAX_RW_COUNT: u64 = 0x7fff_f000;

/// A length as the host's `size_t` (the host is 64-bit: never cut).
fn size(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Reads a guest `struct iovec[cnt]` as `(base, len)` pairs. Errors: `EINVAL` (more than
/// `UIO_MAXIOV`, a length negative as a `ssize_t`), `EFAULT`.
fn iovecs(t: &Task, at: GuestAddr, cnt: u64) -> Result<Vec<(u64, u64)>, Errno> {
    if cnt > UIO_MAXIOV {
        return Err(Errno::EINVAL);
    }
    let word = t.mm.long_bytes();
    let mut v = Vec::new();
    for i in 0..cnt {
        let e = at + i * 2 * word;
        let (base, len) = (t.mm.read_ulong(e)?, t.mm.read_ulong(e + word)?);
        let negative = if word == 8 { len >> 63 != 0 } else { len >> 31 != 0 };
        if negative {
            return Err(Errno::EINVAL);
        }
        v.push((base, len));
    }
    Ok(v)
}

/// `true` if `pid` is this process or one of its threads.
fn is_self(pid: i32) -> bool {
    // SAFETY: no arguments.
    pid > 0 && (pid == unsafe { libc::getpid() } || crate::thread::is_own_thread(pid))
}

/// The windows `(guest, len, host)` of endgate process `pid`, if it is one running this
/// endgate binary; `None` for any other process (or one the host does not let us look at).
fn peer_windows(pid: i32) -> Option<Vec<(u64, u64, u64)>> {
    use std::os::unix::fs::MetadataExt;
    let ours = std::fs::metadata("/proc/self/exe").ok()?;
    let theirs = std::fs::metadata(format!("/proc/{pid}/exe")).ok()?;
    if (ours.dev(), ours.ino()) != (theirs.dev(), theirs.ino()) {
        return None;
    }
    let image_base = |maps: &str| -> Option<u64> {
        maps.lines().find_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let ino: u64 = f.get(4)?.parse().ok()?;
            if ino != ours.ino() || *f.get(2)? != "00000000" {
                return None;
            }
            u64::from_str_radix(f.first()?.split('-').next()?, 16).ok()
        })
    };
    let our_base = image_base(&std::fs::read_to_string("/proc/self/maps").ok()?)?;
    let their_base = image_base(&std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?)?;
    let at = their_base.checked_add((PEER.as_ptr() as u64).checked_sub(our_base)?)?;
    let mut table = [0u64; PEER_LEN];
    let local = libc::iovec { iov_base: table.as_mut_ptr().cast(), iov_len: std::mem::size_of_val(&table) };
    let remote = libc::iovec { iov_base: at as *mut libc::c_void, iov_len: std::mem::size_of_val(&table) };
    // SAFETY: one local buffer of its size; the remote side is the host kernel's to check.
    let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
    if usize::try_from(n).ok()? != std::mem::size_of_val(&table) || table[0] != PEER_MAGIC {
        return None;
    }
    let count = usize::try_from(table[1]).ok()?.min(PEER_WINDOWS);
    Some((0..count).map(|i| (table[2 + 3 * i], table[3 + 3 * i], table[4 + 3 * i])).collect())
}

/// Splits guest ranges into host ranges through `windows`, stopping at the first byte
/// outside them; the `bool` says whether it stopped early.
fn translate(ranges: &[(u64, u64)], windows: &[(u64, u64, u64)]) -> (Vec<libc::iovec>, bool) {
    let mut out = Vec::new();
    for &(base, len) in ranges {
        let mut cur = base;
        let end = base.saturating_add(len);
        while cur < end {
            let Some(&(g, l, h)) = windows.iter().find(|w| cur >= w.0 && cur - w.0 < w.1) else {
                return (out, true);
            };
            let n = end.min(g + l) - cur;
            out.push(libc::iovec { iov_base: (h + (cur - g)) as *mut libc::c_void, iov_len: size(n) });
            cur += n;
        }
    }
    (out, false)
}

/// The guest's own ranges as host ranges, as far as the guest may `need` them (a page it
/// may not touch ends the list); the `bool` says whether it ended early.
fn own_host(t: &mut Task, ranges: &[(u64, u64)], need: Prot) -> (Vec<libc::iovec>, bool) {
    let mut out = Vec::new();
    for &(base, len) in ranges {
        let mut cur = base;
        let end = base.saturating_add(len);
        while cur < end {
            let n = (end - cur).min(PAGE_SIZE - cur % PAGE_SIZE);
            let p = if need.contains(Prot::WRITE) {
                t.buf_out(GuestAddr::new(cur), n)
            } else {
                t.buf_in(GuestAddr::new(cur), n).map(<*const u8>::cast_mut)
            };
            let Ok(p) = p else { return (out, true) };
            out.push(libc::iovec { iov_base: p.cast(), iov_len: size(n) });
            cur += n;
        }
    }
    (out, false)
}

/// Copies between two lists of host ranges, in order, until either ends; the bytes moved.
fn copy_ranges(from: &[libc::iovec], to: &[libc::iovec]) -> u64 {
    let (mut i, mut j, mut fo, mut to_off, mut moved) = (0, 0, 0usize, 0usize, 0u64);
    while i < from.len() && j < to.len() {
        let n = (from[i].iov_len - fo).min(to[j].iov_len - to_off);
        // SAFETY: both ranges are host memory of guest mappings checked for this access.
        unsafe {
            std::ptr::copy(from[i].iov_base.cast::<u8>().add(fo), to[j].iov_base.cast::<u8>().add(to_off), n);
        }
        moved += n as u64;
        fo += n;
        to_off += n;
        if fo == from[i].iov_len {
            i += 1;
            fo = 0;
        }
        if to_off == to[j].iov_len {
            j += 1;
            to_off = 0;
        }
    }
    moved
}

/// `process_vm_readv(pid_t pid, const struct iovec *local_iov, unsigned long liovcnt, const
/// struct iovec *remote_iov, unsigned long riovcnt, unsigned long flags)`: bytes read.
/// Errors: `EINVAL` (flags, counts, lengths), `EFAULT`, `ESRCH`, `EPERM`, `ENOMEM`.
pub fn process_vm_readv(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    vm_rw(cpu, a, false)
}

/// `process_vm_writev(…)`: as [`process_vm_readv`], writing the other process's memory.
pub fn process_vm_writev(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    vm_rw(cpu, a, true)
}

fn clamp(ranges: &mut [(u64, u64)]) -> u64 {
    let mut total = 0u64;
    for r in ranges.iter_mut() {
        r.1 = r.1.min(MAX_RW_COUNT - total);
        total += r.1;
    }
    total
}

fn vm_rw(cpu: &mut Cpu<'_>, a: &SyscallArgs, write: bool) -> SysResult {
    if a.ulong(5) != 0 {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data_mut();
    let mut local = iovecs(t, a.ptr(1), a.ulong(2))?;
    if clamp(&mut local) == 0 {
        return Ok(0);
    }
    let remote = iovecs(t, a.ptr(3), a.ulong(4))?;
    if remote.iter().all(|r| r.1 == 0) {
        return Ok(0);
    }
    let pid = a.int(0);
    // The local side: the guest reads into it (readv) or from it (writev).
    let local_need = if write { Prot::READ } else { Prot::WRITE };
    let (lv, l_short) = own_host(t, &local, local_need);
    if is_self(pid) {
        let remote_need = if write { Prot::WRITE } else { Prot::READ };
        let (rv, r_short) = own_host(t, &remote, remote_need);
        let moved = if write { copy_ranges(&lv, &rv) } else { copy_ranges(&rv, &lv) };
        let lsum: u64 = lv.iter().map(|v| v.iov_len as u64).sum();
        let rsum: u64 = rv.iter().map(|v| v.iov_len as u64).sum();
        // A fault on either side ends the copy; nothing moved is EFAULT.
        if moved == 0 && ((l_short && lsum == moved) || (r_short && rsum == moved)) {
            return Err(Errno::EFAULT);
        }
        return Ok(moved);
    }
    let (rv, r_short) = match peer_windows(pid) {
        Some(w) => translate(&remote, &w),
        None => (
            remote.iter().map(|&(b, l)| libc::iovec { iov_base: b as *mut libc::c_void, iov_len: size(l) }).collect(),
            false,
        ),
    };
    let nr = if write { libc::SYS_process_vm_writev } else { libc::SYS_process_vm_readv };
    // SAFETY: local iovecs cover checked guest buffers; the remote ones are the host kernel's
    // to check in the other process.
    let r = unsafe { libc::syscall(nr, i64::from(pid), lv.as_ptr(), lv.len(), rv.as_ptr(), rv.len(), 0u64) };
    match host_ret(r) {
        Ok(0) if l_short || r_short => Err(Errno::EFAULT),
        other => other,
    }
}

/// The pid a pidfd names (`/proc/self/fdinfo`'s `Pid:`). Errors: `EBADF` (not a pidfd),
/// `ESRCH` (its process is gone).
fn pidfd_pid(fd: i32) -> Result<i32, Errno> {
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).map_err(|_| Errno::EBADF)?;
    let pid = info.lines().find_map(|l| l.strip_prefix("Pid:")).ok_or(Errno::EBADF)?;
    match pid.trim().parse::<i32>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err(Errno::ESRCH),
    }
}

/// `MADV_*` values handed to the host for the guest's own ranges.
const MADV_WILLNEED: u64 = 3;
const MADV_COLD: u64 = 20;
const MADV_PAGEOUT: u64 = 21;
const MADV_COLLAPSE: u64 = 25;

/// `process_madvise(int pidfd, const struct iovec *iovec, size_t vlen, int advice, unsigned
/// int flags)`: the bytes advised. For the guest itself every advice `madvise` takes applies
/// (Linux allows them all on the caller since 6.13); `MADV_COLD`, `MADV_PAGEOUT`,
/// `MADV_WILLNEED` and `MADV_COLLAPSE` go to the host pages behind the ranges, the others
/// are served as `madvise`. Another process gets the host's answer (`EINVAL` for advice
/// other than those four, `EPERM` without `CAP_SYS_NICE`). Errors: `EINVAL`, `EFAULT`,
/// `EBADF`, `ESRCH`, `ENOMEM` (an unmapped range, when nothing was advised before it).
pub fn process_madvise(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.uint(4) != 0 {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data();
    let ranges = iovecs(t, a.ptr(1), a.ulong(2))?;
    let pid = pidfd_pid(a.int(0))?;
    let adv = u64::from(a.uint(3));
    if is_self(pid) {
        let mut done = 0u64;
        for &(base, len) in ranges.iter().filter(|r| r.1 > 0) {
            let r = if matches!(adv, MADV_COLD | MADV_PAGEOUT | MADV_WILLNEED | MADV_COLLAPSE) {
                host_advice(cpu.get_data(), base, len, adv)
            } else {
                super::mm::madvise(cpu, &a.with([base, len, adv, 0, 0, 0]))
            };
            if let Err(e) = r {
                return if done > 0 { Ok(done) } else { Err(e) };
            }
            done += len;
        }
        return Ok(done);
    }
    let rv = match peer_windows(pid) {
        Some(w) => translate(&ranges, &w).0,
        None => {
            ranges.iter().map(|&(b, l)| libc::iovec { iov_base: b as *mut libc::c_void, iov_len: size(l) }).collect()
        }
    };
    // SAFETY: host iovecs naming the other process's memory; the kernel checks them there.
    host_ret(unsafe { libc::syscall(libc::SYS_process_madvise, a.int_arg(0), rv.as_ptr(), rv.len(), adv, 0u64) })
}

/// Advice for the host pages behind the guest range `[base, base+len)`. Errors: `EINVAL`
/// (unaligned), `ENOMEM` (unmapped), the host's.
fn host_advice(t: &Task, base: u64, len: u64, adv: u64) -> Result<u64, Errno> {
    if base % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let len = crate::mm::page_ceil(len).ok_or(Errno::EINVAL)?;
    t.mm.check_mapped(base, len)?;
    let host = t.mm.to_host(base, len).ok_or(Errno::ENOMEM)?;
    let adv = i32::try_from(adv).map_err(|_| Errno::EINVAL)?;
    // SAFETY: host pages of the guest's own mappings.
    host_ret(i64::from(unsafe { libc::madvise(host.cast(), usize::try_from(len).unwrap_or(0), adv) }))
}

/// `process_mrelease(int pidfd, unsigned int flags)`: the host's (it reaps a process being
/// killed; `EINVAL` for a live one or unknown flags, `EBADF`, `ESRCH`).
pub fn process_mrelease(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_process_mrelease, a.int_arg(0), u64::from(a.uint(1))) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translate_stops_outside_the_windows() {
        let w = [(0x1000, 0x2000, 0x7000_0000), (0x10000, 0x1000, 0x9000_0000)];
        let (v, short) = translate(&[(0x1800, 0x1000), (0x10000, 0x10)], &w);
        assert!(!short);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].iov_base as u64, 0x7000_0800);
        assert_eq!(v[1].iov_base as u64, 0x9000_0000);
        let (v, short) = translate(&[(0x2800, 0x1000)], &w);
        assert!(short);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].iov_len, 0x800);
    }

    #[test]
    fn copies_across_uneven_ranges() {
        let src = *b"abcdefgh";
        let mut dst = [0u8; 8];
        let from = [
            libc::iovec { iov_base: src.as_ptr() as *mut _, iov_len: 3 },
            libc::iovec { iov_base: src[3..].as_ptr() as *mut _, iov_len: 5 },
        ];
        let to = [libc::iovec { iov_base: dst.as_mut_ptr().cast(), iov_len: 6 }];
        assert_eq!(copy_ranges(&from, &to), 6);
        assert_eq!(&dst[..6], b"abcdef");
    }
}
