//! inotify (inotify(7); fs/notify/inotify/inotify_user.c): `inotify_init1`, `inotify_init`,
//! `inotify_add_watch`, `inotify_rm_watch`, passed to the host kernel. Watched paths are guest
//! paths (`-L` applies). `IN_NONBLOCK` and `IN_CLOEXEC` are the arch's `O_NONBLOCK` and
//! `O_CLOEXEC`.
//!
//! Events come from `read` of the fd: `struct inotify_event { int wd; __u32 mask, cookie,
//! len; char name[len]; }` (include/uapi/linux/inotify.h) in the host's byte order; for a guest
//! of the other order [`swap_events`] swaps the four header words of each event in place.

use super::path::{host_path_in, Last};
use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs};

/// Set once the process made an inotify instance: only then does `read` look at what an fd
/// is.
static MADE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `true` once the process made an inotify descriptor (whose events a guest of the other byte
/// order reads swapped).
pub fn made() -> bool {
    MADE.load(std::sync::atomic::Ordering::Relaxed)
}

/// `inotify_init1(int flags)`. Errors: the host's `EINVAL` (unknown flags), `EMFILE`.
pub fn inotify_init1(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    MADE.store(true, std::sync::atomic::Ordering::Relaxed);
    let flags = (cpu.get_data().arch.info().open_flags_to_host)(a.raw(0));
    // SAFETY: an integer argument.
    host_ret(unsafe { libc::syscall(libc::SYS_inotify_init1, flags) })
}

/// `inotify_init(void)`.
pub fn inotify_init(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    inotify_init1(cpu, &a.with([0; 6]))
}

/// `inotify_add_watch(int fd, const char *pathname, uint32_t mask)`: the watch descriptor.
/// Errors: `EFAULT`, and the host's (`EBADF`, `EINVAL`, `ENOENT`, `EACCES`, `ENOSPC`).
pub fn inotify_add_watch(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // `IN_DONT_FOLLOW`: a last link is watched itself.
    let last = if a.uint(2) & libc::IN_DONT_FOLLOW != 0 { Last::NoFollow } else { Last::Follow };
    let path = host_path_in(cpu.get_data(), libc::AT_FDCWD, a.ptr(1), last)?;
    // SAFETY: a NUL-terminated path and integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_inotify_add_watch, a.int(0), path.as_ptr(), a.uint(2)) })
}

/// `inotify_rm_watch(int fd, int wd)`. Errors: the host's `EBADF`, `EINVAL`.
pub fn inotify_rm_watch(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_inotify_rm_watch, a.int(0), a.int(1)) })
}

/// Size of `struct inotify_event` without its name, in bytes.
const EVENT_HEADER: usize = 16;

/// Swaps the byte order of the header words (`wd`, `mask`, `cookie`, `len`) of every event in
/// `buf`, which holds whole events as the host kernel wrote them (`len` read before the swap).
pub fn swap_events(buf: &mut [u8]) {
    let mut at = 0;
    while at + EVENT_HEADER <= buf.len() {
        let len = u32::from_ne_bytes([buf[at + 12], buf[at + 13], buf[at + 14], buf[at + 15]]) as usize;
        for w in buf[at..at + EVENT_HEADER].chunks_exact_mut(4) {
            w.reverse();
        }
        at += EVENT_HEADER + len;
    }
}

/// `true` if `fd` is an inotify instance (its `/proc/self/fd` link names one).
pub fn is_inotify_fd(fd: i32) -> bool {
    MADE.load(std::sync::atomic::Ordering::Relaxed)
        && super::selfref::fd_kind(fd).is_some_and(|l| l.as_os_str().as_encoded_bytes() == b"anon_inode:inotify")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_each_event_header() {
        let mut buf = Vec::new();
        for (wd, name) in [(1u32, &b"ab\0\0"[..]), (2, &b""[..])] {
            buf.extend(wd.to_ne_bytes());
            buf.extend(0x100u32.to_ne_bytes());
            buf.extend(0u32.to_ne_bytes());
            buf.extend(u32::try_from(name.len()).unwrap().to_ne_bytes());
            buf.extend(name);
        }
        swap_events(&mut buf);
        assert_eq!(&buf[0..4], &1u32.to_be_bytes());
        assert_eq!(&buf[12..16], &4u32.to_be_bytes());
        assert_eq!(&buf[20..24], &2u32.to_be_bytes());
        assert_eq!(&buf[28..32], &0u32.to_be_bytes());
    }
}
