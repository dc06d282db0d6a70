//! The process's security-module attributes: `lsm_get_self_attr` and `lsm_set_self_attr`,
//! passed to the host.
//!
//! The guest's process is endgate's host process, so its attributes (an SELinux context, an
//! AppArmor profile) are the host's answer; a host whose modules keep no such attribute
//! answers `EOPNOTSUPP`, as natively. The records are `struct lsm_ctx { __u64 id, flags, len,
//! ctx_len; __u8 ctx[]; }`, laid end to end by `len` (include/uapi/linux/lsm.h): the same on
//! every arch but for byte order, so a guest of the other byte order (s390x) gets the four
//! members of each record swapped; the size is a `__u32` (lsm_get_self_attr(2)).

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{Endian, PAGE_SIZE};

/// The host's numbers of the two calls (the `libc` crate has none yet): 459 and 460 in the
/// table every host arch endgate builds for shares since Linux 6.8.
const SYS_LSM_GET_SELF_ATTR: libc::c_long = 459;
const SYS_LSM_SET_SELF_ATTR: libc::c_long = 460;

/// `LSM_FLAG_SINGLE`: the caller names the one module it asks in `ctx->id`.
const LSM_FLAG_SINGLE: u64 = 1;
/// The largest buffer endgate hands on (64 pages; the kernel's attributes are far smaller).
const MAX_SIZE: usize = 64 * 4096;
/// `sizeof(struct lsm_ctx)` without the context bytes.
const CTX_HEADER: usize = 32;

/// Swaps the four `__u64` members of each record in `buf` (the first `len` bytes); `to_host`
/// says which byte order `len` is read in.
fn swap_records(buf: &mut [u8], to_host: bool) {
    let mut at = 0;
    while at + CTX_HEADER <= buf.len() {
        let len_at = at + 16;
        let mut len_bytes = [0u8; 8];
        len_bytes.copy_from_slice(&buf[len_at..len_at + 8]);
        let len = if to_host { u64::from_be_bytes(len_bytes) } else { u64::from_le_bytes(len_bytes) };
        for m in 0..4 {
            buf[at + 8 * m..at + 8 * m + 8].reverse();
        }
        match usize::try_from(len) {
            Ok(l) if l >= CTX_HEADER => at += l,
            _ => break,
        }
    }
}

/// `lsm_get_self_attr(unsigned int attr, struct lsm_ctx *ctx, __u32 *size, __u32 flags)`:
/// returns the number of records. Errors: the host's (`EOPNOTSUPP`, `E2BIG` with the size
/// needed written back, `EINVAL`), `EFAULT`.
pub fn lsm_get_self_attr(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let big = t.mm.endian() == Endian::Big;
    let mut size: u32 = if a.ptr(2).is_null() { 0 } else { t.mm.read_u32(a.ptr(2))? };
    let len = usize::try_from(size).unwrap_or(0).min(MAX_SIZE);
    let mut buf = if a.ptr(1).is_null() { Vec::new() } else { vec![0u8; len] };
    if u64::from(a.uint(3)) & LSM_FLAG_SINGLE != 0 && buf.len() >= 8 {
        // The module asked for is an input: the first record's id.
        let id = t.mm.read_u64(a.ptr(1))?;
        buf[..8].copy_from_slice(&id.to_le_bytes());
    }
    let ctx = if a.ptr(1).is_null() { std::ptr::null_mut() } else { buf.as_mut_ptr() };
    let size_ptr = if a.ptr(2).is_null() { std::ptr::null_mut() } else { &mut size as *mut u32 };
    // SAFETY: a buffer of `size` bytes (or NULL), a local size word (or NULL).
    let r = host_ret(unsafe {
        libc::syscall(SYS_LSM_GET_SELF_ATTR, u64::from(a.uint(0)), ctx, size_ptr, u64::from(a.uint(3)))
    });
    if !a.ptr(2).is_null() && matches!(r, Ok(_) | Err(Errno::E2BIG)) {
        t.mm.write_u32(a.ptr(2), size)?;
    }
    let n = r?;
    if !a.ptr(1).is_null() {
        let used = usize::try_from(size).unwrap_or(0).min(buf.len());
        if big {
            swap_records(&mut buf[..used], false);
        }
        t.mm.write_bytes(a.ptr(1), &buf[..used])?;
    }
    Ok(n)
}

/// `lsm_set_self_attr(unsigned int attr, struct lsm_ctx *ctx, __u32 size, __u32 flags)`.
/// Errors: the host's (`EOPNOTSUPP`, `EINVAL`, `EPERM`), `EFAULT`, `E2BIG` above 64 pages.
pub fn lsm_set_self_attr(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let size = a.uint(2);
    if u64::from(size) > 64 * PAGE_SIZE {
        return Err(Errno::E2BIG);
    }
    let mut buf = t.mm.read_vec(a.ptr(1), size as usize)?;
    if t.mm.endian() == Endian::Big {
        swap_records(&mut buf, true);
    }
    // SAFETY: a buffer of `size` bytes.
    host_ret(unsafe {
        libc::syscall(SYS_LSM_SET_SELF_ATTR, u64::from(a.uint(0)), buf.as_ptr(), size, u64::from(a.uint(3)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_swap_member_by_member_and_walk_by_len() {
        // Two big-endian records of 40 bytes (8 context bytes each).
        let mut buf = Vec::new();
        for id in [101u64, 104] {
            for v in [id, 0, 40, 8] {
                buf.extend_from_slice(&v.to_be_bytes());
            }
            buf.extend_from_slice(b"ctx\0\0\0\0\0");
        }
        swap_records(&mut buf, true);
        assert_eq!(&buf[..8], &101u64.to_le_bytes());
        assert_eq!(&buf[40..48], &104u64.to_le_bytes());
        assert_eq!(&buf[32..35], b"ctx");
    }
}
