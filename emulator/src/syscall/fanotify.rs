//! fanotify (fanotify(7), fanotify_init(2), fanotify_mark(2); include/uapi/linux/fanotify.h;
//! fs/notify/fanotify/fanotify_user.c): `fanotify_init` and `fanotify_mark`, passed to the
//! host kernel (both need `CAP_SYS_ADMIN` there; the guest gets the host's answer). The
//! `event_f_flags` of `fanotify_init` are open flags in the arch's numbering; marked paths are
//! guest paths (`-L` applies). On 32-bit arches the 64-bit mask of `fanotify_mark` comes in a
//! register pair, as the arch's ABI lays 64-bit arguments out ([`super::compat32::ArgCursor`]).
//!
//! `read` of the fd gives `struct fanotify_event_metadata` records (`event_len`, `vers`,
//! `reserved`, `metadata_len`, `mask`, `fd`, `pid`: fixed widths on every arch), each followed
//! by info records (`struct fanotify_event_info_header` and a file handle with its fsid and
//! name, a pidfd, an error, a range, a mount id); a guest of the other byte order gets them
//! swapped member by member ([`events_to_guest`]), and its `write` of `struct
//! fanotify_response` records (permission decisions) is swapped for the host
//! ([`responses_to_host`]).

use std::sync::atomic::{AtomicBool, Ordering};

use super::compat32::ArgCursor;
use super::path::{host_path_in, Last};
use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs};

/// Set once the process made a fanotify group: only then do `read`/`write` look at what an fd
/// is.
static MADE: AtomicBool = AtomicBool::new(false);

/// `true` once the process made a fanotify descriptor (whose events and responses a guest of
/// the other byte order sees swapped).
pub fn made() -> bool {
    MADE.load(Ordering::Relaxed)
}

/// `fanotify_init(unsigned int flags, unsigned int event_f_flags)`: a new group's fd.
/// `FAN_CLOEXEC`/`FAN_NONBLOCK` are the same on every arch. Errors: the host's (`EPERM`
/// without `CAP_SYS_ADMIN`, `EINVAL`, `EMFILE`, `ENOMEM`).
pub fn fanotify_init(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = (cpu.get_data().arch.info().open_flags_to_host)(u64::from(a.uint(1)));
    MADE.store(true, Ordering::Relaxed);
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_fanotify_init, u64::from(a.uint(0)), i64::from(flags)) })
}

/// `fanotify_mark(int fanotify_fd, unsigned int flags, uint64_t mask, int dirfd, const char
/// *pathname)`; `pathname` may be NULL (the mark is on `dirfd` itself). Errors: `EFAULT`, and
/// the host's (`EBADF`, `EINVAL`, `ENOENT`, `ENOTDIR`, `EXDEV`, `ENOSPC`).
pub fn fanotify_mark(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let (fd, flags, mask, dirfd, path) = if t.arch.info().is_64bit() {
        (a.raw(0), a.raw(1), a.raw(2), a.raw(3), a.ptr(4))
    } else {
        let mut c = ArgCursor::new(t.arch, a);
        (c.word(), c.word(), c.pair(), c.word(), crate::mm::GuestAddr::new(c.word()))
    };
    let (fd, dirfd) = (super::fd_arg(fd), super::fd_arg(dirfd));
    // `FAN_MARK_DONT_FOLLOW` (4): a last link is marked itself.
    let last = if flags & 4 != 0 { Last::NoFollow } else { Last::Follow };
    let host = if path.is_null() { None } else { Some(host_path_in(t, crate::abi::int32(dirfd), path, last)?) };
    let p = host.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
    // SAFETY: a NUL-terminated path (or NULL) and integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_fanotify_mark, fd, flags & 0xffff_ffff, mask, dirfd, p) })
}

/// `true` if `fd` is a fanotify group (its `/proc/self/fd` link names one).
pub fn is_fanotify_fd(fd: i32) -> bool {
    MADE.load(Ordering::Relaxed)
        && super::selfref::fd_kind(fd).is_some_and(|l| l.as_os_str().as_encoded_bytes() == b"anon_inode:[fanotify]")
}

/// Size of `struct fanotify_event_metadata`.
const METADATA: usize = 24;

/// Reverses the bytes of each member of `widths`, laid one after the other from `at`, as far
/// as `buf` holds them.
fn swap_members(buf: &mut [u8], mut at: usize, widths: &[usize]) {
    for &w in widths {
        if at + w > buf.len() {
            return;
        }
        buf[at..at + w].reverse();
        at += w;
    }
}

