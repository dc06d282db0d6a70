//! Capabilities: `capget`, `capset` (capget(2); kernel/capability.c), passed to the host
//! kernel, which owns the process's capability sets.
//!
//! `struct __user_cap_header_struct { __u32 version; int pid; }` and
//! `struct __user_cap_data_struct { __u32 effective, permitted, inheritable; }`
//! (include/uapi/linux/capability.h) are the same on every arch but for byte order. Version 1
//! (`0x19980330`) takes one data struct, versions 2 and 3 (`0x20071026`, `0x20080522`) two. An
//! unknown version makes the kernel write its preferred one into the header and fail with
//! `EINVAL` (or succeed, for `capget` with a NULL data pointer: the way libcap probes).

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs};

const VERSION_1: u32 = 0x1998_0330;

/// Data structs a header's version takes (1 for version 1 and unknown ones, where the kernel
/// copies nothing, 2 otherwise).
fn data_count(version: u32) -> usize {
    if version == VERSION_1 {
        1
    } else {
        2
    }
}

/// `capget(cap_user_header_t hdrp, cap_user_data_t datap)`. Errors: `EFAULT`, and the host's
/// `EINVAL` (bad version, written back), `ESRCH` (no such pid).
pub fn capget(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let mut hdr = [t.mm.read_u32(a.ptr(0))?, t.mm.read_u32(a.ptr(0) + 4)?];
    t.mm.check_writable(a.ptr(0), 8)?;
    let mut data = [0u32; 6];
    let datap = if a.raw(1) == 0 { std::ptr::null_mut() } else { data.as_mut_ptr() };
    // SAFETY: a local header and room for two data structs (the most any version copies).
    let r = unsafe { libc::syscall(libc::SYS_capget, hdr.as_mut_ptr(), datap) };
    let e = std::io::Error::last_os_error();
    // The kernel may have written its own version into the header (bad version).
    t.mm.write_u32(a.ptr(0), hdr[0])?;
    if r < 0 {
        return Err(Errno::new(e.raw_os_error().unwrap_or(libc::EINVAL)));
    }
    if a.raw(1) != 0 {
        for (i, w) in data.iter().take(3 * data_count(hdr[0])).enumerate() {
            t.mm.write_u32(a.ptr(1) + 4 * i as u64, *w)?;
        }
    }
    Ok(0)
}

/// `capset(cap_user_header_t hdrp, const cap_user_data_t datap)`. Errors: `EFAULT`, and the
/// host's `EINVAL`, `EPERM`.
pub fn capset(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let mut hdr = [t.mm.read_u32(a.ptr(0))?, t.mm.read_u32(a.ptr(0) + 4)?];
    let mut data = [0u32; 6];
    for (i, w) in data.iter_mut().take(3 * data_count(hdr[0])).enumerate() {
        *w = t.mm.read_u32(a.ptr(1) + 4 * i as u64)?;
    }
    // SAFETY: a local header and two data structs.
    let r = host_ret(unsafe { libc::syscall(libc::SYS_capset, hdr.as_mut_ptr(), data.as_ptr()) });
    if r.is_err() {
        let _ = t.mm.write_u32(a.ptr(0), hdr[0]);
    }
    r
}

/// `true` if the calling thread has capability `cap` (`CAP_*` number) in its effective set.
pub fn has_effective(cap: u32) -> bool {
    // Version 3 (`_LINUX_CAPABILITY_VERSION_3`): two data structs, capabilities 0-31 and 32-63.
    let mut header = [0x2008_0522u32, 0];
    let mut data = [[0u32; 3]; 2];
    // SAFETY: a header and two data structs of the kernel's layout, all local.
    if unsafe { libc::syscall(libc::SYS_capget, header.as_mut_ptr(), data.as_mut_ptr()) } != 0 {
        return false;
    }
    let (word, bit) = (crate::abi::u64_to_usize(u64::from(cap / 32)), cap % 32);
    data.get(word).is_some_and(|d| d[0] & (1 << bit) != 0)
}