/// Puts the events the host kernel wrote into `buf` (whole events, host order) into the other
/// byte order: each metadata record, then its info records by type (`FAN_EVENT_INFO_TYPE_*`).
pub fn events_to_guest(buf: &mut [u8]) {
    let mut at = 0;
    while at + METADATA <= buf.len() {
        let len = u32::from_ne_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]) as usize;
        let meta = usize::from(u16::from_ne_bytes([buf[at + 6], buf[at + 7]]));
        if len < METADATA || at + len > buf.len() {
            return;
        }
        // event_len; vers, reserved; metadata_len; mask; fd; pid.
        swap_members(buf, at, &[4, 1, 1, 2, 8, 4, 4]);
        let mut info = at + meta.max(METADATA);
        while info + 4 <= at + len {
            let ty = buf[info];
            let ilen = usize::from(u16::from_ne_bytes([buf[info + 2], buf[info + 3]]));
            if ilen < 4 || info + ilen > at + len {
                break;
            }
            let rec = &mut buf[info..info + ilen];
            swap_members(rec, 2, &[2]);
            match ty {
                // FID, DFID_NAME, DFID, OLD_DFID_NAME, NEW_DFID_NAME: fsid (two ints), then a
                // struct file_handle (handle_bytes, handle_type, then its bytes and a name),
                // whose CPU-order words are converted as name_to_handle_at's are.
                1 | 2 | 3 | 6 | 7 | 8 => {
                    if let (Some(b), Some(t)) = (rec.get(12..16), rec.get(16..20)) {
                        let bytes = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as usize;
                        let hty = u32::from_ne_bytes([t[0], t[1], t[2], t[3]]);
                        let end = rec.len().min(20 + bytes);
                        if let Some(body) = rec.get_mut(20..end) {
                            super::fhandle::swap_body(hty, body);
                        }
                    }
                    swap_members(rec, 4, &[4, 4, 4, 4]);
                }
                // PIDFD: the pidfd.
                4 => swap_members(rec, 4, &[4]),
                // ERROR: error, error_count.
                5 => swap_members(rec, 4, &[4, 4]),
                // RANGE: pad, offset, count.
                10 => swap_members(rec, 4, &[4, 8, 8]),
                // MNT: the mount id.
                11 => swap_members(rec, 4, &[8]),
                _ => {}
            }
            info += ilen;
        }
        at += len;
    }
}

/// Puts the `struct fanotify_response` records (`fd`, `response`) a guest of the other byte
/// order wrote into the host's order.
pub fn responses_to_host(buf: &mut [u8]) {
    for w in buf.chunks_exact_mut(4) {
        w.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_metadata_and_a_name_record() {
        let mut buf = Vec::new();
        let info_len: u16 = 4 + 8 + 8 + 4; // header, fsid, handle header, 4 handle bytes
        buf.extend((24 + u32::from(info_len)).to_ne_bytes());
        buf.extend([3u8, 0]);
        buf.extend(24u16.to_ne_bytes());
        buf.extend(0x100u64.to_ne_bytes());
        buf.extend((-1i32).to_ne_bytes());
        buf.extend(42i32.to_ne_bytes());
        buf.extend([2u8, 0]);
        buf.extend(info_len.to_ne_bytes());
        buf.extend(1i32.to_ne_bytes());
        buf.extend(2i32.to_ne_bytes());
        buf.extend(4u32.to_ne_bytes());
        buf.extend(1i32.to_ne_bytes());
        buf.extend(*b"ab\0\0");
        events_to_guest(&mut buf);
        assert_eq!(&buf[0..4], &(24 + u32::from(info_len)).to_be_bytes());
        assert_eq!(buf[4], 3);
        assert_eq!(&buf[8..16], &0x100u64.to_be_bytes());
        assert_eq!(&buf[20..24], &42i32.to_be_bytes());
        assert_eq!(&buf[26..28], &info_len.to_be_bytes());
        assert_eq!(&buf[36..40], &4u32.to_be_bytes());
        // FILEID_INO32_GEN (type 1): its 32-bit inode word in the guest's order, as
        // name_to_handle_at gives it (`super::super::fhandle`).
        assert_eq!(&buf[44..48], b"\0\0ba");
    }
}
